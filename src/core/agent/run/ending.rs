//! How a run ended, and what that ending reports: the error of `RunResult` and the closing
//! outputs, which carry the same code.

use std::time::Duration;

use super::resume_hold::Hold;
use super::StopReason;
use crate::core::error::{CoreError, ErrorCode};
use crate::core::failure::classify::{connection_dropped, quoted_tail};
use crate::core::failure::duration::readable_duration;
use crate::core::failure::resume::is_resume_specific;
use crate::core::stream::encode::Output;
use crate::core::stream::transformer::StreamTransformer;
use crate::core::stream::translate::Outcome;

/// Which limit a run hit.
#[derive(Debug)]
pub(super) enum TimeoutKind {
    Idle(Duration),
    Overall(Duration),
    /// The host did not answer handed-over tool calls in time.
    ToolWait(Duration),
}

#[derive(Debug)]
pub(super) enum Ending {
    /// stdout closed (or stayed open past the drain time) and the child exited.
    Finished,
    Stopped(StopReason),
    Timeout(TimeoutKind),
    /// A resumed run reported another chat id.
    ResumeReplaced(String),
}

impl Ending {
    /// How a capture names this ending.
    pub(super) fn label(&self) -> &'static str {
        match self {
            Self::Finished => "finished",
            Self::Stopped(StopReason::Cancel) => "cancelled",
            Self::Stopped(StopReason::ConsumerGone) => "consumer gone",
            Self::Stopped(StopReason::Callback(_)) => "callback threw",
            Self::Timeout(TimeoutKind::Idle(_)) => "idle timeout",
            Self::Timeout(TimeoutKind::Overall(_)) => "overall timeout",
            Self::Timeout(TimeoutKind::ToolWait(_)) => "tool wait timeout",
            Self::ResumeReplaced(_) => "resume replaced",
        }
    }
}

/// The `E_CALLBACK` of a consumer that threw `message`.
pub(super) fn callback_error(message: &str) -> CoreError {
    CoreError::new(
        ErrorCode::Callback,
        format!("the onOutput callback threw, so the run was stopped: {message}"),
    )
}

/// Lines of stderr a resume failure quotes.
const RESUME_QUOTED_LINES: usize = 5;

/// What a run's ending reports.
#[derive(Debug, Default)]
pub(super) struct Concluded {
    /// `None` for success, cancel and quota after output.
    pub error: Option<CoreError>,
    /// To deliver after whatever the hold still keeps.
    pub closing: Vec<Output>,
    /// The connection dropped before anything was answered, and nothing is delivered: the
    /// caller runs the request once more.
    pub rerunnable: bool,
}

/// What decides whether a run that ended may be run once more instead of reporting its failure.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Rerun {
    /// The caller asked for it (`rerunnableDrop`).
    pub asked: bool,
    /// Nothing of the run reached the consumer (no step ended, nothing delivered).
    pub nothing_delivered: bool,
}

impl Concluded {
    /// An ending whose closing outputs are delivered, with the error they carry.
    fn delivering(error: Option<CoreError>, closing: Vec<Output>) -> Self {
        Self {
            error,
            closing,
            rerunnable: false,
        }
    }

    /// An ending that delivers nothing more: its error reaches only the result.
    fn delivering_nothing(error: CoreError) -> Self {
        Self::delivering(Some(error), Vec::new())
    }
}

/// The error `ending` reports and the closing outputs to deliver after whatever `hold` still
/// keeps. A callback failure, an `E_RESUME` and a rerunnable drop deliver no closing outputs: the
/// consumer is gone, or must see nothing of a run it will redo.
pub(super) fn conclude(
    ending: Ending,
    outcome: &Outcome,
    transformer: &mut StreamTransformer,
    hold: &mut Hold,
    resume_chat_id: Option<&str>,
    rerun: Rerun,
) -> Concluded {
    let chat = resume_chat_id.unwrap_or_default();
    match ending {
        Ending::Stopped(reason @ (StopReason::Callback(_) | StopReason::ConsumerGone)) => {
            transformer.finish(outcome, &mut Vec::new());
            hold.discard();
            let error = match reason {
                StopReason::Callback(message) => callback_error(&message),
                _ => CoreError::new(
                    ErrorCode::Callback,
                    "the onOutput callback is no longer reachable",
                ),
            };
            Concluded::delivering_nothing(transformer.noted(error))
        }
        Ending::ResumeReplaced(other) => {
            hold.discard();
            Concluded::delivering_nothing(transformer.noted(CoreError::new(
                ErrorCode::Resume,
                format!(
                    "cursor-agent did not resume chat {chat} (it reported chat {other}); the \
                     chat is gone: start a fresh chat with the full prompt"
                ),
            )))
        }
        Ending::Timeout(kind) => {
            let mut closing = Vec::new();
            // The closing outputs carry the same error as `RunResult.error`, not the
            // signal-death classification of the killed process.
            let error = transformer.fail(timeout_error(kind), &mut closing).error;
            Concluded::delivering(error, closing)
        }
        Ending::Stopped(StopReason::Cancel) | Ending::Finished => {
            finished(outcome, transformer, hold, chat, rerun)
        }
    }
}

/// The `E_TIMEOUT` of the limit a run hit.
fn timeout_error(kind: TimeoutKind) -> CoreError {
    let message = match kind {
        TimeoutKind::Idle(d) => format!(
            "cursor-agent printed nothing for {} (the idle limit: idleTimeoutMs, \
             CURSOR_ACP_IDLE_TIMEOUT_MS) and was stopped. Raise the limit if Cursor thinks that \
             long, or check that `cursor-agent --print hi` answers.",
            readable_duration(d)
        ),
        TimeoutKind::ToolWait(d) => format!(
            "OpenCode did not answer Cursor's tool calls within {} (the tool wait limit: \
             CURSOR_ACP_TOOL_WAIT_MS), so the run was stopped.",
            readable_duration(d)
        ),
        TimeoutKind::Overall(d) => format!(
            "cursor-agent ran longer than {} (the overall limit: timeoutMs, \
             CURSOR_ACP_TIMEOUT_MS) and was stopped. Raise the limit for long tasks.",
            readable_duration(d)
        ),
    };
    CoreError::new(ErrorCode::Timeout, message)
}

/// A run that ended by itself (or was cancelled): what the translator concludes, unless the
/// resumed chat turned out to be gone or the run is to be run once more.
fn finished(
    outcome: &Outcome,
    transformer: &mut StreamTransformer,
    hold: &mut Hold,
    chat: &str,
    rerun: Rerun,
) -> Concluded {
    let mut closing = Vec::new();
    let Some(error) = transformer.finish(outcome, &mut closing).error else {
        return Concluded::delivering(None, closing);
    };
    if hold.resume_unconfirmed() && is_resume_specific(&outcome.stderr) {
        hold.discard();
        return Concluded::delivering_nothing(transformer.noted(CoreError::new(
            ErrorCode::Resume,
            format!(
                "cursor-agent could not resume chat {chat}: {}",
                quoted_tail(&outcome.stderr, RESUME_QUOTED_LINES, "; ")
            ),
        )));
    }
    // Judged by what Cursor did, not by what the format put out: a format without Cursor's own
    // calls puts out nothing of a shell command that ran, which must not run twice.
    let dropped_unanswered = rerun.asked
        && rerun.nothing_delivered
        && !transformer.acted()
        && error.code() == ErrorCode::Network
        && connection_dropped(&outcome.stderr);
    if dropped_unanswered {
        tracing::warn!(
            "the connection to Cursor dropped before anything was answered; the run delivers \
             nothing, so that it runs once more"
        );
        hold.discard();
        return Concluded {
            rerunnable: true,
            ..Concluded::delivering_nothing(error)
        };
    }
    Concluded::delivering(Some(error), closing)
}
