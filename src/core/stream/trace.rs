//! What each stage of the pipeline made of a stream, record by record: kept only when asked
//! for (a replay of a capture), so a live run pays nothing for it.

use crate::core::stream::event::{EventBody, Parsed};
use crate::core::stream::framing::SkipReason;
use crate::core::stream::tracker::TrackerStep;

/// Where in the stream a trace entry was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceAt {
    /// A framed record: its 1-based position among the stream's non-blank records.
    Record(u64),
    /// The runner handed the step's calls to the host.
    HandOver,
    /// The stream was closed.
    Close,
}

/// How framing and parsing read one record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordRead {
    /// An event the translator acts on: its type, and whether it is a partial delta.
    Event { kind: &'static str, partial: bool },
    /// A JSON object the translator does not use (an unknown type or a bad shape).
    Ignored,
    /// Skipped by framing (too long, not UTF-8), or not a JSON object, or nested too deep.
    Skipped(Skip),
}

/// Why a record was skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    Framing(SkipReason),
    NotAnObject,
    TooDeep,
    /// The last record had no line feed when the writer died; it was dropped.
    CutOff,
}

impl Skip {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Framing(SkipReason::TooLong) => "longer than maxLineBytes",
            Self::Framing(SkipReason::InvalidUtf8) => "not valid UTF-8",
            Self::NotAnObject => "not a JSON object",
            Self::TooDeep => "nested deeper than the limit",
            Self::CutOff => "cut off by the end of the stream (no line feed)",
        }
    }
}

/// One entry of a trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceEntry {
    pub at: TraceAt,
    /// `None` for a hand-over or the close.
    pub read: Option<RecordRead>,
    /// The record's length in bytes (for a skipped record, as far as it was seen).
    pub bytes: usize,
    /// A skipped record's first bytes, lossily decoded.
    pub prefix: Option<String>,
    /// What the delta tracker decided, in order.
    pub tracker: Vec<TrackerStep>,
    /// How many outputs the encoder produced.
    pub outputs: usize,
}

impl TraceEntry {
    pub(crate) fn new(at: TraceAt, read: Option<RecordRead>, bytes: usize) -> Self {
        Self {
            at,
            read,
            bytes,
            prefix: None,
            tracker: Vec::new(),
            outputs: 0,
        }
    }
}

/// The trace label of a parsed record.
pub(crate) fn read_of(parsed: &Parsed<'_>) -> RecordRead {
    match parsed {
        Parsed::Invalid => RecordRead::Skipped(Skip::NotAnObject),
        Parsed::Ignored { .. } => RecordRead::Ignored,
        Parsed::Event(event) => {
            let (kind, partial) = match &event.body {
                EventBody::Context { .. } => ("system or user", false),
                EventBody::Assistant { partial, .. } => ("assistant", *partial),
                EventBody::Text { .. } => ("text", false),
                EventBody::ServerNotice { .. } => ("server notice", false),
                EventBody::Notice { notice, .. } => (notice.trace_label(), false),
                EventBody::Thinking { partial, .. } => ("thinking", *partial),
                EventBody::ToolCall { completed, .. } => (
                    if *completed {
                        "tool_call completed"
                    } else {
                        "tool_call started"
                    },
                    false,
                ),
                EventBody::Result { .. } => ("result", false),
                EventBody::Transport => ("interaction_query or retry", false),
            };
            RecordRead::Event { kind, partial }
        }
    }
}
