//! `SessionResumeManager` for JS.

use napi::bindgen_prelude::Object;
use napi::{Env, Unknown};
use napi_derive::napi;
use serde_json::Value;

use super::argument::{expect_object, object_argument};
use super::error_code::{from_napi, to_js_error, Result};
use crate::core::resume::{
    chat_id_from_json, Failure, ResumeOptions, ResumePlan, ResumeRequest,
    SessionResumeManager as CoreManager,
};

/// Reads the fields of a plan that `record` and `reportFailure` use, without copying its prompt.
fn plan_argument(plan: Unknown<'_>) -> Result<ResumePlan> {
    expect_object(&plan, "the plan")?;
    // SAFETY: `plan` was just checked to be a JS object, which is what `Object` wraps.
    let object: Object<'_> = unsafe { plan.cast() }.map_err(from_napi)?;
    let mut fields = serde_json::Map::new();
    for key in ["sessionKey", "resumeChatId", "recordToken"] {
        if let Some(value) = object.get::<Value>(key).map_err(from_napi)? {
            fields.insert(key.to_owned(), value);
        }
    }
    ResumePlan::from_json(Value::Object(fields)).map_err(to_js_error)
}

/// Options of `SessionResumeManager`.
#[allow(
    dead_code,
    reason = "declares the TypeScript shape of a JSON argument that the core parses itself"
)]
#[napi(object)]
pub struct SessionResumeOptions {
    /// Resume cursor-agent chats at all. Default `false`. The OpenCode host sets it from the
    /// `CURSOR_ACP_SESSION_RESUME` environment variable:
    /// `parseSwitch(process.env.CURSOR_ACP_SESSION_RESUME, false)`.
    pub enabled: Option<bool>,
    /// Conversations kept; the least recently used is evicted first. Default `64`.
    pub max_entries: Option<i64>,
    /// Lifetime of an entry, counted from its `record`, in milliseconds. Default `3_600_000`
    /// (one hour).
    pub ttl_ms: Option<i64>,
}

/// One turn to plan.
#[allow(
    dead_code,
    reason = "declares the TypeScript shape of a JSON argument that the core parses itself"
)]
#[napi(object, js_name = "ResumeRequest")]
pub struct BindingResumeRequest {
    /// The workspace cursor-agent runs in (part of the key).
    pub workspace: String,
    /// The model, with or without the `cursor-acp/` prefix (the concrete model is part of the key).
    pub model: String,
    /// OpenAI chat messages or AI SDK V3 prompt messages (`file` data already base64).
    #[napi(ts_type = "Array<object>")]
    pub messages: Value,
    /// Tool definitions, OpenAI `{type: 'function', function: {name, description, parameters}}`
    /// or V3 `{type: 'function', name, description, inputSchema}` (provider tools count by
    /// name). They always feed the tool fingerprint.
    #[napi(ts_type = "Array<object>")]
    pub tools: Option<Value>,
    /// Write the tool definitions into the prompt. Default `false`.
    pub tools_in_prompt: Option<bool>,
    /// OpenCode's session id (`X-Session-Id`); when given it identifies the conversation instead
    /// of the hash of the first user message.
    pub conversation_id: Option<String>,
}

/// A failure reported by `runCursorAgent` (`RunResult.error`).
#[allow(
    dead_code,
    reason = "declares the TypeScript shape of a JSON argument that the core parses itself"
)]
#[napi(object, js_name = "ResumeFailure")]
pub struct BindingResumeFailure {
    /// A stable code such as `E_RESUME` or `E_NETWORK`.
    pub code: String,
    /// The error text.
    pub message: String,
}

/// How to run one turn. Plain JSON-safe data: a JSON round trip keeps it usable.
#[napi(object, js_name = "ResumePlan", use_nullable = true)]
pub struct BindingResumePlan {
    /// The conversation's cache key; `null` when resume is disabled, for a title request, or
    /// when the conversation has no anchor.
    pub session_key: Option<String>,
    /// When set, run `cursor-agent --resume <resumeChatId>`.
    pub resume_chat_id: Option<String>,
    /// What to write to cursor-agent's stdin.
    pub prompt: String,
    /// `true` when `prompt` holds only the new messages.
    pub incremental: bool,
    /// Opaque state for `record`.
    pub record_token: Option<String>,
}

impl From<ResumePlan> for BindingResumePlan {
    fn from(plan: ResumePlan) -> Self {
        Self {
            session_key: plan.session_key,
            resume_chat_id: plan.resume_chat_id,
            prompt: plan.prompt,
            incremental: plan.incremental,
            record_token: plan.record_token,
        }
    }
}

/// Reuses cursor-agent chats (`--resume`) across the turns of one conversation, only when the
/// cached chat provably holds the same conversation with the same tools. Process memory only:
/// restarting loses it. Title requests must not go through it (see `isTitleRequest`).
#[napi]
pub struct SessionResumeManager {
    inner: CoreManager,
}

#[napi]
impl SessionResumeManager {
    /// Throws `E_INVALID_ARG` unless `maxEntries` and `ttlMs` are positive integers.
    #[napi(
        constructor,
        catch_unwind,
        ts_args_type = "options?: SessionResumeOptions | undefined | null"
    )]
    pub fn new(options: Option<Value>) -> Result<Self> {
        let options = ResumeOptions::from_json(options.as_ref()).map_err(to_js_error)?;
        Ok(Self {
            inner: CoreManager::new(options),
        })
    }

    /// Plans a turn: a resumed chat with only the new messages (the newest user text, or the
    /// trailing tool results with the calls they answer), or a fresh chat with the full prompt.
    /// Never the full prompt into a resumed chat. Throws `E_INVALID_ARG` for a malformed request
    /// (and `JSON.stringify`'s own error for one it cannot serialise, e.g. a cycle).
    #[napi(catch_unwind, ts_args_type = "request: ResumeRequest")]
    pub fn plan(&mut self, env: &Env, request: Unknown<'_>) -> Result<BindingResumePlan> {
        let request = object_argument(env, request, "the request")?;
        let request = ResumeRequest::from_json(&request).map_err(to_js_error)?;
        Ok(self.inner.plan(&request).into())
    }

    /// Stores the chat id cursor-agent reported for the plan's run. Returns `false` when resume
    /// is disabled, the plan has no key, or the id is refused (it must match
    /// `^[A-Za-z0-9][A-Za-z0-9_-]*$`, at most 256 characters). The newest record wins.
    #[napi(
        catch_unwind,
        ts_args_type = "plan: ResumePlan, chatId: string | null | undefined"
    )]
    pub fn record(&mut self, plan: Unknown<'_>, chat_id: Option<Value>) -> Result<bool> {
        let plan = plan_argument(plan)?;
        let chat_id = chat_id_from_json(chat_id.as_ref()).map_err(to_js_error)?;
        Ok(chat_id.is_some_and(|id| self.inner.record(&plan, id)))
    }

    /// Reports that the plan's run failed. Evicts the resumed chat on `E_RESUME` or on
    /// resume-specific text (chat not found, expired, cannot resume, ...), never on auth,
    /// network, quota, memory, signal or other transient failures. Returns `true` when evicted.
    #[napi(
        catch_unwind,
        ts_args_type = "plan: ResumePlan, error: string | ResumeFailure"
    )]
    pub fn report_failure(&mut self, plan: Unknown<'_>, error: Value) -> Result<bool> {
        let plan = plan_argument(plan)?;
        let failure = Failure::from_json(&error).map_err(to_js_error)?;
        Ok(self.inner.report_failure(&plan, &failure))
    }

    /// Live (unexpired) entries.
    #[napi(getter, catch_unwind)]
    pub fn size(&self) -> u32 {
        u32::try_from(self.inner.len()).unwrap_or(u32::MAX)
    }

    /// Forgets every entry.
    #[napi(catch_unwind)]
    pub fn clear(&mut self) {
        self.inner.clear();
    }
}
