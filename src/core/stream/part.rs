//! Neutral parts: what the stream means, independent of any output format. Both encoders
//! consume exactly these.

use serde_json::Value;

use crate::core::error::CoreError;
use crate::core::stream::usage::UsageReport;

/// Who executes a tool call. Decided per call, not per stream: Cursor's own tools stay
/// Cursor's even where the host runs the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Executor {
    /// cursor-agent ran it itself; its result follows in the same stream, and the host must not
    /// run it again.
    Cursor,
    /// The host runs it and answers with the result, so the turn ends waiting for it.
    Host,
}

/// One step of the translated stream. Borrowed: an encoder consumes it at once.
#[derive(Debug, Clone, PartialEq)]
pub enum Part<'a> {
    /// New answer text (never empty).
    TextDelta(&'a str),
    /// New reasoning text (never empty).
    ReasoningDelta(&'a str),
    /// A thinking phase completed.
    ReasoningEnd,
    /// A tool call started.
    ToolStarted {
        /// Cursor's `call_id`, verbatim (it can contain a newline).
        id: &'a str,
        /// Cursor's name for the tool (`stream/tool.rs` `tool_name`), or the host's own tool name
        /// for a call the host runs.
        name: &'a str,
        /// Cursor's tool kind: the `*ToolCall` key (`shellToolCall`), or `function`.
        kind: &'a str,
        /// The MCP server of an `mcpToolCall`.
        server: Option<&'a str>,
        /// The arguments as JSON text, as Cursor gave them.
        input: &'a str,
        executor: Executor,
    },
    /// The result of a call Cursor ran itself. The host answers the calls it runs with their
    /// results itself, so those never come back through the stream.
    ToolCompleted {
        id: &'a str,
        name: &'a str,
        kind: &'a str,
        server: Option<&'a str>,
        /// `{status: <variant key>, ...the variant's fields}`.
        result: &'a Value,
        is_error: bool,
    },
    /// The end of a step. The last part of the stream, exactly once, unless `reason` is
    /// [`FinishReason::ToolCalls`]: then only the current response ends, and the host's answers
    /// continue the stream.
    Finish {
        reason: FinishReason<'a>,
        usage: Option<&'a UsageReport>,
    },
}

impl Part<'_> {
    /// Who runs a tool part's call: a started call says; only Cursor's own calls complete in the
    /// stream (the host answers the calls it runs itself). Cursor's for the other parts.
    pub fn executor(&self) -> Executor {
        match self {
            Self::ToolStarted { executor, .. } => *executor,
            _ => Executor::Cursor,
        }
    }
}

/// How the stream ends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FinishReason<'a> {
    /// The answer is complete.
    Stop,
    /// The turn waits for the host to run the tool calls it was handed.
    ToolCalls,
    Cancelled,
    Error(&'a CoreError),
}

impl<'a> FinishReason<'a> {
    /// The reason for a stream that ends with `error` (if any), `cancelled` or not, after
    /// handing the host tool calls or not. A cancel wins, then a failure; a turn that handed the
    /// host calls to run waits for their results instead of stopping.
    pub fn of(error: Option<&'a CoreError>, cancelled: bool, host_calls: bool) -> Self {
        match (error, cancelled, host_calls) {
            (_, true, _) => Self::Cancelled,
            (Some(error), false, _) => Self::Error(error),
            (None, false, true) => Self::ToolCalls,
            (None, false, false) => Self::Stop,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finish_reason_table() {
        let error = CoreError::new(crate::core::error::ErrorCode::Auth, "log in");
        let table = [
            (None, false, false, FinishReason::Stop),
            (None, false, true, FinishReason::ToolCalls),
            (None, true, false, FinishReason::Cancelled),
            (None, true, true, FinishReason::Cancelled),
            (Some(&error), false, false, FinishReason::Error(&error)),
            (Some(&error), false, true, FinishReason::Error(&error)),
            (Some(&error), true, true, FinishReason::Cancelled),
        ];
        for (error, cancelled, host_calls, expected) in table {
            assert_eq!(
                FinishReason::of(error, cancelled, host_calls),
                expected,
                "{error:?} cancelled={cancelled} host_calls={host_calls}"
            );
        }
    }
}
