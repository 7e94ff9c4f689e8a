//! The session-resume cache: which cursor-agent chat continues which conversation.

use std::num::NonZeroUsize;
use std::time::Instant;

use lru::LruCache;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::key::{
    hex, is_title_request, parse_hex, real_user_messages, sequence_digest, session_key,
    tool_fingerprint, ConversationRef, Digest,
};
use crate::core::cursor_id::is_valid_chat_id;
use crate::core::error::CoreError;
use crate::core::failure::resume::is_resume_specific;
use crate::core::prompt::{
    build_full_prompt, build_incremental_prompt, Conversation, PromptRequest,
};

/// Defaults of [`ResumeOptions`].
pub const DEFAULT_MAX_ENTRIES: usize = 64;
pub const DEFAULT_TTL_MS: u64 = 3_600_000;

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

impl ResumeOptions {
    /// Merges caller options with the defaults; `maxEntries` and `ttlMs` must be positive.
    pub fn from_parts(
        enabled: Option<bool>,
        max_entries: Option<i64>,
        ttl_ms: Option<i64>,
    ) -> Result<Self, CoreError> {
        let defaults = Self::default();
        let max_entries = match max_entries {
            None => defaults.max_entries,
            Some(n) => usize::try_from(n)
                .ok()
                .and_then(NonZeroUsize::new)
                .ok_or_else(|| {
                    CoreError::InvalidArg(format!(
                        "`maxEntries` must be a positive integer, got {n}"
                    ))
                })?,
        };
        let ttl_ms = match ttl_ms {
            None => defaults.ttl_ms,
            Some(ms) => u64::try_from(ms).ok().filter(|&ms| ms > 0).ok_or_else(|| {
                CoreError::InvalidArg(format!("`ttlMs` must be a positive number, got {ms}"))
            })?,
        };
        Ok(Self {
            enabled: enabled.unwrap_or(defaults.enabled),
            max_entries,
            ttl_ms,
        })
    }
}

impl ResumeOptions {
    /// Reads `{enabled?, maxEntries?, ttlMs?}` (absent or null: the defaults).
    pub fn from_json(options: Option<&Value>) -> Result<Self, CoreError> {
        let object = match options {
            None | Some(Value::Null) => return Ok(Self::default()),
            Some(Value::Object(object)) => object,
            Some(_) => {
                return Err(CoreError::InvalidArg(
                    "the options must be an object".into(),
                ))
            }
        };
        let enabled = match object.get("enabled") {
            None | Some(Value::Null) => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(_) => return Err(CoreError::InvalidArg("`enabled` must be a boolean".into())),
        };
        let integer = |key: &str| -> Result<Option<i64>, CoreError> {
            match object.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(value) => value
                    .as_i64()
                    .or_else(|| {
                        value
                            .as_f64()
                            .filter(|f| f.fract() == 0.0 && f.abs() < 9e15)
                            .map(|f| f as i64)
                    })
                    .map(Some)
                    .ok_or_else(|| {
                        CoreError::InvalidArg(format!("`{key}` must be an integer, got {value}"))
                    }),
            }
        };
        Self::from_parts(enabled, integer("maxEntries")?, integer("ttlMs")?)
    }
}

/// The chat id argument of `record`: a string, or nothing (null) to record.
pub fn chat_id_from_json(value: Option<&Value>) -> Result<Option<&str>, CoreError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(id)) => Ok(Some(id)),
        Some(_) => Err(CoreError::InvalidArg("the chat id must be a string".into())),
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
        let PromptRequest {
            conversation,
            tools_in_prompt,
        } = PromptRequest::from_json(request)?;
        let text = |key: &str| -> Result<Option<&'a str>, CoreError> {
            match request.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.as_str())),
                Some(_) => Err(CoreError::InvalidArg(format!("`{key}` must be a string"))),
            }
        };
        let required = |key: &str| {
            text(key)?.ok_or_else(|| CoreError::InvalidArg(format!("`{key}` is required")))
        };
        let workspace = required("workspace")?;
        let model = required("model")?;
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

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;

    use serde_json::{json, Value};

    use super::*;

    #[derive(Clone, Default)]
    struct FakeClock(Arc<AtomicU64>);

    impl FakeClock {
        fn set(&self, ms: u64) {
            self.0.store(ms, Ordering::SeqCst);
        }
    }

    impl Clock for FakeClock {
        fn now_ms(&self) -> u64 {
            self.0.load(Ordering::SeqCst)
        }
    }

    fn manager(max_entries: usize, ttl_ms: u64) -> (SessionResumeManager, FakeClock) {
        let clock = FakeClock::default();
        let options = ResumeOptions {
            enabled: true,
            max_entries: NonZeroUsize::new(max_entries).expect("non-zero"),
            ttl_ms,
        };
        (
            SessionResumeManager::with_clock(options, Box::new(clock.clone())),
            clock,
        )
    }

    fn enabled() -> SessionResumeManager {
        manager(DEFAULT_MAX_ENTRIES, DEFAULT_TTL_MS).0
    }

    fn read_tool() -> Value {
        json!({"type": "function", "function": {"name": "read", "description": "Read a file",
            "parameters": {"type": "object", "properties": {"filePath": {}}, "required": ["filePath"]}}})
    }

    fn request(messages: Value) -> Value {
        json!({"workspace": "/home/user/project", "model": "cursor-acp/auto", "messages": messages, "tools": [read_tool()]})
    }

    fn plan(m: &mut SessionResumeManager, request: &Value) -> ResumePlan {
        m.plan(&ResumeRequest::from_json(request).expect("valid request"))
    }

    fn turn1() -> Value {
        request(
            json!([{"role": "system", "content": "You are opencode."}, {"role": "user", "content": "read hello.txt"}]),
        )
    }

    fn turn2() -> Value {
        request(json!([
            {"role": "system", "content": "You are opencode."},
            {"role": "user", "content": "read hello.txt"},
            {"role": "assistant", "content": "It says hi."},
            {"role": "user", "content": "  now summarise it  "},
        ]))
    }

    #[test]
    fn disabled_always_plans_fresh_and_never_records() {
        let mut m = SessionResumeManager::new(ResumeOptions::default());
        let p = plan(&mut m, &turn1());
        assert_eq!(p.session_key, None);
        assert_eq!(p.resume_chat_id, None);
        assert!(!p.incremental);
        assert_eq!(
            p.prompt,
            "SYSTEM: You are opencode.\n\nUSER: read hello.txt"
        );
        assert!(!m.record(&p, "chat-1"));
        assert_eq!(m.len(), 0);
    }

    #[test]
    fn conversation_resumes_with_only_the_new_messages() {
        let mut m = enabled();
        let first = plan(&mut m, &turn1());
        assert!(first.session_key.is_some());
        assert_eq!(first.resume_chat_id, None);
        assert_eq!(
            first.prompt,
            "SYSTEM: You are opencode.\n\nUSER: read hello.txt"
        );
        assert!(m.record(&first, "chat-1"));
        assert_eq!(m.len(), 1);

        let second = plan(&mut m, &turn2());
        assert_eq!(second.session_key, first.session_key);
        assert_eq!(second.resume_chat_id.as_deref(), Some("chat-1"));
        assert!(second.incremental);
        assert_eq!(second.prompt, "now summarise it");
        assert!(m.record(&second, "chat-1"));

        let tool_turn = request(json!([
            {"role": "system", "content": "You are opencode."},
            {"role": "user", "content": "read hello.txt"},
            {"role": "assistant", "content": "It says hi."},
            {"role": "user", "content": "  now summarise it  "},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "read", "arguments": "{\"filePath\":\"hello.txt\"}"}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "hi"},
        ]));
        let third = plan(&mut m, &tool_turn);
        assert_eq!(third.resume_chat_id.as_deref(), Some("chat-1"));
        assert!(third.incremental);
        assert_eq!(
            third.prompt,
            "ASSISTANT: tool_call(id: call_1, name: read, args: {\"filePath\":\"hello.txt\"})\n\n\
             TOOL_RESULT (name: read, call_id: call_1): hi\n\n\
             The above tool calls have been executed. Continue your response based on these results."
        );
    }

    #[test]
    fn a_branch_with_another_second_message_misses_and_keeps_the_entry() {
        let mut m = enabled();
        let first = plan(&mut m, &turn1());
        m.record(&first, "chat-1");
        let second = plan(&mut m, &turn2());
        m.record(&second, "chat-1");

        let branch = request(json!([
            {"role": "system", "content": "You are opencode."},
            {"role": "user", "content": "read hello.txt"},
            {"role": "assistant", "content": "It says hi."},
            {"role": "user", "content": "translate it instead"},
            {"role": "assistant", "content": "Hallo."},
            {"role": "user", "content": "thanks"},
        ]));
        let p = plan(&mut m, &branch);
        assert_eq!(p.resume_chat_id, None);
        assert!(!p.incremental);
        assert!(p
            .prompt
            .starts_with("SYSTEM: You are opencode.\n\nUSER: read hello.txt"));
        assert_eq!(m.len(), 1, "a sequence mismatch keeps the entry");

        // The original line still resumes.
        let continued = request(json!([
            {"role": "system", "content": "You are opencode."},
            {"role": "user", "content": "read hello.txt"},
            {"role": "assistant", "content": "It says hi."},
            {"role": "user", "content": "  now summarise it  "},
            {"role": "assistant", "content": "Summary."},
            {"role": "user", "content": "shorter"},
        ]));
        assert_eq!(
            plan(&mut m, &continued).resume_chat_id.as_deref(),
            Some("chat-1")
        );

        // Two branches under one key: the newest record wins.
        assert!(m.record(&p, "chat-2"));
        let branch_next = request(json!([
            {"role": "system", "content": "You are opencode."},
            {"role": "user", "content": "read hello.txt"},
            {"role": "assistant", "content": "It says hi."},
            {"role": "user", "content": "translate it instead"},
            {"role": "assistant", "content": "Hallo."},
            {"role": "user", "content": "thanks"},
            {"role": "assistant", "content": "Bitte."},
            {"role": "user", "content": "bye"},
        ]));
        assert_eq!(
            plan(&mut m, &branch_next).resume_chat_id.as_deref(),
            Some("chat-2")
        );
        assert_eq!(plan(&mut m, &continued).resume_chat_id, None);
    }

    #[test]
    fn a_tool_list_change_evicts_including_none_to_some() {
        let mut m = enabled();
        let first = plan(&mut m, &turn1());
        m.record(&first, "chat-1");
        let mut changed = turn2();
        changed["tools"] = json!([read_tool(), {"type": "function", "name": "task",
            "description": "Launch an agent. Agents: general", "inputSchema": {"type": "object"}}]);
        let p = plan(&mut m, &changed);
        assert_eq!(p.resume_chat_id, None);
        assert_eq!(m.len(), 0);

        let mut no_tools = turn1();
        no_tools["tools"] = json!([]);
        let p = plan(&mut m, &no_tools);
        m.record(&p, "chat-3");
        let p = plan(&mut m, &turn2());
        assert_eq!(p.resume_chat_id, None);
        assert_eq!(m.len(), 0);
    }

    #[test]
    fn ttl_counts_from_record_and_a_hit_does_not_extend_it() {
        let (mut m, clock) = manager(DEFAULT_MAX_ENTRIES, 1_000);
        clock.set(5_000);
        let first = plan(&mut m, &turn1());
        m.record(&first, "chat-1");
        clock.set(5_500);
        assert_eq!(
            plan(&mut m, &turn2()).resume_chat_id.as_deref(),
            Some("chat-1")
        );
        clock.set(5_999);
        assert_eq!(
            plan(&mut m, &turn2()).resume_chat_id.as_deref(),
            Some("chat-1")
        );
        assert_eq!(m.len(), 1);
        clock.set(6_000);
        assert_eq!(m.len(), 0, "expired entries are not counted");
        assert_eq!(plan(&mut m, &turn2()).resume_chat_id, None);
        // Recording again starts a new lifetime.
        let again = plan(&mut m, &turn2());
        m.record(&again, "chat-2");
        clock.set(6_900);
        let third = request(json!([
            {"role": "system", "content": "You are opencode."},
            {"role": "user", "content": "read hello.txt"},
            {"role": "assistant", "content": "It says hi."},
            {"role": "user", "content": "  now summarise it  "},
            {"role": "assistant", "content": "ok"},
            {"role": "user", "content": "more"},
        ]));
        assert_eq!(
            plan(&mut m, &third).resume_chat_id.as_deref(),
            Some("chat-2")
        );
    }

    fn opener(text: &str) -> (Value, Value) {
        let first = request(json!([{"role": "user", "content": text}]));
        let next = request(json!([
            {"role": "user", "content": text},
            {"role": "assistant", "content": "ok"},
            {"role": "user", "content": "next"},
        ]));
        (first, next)
    }

    #[test]
    fn least_recently_used_is_evicted_and_a_hit_refreshes_the_order() {
        let (mut m, _clock) = manager(2, DEFAULT_TTL_MS);
        let (a, a_next) = opener("conversation a");
        let (b, b_next) = opener("conversation b");
        let (c, c_next) = opener("conversation c");
        let pa = plan(&mut m, &a);
        m.record(&pa, "chat-a");
        let pb = plan(&mut m, &b);
        m.record(&pb, "chat-b");
        assert_eq!(
            plan(&mut m, &a_next).resume_chat_id.as_deref(),
            Some("chat-a")
        );
        let pc = plan(&mut m, &c);
        m.record(&pc, "chat-c");
        assert_eq!(m.len(), 2);
        assert_eq!(
            plan(&mut m, &b_next).resume_chat_id,
            None,
            "b was least recently used"
        );
        assert_eq!(
            plan(&mut m, &a_next).resume_chat_id.as_deref(),
            Some("chat-a")
        );
        assert_eq!(
            plan(&mut m, &c_next).resume_chat_id.as_deref(),
            Some("chat-c")
        );
    }

    #[test]
    fn chat_ids_are_checked() {
        let valid = [
            "a",
            "A1",
            "0",
            "9f1c2b3a-0000-4abc-8def-0123456789ab",
            "chat_1-x",
        ];
        let invalid = [
            "",
            "-1",
            "--resume",
            "_a",
            "abc;rm -rf /",
            "a b",
            "a/b",
            "ä",
            "a\n",
            " a",
            "a.b",
            "$(id)",
        ];
        let too_long = "a".repeat(257);
        let mut m = enabled();
        let p = plan(&mut m, &turn1());
        for id in invalid.into_iter().chain([too_long.as_str()]) {
            assert!(!m.record(&p, id), "{id:?}");
        }
        assert_eq!(m.len(), 0);
        for id in valid {
            assert!(m.record(&p, id), "{id:?}");
        }
    }

    #[test]
    fn conversation_ids_keep_same_opener_sessions_apart() {
        let mut m = enabled();
        let with_id = |v: Value, id: &str| {
            let mut v = v;
            v["conversationId"] = json!(id);
            v
        };
        let p1 = plan(&mut m, &with_id(turn1(), "ses_one"));
        let p2 = plan(&mut m, &with_id(turn1(), "ses_two"));
        assert_ne!(p1.session_key, p2.session_key);
        m.record(&p1, "chat-1");
        m.record(&p2, "chat-2");
        assert_eq!(m.len(), 2);
        assert_eq!(
            plan(&mut m, &with_id(turn2(), "ses_one"))
                .resume_chat_id
                .as_deref(),
            Some("chat-1")
        );
        assert_eq!(
            plan(&mut m, &with_id(turn2(), "ses_two"))
                .resume_chat_id
                .as_deref(),
            Some("chat-2")
        );
        // Without an id, the anchor is used: a different key from both.
        assert_eq!(plan(&mut m, &turn2()).resume_chat_id, None);
    }

    #[test]
    fn workspace_and_model_are_part_of_the_key_and_the_provider_prefix_is_not() {
        let mut m = enabled();
        let p = plan(&mut m, &turn1());
        m.record(&p, "chat-1");
        let mut bare_model = turn2();
        bare_model["model"] = json!("auto");
        assert_eq!(
            plan(&mut m, &bare_model).resume_chat_id.as_deref(),
            Some("chat-1")
        );
        let mut other_model = turn2();
        other_model["model"] = json!("cursor-acp/sonnet-4.6");
        assert_eq!(plan(&mut m, &other_model).resume_chat_id, None);
        let mut other_workspace = turn2();
        other_workspace["workspace"] = json!("/elsewhere");
        assert_eq!(plan(&mut m, &other_workspace).resume_chat_id, None);
    }

    #[test]
    fn an_image_in_the_opener_changes_the_anchor() {
        let mut m = enabled();
        let p = plan(&mut m, &turn1());
        m.record(&p, "chat-1");
        let with_image = request(json!([
            {"role": "system", "content": "You are opencode."},
            {"role": "user", "content": [{"type": "text", "text": "read hello.txt"}, {"type": "file", "mediaType": "image/png", "data": "AAAA"}]},
            {"role": "assistant", "content": "It says hi."},
            {"role": "user", "content": "now summarise it"},
        ]));
        let q = plan(&mut m, &with_image);
        assert_ne!(q.session_key, p.session_key);
        assert_eq!(q.resume_chat_id, None);
    }

    #[test]
    fn a_new_user_message_with_an_image_starts_a_fresh_chat_not_a_resumed_full_prompt() {
        let mut m = enabled();
        let p = plan(&mut m, &turn1());
        m.record(&p, "chat-1");
        let with_image = request(json!([
            {"role": "system", "content": "You are opencode."},
            {"role": "user", "content": "read hello.txt"},
            {"role": "assistant", "content": "It says hi."},
            {"role": "user", "content": [{"type": "text", "text": "what is this?"}, {"type": "image_url", "image_url": {"url": "https://x/a.png"}}]},
        ]));
        let q = plan(&mut m, &with_image);
        assert_eq!(q.session_key, p.session_key);
        assert_eq!(q.resume_chat_id, None);
        assert!(!q.incremental);
        assert!(q
            .prompt
            .ends_with("USER: what is this?\n[attached image: https://x/a.png]"));
        // The fresh chat can be recorded and then continues.
        assert!(m.record(&q, "chat-2"));
    }

    #[test]
    fn title_requests_never_get_a_key() {
        let mut m = enabled();
        let title = json!({"workspace": "/w", "model": "auto", "conversationId": "ses_1", "messages": [
            {"role": "system", "content": "You are a title generator. You output ONLY a thread title."},
            {"role": "user", "content": [{"type": "text", "text": "Generate a title for this conversation:\n"}]},
            {"role": "user", "content": [{"type": "text", "text": "say hi"}]},
        ]});
        let p = plan(&mut m, &title);
        assert_eq!(p.session_key, None);
        assert!(!m.record(&p, "chat-1"));
        assert_eq!(m.len(), 0);
    }

    #[test]
    fn no_real_user_message_and_no_conversation_id_means_no_key() {
        let mut m = enabled();
        let p = plan(
            &mut m,
            &request(json!([{"role": "system", "content": "s"}])),
        );
        assert_eq!(p.session_key, None);
    }

    #[test]
    fn report_failure_evicts_only_for_resume_specific_failures_of_the_resumed_chat() {
        let mut m = enabled();
        let first = plan(&mut m, &turn1());
        m.record(&first, "chat-1");
        let resumed = plan(&mut m, &turn2());
        assert_eq!(resumed.resume_chat_id.as_deref(), Some("chat-1"));
        let transient = [
            Failure {
                code: Some("E_NETWORK"),
                message: "connect ECONNREFUSED",
            },
            Failure {
                code: Some("E_AUTH"),
                message: "Authentication required",
            },
            Failure {
                code: None,
                message: "Session expired due to network timeout",
            },
            Failure {
                code: Some("E_AGENT_EXIT"),
                message: "JavaScript heap out of memory",
            },
            Failure {
                code: Some("E_QUOTA"),
                message: "You've hit your usage limit",
            },
        ];
        for failure in &transient {
            assert!(!m.report_failure(&resumed, failure), "{failure:?}");
        }
        assert_eq!(m.len(), 1);
        // A fresh plan has no chat to evict.
        assert!(!m.report_failure(
            &first,
            &Failure {
                code: Some("E_RESUME"),
                message: ""
            }
        ));
        assert!(m.report_failure(
            &resumed,
            &Failure {
                code: Some("E_AGENT_EXIT"),
                message: "Error: chat not found"
            }
        ));
        assert_eq!(m.len(), 0);

        m.record(&first, "chat-1");
        let resumed = plan(&mut m, &turn2());
        assert!(m.report_failure(
            &resumed,
            &Failure {
                code: Some("E_RESUME"),
                message: "replaced"
            }
        ));

        // A newer record for the key is not evicted by an old plan's failure.
        m.record(&first, "chat-1");
        let resumed = plan(&mut m, &turn2());
        m.record(&first, "chat-9");
        assert!(!m.report_failure(
            &resumed,
            &Failure {
                code: Some("E_RESUME"),
                message: ""
            }
        ));
        assert_eq!(m.len(), 1);
    }

    #[test]
    fn plans_survive_a_json_round_trip_with_extra_fields() {
        let mut m = enabled();
        let p = plan(&mut m, &turn1());
        let mut value = serde_json::to_value(&p).expect("serialise");
        assert!(value["resumeChatId"].is_null());
        value["extra"] = json!("kept by the caller");
        let back = ResumePlan::from_json(value).expect("deserialise");
        assert_eq!(back, p);
        assert!(m.record(&back, "chat-1"));
        assert_eq!(
            plan(&mut m, &turn2()).resume_chat_id.as_deref(),
            Some("chat-1")
        );
        assert_eq!(
            ResumePlan::from_json(json!("x")).map_err(|e| e.code()),
            Err("E_INVALID_ARG")
        );
        assert_eq!(
            ResumePlan::from_json(json!({"prompt": 5})).map_err(|e| e.code()),
            Err("E_INVALID_ARG")
        );
    }

    #[test]
    fn request_and_failure_shapes_are_validated() {
        for bad in [
            json!({"model": "auto", "messages": []}),
            json!({"workspace": "/w", "messages": []}),
            json!({"workspace": 1, "model": "auto", "messages": []}),
            json!({"workspace": "/w", "model": "auto", "messages": [], "toolsInPrompt": "yes"}),
            json!({"workspace": "/w", "model": "auto", "messages": [], "conversationId": 7}),
        ] {
            assert_eq!(
                ResumeRequest::from_json(&bad)
                    .map(|_| ())
                    .map_err(|e| e.code()),
                Err("E_INVALID_ARG"),
                "{bad}"
            );
        }
        for bad in [json!(5), json!(null), json!({"detail": "x"})] {
            assert_eq!(
                Failure::from_json(&bad).map(|_| ()).map_err(|e| e.code()),
                Err("E_INVALID_ARG"),
                "{bad}"
            );
        }
        let object = json!({"code": "E_RESUME", "message": "gone"});
        assert_eq!(
            Failure::from_json(&object).ok(),
            Some(Failure {
                code: Some("E_RESUME"),
                message: "gone"
            })
        );
    }

    #[test]
    fn options_merge_with_defaults() {
        let defaults = ResumeOptions::from_parts(None, None, None).expect("defaults");
        assert_eq!(defaults, ResumeOptions::default());
        assert!(!defaults.enabled);
        assert_eq!(defaults.max_entries.get(), 64);
        assert_eq!(defaults.ttl_ms, 3_600_000);
        let custom = ResumeOptions::from_parts(Some(true), Some(2), Some(10)).expect("custom");
        assert!(custom.enabled && custom.max_entries.get() == 2 && custom.ttl_ms == 10);
        for (max, ttl) in [
            (Some(0), None),
            (Some(-1), None),
            (None, Some(0)),
            (None, Some(-5)),
        ] {
            let err = ResumeOptions::from_parts(None, max, ttl).expect_err("invalid");
            assert_eq!(err.code(), "E_INVALID_ARG");
        }
    }

    #[test]
    fn options_and_chat_ids_from_json() {
        assert_eq!(ResumeOptions::from_json(None), Ok(ResumeOptions::default()));
        assert_eq!(
            ResumeOptions::from_json(Some(&Value::Null)),
            Ok(ResumeOptions::default())
        );
        let custom = ResumeOptions::from_json(Some(
            &json!({"enabled": true, "maxEntries": 3.0, "ttlMs": 50}),
        ))
        .expect("valid");
        assert!(custom.enabled && custom.max_entries.get() == 3 && custom.ttl_ms == 50);
        for bad in [
            json!(5),
            json!({"enabled": "yes"}),
            json!({"maxEntries": 2.5}),
            json!({"maxEntries": "64"}),
            json!({"ttlMs": 0}),
            json!({"maxEntries": -3}),
        ] {
            assert_eq!(
                ResumeOptions::from_json(Some(&bad)).map_err(|e| e.code()),
                Err("E_INVALID_ARG"),
                "{bad}"
            );
        }
        assert_eq!(chat_id_from_json(None), Ok(None));
        assert_eq!(chat_id_from_json(Some(&json!("abc"))), Ok(Some("abc")));
        assert_eq!(
            chat_id_from_json(Some(&json!(5))).map_err(|e| e.code()),
            Err("E_INVALID_ARG")
        );
    }

    #[test]
    fn clear_empties_the_cache() {
        let mut m = enabled();
        let p = plan(&mut m, &turn1());
        m.record(&p, "chat-1");
        m.clear();
        assert!(m.is_empty());
    }
}
