//! Neutral parts: what the stream means, independent of any output format. Both encoders
//! consume exactly these.

use serde_json::Value;

use crate::core::error::CoreError;
use crate::core::stream::usage::UsageReport;

/// One step of the translated stream. Borrowed: an encoder consumes it at once.
#[derive(Debug, Clone, PartialEq)]
pub enum Part<'a> {
    /// New answer text (never empty).
    TextDelta(&'a str),
    /// New reasoning text (never empty).
    ReasoningDelta(&'a str),
    /// A thinking phase completed.
    ReasoningEnd,
    /// Cursor started a tool call.
    ToolStarted {
        /// Cursor's `call_id`, verbatim (it can contain a newline).
        id: &'a str,
        name: &'a str,
        /// The arguments as JSON text.
        input: &'a str,
    },
    /// Cursor reported a tool call's result.
    ToolCompleted {
        id: &'a str,
        name: &'a str,
        /// `{status: <variant key>, ...the variant's fields}`.
        result: &'a Value,
        is_error: bool,
    },
    /// The end of the stream; always the last part, exactly once.
    Finish {
        reason: FinishReason<'a>,
        usage: Option<&'a UsageReport>,
    },
}

/// How the stream ends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FinishReason<'a> {
    Stop,
    Cancelled,
    Error(&'a CoreError),
}
