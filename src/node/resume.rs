//! `SessionResumeManager` for JS.

use std::num::NonZeroUsize;

use napi::bindgen_prelude::This;
use napi::{Env, Unknown, ValueType};
use napi_derive::napi;
use serde_json::Value;

use super::error_code::{from_napi, invalid_arg, Result};
use super::options::{argument, require_new, Options, MAX_SAFE_INTEGER};
use super::prompt::{read_conversation, ConversationJson};
use crate::core::json;
use crate::core::resume::{
    Failure, ResumeOptions, ResumePlan, ResumeRequest, SessionResumeManager as CoreManager,
    MAX_ENTRIES_LIMIT,
};

/// Reads the fields of a plan that `record` and `reportFailure` use, without copying its prompt.
fn read_plan(plan: Unknown<'_>) -> Result<ResumePlan> {
    let plan = Options::required(plan, "the plan")?;
    Ok(ResumePlan {
        session_key: plan.string("sessionKey")?,
        resume_chat_id: plan.string("resumeChatId")?,
        record_token: plan.string("recordToken")?,
        ..ResumePlan::default()
    })
}

fn read_options(options: Option<Unknown<'_>>) -> Result<ResumeOptions> {
    let options = Options::new(options, "the SessionResumeManager options")?;
    let defaults = ResumeOptions::default();
    let max_entries = options
        .whole_number("maxEntries", 1..=MAX_ENTRIES_LIMIT as i64)?
        .and_then(|n| usize::try_from(n).ok())
        .and_then(NonZeroUsize::new);
    let ttl_ms = options.whole_number("ttlMs", 1..=MAX_SAFE_INTEGER)?;
    Ok(ResumeOptions {
        enabled: options.boolean("enabled")?.unwrap_or(defaults.enabled),
        max_entries: max_entries.unwrap_or(defaults.max_entries),
        ttl_ms: ttl_ms.map_or(defaults.ttl_ms, i64::unsigned_abs),
    })
}

/// `"text"` or `{code, message, agentOutput?}`: the code (when any) and the text of a failure.
fn read_failure(error: Unknown<'_>) -> Result<(Option<String>, String)> {
    const SHAPE: &str = "the error must be a string or {code, message}";
    match error.get_type().map_err(from_napi)? {
        ValueType::String => {
            let message = argument(Some(error), ValueType::String, "the error", "a string")?;
            Ok((None, message.unwrap_or_default()))
        }
        ValueType::Object => {
            let error = Options::required(error, "the error")?;
            let (code, message) = (error.string("code")?, error.string("message")?);
            if code.is_none() && message.is_none() {
                return Err(invalid_arg(SHAPE));
            }
            // Cursor's own words, when given, are what tells a gone chat from a transient fault.
            let text = match error.string("agentOutput")? {
                Some(said) => format!("{}\n{said}", message.unwrap_or_default()),
                None => message.unwrap_or_default(),
            };
            Ok((code, text))
        }
        _ => Err(invalid_arg(SHAPE)),
    }
}

/// `{workspace, model, messages, tools?, toolsInPrompt?, conversationId?}`, read into the
/// strings and JSON the typed request borrows from.
struct RequestFields {
    workspace: String,
    model: String,
    conversation_id: Option<String>,
    /// Use and drop it inside [`json::with_stack_for`] its depth.
    conversation: ConversationJson,
}

impl RequestFields {
    fn read(env: &Env, request: Unknown<'_>) -> Result<Self> {
        let request = Options::required(request, "the request")?;
        let required = |name: &str| {
            request
                .string(name)?
                .ok_or_else(|| invalid_arg(format!("`{name}` is required")))
        };
        Ok(Self {
            conversation: read_conversation(env, &request)?,
            workspace: required("workspace")?,
            model: required("model")?,
            conversation_id: request.string("conversationId")?,
        })
    }

    fn typed(&self) -> Result<ResumeRequest<'_>> {
        Ok(ResumeRequest {
            workspace: &self.workspace,
            model: &self.model,
            conversation: self.conversation.conversation()?,
            tools_in_prompt: self.conversation.tools_in_prompt,
            conversation_id: self.conversation_id.as_deref().filter(|id| !id.is_empty()),
        })
    }
}

/// Options of `SessionResumeManager`.
#[allow(
    dead_code,
    reason = "declares the TypeScript shape; the argument is read field by field"
)]
#[napi(object)]
pub struct SessionResumeOptions {
    /// Resume cursor-agent chats at all. Default `false`. The OpenCode host sets it from the
    /// `CURSOR_ACP_SESSION_RESUME` environment variable:
    /// `parseSwitch(process.env.CURSOR_ACP_SESSION_RESUME, false)`.
    pub enabled: Option<bool>,
    /// Conversations kept; the least recently used is evicted first. A whole number from 1 to
    /// 1,000,000; default `64`. Nothing is reserved up front: memory grows with what is kept.
    pub max_entries: Option<i64>,
    /// Lifetime of an entry, counted from its `record`, in milliseconds. A whole number from 1
    /// to 2^53 - 1; default `3_600_000` (one hour).
    pub ttl_ms: Option<i64>,
}

/// One turn to plan.
#[allow(
    dead_code,
    reason = "declares the TypeScript shape; the argument is read field by field"
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
    reason = "declares the TypeScript shape; the argument is read field by field"
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
    /// Throws `E_INVALID_ARG` unless `maxEntries` is a whole number from 1 to 1,000,000 and
    /// `ttlMs` one from 1 to 2^53 - 1.
    #[napi(
        constructor,
        catch_unwind,
        ts_args_type = "options?: SessionResumeOptions | undefined | null"
    )]
    pub fn new(this: This<Unknown>, options: Option<Unknown>) -> Result<Self> {
        require_new(&this.object, "SessionResumeManager")?;
        Ok(Self {
            inner: CoreManager::new(read_options(options)?),
        })
    }

    /// Plans a turn: a resumed chat with only the new messages (the newest user text, or the
    /// trailing tool results with the calls they answer), or a fresh chat with the full prompt.
    /// Never the full prompt into a resumed chat. Throws `E_INVALID_ARG` naming the field for a
    /// malformed request, one `JSON.stringify` cannot serialise (a cycle), or one nested more
    /// than 10,000 levels deep.
    #[napi(catch_unwind, ts_args_type = "request: ResumeRequest")]
    pub fn plan(&mut self, env: &Env, request: Unknown<'_>) -> Result<BindingResumePlan> {
        let fields = RequestFields::read(env, request)?;
        let inner = &mut self.inner;
        json::with_stack_for(fields.conversation.depth, move || {
            Ok(inner.plan(&fields.typed()?).into())
        })
    }

    /// A fresh chat with the full prompt for the same request, never resumed, that `record` can
    /// still store: for the one rerun after a resumed run failed with `E_RESUME` (report that
    /// failure first, so the gone chat is evicted). Throws `E_INVALID_ARG` as `plan` does.
    #[napi(catch_unwind, ts_args_type = "request: ResumeRequest")]
    pub fn fresh_plan(&self, env: &Env, request: Unknown<'_>) -> Result<BindingResumePlan> {
        let fields = RequestFields::read(env, request)?;
        let inner = &self.inner;
        json::with_stack_for(fields.conversation.depth, move || {
            Ok(inner.fresh_plan(&fields.typed()?).into())
        })
    }

    /// Stores the chat id cursor-agent reported for the plan's run. Returns `false` when resume
    /// is disabled, the plan has no key, or the id is refused (it must match
    /// `^[A-Za-z0-9][A-Za-z0-9_-]*$`, at most 256 characters). The newest record wins.
    #[napi(
        catch_unwind,
        ts_args_type = "plan: ResumePlan, chatId: string | null | undefined"
    )]
    pub fn record(&mut self, plan: Unknown<'_>, chat_id: Option<Unknown<'_>>) -> Result<bool> {
        let plan = read_plan(plan)?;
        let chat_id: Option<String> =
            argument(chat_id, ValueType::String, "the chat id", "a string")?;
        Ok(chat_id.is_some_and(|id| self.inner.record(&plan, &id)))
    }

    /// Reports that the plan's run failed. Evicts the resumed chat on `E_RESUME` or on
    /// resume-specific text (chat not found, expired, cannot resume, ...), never on auth,
    /// network, quota, memory, signal or other transient failures. Returns `true` when evicted.
    #[napi(
        catch_unwind,
        ts_args_type = "plan: ResumePlan, error: string | ResumeFailure"
    )]
    pub fn report_failure(&mut self, plan: Unknown<'_>, error: Unknown<'_>) -> Result<bool> {
        let plan = read_plan(plan)?;
        let (code, message) = read_failure(error)?;
        let failure = Failure {
            code: code.as_deref(),
            message: &message,
        };
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
