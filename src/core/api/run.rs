//! `runCursorAgent`: its options, the host's answers to handed-over calls, and what a run tells
//! (each step's end and its result), with how they map onto the core's run.

use std::collections::HashMap;
use std::time::Duration;

use crate::core::agent::options::HostTools;
use crate::core::agent::run::ToolAnswers;
use crate::core::agent::CursorMode;
use crate::core::agent::RunRequest;
use crate::core::api::attachments::PlannedAttachments;
use crate::core::api::translation::with_translation_options;
use crate::core::attachments::Planned;
use crate::core::bridge::{Answer, AnswerContent, HostTool};
use crate::core::capture::CaptureOptions;
use crate::core::error::CoreError;
use crate::core::json::BoundedValue;
use crate::core::whole_number::{NonNegative, Positive, WholeNumber};
use crate::core::wire::{wire_struct, WireType};

impl WireType for CursorMode {
    #[cfg(test)]
    fn typescript(_: usize) -> String {
        "'agent' | 'ask' | 'plan'".into()
    }
}

with_translation_options! {
    /// Options of `runCursorAgent`. Numbers are whole numbers in the range each states; any
    /// other value of an option, and a field that is not one of these, is refused with
    /// `E_INVALID_ARG`.
    pub struct RunCursorAgentOptions {
        /// The prompt. Written to cursor-agent's stdin (no size limit), then stdin is closed.
        /// Required; an empty or all-whitespace prompt is refused with `E_INVALID_ARG`.
        prompt "prompt": String,
        /// Cursor model id (`--model`); a `cursor-acp/` prefix is removed. Required.
        model "model": String,
        /// Existing folder: `--workspace` and the child's working directory (with
        /// `hostTools`, the private workspace in `hostTools.folder` is used instead). Required.
        workspace "workspace": String,
        /// Resume this Cursor chat (`--resume`); must match `^[A-Za-z0-9][A-Za-z0-9_-]*$` and
        /// be at most 256 characters. When Cursor reports another chat, or fails with
        /// resume-specific text, before any output, the run ends with `E_RESUME` and
        /// `onOutput` is never called. Output is held until the chat is named, at most 1 MiB of
        /// stdout; past that the run is an ordinary one (it can no longer end in `E_RESUME`).
        /// Default: a fresh chat.
        resume_chat_id "resumeChatId": Option<String>,
        /// The binary (a path, made absolute against the host's working folder, or a name
        /// looked up on the absolute entries of `PATH`). Default: resolved as
        /// `resolveCursorAgent` does.
        executable "executable": Option<String>,
        /// Pass `--force` (Cursor may run shell commands); false passes `--trust` instead.
        /// A read-only `mode` never gets `--force`. Default true.
        force "force": Option<bool>,
        /// Cursor's mode: `'agent'` (may edit files and run commands; no `--mode` flag, the
        /// CLI's default), or read-only `'plan'` (analyses and proposes a plan) or `'ask'`
        /// (answers questions), passed as `--mode plan|ask` with `--trust` instead of `--force`
        /// (with `hostTools`, beside the bridge's arguments). A read-only run refuses `--force`,
        /// `-f` and `--yolo` in `extraArgs` with `E_INVALID_ARG`. Default `'agent'`.
        mode "mode": Option<CursorMode>,
        /// The turn may not edit files nor run commands (a host's planning agent, say): a `mode`
        /// that may edit (`'agent'`, or none) runs as `'plan'` instead, which analyses and
        /// proposes a plan; `'ask'` and `'plan'` stay. Default false.
        read_only "readOnly": Option<bool>,
        /// The caller runs the request once more when the connection to Cursor drops before
        /// anything was answered (cursor-agent's `WritableIterable is closed`, no tool run, no
        /// output): such a run then delivers nothing, not even its error, and says so with
        /// `RunResult.rerunnable` (its `error` is the `E_NETWORK` it would have reported). A
        /// run that delivered anything reports the drop as an ordinary failure. Default false.
        rerunnable_drop "rerunnableDrop": Option<bool>,
        /// Further cursor-agent arguments, after all others. Default none.
        extra_args "extraArgs": Option<Vec<String>>,
        /// The child's complete environment (nothing else is inherited); also where `PATH` and
        /// `HOME` for resolving the binary come from. Default: inherit the host's environment.
        env "env": Option<HashMap<String, String>>,
        /// End the run with `E_TIMEOUT` after this long without stdout output; paused while a
        /// Cursor tool call is open and while `onOutput` is behind. 0 disables it. Cursor can be
        /// silent for minutes in a healthy turn (757 s was seen while the model wrote a long
        /// reply), so the default leaves more than twice that. From 0 to 2^53 - 1; default
        /// 1800000 (30 minutes).
        idle_timeout_ms "idleTimeoutMs": Option<NonNegative>,
        /// End the run with `E_TIMEOUT` after this long in total. From 0 to 2^53 - 1; default
        /// 0 (no limit).
        timeout_ms "timeoutMs": Option<NonNegative>,
        /// Let the host run its own tools instead of Cursor (the tool bridge). Default none:
        /// Cursor runs its own tools.
        host_tools "hostTools": Option<HostToolsOptions>,
        /// Capture the run into one file for `replayCapture`. Default none.
        capture "capture": Option<RunCaptureOptions>,
        /// The attachments the prompt names: a plan's `attachments`, as it is. Default none.
        attachments "attachments": Option<PlannedAttachments>,
    }
}

wire_struct! {
    /// Where and how a run is captured. The capture `<folder>/<name>.ndjson` holds the command
    /// line, the names of the child's variables, the prompt's size and SHA-256, stdout as read,
    /// the stderr tail, the exit, timings and every output. Stdout is kept byte for byte but for
    /// the text of the `user` record that echoes the prompt, and the value of every secret the
    /// child was given (variables named like `*API_KEY*`, `*TOKEN*`, `*SECRET*`, `*PASSWORD*`,
    /// `*_KEY`, and the tool bridge's token), each replaced by `[masked NAME]`. A failure's
    /// message names the capture (`RunResult.capture`), a name without digits. A capture that
    /// cannot be written is given up with a logged warning; the run goes on.
    pub struct RunCaptureOptions as named (derive(serde::Deserialize), serde(deny_unknown_fields)) {
        /// The capture folder, an absolute path (created when missing).
        folder "folder": String,
        /// The folder's total size: before a capture starts and when one ends, the oldest are
        /// removed until the rest and one more capture fit; one capture keeps at most a quarter
        /// of it. From 1 to 2^53 - 1; default 209715200 (200 MiB).
        max_bytes "maxBytes": Option<Positive>,
        /// Keep the prompt's text too (in the capture's start line and in its echo). Default
        /// false: only its size and hash.
        include_prompt "includePrompt": Option<bool>,
    }
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

wire_struct! {
    /// The tool bridge of a run. cursor-agent gets the tools through an MCP server on
    /// `127.0.0.1` (random port and path, a bearer token), works in `<folder>/workspace` with
    /// `HOME=<folder>/home`, `CURSOR_DATA_DIR=<folder>/cursor-data` and
    /// `CURSOR_CONFIG_DIR=<folder>/config` (whose `cli-config.json` carries only the login identity
    /// of the user's own), `XDG_CONFIG_HOME` the user's (default `~/.config`: a Linux login's
    /// `cursor/auth.json`), cursor-agent found against the user's `HOME` and `PATH`, and is
    /// started with `--trust --approve-mcps --allowed-tools mcp_tool_call,get_mcp_tools_tool_call`
    /// instead of `--force`/`--trust`; `workspace` is then not used by the child. Each call's
    /// arguments are checked against the tool's schema (a mismatch is answered at once, with
    /// the reasons, and not handed over). Once calls and stdout have been quiet for `quietMs`,
    /// the waiting calls are delivered as `tool-call` parts (without `providerExecuted`; SSE:
    /// `tool_calls`) followed by a `finish` with reason `tool-calls` and no usage, and the batch
    /// carries a `RunStep` naming them; the run stays alive until `answerToolCalls()`, after
    /// which its outputs continue (an `ai-sdk` stream starts again with `stream-start`).
    /// Cursor's own reports of these calls are not shown; a tool Cursor runs itself is shown as
    /// in the default mode, with a notice in the text.
    pub struct HostToolsOptions as named (derive(serde::Deserialize), serde(deny_unknown_fields)) {
        /// The tools as the host offers them to its model: V3 `{type: 'function', name,
        /// description, inputSchema}` or OpenAI `{type: 'function', function: {name,
        /// description, parameters}}`; provider-defined tools are left out. A tool's
        /// `annotations` (MCP's `readOnlyHint`, `destructiveHint`, `idempotentHint`,
        /// `openWorldHint`: what the host knows the tool does) are declared to Cursor as given;
        /// a tool without them gets none. Nested at most 256 levels deep.
        tools "tools": Vec<BoundedValue>,
        /// The conversation's private folder, an absolute path (created when missing). Keep it
        /// the same for every run of one conversation: Cursor keys its chats by the workspace
        /// path. Sibling folders unused for 7 days are removed.
        folder "folder": String,
        /// How long handed-over calls may wait for `answerToolCalls()` before the run is
        /// stopped with `E_TIMEOUT`; the wait counts toward neither `idleTimeoutMs` nor
        /// `timeoutMs`. From 1 to 2^53 - 1; default 600000 (10 minutes).
        wait_ms "waitMs": Option<Positive>,
        /// How long no new call and no stdout must have come before the waiting calls are
        /// handed over together. From 0 to 60000; default 75.
        quiet_ms "quietMs": Option<WholeNumber<0, 60_000>>,
        /// How long a call is held for OpenCode's answer before cursor-agent is answered
        /// "still running" with a job number; the model then gets the result from the
        /// bridge's `opencode_wait` tool (never handed to the host), which waits as long per
        /// call. Cursor's MCP client gives up on a request after 60 s. From 1 to 55000;
        /// default 45000 (tests lower it).
        deadline_ms "deadlineMs": Option<WholeNumber<1, 55_000>>,
        /// The host's system prompt, for Cursor's rules channel instead of the prompt text:
        /// written as an always-apply rule, `<folder>/workspace/.cursor/rules/opencode-host.mdc`,
        /// which cursor-agent loads from its workspace on every run (a run without it removes
        /// the file). Cursor's models take instructions there as the user's own.
        instructions "instructions": Option<String>,
    }
}

impl TryFrom<HostToolsOptions> for HostTools {
    type Error = CoreError;

    fn try_from(options: HostToolsOptions) -> Result<Self, CoreError> {
        let definitions: Vec<_> = options.tools.into_iter().map(|tool| tool.0).collect();
        let mut host_tools =
            HostTools::new(HostTool::from_definitions(&definitions)?, options.folder);
        if let Some(ms) = options.wait_ms {
            host_tools.wait = Duration::from_millis(ms.unsigned());
        }
        if let Some(ms) = options.quiet_ms {
            host_tools.quiet = Duration::from_millis(ms.unsigned());
        }
        host_tools.instructions = options.instructions;
        if let Some(ms) = options.deadline_ms {
            host_tools.deadline = Duration::from_millis(ms.unsigned());
        }
        Ok(host_tools)
    }
}

/// A duration in milliseconds where 0 means "no limit".
fn limit(ms: NonNegative) -> Option<Duration> {
    (ms.get() > 0).then(|| Duration::from_millis(ms.unsigned()))
}

impl TryFrom<RunCursorAgentOptions> for RunRequest {
    type Error = CoreError;

    fn try_from(options: RunCursorAgentOptions) -> Result<Self, CoreError> {
        let defaults = RunRequest::default();
        Ok(RunRequest {
            transformer: options.translation(defaults.transformer.clone()),
            prompt: options.prompt,
            model: options.model,
            workspace: options.workspace,
            resume_chat_id: options.resume_chat_id,
            executable: options.executable,
            force: options.force.unwrap_or(defaults.force),
            mode: options
                .mode
                .unwrap_or(defaults.mode)
                .for_run(options.read_only.unwrap_or(false)),
            rerunnable_drop: options.rerunnable_drop.unwrap_or(defaults.rerunnable_drop),
            extra_args: options.extra_args.unwrap_or_default(),
            env: options.env,
            idle_timeout: options.idle_timeout_ms.map_or(defaults.idle_timeout, limit),
            timeout: options.timeout_ms.map_or(defaults.timeout, limit),
            host_tools: options.host_tools.map(HostTools::try_from).transpose()?,
            capture: options.capture.map(CaptureOptions::from),
            attachments: options.attachments.map(Planned::try_from).transpose()?,
        })
    }
}

wire_struct! {
    /// The host's result of one handed-over tool call.
    pub struct ToolAnswer as named (derive(serde::Deserialize), serde(deny_unknown_fields)) {
        /// The `toolCallId` of the call.
        id "id": String,
        /// The result as text (for a failure or a refusal: why).
        output "output": String,
        /// The tool failed or was refused. Default false.
        is_error "isError": Option<bool>,
        /// Images of the result, as base64 data with their media type.
        images "images": Option<Vec<ToolAnswerImage>>,
    }
}

wire_struct! {
    /// An image of a tool's result.
    pub struct ToolAnswerImage as named (derive(serde::Deserialize), serde(deny_unknown_fields)) {
        data "data": String,
        mime_type "mimeType": String,
    }
}

/// The host's answers, by call id.
pub fn tool_answers(answers: Vec<ToolAnswer>) -> ToolAnswers {
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
