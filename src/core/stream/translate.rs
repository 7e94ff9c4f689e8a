//! Events -> neutral parts: delta reconciliation, tool calls, the session id, usage and how
//! the stream closes.

use crate::core::error::CoreError;
use crate::core::stream::event::{
    Channel, Event, EventBody, HeldFlush, Parsed, Parts, ToolCallBody,
};
use crate::core::stream::part::{Executor, FinishReason, Part};
use crate::core::stream::tool::{is_failure, mcp_server, tool_input, tool_name, tool_result};
use crate::core::stream::tracker::{MixedDeltaTracker, TrackerStep};
use crate::core::stream::usage::{parse_usage, UsageReport};

mod bridged;
mod closing;
mod notice;
mod plan;

use notice::is_connection_report;

/// Who runs the tool calls cursor-agent reports: Cursor itself, before the event reaches us.
const CURSOR_RUNS_ITS_TOOLS: Executor = Executor::Cursor;

/// How the process behind the stream ended (a capture's `close` line keeps it as serde writes
/// it).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    pub exit_code: Option<i32>,
    pub signal: Option<String>,
    pub stderr: String,
    pub cancelled: bool,
}

/// What `finish` concluded, for callers that report it beside the outputs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FinishSummary {
    /// `None` on success, on cancel, and on quota after output.
    pub error: Option<CoreError>,
}

/// How [`Translator::close`] decides the ending.
pub enum Closing<'o> {
    /// From the process outcome, per the finish table.
    Outcome(&'o Outcome),
    /// A failure the caller determined (a timeout, a callback that threw), whatever the
    /// process did.
    Failure(CoreError),
}

/// A tool call started and not yet completed: what its result is reported with.
#[derive(Debug)]
struct OpenCall {
    id: String,
    name: String,
    kind: String,
    server: Option<String>,
}

/// A call the host runs, handed over by the runner (from the tool bridge, not from Cursor's
/// stream).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HandedCall<'a> {
    pub id: &'a str,
    pub name: &'a str,
    /// The arguments as JSON text.
    pub input: &'a str,
}

/// A call to the host's MCP server as Cursor's stream reported its start: the model's id, the
/// tool and the arguments, to tell which MCP request it is (the request carries no id).
#[derive(Debug, Clone, PartialEq)]
pub struct BridgedStart {
    pub call_id: String,
    pub tool: String,
    pub args: serde_json::Value,
}

/// Turns events into parts. Stateful across one stream.
#[derive(Debug, Default)]
pub struct Translator {
    tracker: MixedDeltaTracker,
    session_id: Option<String>,
    /// The CLI's version, when `system/init` carried one.
    agent_version: Option<String>,
    open_calls: Vec<OpenCall>,
    /// The MCP server through which the host runs its own tools: Cursor's reports of calls to
    /// it are not shown (the host shows the calls it runs), and any other call of Cursor's is
    /// shown with a notice that Cursor ran it itself.
    host_server: Option<String>,
    /// Cursor's data folder (`CURSOR_DATA_DIR`) while the host runs the tools: Cursor's reads of
    /// its own bookkeeping there are neither shown nor reported as its own tool.
    cursor_data_dir: Option<std::path::PathBuf>,
    /// The run's attachments folder: the model's reads of what the user attached are not shown.
    attachments_dir: Option<std::path::PathBuf>,
    /// Ids of started reads of that bookkeeping (or of an attachment), whose completions are not
    /// shown either.
    bookkeeping_reads: Vec<String>,
    /// Added to the explanation of the failure the stream closes with.
    failure_note: Option<String>,
    /// Ids of started calls to `host_server`, whose completions are not shown either.
    bridged_calls: Vec<String>,
    /// Starts of calls to `host_server` not yet taken by the runner.
    bridged_starts: Vec<BridgedStart>,
    /// Calls to `host_server` that Cursor itself refused (its permission rules, a hook, or a
    /// team's MCP tool controls), each told to the user in the answer's text.
    refused_bridge_calls: u64,
    usage: Option<UsageReport>,
    saw_result: bool,
    result_error: Option<String>,
    has_content: bool,
    /// Cursor's plan with no answer text after it yet: shown as the answer when the stream
    /// ends so (see [`plan`]).
    pending_plan: Option<String>,
    in_reasoning: bool,
    finished: bool,
}

impl Translator {
    /// `max_line_bytes`: the longest record the framing passes on, which bounds what the
    /// tracker keeps of an answer (see `MixedDeltaTracker`).
    pub fn with_line_limit(max_line_bytes: usize) -> Self {
        Self {
            tracker: MixedDeltaTracker::new(max_line_bytes),
            ..Self::default()
        }
    }

    /// The host runs its tools through MCP server `server` (see [`Translator::hand_over`]).
    pub fn hosting_tools_on(mut self, server: Option<String>) -> Self {
        self.host_server = server;
        self
    }

    /// Cursor keeps its bookkeeping (tool definitions, results too big to inline) under
    /// `data_dir` (its `CURSOR_DATA_DIR`).
    pub fn keeping_cursor_data_in(mut self, data_dir: Option<std::path::PathBuf>) -> Self {
        self.cursor_data_dir = data_dir;
        self
    }

    /// The run saved the user's attachments in `folder` for the model to read.
    pub fn reading_attachments_in(mut self, folder: Option<std::path::PathBuf>) -> Self {
        self.attachments_dir = folder;
        self
    }

    /// `note` is added to the explanation of the failure the stream closes with.
    pub fn noting_failures_with(mut self, note: Option<String>) -> Self {
        self.failure_note = note;
        self
    }

    /// Calls to the host's server that Cursor itself refused.
    pub fn refused_bridge_calls(&self) -> u64 {
        self.refused_bridge_calls
    }

    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    /// The CLI's version, when its `system/init` record carried one.
    pub fn agent_version(&self) -> Option<&str> {
        self.agent_version.as_deref()
    }

    pub fn usage(&self) -> Option<&UsageReport> {
        self.usage.as_ref()
    }

    pub fn open_tool_calls(&self) -> usize {
        self.open_calls.len()
    }

    /// Log the delta tracker's decisions from now on (see [`MixedDeltaTracker::keep_log`]).
    pub fn keep_tracker_log(&mut self) {
        self.tracker.keep_log();
    }

    /// The tracker's decisions since the last call.
    pub fn take_tracker_log(&mut self) -> Vec<TrackerStep> {
        self.tracker.take_log()
    }

    /// Whether [`close`](Self::close) has been called.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Handle one parsed record.
    pub fn record(&mut self, parsed: Parsed<'_>, emit: &mut impl FnMut(Part<'_>)) {
        let held = match &parsed {
            Parsed::Invalid => return,
            Parsed::Ignored { held, .. } => *held,
            Parsed::Event(e) if matches!(e.body, EventBody::Transport) => HeldFlush::Drop,
            Parsed::Event(_) => HeldFlush::Release,
        };
        if held != HeldFlush::Keep {
            self.release_held(held == HeldFlush::Drop, emit);
        }
        if let Parsed::Event(event) = parsed {
            self.event(event, emit);
        }
    }

    /// A record arrived (or the stream ends, which is not `transport`): emit the delta the
    /// tracker held back, unless the record shows it was Cursor's flush.
    fn release_held(&mut self, transport: bool, emit: &mut impl FnMut(Part<'_>)) {
        if let Some((channel, text)) = self.tracker.next_record(transport) {
            self.emit_text(channel, &text, emit);
        }
    }

    fn emit_text(&mut self, channel: Channel, text: &str, emit: &mut impl FnMut(Part<'_>)) {
        if text.is_empty() {
            return;
        }
        self.has_content = true;
        match channel {
            Channel::Text => {
                self.pending_plan = None;
                emit(Part::TextDelta(text))
            }
            Channel::Thinking => {
                self.in_reasoning = true;
                emit(Part::ReasoningDelta(text))
            }
        }
    }

    fn channel_text(
        &mut self,
        channel: Channel,
        partial: bool,
        text: &str,
        emit: &mut impl FnMut(Part<'_>),
    ) {
        if partial {
            if let Some(delta) = self.tracker.delta(channel, text) {
                self.emit_text(channel, delta, emit);
            }
        } else {
            let new = self.tracker.snapshot(channel, text);
            self.emit_text(channel, new, emit);
        }
    }

    fn event(&mut self, event: Event<'_>, emit: &mut impl FnMut(Part<'_>)) {
        if self.session_id.is_none() {
            if let Some(id) = event.session_id.as_deref().filter(|s| !s.is_empty()) {
                self.session_id = Some(id.to_owned());
            }
        }
        match event.body {
            EventBody::Context { agent_version } => {
                if self.agent_version.is_none() {
                    self.agent_version = agent_version;
                }
            }
            EventBody::Transport => {}
            // cursor-agent's report of a dropped connection, sent as answer text, is not the
            // model's answer.
            EventBody::Assistant { parts, .. } if is_connection_report(&parts) => {
                self.server_notice(&parts, false, emit);
            }
            EventBody::Assistant { partial, parts } => {
                self.assistant(partial, &parts, emit);
            }
            EventBody::ServerNotice { parts } => self.server_notice(&parts, true, emit),
            // Its shape was never seen: whether it repeats the deltas or is the only carrier of
            // the answer, a snapshot's reconciliation shows its text exactly once.
            EventBody::Text { parts } => self.assistant(false, &parts, emit),
            EventBody::Notice { notice, record } => self.notice(notice, record, emit),
            EventBody::Thinking {
                partial,
                text,
                completed,
            } => {
                if let Some(text) = text.as_deref() {
                    self.channel_text(Channel::Thinking, partial, text, emit);
                }
                if completed {
                    self.end_reasoning(emit);
                }
            }
            EventBody::ToolCall {
                completed,
                call_id,
                call,
            } => self.tool_call(completed, &call_id, &call, emit),
            EventBody::Result {
                is_error,
                usage,
                error_message,
            } => {
                self.saw_result = true;
                if is_error {
                    // Empty when Cursor gave no message: the failure is still known.
                    self.result_error = Some(error_message.unwrap_or_default());
                }
                if let Some(report) = usage.and_then(|raw| parse_usage(raw.get())) {
                    self.usage = Some(report);
                }
            }
        }
    }

    fn assistant(&mut self, partial: bool, parts: &Parts<'_>, emit: &mut impl FnMut(Part<'_>)) {
        let mut texts = parts.iter().filter_map(|p| p.channel_text());
        let Some(first) = texts.next() else { return };
        let Some(second) = texts.next() else {
            // The usual shape: one part.
            self.channel_text(first.0, partial, first.1, emit);
            return;
        };
        if partial {
            for (i, (channel, text)) in [first, second].into_iter().chain(texts).enumerate() {
                if i > 0 {
                    self.release_held(false, emit);
                }
                self.channel_text(channel, true, text, emit);
            }
        } else {
            // A snapshot of several parts is the concatenation per channel.
            let mut thinking = String::new();
            let mut text = String::new();
            for (channel, t) in [first, second].into_iter().chain(texts) {
                match channel {
                    Channel::Thinking => thinking.push_str(t),
                    Channel::Text => text.push_str(t),
                }
            }
            if !thinking.is_empty() {
                self.channel_text(Channel::Thinking, false, &thinking, emit);
            }
            if !text.is_empty() {
                self.channel_text(Channel::Text, false, &text, emit);
            }
        }
    }

    fn end_reasoning(&mut self, emit: &mut impl FnMut(Part<'_>)) {
        if self.in_reasoning {
            self.in_reasoning = false;
            emit(Part::ReasoningEnd);
        }
    }

    fn tool_call(
        &mut self,
        completed: bool,
        call_id: &str,
        call: &ToolCallBody<'_>,
        emit: &mut impl FnMut(Part<'_>),
    ) {
        if self.is_bridged(call_id, completed, call, emit) || self.is_bookkeeping(call_id, call) {
            return;
        }
        let open_at = self.open_calls.iter().position(|c| c.id == call_id);
        if open_at.is_some() && !completed {
            // A repeated start of an open call.
            return;
        }
        let call_kind = call.kind.as_deref().unwrap_or("");
        let opened = match open_at {
            Some(i) => self.open_calls.remove(i),
            None => {
                // A start (or a completion never announced): a new segment begins.
                self.tracker.reset();
                self.in_reasoning = false;
                let opened = OpenCall {
                    id: call_id.to_owned(),
                    name: tool_name(call),
                    kind: call_kind.to_owned(),
                    server: mcp_server(call),
                };
                emit(Part::ToolStarted {
                    id: call_id,
                    name: &opened.name,
                    kind: &opened.kind,
                    server: opened.server.as_deref(),
                    input: &tool_input(call),
                    executor: CURSOR_RUNS_ITS_TOOLS,
                });
                // A plan is Cursor's document, not a tool acting on anything of the user's.
                if self.host_server.is_some() && !plan::is_plan(call) {
                    self.notice_own_tool(&opened.name, emit);
                }
                opened
            }
        };
        if plan::is_plan(call) {
            self.keep_plan(call);
        }
        if !completed {
            self.open_calls.push(opened);
            return;
        }
        let result = tool_result(call.result);
        emit(Part::ToolCompleted {
            id: call_id,
            name: &opened.name,
            kind: &opened.kind,
            server: opened.server.as_deref(),
            result: &result,
            is_error: is_failure(&result),
        });
    }

    /// End the current step by handing `calls` to the host: a held delta is flushed, the text
    /// segment ends, the calls follow, then a `tool-calls` finish without usage (the run's usage
    /// is reported once, at its end). The stream stays open: the host's answers continue it.
    pub fn hand_over(&mut self, calls: &[HandedCall<'_>], emit: &mut impl FnMut(Part<'_>)) {
        if self.finished || calls.is_empty() {
            return;
        }
        self.release_held(false, emit);
        self.tracker.reset();
        self.in_reasoning = false;
        for call in calls {
            emit(Part::ToolStarted {
                id: call.id,
                name: call.name,
                kind: "function",
                server: None,
                input: call.input,
                executor: Executor::Host,
            });
        }
        emit(Part::Finish {
            reason: FinishReason::ToolCalls,
            usage: None,
        });
    }
}
