//! `runCursorAgent`, `resolveCursorAgent`, `listCursorModels`: convert, call `core::agent`, map.
//!
//! Child processes and the host: every child leads its own process group and is registered
//! while it runs; the addon stops them all (SIGKILL to each group) on the host's `'exit'` event
//! (see `init.rs`), for any importer of the package. On Linux each child also gets
//! `PR_SET_PDEATHSIG(SIGKILL)`, which covers a host killed by a signal. Not covered: on macOS
//! and other unixes, a host killed by an unhandled signal (or SIGKILL) leaves its children
//! running; on Windows only the direct child is stopped (no process groups, no job object).

use std::collections::HashMap;
use std::sync::Arc;

use napi::bindgen_prelude::{Env, PromiseRaw, Status, ToNapiValue};
use napi::threadsafe_function::{
    ThreadsafeFunction, ThreadsafeFunctionCallMode, UnknownReturnValue,
};
use napi::{sys, JsError};
use napi_derive::napi;

use super::error_code::{to_js_error, Code};
use super::output::outputs_to_js;
use crate::core::agent::{self, OutputSink, Receipt};
use crate::core::stream::encode::Output;
use napi::JsValue;

/// The registry owner of children started from this JS environment (main thread or a worker).
pub(crate) fn owner_of(env: &Env) -> u64 {
    env.raw() as usize as u64
}

fn run_context(env: &Env) -> agent::RunContext {
    let runtime =
        napi::bindgen_prelude::within_runtime_if_available(tokio::runtime::Handle::current);
    agent::RunContext {
        runtime,
        owner: owner_of(env),
    }
}

/// Options of `runCursorAgent`.
#[napi(object)]
pub struct RunCursorAgentOptions {
    /// The prompt. Written to cursor-agent's stdin (no size limit), then stdin is closed.
    /// Required; an empty or all-whitespace prompt is refused with `E_INVALID_ARG`.
    #[napi(ts_type = "string")]
    pub prompt: Option<String>,
    /// Cursor model id (`--model`); a `cursor-acp/` prefix is removed. Required.
    #[napi(ts_type = "string")]
    pub model: Option<String>,
    /// Existing folder: `--workspace` and the child's working directory. Required.
    #[napi(ts_type = "string")]
    pub workspace: Option<String>,
    /// Resume this Cursor chat (`--resume`); must match `^[A-Za-z0-9][A-Za-z0-9_-]*$`.
    /// When Cursor reports another chat, or fails with resume-specific text, before any output,
    /// the run ends with `E_RESUME` and `onOutput` is never called. Default: a fresh chat.
    pub resume_chat_id: Option<String>,
    /// Output encoding. Default `'ai-sdk'`.
    #[napi(ts_type = "'openai-sse' | 'ai-sdk'")]
    pub format: Option<String>,
    /// The cursor-agent binary (a path, or a name looked up on `PATH`). Default: resolved as
    /// `resolveCursorAgent` does.
    pub executable: Option<String>,
    /// Pass `--force` (Cursor may run shell commands); false passes `--trust` instead.
    /// Default true.
    pub force: Option<bool>,
    /// Further cursor-agent arguments, after all others. Default none.
    pub extra_args: Option<Vec<String>>,
    /// The child's complete environment (nothing else is inherited); also where `PATH` and
    /// `HOME` for resolving the binary come from. Default: inherit the host's environment.
    pub env: Option<HashMap<String, String>>,
    /// End the run with `E_TIMEOUT` after this long without stdout output; paused while a
    /// Cursor tool call is open and while `onOutput` is behind. 0 disables it. Default 300000.
    pub idle_timeout_ms: Option<f64>,
    /// End the run with `E_TIMEOUT` after this long in total. Default 0 (no limit).
    pub timeout_ms: Option<f64>,
    /// SSE only: Cursor's tool calls as `tool_calls` deltas. Default `'emit'`.
    #[napi(ts_type = "'emit' | 'omit'")]
    pub tool_calls: Option<String>,
    /// SSE only: emit the usage chunk. Default true.
    pub include_usage: Option<bool>,
    /// SSE chunk id. Default generated.
    pub id: Option<String>,
    /// SSE `created` (epoch seconds). Default now.
    pub created: Option<f64>,
    /// Largest stdout record accepted, in bytes. Default 64 MiB.
    pub max_line_bytes: Option<f64>,
}

impl From<RunCursorAgentOptions> for agent::RunRequest {
    fn from(o: RunCursorAgentOptions) -> Self {
        Self {
            prompt: o.prompt,
            model: o.model,
            workspace: o.workspace,
            resume_chat_id: o.resume_chat_id,
            format: o.format,
            executable: o.executable,
            force: o.force,
            extra_args: o.extra_args,
            env: o.env,
            idle_timeout_ms: o.idle_timeout_ms,
            timeout_ms: o.timeout_ms,
            tool_calls: o.tool_calls,
            include_usage: o.include_usage,
            id: o.id,
            created: o.created,
            max_line_bytes: o.max_line_bytes,
        }
    }
}

/// Cursor's token counts (after the validity filter); a count Cursor did not report is absent.
#[napi(object)]
pub struct CursorUsage {
    pub input_tokens: Option<f64>,
    pub output_tokens: Option<f64>,
    pub cache_read_tokens: Option<f64>,
    pub cache_write_tokens: Option<f64>,
    pub reasoning_tokens: Option<f64>,
}

/// A failure with a stable code (one of `ErrorCode`).
#[napi(object)]
pub struct RunError {
    pub code: String,
    pub message: String,
}

/// How a run ended. Absent fields mean "none" (test with `== null`).
#[napi(object)]
pub struct RunResult {
    pub exit_code: Option<i32>,
    /// e.g. `'SIGTERM'`.
    pub signal: Option<String>,
    /// `cancel()` stopped the run (not an error).
    pub cancelled: bool,
    /// The Cursor chat id seen in the stream.
    pub session_id: Option<String>,
    pub usage: Option<CursorUsage>,
    /// Absent on success, on cancel, and on a quota failure after output.
    pub error: Option<RunError>,
}

impl From<agent::RunResult> for RunResult {
    fn from(r: agent::RunResult) -> Self {
        let count = |n: Option<u64>| n.map(|n| n as f64);
        Self {
            exit_code: r.exit_code,
            signal: r.signal,
            cancelled: r.cancelled,
            session_id: r.session_id,
            usage: r.usage.map(|u| CursorUsage {
                input_tokens: count(u.input_tokens),
                output_tokens: count(u.output_tokens),
                cache_read_tokens: count(u.cache_read_tokens),
                cache_write_tokens: count(u.cache_write_tokens),
                reasoning_tokens: count(u.reasoning_tokens),
            }),
            error: r.error.map(|e| RunError {
                code: e.code().to_owned(),
                message: e.message().to_owned(),
            }),
        }
    }
}

/// One batch of outputs as a JS array: SSE frames as strings, V3 parts as objects.
pub struct OutputBatch(Vec<Output>);

impl ToNapiValue for OutputBatch {
    unsafe fn to_napi_value(env: sys::napi_env, mut batch: Self) -> napi::Result<sys::napi_value> {
        let env = Env::from_raw(env);
        let array = outputs_to_js(&env, &mut batch.0)
            .map_err(|e| napi::Error::new(Status::GenericFailure, e.reason.clone()))?;
        Ok(array.raw())
    }
}

/// Delivers batches to the JS callback; a batch's receipt is dropped when the callback returns.
struct JsOutputSink {
    on_output: ThreadsafeFunction<OutputBatch, UnknownReturnValue, OutputBatch, Status, false>,
}

impl OutputSink for JsOutputSink {
    fn deliver(&self, batch: Vec<Output>, receipt: Receipt) -> bool {
        let status = self.on_output.call_with_return_value(
            OutputBatch(batch),
            ThreadsafeFunctionCallMode::NonBlocking,
            move |returned, _env| {
                match returned {
                    Ok(_) => drop(receipt),
                    Err(thrown) => receipt.callback_failed(thrown.reason.clone()),
                }
                Ok(())
            },
        );
        status == Status::Ok
    }
}

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

    /// Settles after the last `onOutput` batch was delivered; never rejects for run failures
    /// (they are in `RunResult.error`). May be called any number of times.
    #[napi(catch_unwind, ts_return_type = "Promise<RunResult>")]
    pub fn wait<'env>(&self, env: &'env Env) -> napi::Result<PromiseRaw<'env, RunResult>> {
        let handle = self.handle.clone();
        env.spawn_future_with_callback(async move { Ok(handle.wait().await) }, |_env, result| {
            Ok(RunResult::from(result))
        })
    }
}

/// Run cursor-agent (`--print --output-format stream-json --stream-partial-output`) on a prompt
/// and stream its translated output to `onOutput`, in order, in batches (one per read from the
/// child). The queue to JS is bounded: stdout reading pauses while `onOutput` is behind. If
/// `onOutput` throws, the run is stopped and `wait()` reports `E_CALLBACK`; batches already
/// queued may still arrive. Every other failure arrives as the closing outputs (through
/// `onOutput`) and as `RunResult.error`. Only bad options throw, with `E_INVALID_ARG`.
///
/// cursor-agent runs in its own process group (directly, no shell; cwd = `workspace`). The
/// package stops every live group with SIGKILL on the host's `'exit'` event (registered when
/// the addon loads), and on Linux each child gets `PR_SET_PDEATHSIG(SIGKILL)`, so it dies with
/// the host even when the host is killed by a signal. Not covered: on macOS a host killed by an
/// unhandled signal or SIGKILL leaves cursor-agent running until it finishes; on Linux, what
/// cursor-agent itself started survives such a kill; on Windows only cursor-agent itself is
/// stopped (no process group).
#[napi(catch_unwind)]
pub fn run_cursor_agent(
    env: Env,
    #[napi(
        ts_arg_type = "RunCursorAgentOptions & Required<Pick<RunCursorAgentOptions, 'prompt' | 'model' | 'workspace'>>"
    )]
    options: RunCursorAgentOptions,
    #[napi(ts_arg_type = "(outputs: StreamOutput[]) => void")] on_output: ThreadsafeFunction<
        OutputBatch,
        UnknownReturnValue,
        OutputBatch,
        Status,
        false,
    >,
) -> napi::Result<CursorAgentRun, Code> {
    let options = agent::RunRequest::from(options)
        .validate()
        .map_err(to_js_error)?;
    let sink = Arc::new(JsOutputSink { on_output });
    let handle = agent::start_run(options, sink, run_context(&env));
    Ok(CursorAgentRun { handle })
}

/// Where to look for cursor-agent.
#[napi(object)]
pub struct CursorAgentLookupOptions {
    /// Tried first: a path, or a name looked up on `PATH`. Default none.
    pub executable: Option<String>,
    /// Supplies `PATH`, `HOME` (and `LOCALAPPDATA` on Windows); for `listCursorModels` also the
    /// child's complete environment. Default: the host's environment.
    pub env: Option<HashMap<String, String>>,
}

/// The binary found (or not) and every place looked at, in order.
#[napi(object)]
pub struct CursorAgentResolution {
    /// Absent when not found.
    pub path: Option<String>,
    pub tried: Vec<String>,
}

/// Find cursor-agent: `executable`, then `cursor-agent` and `agent` on `PATH`,
/// `~/.local/bin/cursor-agent`, `~/.cursor-agent/cursor-agent`, and on Windows the newest
/// `versions/<v>/node.exe` under `%LOCALAPPDATA%/cursor-agent` (run with its `index.js`; the
/// `.cmd` shim cannot be started without a shell). The default lookup (no `executable`) is
/// cached, keyed by the `PATH`, `HOME` and `LOCALAPPDATA` it used.
#[napi(catch_unwind)]
pub fn resolve_cursor_agent(options: Option<CursorAgentLookupOptions>) -> CursorAgentResolution {
    let (executable, env) = options.map_or((None, None), |o| (o.executable, o.env));
    let resolution = agent::resolve_agent(executable.as_deref(), env.as_ref());
    CursorAgentResolution {
        path: resolution
            .launcher
            .map(|l| l.program.to_string_lossy().into_owned()),
        tried: resolution.tried,
    }
}

/// A model the Cursor account can use.
#[napi(object)]
pub struct CursorModel {
    /// What `--model` takes, e.g. `gpt-5.5-high`.
    pub id: String,
    /// Cursor's label, e.g. `GPT-5.5 1M High`.
    pub name: String,
}

/// Run `cursor-agent models` and parse its list. Resolves `[]` when Cursor says no models are
/// available; rejects with a stable `code` (`E_AGENT_NOT_FOUND`, `E_AUTH`, `E_TIMEOUT` after
/// 30 s, `E_AGENT_EXIT`, ...) when the command fails.
#[napi(catch_unwind, ts_return_type = "Promise<Array<CursorModel>>")]
pub fn list_cursor_models<'env>(
    env: &'env Env,
    options: Option<CursorAgentLookupOptions>,
) -> napi::Result<PromiseRaw<'env, Vec<CursorModel>>> {
    let (executable, vars) = options.map_or((None, None), |o| (o.executable, o.env));
    let ctx = run_context(env);
    env.spawn_future_with_callback(
        async move { Ok(agent::list_models(executable, vars, ctx).await) },
        |env, listed| match listed {
            Ok(models) => Ok(models
                .into_iter()
                .map(|m| CursorModel {
                    id: m.id,
                    name: m.name,
                })
                .collect()),
            Err(error) => {
                let js_error = JsError::from(to_js_error(error)).into_unknown(*env);
                Err(napi::Error::from(js_error))
            }
        },
    )
}
