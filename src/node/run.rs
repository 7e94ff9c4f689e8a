//! `runCursorAgent` and the `CursorAgentRun` it returns: read the options, start the core run,
//! deliver its batches to the JS callback (`sink.rs`).
//!
//! Child processes and the host: every child leads its own process group, registered until the
//! group is gone (see `core/agent/registry.rs`); `init.rs` stops them on the host's `'exit'`
//! event and when this JS environment is torn down, and the core watchdog when the host dies
//! any other way. On Windows only the direct child is stopped (no process groups, no job object).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use napi::bindgen_prelude::{Env, PromiseRaw};
use napi::Unknown;
use napi_derive::napi;
use serde::Deserialize;

use super::error::{invalid_arg, to_js_error, Result, RunError};
use super::init::run_context;
use super::read::read;
use super::sink::{JsOutputSink, OnOutput};
use super::transformer::with_translation_options;
use crate::core::agent::options::HostTools;
use crate::core::agent::{self, RunRequest, StepEnd, StepReason};
use crate::core::bridge::{Answer, AnswerContent, HostTool};
use crate::core::capture::CaptureOptions;
use crate::core::json::BoundedValue;
use crate::core::whole_number::{NonNegative, Positive, WholeNumber};

// Docs are `#[doc = "..."]` (see `with_translation_options!`).
with_translation_options! {
    #[doc = " Options of `runCursorAgent`. Numbers are whole numbers in the range each states; any"]
    #[doc = " other value of an option, and a field that is not one of these, is refused with"]
    #[doc = " `E_INVALID_ARG`."]
    pub struct RunCursorAgentOptions {
        #[doc = " The prompt. Written to cursor-agent's stdin (no size limit), then stdin is closed."]
        #[doc = " Required; an empty or all-whitespace prompt is refused with `E_INVALID_ARG`."]
        pub prompt: String,
        #[doc = " Cursor model id (`--model`); a `cursor-acp/` prefix is removed. Required."]
        pub model: String,
        #[doc = " Existing folder: `--workspace` and the child's working directory (with"]
        #[doc = " `hostTools`, the private workspace in `hostTools.folder` is used instead). Required."]
        pub workspace: String,
        #[doc = " Resume this Cursor chat (`--resume`); must match `^[A-Za-z0-9][A-Za-z0-9_-]*$` and"]
        #[doc = " be at most 256 characters. When Cursor reports another chat, or fails with"]
        #[doc = " resume-specific text, before any output, the run ends with `E_RESUME` and"]
        #[doc = " `onOutput` is never called. Output is held until the chat is named, at most 1 MiB of"]
        #[doc = " stdout; past that the run is an ordinary one (it can no longer end in `E_RESUME`)."]
        #[doc = " Default: a fresh chat."]
        pub resume_chat_id: Option<String>,
        #[doc = " The binary (a path, made absolute against the host's working folder, or a name"]
        #[doc = " looked up on the absolute entries of `PATH`). Default: resolved as"]
        #[doc = " `resolveCursorAgent` does."]
        pub executable: Option<String>,
        #[doc = " Pass `--force` (Cursor may run shell commands); false passes `--trust` instead."]
        #[doc = " Default true."]
        pub force: Option<bool>,
        #[doc = " Further cursor-agent arguments, after all others. Default none."]
        pub extra_args: Option<Vec<String>>,
        #[doc = " The child's complete environment (nothing else is inherited); also where `PATH` and"]
        #[doc = " `HOME` for resolving the binary come from. Default: inherit the host's environment."]
        pub env: Option<HashMap<String, String>>,
        #[doc = " End the run with `E_TIMEOUT` after this long without stdout output; paused while a"]
        #[doc = " Cursor tool call is open and while `onOutput` is behind. 0 disables it. From 0 to"]
        #[doc = " 2^53 - 1; default 300000."]
        #[napi(ts_type = "number")]
        pub idle_timeout_ms: Option<NonNegative>,
        #[doc = " End the run with `E_TIMEOUT` after this long in total. From 0 to 2^53 - 1; default"]
        #[doc = " 0 (no limit)."]
        #[napi(ts_type = "number")]
        pub timeout_ms: Option<NonNegative>,
        #[doc = " Let the host run its own tools instead of Cursor (the tool bridge). Default none:"]
        #[doc = " Cursor runs its own tools."]
        pub host_tools: Option<HostToolsOptions>,
        #[doc = " Capture the run into one file for `replayCapture`. Default none."]
        pub capture: Option<RunCaptureOptions>,
    }
}

/// Where and how a run is captured. The capture `<folder>/<name>.ndjson` holds the command line,
/// the names of the child's variables, the prompt's size and SHA-256, stdout as read, the
/// stderr tail, the exit, timings and every output. Stdout is kept byte for byte but for the
/// text of the `user` record that echoes the prompt, and the value of every secret the child was
/// given (variables named like `*API_KEY*`, `*TOKEN*`, `*SECRET*`, `*PASSWORD*`, `*_KEY`, and
/// the tool bridge's token), each replaced by `[masked NAME]`. A failure's message names the
/// capture (`RunResult.capture`), a name without digits. A capture that cannot be written is
/// given up with a logged warning; the run goes on.
#[napi(object, object_from_js = false, object_to_js = false)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunCaptureOptions {
    /// The capture folder, an absolute path (created when missing).
    pub folder: String,
    /// The folder's total size: before a capture starts and when one ends, the oldest are
    /// removed until the rest and one more capture fit; one capture keeps at most a quarter of
    /// it. From 1 to 2^53 - 1; default 209715200 (200 MiB).
    #[napi(ts_type = "number")]
    pub max_bytes: Option<Positive>,
    /// Keep the prompt's text too (in the capture's start line and in its echo). Default
    /// false: only its size and hash.
    pub include_prompt: Option<bool>,
}

impl From<RunCaptureOptions> for CaptureOptions {
    fn from(options: RunCaptureOptions) -> Self {
        let mut capture = CaptureOptions::new(options.folder);
        if let Some(max) = options.max_bytes {
            capture.max_bytes = max.unsigned();
        }
        capture.include_prompt = options.include_prompt.unwrap_or(false);
        capture
    }
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
#[napi(object, object_from_js = false, object_to_js = false)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HostToolsOptions {
    /// The tools as the host offers them to its model: V3 `{type: 'function', name,
    /// description, inputSchema}` or OpenAI `{type: 'function', function: {name, description,
    /// parameters}}`; provider-defined tools are left out.
    #[napi(ts_type = "Array<object>")]
    pub tools: Vec<BoundedValue>,
    /// The conversation's private folder, an absolute path (created when missing). Keep it
    /// the same for every run of one conversation: Cursor keys its chats by the workspace
    /// path. Sibling folders unused for 7 days are removed.
    pub folder: String,
    /// How long handed-over calls may wait for `answerToolCalls()` before the run is stopped
    /// with `E_TIMEOUT`; the wait counts toward neither `idleTimeoutMs` nor `timeoutMs`. From 1
    /// to 2^53 - 1; default 600000 (10 minutes).
    #[napi(ts_type = "number")]
    pub wait_ms: Option<Positive>,
    /// How long no new call and no stdout must have come before the waiting calls are handed
    /// over together. From 0 to 60000; default 75.
    #[napi(ts_type = "number")]
    pub quiet_ms: Option<WholeNumber<0, 60_000>>,
}

impl TryFrom<HostToolsOptions> for HostTools {
    type Error = napi::Error<super::error::Code>;

    fn try_from(options: HostToolsOptions) -> Result<Self> {
        let definitions: Vec<_> = options.tools.into_iter().map(|tool| tool.0).collect();
        let tools = HostTool::from_definitions(&definitions).map_err(to_js_error)?;
        let mut host_tools = HostTools::new(tools, options.folder);
        if let Some(ms) = options.wait_ms {
            host_tools.wait = Duration::from_millis(ms.unsigned());
        }
        if let Some(ms) = options.quiet_ms {
            host_tools.quiet = Duration::from_millis(ms.unsigned());
        }
        Ok(host_tools)
    }
}

/// The host's result of one handed-over tool call.
#[napi(object, object_from_js = false, object_to_js = false)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
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

#[napi(object, object_from_js = false, object_to_js = false)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolAnswerImage {
    pub data: String,
    pub mime_type: String,
}

impl From<ToolAnswer> for (String, Answer) {
    fn from(answer: ToolAnswer) -> Self {
        let mut content = vec![AnswerContent::Text(answer.output)];
        for image in answer.images.unwrap_or_default() {
            content.push(AnswerContent::Image {
                data: image.data,
                mime_type: image.mime_type,
            });
        }
        let is_error = answer.is_error.unwrap_or(false);
        (answer.id, Answer { content, is_error })
    }
}

/// A duration in milliseconds where 0 means "no limit".
fn limit(ms: NonNegative) -> Option<Duration> {
    (ms.get() > 0).then(|| Duration::from_millis(ms.unsigned()))
}

impl TryFrom<RunCursorAgentOptions> for RunRequest {
    type Error = napi::Error<super::error::Code>;

    fn try_from(options: RunCursorAgentOptions) -> Result<Self> {
        let defaults = RunRequest::default();
        Ok(RunRequest {
            transformer: options.translation(defaults.transformer.clone()),
            prompt: options.prompt,
            model: options.model,
            workspace: options.workspace,
            resume_chat_id: options.resume_chat_id,
            executable: options.executable,
            force: options.force.unwrap_or(defaults.force),
            extra_args: options.extra_args.unwrap_or_default(),
            env: options.env,
            idle_timeout: options.idle_timeout_ms.map_or(defaults.idle_timeout, limit),
            timeout: options.timeout_ms.map_or(defaults.timeout, limit),
            host_tools: options.host_tools.map(HostTools::try_from).transpose()?,
            capture: options.capture.map(CaptureOptions::from),
        })
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

impl From<crate::core::stream::usage::CursorUsage> for CursorUsage {
    fn from(usage: crate::core::stream::usage::CursorUsage) -> Self {
        // Counts stay far below 2^53, where f64 is exact.
        let count = |n: Option<u64>| n.map(|n| n as f64);
        Self {
            input_tokens: count(usage.input_tokens),
            output_tokens: count(usage.output_tokens),
            cache_read_tokens: count(usage.cache_read_tokens),
            cache_write_tokens: count(usage.cache_write_tokens),
            reasoning_tokens: count(usage.reasoning_tokens),
        }
    }
}

/// How a step of a run ended: `onOutput`'s second argument, with the batch that ends the step
/// (`null` with every other batch). A run that handed the host tool calls (`hostTools`) says
/// which; the last batch of a run says how it ended (a run that delivers nothing, `E_RESUME`,
/// says it only in `RunResult`).
#[napi(object)]
pub struct RunStep {
    /// `'tool-calls'`: the run waits for `answerToolCalls()`; otherwise the run is over.
    #[napi(ts_type = "'stop' | 'tool-calls' | 'error' | 'cancelled'")]
    pub reason: String,
    /// The calls handed over (`'tool-calls'`), in order: the ids `answerToolCalls()` answers.
    pub tool_calls: Vec<HandedOverCall>,
    /// Cursor's token counts (the last step, when Cursor reported them).
    pub usage: Option<CursorUsage>,
    /// The failure (`'error'`), as `RunResult.error`.
    pub error: Option<RunError>,
    /// This response put out something before its closing outputs (text, reasoning, a tool
    /// call); false when it ends with its failure alone.
    pub answered: bool,
}

/// A tool call handed to the host.
#[napi(object)]
pub struct HandedOverCall {
    pub id: String,
    /// The host's tool.
    pub name: String,
    /// The arguments as Cursor gave them, as JSON text.
    pub input: String,
}

impl From<StepEnd> for RunStep {
    fn from(step: StepEnd) -> Self {
        let reason = match step.reason {
            StepReason::Stop => "stop",
            StepReason::ToolCalls => "tool-calls",
            StepReason::Error => "error",
            StepReason::Cancelled => "cancelled",
        };
        Self {
            reason: reason.to_owned(),
            tool_calls: step
                .tool_calls
                .into_iter()
                .map(|call| HandedOverCall {
                    id: call.id,
                    name: call.name,
                    input: call.input,
                })
                .collect(),
            usage: step.usage.map(CursorUsage::from),
            error: step.error.map(RunError::from),
            answered: step.answered,
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
        Self {
            exit_code: r.exit_code,
            signal: r.signal,
            cancelled: r.cancelled,
            session_id: r.session_id,
            usage: r.usage.map(CursorUsage::from),
            error: r.error.map(RunError::from),
            skipped_lines: r.skipped_lines as f64,
            capture: r.capture,
        }
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
    /// nothing was answered); answers for calls that were not handed over are ignored. Throws
    /// `E_INVALID_ARG` for answers of another shape.
    #[napi(catch_unwind, ts_args_type = "answers: ToolAnswer[]")]
    pub fn answer_tool_calls(&self, env: Env, answers: Unknown) -> Result<bool> {
        let answers: Vec<ToolAnswer> = read(&env, answers, "the answers")?;
        Ok(self
            .handle
            .answer_tool_calls(answers.into_iter().map(Into::into).collect()))
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
    ts_args_type = "options: RunCursorAgentOptions, onOutput: (outputs: StreamOutput[], step: RunStep | null) => void"
)]
pub fn run_cursor_agent(
    env: Env,
    options: Unknown,
    on_output: Option<Unknown>,
) -> Result<CursorAgentRun> {
    let options: RunCursorAgentOptions = read(&env, options, "the runCursorAgent options")?;
    let request = RunRequest::try_from(options)?
        .validate()
        .map_err(to_js_error)?;
    let on_output = on_output
        .filter(|f| f.get_type().is_ok_and(|t| t == napi::ValueType::Function))
        .ok_or_else(|| invalid_arg("onOutput must be a function"))?;
    // SAFETY: checked to be a JS function just before.
    let on_output: OnOutput =
        unsafe { on_output.cast() }.map_err(|_| invalid_arg("onOutput must be a function"))?;
    let sink = Arc::new(JsOutputSink::new(on_output));
    let handle = agent::start_run(request, sink, run_context(&env));
    Ok(CursorAgentRun { handle })
}
