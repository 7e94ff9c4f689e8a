//! `runCursorAgent` and the `CursorAgentRun` it returns: read the options, start the core run,
//! deliver its batches to the JS callback (`sink.rs`).
//!
//! Child processes and the host: every child leads its own process group, registered until the
//! group is gone (see `core/agent/registry.rs`); `init.rs` stops them on the host's `'exit'`
//! event and when this JS environment is torn down, and the core watchdog when the host dies
//! any other way. On Windows only the direct child is stopped (no process groups, no job object).

use std::sync::Arc;

use napi::bindgen_prelude::{Env, PromiseRaw};
use napi::{Unknown, ValueType};
use napi_derive::napi;

use super::error::{invalid_arg, to_js_error, Result};
use super::init::run_context;
use super::output::Json;
use super::read::read;
use super::sink::{JsOutputSink, OnOutput};
use crate::core::agent::{self, RunRequest, RunResult};
use crate::core::api::run::{tool_answers, RunCursorAgentOptions, ToolAnswer};

/// A running cursor-agent process (from `runCursorAgent`).
#[napi]
pub struct CursorAgentRun {
    handle: agent::RunHandle,
}

#[napi]
impl CursorAgentRun {
    /// Stop the run: SIGTERM to cursor-agent's process group, SIGKILL after 2 s. Reading stops
    /// at once; the run finishes with the cancelled outputs and `RunResult.cancelled = true`.
    /// No effect once the run has ended.
    #[napi(catch_unwind)]
    pub fn cancel(&self) {
        self.handle.cancel();
    }

    /// Answer every tool call the run handed over (`hostTools`): the run goes on, and its
    /// outputs continue through `onOutput`. Returns false when the run is already over (then
    /// nothing was answered); answers for calls that were not handed over are ignored. Throws
    /// `E_INVALID_ARG` for answers of another shape.
    #[napi(catch_unwind, ts_args_type = "answers: ToolAnswer[]")]
    pub fn answer_tool_calls(&self, env: Env, answers: Unknown) -> Result<bool> {
        let answers: Vec<ToolAnswer> = read(&env, answers, "the answers")?;
        Ok(self.handle.answer_tool_calls(tool_answers(answers)))
    }

    /// Settles after the last `onOutput` batch was delivered; never rejects for run failures
    /// (they are in `RunResult.error`). May be called any number of times.
    #[napi(catch_unwind, ts_return_type = "Promise<RunResult>")]
    pub fn wait<'env>(&self, env: &'env Env) -> napi::Result<PromiseRaw<'env, Json<RunResult>>> {
        let handle = self.handle.clone();
        env.spawn_future_with_callback(async move { Ok(handle.wait().await) }, |_env, result| {
            Ok(Json(result))
        })
    }
}

/// Run cursor-agent (`--print --output-format stream-json --stream-partial-output`) on a prompt
/// and stream its translated output to `onOutput`, in order, in batches (one per read from the
/// child). The queue to JS is bounded: stdout reading pauses while `onOutput` is behind, and
/// `onOutput` is called at most once per turn of the event loop, so timers and I/O run between
/// two calls. If `onOutput` throws, even on the last batch, the run is stopped, no further
/// batch is delivered and `wait()` reports `E_CALLBACK`. Every other failure arrives as the
/// closing outputs (through `onOutput`) and as `RunResult.error`. Only bad options throw, with
/// `E_INVALID_ARG` (a NUL in any option but the prompt among them).
///
/// cursor-agent runs in its own process group (directly, no shell; cwd = `workspace`). When the
/// run ends, however it ends, what is left of the group gets SIGTERM, then SIGKILL after 2 s.
/// The group is also stopped on the host's `'exit'` event, when a Worker that started it is
/// terminated, and, through a watchdog process (`/bin/sh`, one per host), when the host dies by
/// any signal, SIGKILL included. Not covered: processes that leave the group (`setsid`); on
/// Windows only cursor-agent itself is stopped (no process group).
#[napi(
    catch_unwind,
    ts_args_type = "options: RunCursorAgentOptions, onOutput: (outputs: StreamOutput[], step: RunStep | null) => void"
)]
pub fn run_cursor_agent(
    env: Env,
    options: Unknown,
    on_output: Option<Unknown>,
) -> Result<CursorAgentRun> {
    let options: RunCursorAgentOptions = read(&env, options, "the runCursorAgent options")?;
    let request = RunRequest::try_from(options)
        .and_then(RunRequest::validate)
        .map_err(to_js_error)?;
    let on_output = on_output
        .filter(|f| f.get_type().is_ok_and(|t| t == ValueType::Function))
        .ok_or_else(|| invalid_arg("onOutput must be a function"))?;
    // SAFETY: checked to be a JS function just before.
    let on_output: OnOutput =
        unsafe { on_output.cast() }.map_err(|_| invalid_arg("onOutput must be a function"))?;
    let sink = Arc::new(JsOutputSink::new(on_output));
    let handle = agent::start_run(request, sink, run_context(&env));
    Ok(CursorAgentRun { handle })
}
