//! The session-resume cache: which cursor-agent chat continues which conversation.

use lru::LruCache;

use super::key::Digest;

use super::clock::{Clock, MonotonicClock};
use super::key::{
    is_title_request, real_user_messages, sequence_digest, session_key, tool_fingerprint,
    ConversationRef,
};
use super::options::ResumeOptions;
use super::plan::{Failure, RecordToken, ResumePlan, ResumeRequest};
use crate::core::attachments::{place_for_run, Scope};
use crate::core::cursor_id::is_valid_chat_id;
use crate::core::failure::resume::is_resume_failure;
use crate::core::prompt::{build_full_prompt, build_incremental_prompt, Role};

struct Entry {
    chat_id: String,
    user_sequence: Digest,
    fingerprint: Digest,
    recorded_at: u64,
}

/// Maps a conversation (workspace + model + OpenCode session id or anchor) to the cursor-agent
/// chat that holds it. Process memory only.
pub struct SessionResumeManager {
    enabled: bool,
    ttl_ms: u64,
    max_entries: usize,
    /// Unbounded as a type, capped by `record`: `LruCache::new(n)` reserves room for `n`
    /// entries up front, which for a large `n` aborts the host on allocation.
    entries: LruCache<String, Entry>,
    clock: Box<dyn Clock>,
}

impl SessionResumeManager {
    pub fn new(options: ResumeOptions) -> Self {
        Self::with_clock(options, Box::new(MonotonicClock::new()))
    }

    pub fn with_clock(options: ResumeOptions, clock: Box<dyn Clock>) -> Self {
        Self {
            enabled: options.enabled,
            ttl_ms: options.ttl_ms,
            max_entries: options.max_entries.get(),
            entries: LruCache::unbounded(),
            clock,
        }
    }

    fn fresh(
        request: &ResumeRequest<'_>,
        session_key: Option<String>,
        record_token: Option<String>,
    ) -> ResumePlan {
        let (conversation, attachments) = place_for_run(
            &request.conversation,
            Scope::Conversation,
            request.local_files,
        );
        ResumePlan {
            session_key,
            resume_chat_id: None,
            prompt: build_full_prompt(&conversation, request.tools_in_prompt),
            incremental: false,
            record_token,
            attachments,
        }
    }

    fn is_expired(&self, entry: &Entry, now: u64) -> bool {
        now.saturating_sub(entry.recorded_at) >= self.ttl_ms
    }

    /// The key and record token of `request`, or `None` when it gets neither: resume disabled,
    /// a title request, or no conversation anchor.
    fn identify(&self, request: &ResumeRequest<'_>) -> Option<(String, RecordToken, Digest)> {
        if !self.enabled || is_title_request(&request.conversation) {
            return None;
        }
        let messages = &request.conversation.messages;
        let users = real_user_messages(messages);
        let conversation = match (request.conversation_id, users.first()) {
            (Some(id), _) => ConversationRef::SessionId(id),
            (None, Some((_, anchor))) => ConversationRef::Anchor(anchor),
            (None, None) => return None,
        };
        let key = session_key(request.workspace, request.model, conversation);
        let token = RecordToken {
            user_sequence: sequence_digest(&users),
            fingerprint: tool_fingerprint(&request.conversation.tools),
        };
        let newest_is_last = users
            .last()
            .is_some_and(|(index, _)| index + 1 == messages.len());
        let known_sequence = if newest_is_last {
            sequence_digest(&users[..users.len() - 1])
        } else {
            token.user_sequence
        };
        Some((key, token, known_sequence))
    }

    /// A fresh chat with the full prompt that `record` can still store: for a rerun after the
    /// resumed chat turned out to be gone.
    pub fn fresh_plan(&self, request: &ResumeRequest<'_>) -> ResumePlan {
        match self.identify(request) {
            Some((key, token, _)) => Self::fresh(request, Some(key), Some(token.encode())),
            None => Self::fresh(request, None, None),
        }
    }

    /// Decides how to run `request`. Disabled, a title request, or no conversation anchor: a
    /// fresh plan without a key. Otherwise a resumed plan when the cached chat matches and the
    /// new messages can be sent alone, else a fresh plan that `record` can store.
    pub fn plan(&mut self, request: &ResumeRequest<'_>) -> ResumePlan {
        let Some((key, token, known_sequence)) = self.identify(request) else {
            return Self::fresh(request, None, None);
        };
        let now = self.clock.now_ms();
        let verdict = match self.entries.peek(&key) {
            None => Lookup::Miss,
            Some(entry) if self.is_expired(entry, now) => Lookup::Evict("expired"),
            Some(entry) if entry.fingerprint != token.fingerprint => {
                Lookup::Evict("tool definitions changed")
            }
            Some(entry) if entry.user_sequence != known_sequence => Lookup::Miss,
            Some(entry) => Lookup::Hit(entry.chat_id.clone()),
        };
        let token_text = Some(token.encode());
        match verdict {
            Lookup::Hit(chat_id) => {
                // A hit refreshes the LRU order only; the lifetime still counts from `record`.
                self.entries.promote(&key);
                let (conversation, attachments) =
                    place_for_run(&request.conversation, Scope::Newest, request.local_files);
                match build_incremental_prompt(&conversation) {
                    Some(prompt) => ResumePlan {
                        session_key: Some(key),
                        resume_chat_id: Some(chat_id),
                        prompt,
                        incremental: true,
                        record_token: token_text,
                        attachments,
                    },
                    None => {
                        tracing::debug!(
                            "resume: the new messages cannot be sent alone; starting a fresh chat"
                        );
                        Self::fresh(request, Some(key), token_text)
                    }
                }
            }
            Lookup::Evict(reason) => {
                self.entries.pop(&key);
                tracing::info!(reason, "resume: entry evicted");
                Self::fresh(request, Some(key), token_text)
            }
            Lookup::Miss => {
                if request
                    .conversation
                    .messages
                    .iter()
                    .any(|m| m.role == Role::Assistant)
                {
                    tracing::debug!("resume: no matching chat for a conversation with history; starting a fresh chat");
                }
                Self::fresh(request, Some(key), token_text)
            }
        }
    }

    /// Stores `chat_id` as the chat holding the plan's conversation. False when disabled, the
    /// plan has no key, or the id is refused. The newest record for a key wins.
    pub fn record(&mut self, plan: &ResumePlan, chat_id: &str) -> bool {
        if !self.enabled {
            return false;
        }
        if !is_valid_chat_id(chat_id) {
            let shown: String = chat_id.chars().take(80).collect();
            tracing::warn!(chat_id = ?shown, "resume: refused a chat id that is not [A-Za-z0-9][A-Za-z0-9_-]*");
            return false;
        }
        let (Some(key), Some(token)) = (
            &plan.session_key,
            plan.record_token.as_deref().and_then(RecordToken::decode),
        ) else {
            return false;
        };
        let entry = Entry {
            chat_id: chat_id.to_owned(),
            user_sequence: token.user_sequence,
            fingerprint: token.fingerprint,
            recorded_at: self.clock.now_ms(),
        };
        self.entries.put(key.clone(), entry);
        while self.entries.len() > self.max_entries {
            self.entries.pop_lru();
        }
        true
    }

    /// Evicts the plan's chat when the failure says it is gone: `E_RESUME`, or resume-specific
    /// text under `E_AGENT_EXIT` or no code. `E_AUTH`, `E_QUOTA`, `E_NETWORK`, `E_TIMEOUT` and
    /// `E_MODEL` keep it whatever the text says. True when an entry was evicted.
    pub fn report_failure(&mut self, plan: &ResumePlan, failure: &Failure<'_>) -> bool {
        let (Some(key), Some(chat_id)) = (&plan.session_key, &plan.resume_chat_id) else {
            return false;
        };
        if !is_resume_failure(failure.code, failure.message) {
            return false;
        }
        // Only the chat this plan resumed: a newer record for the key stays.
        if self
            .entries
            .peek(key)
            .is_some_and(|e| &e.chat_id == chat_id)
        {
            self.entries.pop(key);
            tracing::info!("resume: entry evicted after a resume-specific failure");
            return true;
        }
        false
    }

    /// Live (unexpired) entries.
    pub fn len(&self) -> usize {
        let now = self.clock.now_ms();
        self.entries
            .iter()
            .filter(|(_, e)| !self.is_expired(e, now))
            .count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn clear(&mut self) {
        self.entries.clear();
    }
}

enum Lookup {
    Hit(String),
    Miss,
    Evict(&'static str),
}

#[cfg(test)]
mod tests;
