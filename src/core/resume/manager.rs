//! The session-resume cache: which cursor-agent chat continues which conversation.

use std::num::NonZeroUsize;
use std::time::Instant;

use lru::LruCache;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::failure::is_resume_specific;
use super::key::{
    hex, is_title_request, parse_hex, real_user_messages, sequence_digest, session_key,
    tool_fingerprint, ConversationRef, Digest,
};
use crate::core::error::CoreError;
use crate::core::prompt::{build_full_prompt, build_incremental_prompt, Conversation};

/// Defaults of [`ResumeOptions`].
pub const DEFAULT_MAX_ENTRIES: usize = 64;
pub const DEFAULT_TTL_MS: u64 = 3_600_000;
/// Longest chat id accepted (Cursor's ids are 36-character UUIDs).
const MAX_CHAT_ID_LEN: usize = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResumeOptions {
    /// Resume at all (from `CURSOR_ACP_SESSION_RESUME`); default false.
    pub enabled: bool,
    /// Entries kept, least recently used evicted first; default 64.
    pub max_entries: NonZeroUsize,
    /// Lifetime of an entry from its `record`, in milliseconds; default one hour.
    pub ttl_ms: u64,
}

impl Default for ResumeOptions {
    fn default() -> Self {
        Self {
            enabled: false,
            max_entries: NonZeroUsize::new(DEFAULT_MAX_ENTRIES).unwrap_or(NonZeroUsize::MIN),
            ttl_ms: DEFAULT_TTL_MS,
        }
    }
}

/// Milliseconds on a monotonic clock; injectable so tests never sleep.
pub trait Clock: Send {
    fn now_ms(&self) -> u64;
}

/// The process's monotonic clock.
pub struct MonotonicClock(Instant);

impl MonotonicClock {
    pub fn new() -> Self {
        Self(Instant::now())
    }
}

impl Default for MonotonicClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for MonotonicClock {
    fn now_ms(&self) -> u64 {
        u64::try_from(self.0.elapsed().as_millis()).unwrap_or(u64::MAX)
    }
}

/// One request to plan: where, which model, the conversation, and OpenCode's session id.
#[derive(Debug, Clone)]
pub struct ResumeRequest<'a> {
    pub workspace: &'a str,
    pub model: &'a str,
    pub conversation: Conversation<'a>,
    pub tools_in_prompt: bool,
    pub conversation_id: Option<&'a str>,
}

impl<'a> ResumeRequest<'a> {
    /// Reads `{workspace, model, messages, tools?, toolsInPrompt?, conversationId?}`.
    pub fn from_json(request: &'a Value) -> Result<Self, CoreError> {
        let conversation = Conversation::from_request(request)?;
        let text = |key: &str| -> Result<Option<&'a str>, CoreError> {
            match request.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.as_str())),
                Some(_) => Err(CoreError::InvalidArg(format!("`{key}` must be a string"))),
            }
        };
        let workspace = text("workspace")?
            .ok_or_else(|| CoreError::InvalidArg("`workspace` is required".into()))?;
        let model =
            text("model")?.ok_or_else(|| CoreError::InvalidArg("`model` is required".into()))?;
        let tools_in_prompt = match request.get("toolsInPrompt") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => {
                return Err(CoreError::InvalidArg(
                    "`toolsInPrompt` must be a boolean".into(),
                ))
            }
        };
        let conversation_id = text("conversationId")?.filter(|id| !id.is_empty());
        Ok(Self {
            workspace,
            model,
            conversation,
            tools_in_prompt,
            conversation_id,
        })
    }
}

/// What to run: resume a chat with an incremental prompt, or start a fresh one with the full
/// prompt. Plain data; `record_token` is opaque state for [`SessionResumeManager::record`].
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ResumePlan {
    pub session_key: Option<String>,
    pub resume_chat_id: Option<String>,
    pub prompt: String,
    pub incremental: bool,
    pub record_token: Option<String>,
}

impl ResumePlan {
    /// Reads a plan back from JSON (e.g. after a round trip through JS).
    pub fn from_json(value: Value) -> Result<Self, CoreError> {
        if !value.is_object() {
            return Err(CoreError::InvalidArg("the plan must be an object".into()));
        }
        serde_json::from_value(value)
            .map_err(|e| CoreError::InvalidArg(format!("not a resume plan: {e}")))
    }
}

/// The state a plan hands to `record`: the user-message sequence and tool fingerprint the chat
/// will hold once this turn ran.
struct RecordToken {
    user_sequence: Digest,
    fingerprint: Digest,
}

impl RecordToken {
    fn encode(&self) -> String {
        format!("{}.{}", hex(&self.user_sequence), hex(&self.fingerprint))
    }

    fn decode(text: &str) -> Option<Self> {
        let (sequence, fingerprint) = text.split_once('.')?;
        Some(Self {
            user_sequence: parse_hex(sequence)?,
            fingerprint: parse_hex(fingerprint)?,
        })
    }
}

/// A failure reported for a plan's run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure<'a> {
    pub code: Option<&'a str>,
    pub message: &'a str,
}

impl<'a> Failure<'a> {
    /// `"text"` or `{code, message}`.
    pub fn from_json(value: &'a Value) -> Result<Self, CoreError> {
        match value {
            Value::String(message) => Ok(Self {
                code: None,
                message,
            }),
            Value::Object(object) => {
                let code = object.get("code").and_then(Value::as_str);
                let message = object.get("message").and_then(Value::as_str).unwrap_or("");
                if code.is_none() && !object.contains_key("message") {
                    return Err(CoreError::InvalidArg(
                        "the error must be a string or {code, message}".into(),
                    ));
                }
                Ok(Self { code, message })
            }
            _ => Err(CoreError::InvalidArg(
                "the error must be a string or {code, message}".into(),
            )),
        }
    }
}

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
    entries: LruCache<String, Entry>,
    clock: Box<dyn Clock>,
}

/// `^[A-Za-z0-9][A-Za-z0-9_-]*$` (no leading dash: `--resume -1` means "the latest chat"), at
/// most 256 characters.
pub fn is_valid_chat_id(id: &str) -> bool {
    let bytes = id.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= MAX_CHAT_ID_LEN
        && bytes[0].is_ascii_alphanumeric()
        && bytes
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

impl SessionResumeManager {
    pub fn new(options: ResumeOptions) -> Self {
        Self::with_clock(options, Box::new(MonotonicClock::new()))
    }

    pub fn with_clock(options: ResumeOptions, clock: Box<dyn Clock>) -> Self {
        Self {
            enabled: options.enabled,
            ttl_ms: options.ttl_ms,
            entries: LruCache::new(options.max_entries),
            clock,
        }
    }

    fn fresh(
        request: &ResumeRequest<'_>,
        session_key: Option<String>,
        record_token: Option<String>,
    ) -> ResumePlan {
        ResumePlan {
            session_key,
            resume_chat_id: None,
            prompt: build_full_prompt(&request.conversation, request.tools_in_prompt),
            incremental: false,
            record_token,
        }
    }

    fn is_expired(&self, entry: &Entry, now: u64) -> bool {
        now.saturating_sub(entry.recorded_at) >= self.ttl_ms
    }

    /// Decides how to run `request`. Disabled, a title request, or no conversation anchor: a
    /// fresh plan without a key. Otherwise a resumed plan when the cached chat matches and the
    /// new messages can be sent alone, else a fresh plan that `record` can store.
    pub fn plan(&mut self, request: &ResumeRequest<'_>) -> ResumePlan {
        if !self.enabled || is_title_request(&request.conversation) {
            return Self::fresh(request, None, None);
        }
        let messages = &request.conversation.messages;
        let users = real_user_messages(messages);
        let conversation = match (request.conversation_id, users.first()) {
            (Some(id), _) => ConversationRef::SessionId(id),
            (None, Some((_, anchor))) => ConversationRef::Anchor(anchor),
            (None, None) => return Self::fresh(request, None, None),
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
                match build_incremental_prompt(&request.conversation) {
                    Some(prompt) => ResumePlan {
                        session_key: Some(key),
                        resume_chat_id: Some(chat_id),
                        prompt,
                        incremental: true,
                        record_token: token_text,
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
                if messages
                    .iter()
                    .any(|m| m.role == crate::core::prompt::Role::Assistant)
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
        true
    }

    /// Evicts the plan's chat when the failure says it is gone (`E_RESUME` or resume-specific
    /// text); transient failures keep it. True when an entry was evicted.
    pub fn report_failure(&mut self, plan: &ResumePlan, failure: &Failure<'_>) -> bool {
        let (Some(key), Some(chat_id)) = (&plan.session_key, &plan.resume_chat_id) else {
            return false;
        };
        let resume_specific =
            failure.code == Some("E_RESUME") || is_resume_specific(failure.message);
        if !resume_specific {
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
