//! `SessionResumeManager` for JS.

use std::num::NonZeroUsize;

use napi::bindgen_prelude::This;
use napi::{Env, Unknown};
use napi_derive::napi;
use serde::Deserialize;
use serde_json::Value;

use super::error::{invalid_arg, to_js_error, Result};
use super::read::{read, read_json, read_optional, require_new};
use crate::core::prompt::Conversation;
use crate::core::resume::{
    Failure, ResumeOptions, ResumePlan as CorePlan, ResumeRequest as CoreRequest,
    SessionResumeManager as CoreManager, MAX_ENTRIES_LIMIT,
};
use crate::core::whole_number::{Positive, WholeNumber};

/// Options of `SessionResumeManager`; any other field is refused.
#[napi(object, object_from_js = false, object_to_js = false)]
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionResumeOptions {
    /// Resume cursor-agent chats at all. Default `false`. The OpenCode host sets it from the
    /// `CURSOR_ACP_SESSION_RESUME` environment variable:
    /// `parseSwitch(process.env.CURSOR_ACP_SESSION_RESUME, false)`.
    pub enabled: Option<bool>,
    /// Conversations kept; the least recently used is evicted first. A whole number from 1 to
    /// 1,000,000; default `64`. Nothing is reserved up front: memory grows with what is kept.
    #[napi(ts_type = "number")]
    pub max_entries: Option<WholeNumber<1, { MAX_ENTRIES_LIMIT as i64 }>>,
    /// Lifetime of an entry, counted from its `record`, in milliseconds. A whole number from 1
    /// to 2^53 - 1; default `3_600_000` (one hour).
    #[napi(ts_type = "number")]
    pub ttl_ms: Option<Positive>,
}

impl From<SessionResumeOptions> for ResumeOptions {
    fn from(options: SessionResumeOptions) -> Self {
        let defaults = ResumeOptions::default();
        Self {
            enabled: options.enabled.unwrap_or(defaults.enabled),
            max_entries: options
                .max_entries
                .and_then(|n| NonZeroUsize::new(usize::try_from(n.get()).unwrap_or(0)))
                .unwrap_or(defaults.max_entries),
            ttl_ms: options.ttl_ms.map_or(defaults.ttl_ms, Positive::unsigned),
        }
    }
}

/// One turn to plan; read as the JSON data `JSON.stringify` makes of it.
#[napi(object, object_from_js = false, object_to_js = false)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResumeRequest {
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

impl ResumeRequest {
    /// Runs `work` on the typed request, which borrows from this one.
    fn typed<R>(&self, work: impl FnOnce(&CoreRequest<'_>) -> R) -> Result<R> {
        let conversation =
            Conversation::parse(&self.messages, self.tools.as_ref()).map_err(to_js_error)?;
        Ok(work(&CoreRequest {
            workspace: &self.workspace,
            model: &self.model,
            conversation,
            tools_in_prompt: self.tools_in_prompt.unwrap_or(false),
            conversation_id: self.conversation_id.as_deref().filter(|id| !id.is_empty()),
        }))
    }
}

/// A failure reported by `runCursorAgent` (`RunResult.error`), or any object with a `code` or a
/// `message`; its other fields are not read.
#[napi(object, object_from_js = false, object_to_js = false)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResumeFailure {
    /// A stable code such as `E_RESUME` or `E_NETWORK`.
    pub code: Option<String>,
    /// The error text.
    pub message: Option<String>,
    /// What cursor-agent said, which tells a gone chat from a transient fault.
    pub agent_output: Option<String>,
}

/// How to run one turn. Plain JSON-safe data: a JSON round trip keeps it usable, and fields a
/// caller adds are ignored when it is handed back.
#[napi(object, use_nullable = true)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResumePlan {
    /// The conversation's cache key; `null` when resume is disabled, for a title request, or
    /// when the conversation has no anchor.
    pub session_key: Option<String>,
    /// When set, run `cursor-agent --resume <resumeChatId>`.
    pub resume_chat_id: Option<String>,
    /// What to write to cursor-agent's stdin.
    #[serde(default)]
    pub prompt: String,
    /// `true` when `prompt` holds only the new messages.
    #[serde(default)]
    pub incremental: bool,
    /// Opaque state for `record`.
    pub record_token: Option<String>,
}

impl From<CorePlan> for ResumePlan {
    fn from(plan: CorePlan) -> Self {
        Self {
            session_key: plan.session_key,
            resume_chat_id: plan.resume_chat_id,
            prompt: plan.prompt,
            incremental: plan.incremental,
            record_token: plan.record_token,
        }
    }
}

impl From<ResumePlan> for CorePlan {
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
    pub fn new(env: Env, this: This<Unknown>, options: Option<Unknown>) -> Result<Self> {
        require_new(&this.object, "SessionResumeManager")?;
        let options: Option<SessionResumeOptions> =
            read_optional(&env, options, "the SessionResumeManager options")?;
        Ok(Self {
            inner: CoreManager::new(options.unwrap_or_default().into()),
        })
    }

    /// Plans a turn: a resumed chat with only the new messages (the newest user text, or the
    /// trailing tool results with the calls they answer), or a fresh chat with the full prompt.
    /// Never the full prompt into a resumed chat. Throws `E_INVALID_ARG` naming the field for a
    /// malformed request, one `JSON.stringify` cannot serialise (a cycle), or one nested more
    /// than 10,000 levels deep.
    #[napi(catch_unwind, ts_args_type = "request: ResumeRequest")]
    pub fn plan(&mut self, env: &Env, request: Unknown<'_>) -> Result<ResumePlan> {
        let inner = &mut self.inner;
        read_json::<ResumeRequest>(env, request, "the request")?
            .use_with(|request| request.typed(|typed| inner.plan(typed).into()))
    }

    /// A fresh chat with the full prompt for the same request, never resumed, that `record` can
    /// still store: for the one rerun after a resumed run failed with `E_RESUME` (report that
    /// failure first, so the gone chat is evicted). Throws `E_INVALID_ARG` as `plan` does.
    #[napi(catch_unwind, ts_args_type = "request: ResumeRequest")]
    pub fn fresh_plan(&self, env: &Env, request: Unknown<'_>) -> Result<ResumePlan> {
        let inner = &self.inner;
        read_json::<ResumeRequest>(env, request, "the request")?
            .use_with(|request| request.typed(|typed| inner.fresh_plan(typed).into()))
    }

    /// Stores the chat id cursor-agent reported for the plan's run. Returns `false` when resume
    /// is disabled, the plan has no key, or the id is refused (it must match
    /// `^[A-Za-z0-9][A-Za-z0-9_-]*$`, at most 256 characters). The newest record wins.
    #[napi(
        catch_unwind,
        ts_args_type = "plan: ResumePlan, chatId: string | null | undefined"
    )]
    pub fn record(&mut self, env: Env, plan: Unknown, chat_id: Option<Unknown>) -> Result<bool> {
        let plan: ResumePlan = read(&env, plan, "the plan")?;
        let chat_id: Option<String> = read_optional(&env, chat_id, "the chat id")?;
        Ok(chat_id.is_some_and(|id| self.inner.record(&plan.into(), &id)))
    }

    /// Reports that the plan's run failed. Evicts the resumed chat on `E_RESUME` or on
    /// resume-specific text (chat not found, expired, cannot resume, ...), never on auth,
    /// network, quota, memory, signal or other transient failures. Returns `true` when evicted.
    #[napi(
        catch_unwind,
        ts_args_type = "plan: ResumePlan, error: string | ResumeFailure"
    )]
    pub fn report_failure(&mut self, env: Env, plan: Unknown, error: Unknown) -> Result<bool> {
        let plan: ResumePlan = read(&env, plan, "the plan")?;
        let (code, message) = match read::<FailureArgument>(&env, error, "the error")? {
            FailureArgument::Text(message) => (None, message),
            FailureArgument::Report(ResumeFailure {
                code,
                message,
                agent_output,
            }) => {
                if code.is_none() && message.is_none() {
                    return Err(invalid_arg("the error must be a string or {code, message}"));
                }
                // Cursor's own words, when given, are what tells a gone chat from a transient
                // fault.
                let message = message.unwrap_or_default();
                let text = match agent_output {
                    Some(said) => format!("{message}\n{said}"),
                    None => message,
                };
                (code, text)
            }
        };
        let failure = Failure {
            code: code.as_deref(),
            message: &message,
        };
        Ok(self.inner.report_failure(&plan.into(), &failure))
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

/// `reportFailure`'s error: the text of a failure, or a failure report.
#[derive(Deserialize)]
#[serde(untagged, expecting = "a string or {code, message}")]
enum FailureArgument {
    Text(String),
    Report(ResumeFailure),
}
