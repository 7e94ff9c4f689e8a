//! `runCursorAgent` and the `CursorAgentRun` it returns: read the options, start the core run,
//! deliver its batches to the JS callback.
//!
//! Child processes and the host: every child leads its own process group, registered until the
//! group is gone (see `core/agent/registry.rs`); `init.rs` stops them on the host's `'exit'`
//! event and when this JS environment is torn down, and the core watchdog when the host dies
//! any other way. On Windows only the direct child is stopped (no process groups, no job object).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use napi::bindgen_prelude::{Env, Function, JsObjectValue, PromiseRaw, Status, ToNapiValue};
use napi::threadsafe_function::{
    ThreadsafeFunction, ThreadsafeFunctionCallMode, UnknownReturnValue,
};
use napi::{sys, JsValue, Unknown, ValueType};
use napi_derive::napi;

use super::error_code::{invalid_arg, to_js_error, ErrorCode, Result};
use super::init::run_context;
use super::options::{argument, Options, MAX_SAFE_INTEGER};
use super::output::outputs_to_js;
use super::transformer::read_transformer_options;
use crate::core::agent::options::HostTools;
use crate::core::agent::run::ToolAnswers;
use crate::core::agent::{self, OutputSink, Receipt, RunRequest};
use crate::core::bridge::{Answer, AnswerContent, HostTool};
use crate::core::capture::CaptureOptions;
use crate::core::error::CoreError;
use crate::core::json;
use crate::core::stream::encode::Output;

/// Options of `runCursorAgent`. Numbers are whole numbers in the range each states; any other
/// value of an option is refused with `E_INVALID_ARG`.
#[allow(
    dead_code,
    reason = "declares the TypeScript shape; the options are read field by field"
)]
#[napi(object)]
pub struct RunCursorAgentOptions {
    /// The prompt. Written to cursor-agent's stdin (no size limit), then stdin is closed.
    /// Required; an empty or all-whitespace prompt is refused with `E_INVALID_ARG`.
    pub prompt: String,
    /// Cursor model id (`--model`); a `cursor-acp/` prefix is removed. Required.
    pub model: String,
    /// Existing folder: `--workspace` and the child's working directory (with `hostTools`, the
    /// private workspace in `hostTools.folder` is used instead). Required.
    pub workspace: String,
    /// Resume this Cursor chat (`--resume`); must match `^[A-Za-z0-9][A-Za-z0-9_-]*$` and be at
    /// most 256 characters.
    /// When Cursor reports another chat, or fails with resume-specific text, before any output,
    /// the run ends with `E_RESUME` and `onOutput` is never called. Output is held until the
    /// chat is named, at most 1 MiB of stdout; past that the run is an ordinary one (it can no
    /// longer end in `E_RESUME`). Default: a fresh chat.
    pub resume_chat_id: Option<String>,
    /// Output encoding. Default `'ai-sdk'`.
    #[napi(ts_type = "'openai-sse' | 'ai-sdk'")]
    pub format: Option<String>,
    /// The cursor-agent binary (a path, made absolute against the host's working folder, or a
    /// name looked up on the absolute entries of `PATH`). Default: resolved as
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
    /// Cursor tool call is open and while `onOutput` is behind. 0 disables it. From 0 to
    /// 2^53 - 1; default 300000.
    pub idle_timeout_ms: Option<f64>,
    /// End the run with `E_TIMEOUT` after this long in total. From 0 to 2^53 - 1; default 0
    /// (no limit).
    pub timeout_ms: Option<f64>,
    /// SSE only: Cursor's tool calls as `tool_calls` deltas. Default `'emit'`.
    #[napi(ts_type = "'emit' | 'omit'")]
    pub tool_calls: Option<String>,
    /// SSE only: emit the usage chunk. Default true.
    pub include_usage: Option<bool>,
    /// SSE chunk id. Default generated.
    pub id: Option<String>,
    /// SSE `created` (epoch seconds), from 0 to 2^53 - 1. Default now.
    pub created: Option<f64>,
    /// Largest stdout record accepted, in bytes, from 1 to 2^53 - 1. Default 64 MiB.
    pub max_line_bytes: Option<f64>,
    /// Let the host run its own tools instead of Cursor (the tool bridge). Default none:
    /// Cursor runs its own tools.
    pub host_tools: Option<HostToolsOptions>,
    /// Capture the run into one file for `replayCapture`. Default none.
    pub capture: Option<RunCaptureOptions>,
}

/// Where and how a run is captured. The capture `<folder>/<name>.ndjson` holds the command line,
/// the names of the child's variables, the prompt's size and SHA-256, stdout as read, the
/// stderr tail, the exit, timings and every output. Stdout is kept byte for byte but for the
/// text of the `user` record that echoes the prompt, and the value of every secret the child was
/// given (variables named like `*API_KEY*`, `*TOKEN*`, `*SECRET*`, `*PASSWORD*`, `*_KEY`, and
/// the tool bridge's token), each replaced by `[masked NAME]`. A failure's message names the
/// capture (`RunResult.capture`), a name without digits. A capture that cannot be written is
/// given up with a logged warning; the run goes on.
#[allow(
    dead_code,
    reason = "declares the TypeScript shape; the options are read field by field"
)]
#[napi(object)]
pub struct RunCaptureOptions {
    /// The capture folder, an absolute path (created when missing).
    pub folder: String,
    /// The folder's total size: before a capture starts and when one ends, the oldest are
    /// removed until the rest and one more capture fit; one capture keeps at most a quarter of
    /// it. From 1 to 2^53 - 1; default 209715200 (200 MiB).
    pub max_bytes: Option<f64>,
    /// Keep the prompt's text too (in the capture's start line and in its echo). Default
    /// false: only its size and hash.
    pub include_prompt: Option<bool>,
}

/// The tool bridge of a run. cursor-agent gets the tools through an MCP server on
/// `127.0.0.1` (random port and path, a bearer token), works in `<folder>/workspace` with
/// `HOME=<folder>/home` and `CURSOR_DATA_DIR=<folder>/cursor-data` (`CURSOR_CONFIG_DIR`, where
/// Cursor keeps the login, stays the user's `~/.cursor` unless `env` sets it), and is started
/// with `--trust --approve-mcps --allowed-tools mcp_tool_call,get_mcp_tools_tool_call` instead
/// of `--force`/`--trust`; `workspace` is then not used by the child. Each call's arguments
/// are checked against the tool's schema (a mismatch is answered at once, with the reasons,
/// and not handed over). Once calls and stdout have been quiet for `quietMs`, the waiting
/// calls are delivered as `tool-call` parts (without `providerExecuted`; SSE: `tool_calls`)
/// followed by a `finish` with reason `tool-calls` and no usage; the run stays alive until
/// `answerToolCalls()`, after which its outputs continue (an `ai-sdk` stream starts again with
/// `stream-start`). Cursor's own reports of these calls are not shown; a tool Cursor runs
/// itself is shown as in the default mode, with a notice in the text.
#[allow(
    dead_code,
    reason = "declares the TypeScript shape; the options are read field by field"
)]
#[napi(object)]
pub struct HostToolsOptions {
    /// The tools as the host offers them to its model: V3 `{type: 'function', name,
    /// description, inputSchema}` or OpenAI `{type: 'function', function: {name, description,
    /// parameters}}`; provider-defined tools are left out.
    #[napi(ts_type = "Array<object>")]
    pub tools: Vec<serde_json::Value>,
    /// The conversation's private folder, an absolute path (created when missing). Keep it
    /// the same for every run of one conversation: Cursor keys its chats by the workspace
    /// path. Sibling folders unused for 7 days are removed.
    pub folder: String,
    /// How long handed-over calls may wait for `answerToolCalls()` before the run is stopped
    /// with `E_TIMEOUT`; the wait counts toward neither `idleTimeoutMs` nor `timeoutMs`. From 1
    /// to 2^53 - 1; default 600000 (10 minutes).
    pub wait_ms: Option<f64>,
    /// How long no new call and no stdout must have come before the waiting calls are handed
    /// over together. From 0 to 60000; default 75.
    pub quiet_ms: Option<f64>,
}

/// The host's result of one handed-over tool call.
#[allow(
    dead_code,
    reason = "declares the TypeScript shape; the answers are read field by field"
)]
#[napi(object)]
pub struct ToolAnswer {
    /// The `toolCallId` of the call.
    pub id: String,
    /// The result as text (for a failure or a refusal: why).
    pub output: String,
    /// The tool failed or was refused. Default false.
    pub is_error: Option<bool>,
    /// Images of the result, as base64 data with their media type.
    pub images: Option<Vec<ToolAnswerImage>>,
}

#[napi(object)]
pub struct ToolAnswerImage {
    pub data: String,
    pub mime_type: String,
}

pub(super) fn read_host_tools(env: &Env, options: &Options<'_>) -> Result<Option<HostTools>> {
    let Some(host) = options.object("hostTools")? else {
        return Ok(None);
    };
    let (tools, depth) = host
        .json_array(env, "tools")?
        .ok_or_else(|| invalid_arg("`hostTools.tools` is required"))?;
    let tools = json::with_stack_for(depth, || match &tools {
        serde_json::Value::Array(items) => HostTool::from_definitions(items),
        _ => Ok(Vec::new()),
    })
    .map_err(to_js_error)?;
    let mut host_tools = HostTools::new(tools, host.string("folder")?.unwrap_or_default());
    if let Some(ms) = host.whole_number("waitMs", 1..=MAX_SAFE_INTEGER)? {
        host_tools.wait = Duration::from_millis(ms.unsigned_abs());
    }
    if let Some(ms) = host.whole_number("quietMs", 0..=60_000)? {
        host_tools.quiet = Duration::from_millis(ms.unsigned_abs());
    }
    Ok(Some(host_tools))
}

fn read_capture(options: &Options<'_>) -> Result<Option<CaptureOptions>> {
    let Some(capture) = options.object("capture")? else {
        return Ok(None);
    };
    let folder = capture
        .string("folder")?
        .ok_or_else(|| invalid_arg("`capture.folder` is required"))?;
    let mut read = CaptureOptions::new(folder);
    if let Some(max) = capture.whole_number("maxBytes", 1..=MAX_SAFE_INTEGER)? {
        read.max_bytes = max.unsigned_abs();
    }
    read.include_prompt = capture.boolean("includePrompt")?.unwrap_or(false);
    Ok(Some(read))
}

fn read_answers(answers: Vec<ToolAnswer>) -> ToolAnswers {
    answers
        .into_iter()
        .map(|answer| {
            let mut content = vec![AnswerContent::Text(answer.output)];
            for image in answer.images.unwrap_or_default() {
                content.push(AnswerContent::Image {
                    data: image.data,
                    mime_type: image.mime_type,
                });
            }
            let is_error = answer.is_error.unwrap_or(false);
            (answer.id, Answer { content, is_error })
        })
        .collect()
}

/// A duration option in milliseconds; 0 means "no limit".
fn millis(options: &Options<'_>, name: &str) -> Result<Option<Option<Duration>>> {
    let ms = options.whole_number(name, 0..=MAX_SAFE_INTEGER)?;
    Ok(ms.map(|ms| (ms > 0).then(|| Duration::from_millis(ms.unsigned_abs()))))
}

fn read_run_request(env: &Env, options: &Options<'_>) -> Result<RunRequest> {
    let defaults = RunRequest::default();
    Ok(RunRequest {
        prompt: options.string("prompt")?.unwrap_or_default(),
        model: options.string("model")?.unwrap_or_default(),
        workspace: options.string("workspace")?.unwrap_or_default(),
        resume_chat_id: options.string("resumeChatId")?,
        executable: options.string("executable")?,
        force: options.boolean("force")?.unwrap_or(defaults.force),
        extra_args: options.strings("extraArgs")?.unwrap_or_default(),
        env: options.string_map("env")?,
        idle_timeout: millis(options, "idleTimeoutMs")?.unwrap_or(defaults.idle_timeout),
        timeout: millis(options, "timeoutMs")?.unwrap_or(defaults.timeout),
        transformer: read_transformer_options(options, defaults.transformer)?,
        host_tools: read_host_tools(env, options)?,
        capture: read_capture(options)?,
    })
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
    #[napi(ts_type = "`${ErrorCode}`")]
    pub code: ErrorCode,
    /// What happened and what to do, in the package's words. It holds no millisecond counts
    /// and no text of Cursor's, which some hosts would read as a transient failure and retry.
    pub message: String,
    /// What cursor-agent itself printed about the failure (its error result, then its last
    /// stderr lines), verbatim with ANSI removed; absent when it printed nothing.
    pub agent_output: Option<String>,
}

impl From<CoreError> for RunError {
    fn from(error: CoreError) -> Self {
        Self {
            code: error.code().into(),
            message: error.message().to_owned(),
            agent_output: error.agent_output().map(str::to_owned),
        }
    }
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
    /// Absent on success and on cancel. A failure after output (a usage limit hit mid-answer
    /// among them) is reported here too: the output delivered so far stands.
    pub error: Option<RunError>,
    /// Non-blank stdout records skipped as unusable: longer than `maxLineBytes`, not valid
    /// UTF-8, not a JSON object (as `StreamTransformer.skippedLines` counts them). Not an error
    /// (a prompt over the cap comes back as one echoed record); a warning is logged.
    pub skipped_lines: f64,
    /// The name of the run's capture (with `capture`, once its file was created).
    pub capture: Option<String>,
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
            error: r.error.map(RunError::from),
            skipped_lines: r.skipped_lines as f64,
            capture: r.capture,
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

/// Delivers batches to the JS callback, one at a time and at most one per turn of the event
/// loop: the next batch is handed over from a `setImmediate` scheduled when the callback
/// returns, so timers, I/O and the host's own immediates run between two calls however fast
/// the batches come. A batch's receipt is dropped when the callback returns; once it throws,
/// no further batch is delivered.
struct JsOutputSink {
    inner: Arc<SinkInner>,
}

struct SinkInner {
    on_output: OnOutput,
    queue: Mutex<SinkQueue>,
}

#[derive(Default)]
struct SinkQueue {
    /// A batch is with the callback, or its turn of the event loop has not yet passed.
    busy: bool,
    /// Batches waiting for their turn (at most the core's in-flight limit).
    waiting: VecDeque<(Vec<Output>, Receipt)>,
    /// The callback threw: the consumer is gone.
    failed: bool,
}

/// The `onOutput` callback, called from any thread, never with an error first argument.
type OnOutput = ThreadsafeFunction<OutputBatch, UnknownReturnValue, OutputBatch, Status, false>;

impl SinkInner {
    fn queue(&self) -> std::sync::MutexGuard<'_, SinkQueue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Hands `batch` to the callback; false when the JS side is gone.
    fn send(self: &Arc<Self>, batch: Vec<Output>, receipt: Receipt) -> bool {
        let inner = Arc::clone(self);
        let status = self.on_output.call_with_return_value(
            OutputBatch(batch),
            ThreadsafeFunctionCallMode::NonBlocking,
            move |returned, env| {
                match returned {
                    Ok(_) => drop(receipt),
                    Err(thrown) => {
                        receipt.callback_failed(thrown.reason.clone());
                        let mut queue = inner.queue();
                        queue.failed = true;
                        queue.waiting.clear();
                    }
                }
                inner.after_turn(&env);
                Ok(())
            },
        );
        if status != Status::Ok {
            let mut queue = self.queue();
            queue.busy = false;
            queue.waiting.clear();
        }
        status == Status::Ok
    }

    /// Sends the next waiting batch once the event loop has gone round (from `setImmediate`).
    /// The scheduled function holds the sink weakly: JS frees it only when the garbage
    /// collector runs, and a strong hold would keep `onOutput`, and with it the event loop,
    /// alive after the run (a script that ran cursor-agent would never exit). Once the core has
    /// let go of the sink, every batch was delivered, so there is nothing left to send.
    fn after_turn(self: &Arc<Self>, env: &Env) {
        let inner = Arc::downgrade(self);
        let scheduled = env
            .create_function_from_closure::<(), (), _>("nextOutputBatch", move |_| {
                if let Some(inner) = inner.upgrade() {
                    inner.send_next();
                }
                Ok(())
            })
            .and_then(|next| {
                let global = env.get_global()?;
                let set_immediate: Function<Unknown, Unknown> =
                    global.get_named_property("setImmediate")?;
                set_immediate.call(next.to_unknown())
            });
        if scheduled.is_err() {
            // No event loop to wait for (the environment is going away): go on at once.
            self.send_next();
        }
    }

    fn send_next(self: &Arc<Self>) {
        let next = {
            let mut queue = self.queue();
            let next = queue.waiting.pop_front();
            queue.busy = next.is_some();
            next
        };
        if let Some((batch, receipt)) = next {
            self.send(batch, receipt);
        }
    }
}

impl OutputSink for JsOutputSink {
    fn deliver(&self, batch: Vec<Output>, receipt: Receipt) -> bool {
        {
            let mut queue = self.inner.queue();
            if queue.failed {
                return true;
            }
            if queue.busy {
                queue.waiting.push_back((batch, receipt));
                return true;
            }
            queue.busy = true;
        }
        self.inner.send(batch, receipt)
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

    /// Answer every tool call the run handed over (`hostTools`): the run goes on, and its
    /// outputs continue through `onOutput`. Returns false when the run is already over (then
    /// nothing was answered); answers for calls that were not handed over are ignored.
    #[napi(catch_unwind)]
    pub fn answer_tool_calls(&self, answers: Vec<ToolAnswer>) -> bool {
        self.handle.answer_tool_calls(read_answers(answers))
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
    ts_args_type = "options: RunCursorAgentOptions, onOutput: (outputs: StreamOutput[]) => void"
)]
pub fn run_cursor_agent(
    env: Env,
    options: Unknown,
    on_output: Option<Unknown>,
) -> Result<CursorAgentRun> {
    let options = read_run_request(
        &env,
        &Options::required(options, "the runCursorAgent options")?,
    )?
    .validate()
    .map_err(to_js_error)?;
    let on_output: OnOutput = argument(on_output, ValueType::Function, "onOutput", "a function")?
        .ok_or_else(|| invalid_arg("onOutput is required"))?;
    let sink = Arc::new(JsOutputSink {
        inner: Arc::new(SinkInner {
            on_output,
            queue: Mutex::default(),
        }),
    });
    let handle = agent::start_run(options, sink, run_context(&env));
    Ok(CursorAgentRun { handle })
}
