//! `SessionResumeManager` for JS.

use napi::bindgen_prelude::This;
use napi::{Env, Unknown};
use napi_derive::napi;

use super::error::{to_js_error, Result};
use super::output::Json;
use super::read::{read, read_json, read_optional, require_new};
use crate::core::api::resume::{FailureArgument, ResumePlan, ResumeRequest, SessionResumeOptions};
use crate::core::resume::{
    Failure, ResumePlan as CorePlan, ResumeRequest as CoreRequest,
    SessionResumeManager as CoreManager,
};

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
        require_new(&env, &this.object, "SessionResumeManager")?;
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
    #[napi(
        catch_unwind,
        ts_args_type = "request: ResumeRequest",
        ts_return_type = "ResumePlan"
    )]
    pub fn plan(&mut self, env: &Env, request: Unknown<'_>) -> Result<Json<ResumePlan>> {
        let inner = &mut self.inner;
        planned(env, request, |typed| inner.plan(typed))
    }

    /// A fresh chat with the full prompt for the same request, never resumed, that `record` can
    /// still store: for the one rerun after a resumed run failed with `E_RESUME` (report that
    /// failure first, so the gone chat is evicted). Throws `E_INVALID_ARG` as `plan` does.
    #[napi(
        catch_unwind,
        ts_args_type = "request: ResumeRequest",
        ts_return_type = "ResumePlan"
    )]
    pub fn fresh_plan(&self, env: &Env, request: Unknown<'_>) -> Result<Json<ResumePlan>> {
        planned(env, request, |typed| self.inner.fresh_plan(typed))
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
        let (code, message) = read::<FailureArgument>(&env, error, "the error")?
            .into_parts()
            .map_err(to_js_error)?;
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

/// The plan `plan` makes of `request`.
fn planned(
    env: &Env,
    request: Unknown<'_>,
    plan: impl FnOnce(&CoreRequest<'_>) -> CorePlan,
) -> Result<Json<ResumePlan>> {
    read_json::<ResumeRequest>(env, request, "the request")?
        .use_with(|request| Ok(Json(request.plan_with(plan).map_err(to_js_error)?)))
}
