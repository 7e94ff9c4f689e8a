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
    let mut closing = Vec::new();
    let mut rerunnable = false;
    let chat = resume_chat_id.unwrap_or_default();
    let error = match ending {
        Ending::Stopped(reason @ (StopReason::Callback(_) | StopReason::ConsumerGone)) => {
            transformer.finish(outcome, &mut closing);
            closing.clear();
            hold.discard();
            Some(transformer.noted(match reason {
                StopReason::Callback(message) => callback_error(&message),
                _ => CoreError::new(
                    ErrorCode::Callback,
                    "the onOutput callback is no longer reachable",
                ),
            }))
        }
        Ending::ResumeReplaced(other) => {
            hold.discard();
            Some(transformer.noted(CoreError::new(
                ErrorCode::Resume,
                format!(
                "cursor-agent did not resume chat {chat} (it reported chat {other}); the chat is \
                 gone: start a fresh chat with the full prompt"
            ),
            )))
        }
        Ending::Timeout(kind) => {
            let error = CoreError::new(
                ErrorCode::Timeout,
                match kind {
                    TimeoutKind::Idle(d) => format!(
                        "cursor-agent printed nothing for {} (the idle limit: idleTimeoutMs, \
                     CURSOR_ACP_IDLE_TIMEOUT_MS) and was stopped. Raise the limit if Cursor \
                     thinks that long, or check that `cursor-agent --print hi` answers.",
                        readable_duration(d)
                    ),
                    TimeoutKind::ToolWait(d) => format!(
                        "OpenCode did not answer Cursor's tool calls within {} (the tool wait \
                     limit: CURSOR_ACP_TOOL_WAIT_MS), so the run was stopped.",
                        readable_duration(d)
                    ),
                    TimeoutKind::Overall(d) => format!(
                        "cursor-agent ran longer than {} (the overall limit: timeoutMs, \
                     CURSOR_ACP_TIMEOUT_MS) and was stopped. Raise the limit for long tasks.",
                        readable_duration(d)
                    ),
                },
            );
            // The closing outputs carry the same error as `RunResult.error`, not the
            // signal-death classification of the killed process.
            transformer.fail(error, &mut closing).error
        }
        Ending::Stopped(StopReason::Cancel) | Ending::Finished => {
            let summary = transformer.finish(outcome, &mut closing);
            match summary.error {
                Some(_) if hold.resume_unconfirmed() && is_resume_specific(&outcome.stderr) => {
                    hold.discard();
                    closing.clear();
                    Some(transformer.noted(CoreError::new(
                        ErrorCode::Resume,
                        format!(
                            "cursor-agent could not resume chat {chat}: {}",
                            quoted_tail(&outcome.stderr, RESUME_QUOTED_LINES, "; ")
                        ),
                    )))
                }
                // `answered` is read after `finish`: whether this response put out anything
                // before its closing outputs (held ones included).
                Some(error)
                    if rerun.asked
                        && rerun.nothing_delivered
                        && !transformer.answered()
                        && error.code() == ErrorCode::Network
                        && connection_dropped(&outcome.stderr) =>
                {
                    tracing::warn!(
                        "the connection to Cursor dropped before anything was answered; the run \
                         delivers nothing, so that it runs once more"
                    );
                    hold.discard();
                    closing.clear();
                    rerunnable = true;
                    Some(error)
                }
                error => error,
            }
        }
    };
    Concluded {
        error,
        closing,
        rerunnable,
    }
}
