//! The handles of a run: how the consumer stops it or answers its tool calls, and proves a
//! batch consumed; how a run ended.

use std::sync::Arc;

use tokio::sync::{mpsc, watch, OwnedSemaphorePermit};

use crate::core::bridge::{Answer, HostCall};
use crate::core::error::{CoreError, ErrorCode};
use crate::core::stream::usage::CursorUsage;
use crate::core::wire::{wire_strings, wire_struct};

/// Why a run was asked to stop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StopReason {
    Cancel,
    Callback(String),
    ConsumerGone,
}

pub(super) type StopSender = Arc<watch::Sender<Option<StopReason>>>;

/// The first reason wins.
pub(super) fn request_stop(stop: &watch::Sender<Option<StopReason>>, reason: StopReason) {
    stop.send_if_modified(|current| {
        if current.is_none() {
            *current = Some(reason);
            true
        } else {
            false
        }
    });
}

/// Proof that a batch is in the consumer's hands; dropping it frees a place in the queue.
#[derive(Debug)]
pub struct Receipt {
    pub(super) _permit: OwnedSemaphorePermit,
    pub(super) stop: StopSender,
}

impl Receipt {
    /// The consumer failed on this batch (the JS callback threw): the run stops and reports
    /// `E_CALLBACK` with `message`.
    pub fn callback_failed(self, message: impl Into<String>) {
        request_stop(&self.stop, StopReason::Callback(message.into()));
    }
}

wire_strings! {
    /// Why a step of a run ended: `'tool-calls'`, the run waits for `answerToolCalls()`;
    /// otherwise the run is over.
    pub enum StepReason {
        Stop = "stop",
        ToolCalls = "tool-calls",
        Error = "error",
        Cancelled = "cancelled",
    }
}

wire_struct! {
    /// How a step of a run ended: `onOutput`'s second argument, told with the batch that ends
    /// the step (`null` with every other batch), so that no consumer has to read it back out of
    /// the outputs. A run that handed the host tool calls (`hostTools`) says which; the last
    /// batch of a run says how it ended (a run that delivers nothing, `E_RESUME`, says it only
    /// in `RunResult`).
    pub struct RunStep as named (derive(serde::Serialize)) {
        reason "reason": StepReason,
        /// The calls handed over (`'tool-calls'`), in order: the ids `answerToolCalls()`
        /// answers.
        tool_calls "toolCalls": Vec<HostCall>,
        /// Cursor's token counts (the last step, when Cursor reported them).
        usage "usage": Option<CursorUsage>,
        /// The failure (`'error'`), as `RunResult.error`.
        error "error": Option<CoreError>,
        /// This response put out something before its closing outputs (text, reasoning, a tool
        /// call); false when it ends with its failure alone.
        answered "answered": bool,
    }
}

impl RunStep {
    /// A step that handed `calls` to the host.
    pub fn handed_over(calls: Vec<HostCall>) -> Self {
        Self {
            reason: StepReason::ToolCalls,
            tool_calls: calls,
            usage: None,
            error: None,
            answered: true,
        }
    }

    /// The last step of a run that ended with `error` (if any), cancelled or not.
    pub fn last(
        error: Option<&CoreError>,
        cancelled: bool,
        usage: Option<CursorUsage>,
        answered: bool,
    ) -> Self {
        let reason = match (error, cancelled) {
            (Some(_), _) => StepReason::Error,
            (None, true) => StepReason::Cancelled,
            (None, false) => StepReason::Stop,
        };
        Self {
            reason,
            tool_calls: Vec::new(),
            usage,
            error: error.cloned(),
            answered,
        }
    }
}

wire_struct! {
    /// How a run ended. Absent fields mean "none" (test with `== null`).
    pub struct RunResult as named (derive(serde::Serialize, Default)) {
        exit_code "exitCode": Option<i32>,
        /// e.g. `'SIGTERM'`.
        signal "signal": Option<String>,
        /// `cancel()` stopped the run (not an error).
        cancelled "cancelled": bool,
        /// The Cursor chat id seen in the stream.
        session_id "sessionId": Option<String>,
        usage "usage": Option<CursorUsage>,
        /// Absent on success and on cancel. A failure after output (a usage limit hit
        /// mid-answer among them) is reported here too: the output delivered so far stands.
        error "error": Option<CoreError>,
        /// With `rerunnableDrop`: the connection to Cursor dropped before anything was
        /// answered, and the run delivered nothing (not even `error`): run the request once
        /// more (a fresh chat with the same prompt, or the same resumed chat with the same
        /// prompt).
        rerunnable "rerunnable": bool,
        /// Non-blank stdout records skipped as unusable: longer than `maxLineBytes`, not valid
        /// UTF-8, not a JSON object (as `StreamTransformer.skippedLines` counts them). Not an
        /// error (a prompt over the cap comes back as one echoed record); a warning is logged.
        skipped_lines "skippedLines": u64,
        /// With `hostTools`: calls to the tool bridge that Cursor itself refused (its
        /// permission rules, a hook, or a team's MCP tool controls, which override a user's
        /// allow rules), each told to the user in the answer's text. Not an error of the run.
        refused_bridge_calls "refusedBridgeCalls": u64,
        /// The name of the run's capture (with `capture`, once its file was created).
        capture "capture": Option<String>,
    }
}

/// The host's answers to handed-over tool calls, by call id.
pub type ToolAnswers = Vec<(String, Answer)>;

/// Control of a started run. Cloning gives another handle to the same run.
#[derive(Debug, Clone)]
pub struct RunHandle {
    pub(super) stop: StopSender,
    pub(super) result: watch::Receiver<Option<RunResult>>,
    pub(super) answers: mpsc::UnboundedSender<ToolAnswers>,
}

impl RunHandle {
    /// Stop the run: SIGTERM to the child's process group, SIGKILL after [`KILL_GRACE`](super::child::KILL_GRACE).
    /// Reading stops at once; the run finishes as cancelled. No effect once it has ended.
    pub fn cancel(&self) {
        request_stop(&self.stop, StopReason::Cancel);
    }

    /// Answer the tool calls the run handed over (every one of them): the run goes on, its
    /// outputs continuing the stream. False when the run is already over. Answers that match
    /// no handed-over call are ignored (and logged).
    pub fn answer_tool_calls(&self, answers: ToolAnswers) -> bool {
        self.result.borrow().is_none() && self.answers.send(answers).is_ok()
    }

    /// The result, once every batch has been consumed. May be awaited any number of times.
    pub async fn wait(&self) -> RunResult {
        let mut result = self.result.clone();
        let settled = result.wait_for(Option::is_some).await.map(|r| (*r).clone());
        match settled {
            Ok(Some(result)) => result,
            _ => RunResult {
                error: Some(CoreError::new(
                    ErrorCode::AgentExit,
                    "the run ended without a result",
                )),
                ..RunResult::default()
            },
        }
    }
}
