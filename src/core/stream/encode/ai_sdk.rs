//! AI SDK LanguageModelV3 stream parts.
//!
//! Text and reasoning arrive in blocks (`*-start`, `*-delta`..., `*-end`) that never overlap: a
//! block ends at the first part of another kind, at the end of a thinking phase (reasoning), or
//! at the finish. Block ids count per kind (`text-0`, `reasoning-0`, `text-1`, ...), so they do
//! not depend on how the input was chunked.
//!
//! The encoder builds each part once, as a typed [`StreamPart`] ([`part`]); a [`PartWriter`]
//! turns it into a JSON value ([`Output::Part`]) or writes it into a [`Batch`] ([`BatchParts`]),
//! for a host that makes many parts in one go.
//!
//! Tool calls are reported as they came: Cursor's own calls under Cursor's name, with its
//! arguments and result and its tool kind in `providerMetadata`; how a host shows them is the
//! host's business.

pub mod part;

use crate::core::stream::encode::batch::{Batch, PieceKind};
use crate::core::stream::encode::{Output, ToolCallMode};
use crate::core::stream::part::{Executor, FinishReason, Part};
use crate::core::stream::usage::UsageReport;
use crate::core::wire::True;
use part::{
    CallMetadata, CursorResult, FinishReason as PartFinishReason, StreamPart, StreamUsage, Unified,
};

/// Receives finished parts.
pub trait PartWriter {
    fn part(&mut self, part: &StreamPart<'_>);
}

impl PartWriter for Vec<Output> {
    fn part(&mut self, part: &StreamPart<'_>) {
        match serde_json::to_value(part) {
            Ok(value) => self.push(Output::Part(value)),
            // Unreachable: every object these types write has string keys.
            Err(error) => tracing::error!(%error, "a stream part could not be written"),
        }
    }
}

/// Writes parts into a [`Batch`]: text and thinking deltas as their text, every other part as
/// JSON.
#[derive(Debug)]
pub struct BatchParts<'b>(pub &'b mut Batch);

impl PartWriter for BatchParts<'_> {
    fn part(&mut self, part: &StreamPart<'_>) {
        match part {
            StreamPart::TextDelta { id, delta } => self.0.delta(PieceKind::TextDelta, id, delta),
            StreamPart::ReasoningDelta { id, delta } => {
                self.0.delta(PieceKind::ReasoningDelta, id, delta)
            }
            _ => self.0.json(part),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BlockKind {
    Text,
    Reasoning,
}

#[derive(Debug, Default)]
pub struct AiSdkEncoder {
    started: bool,
    /// The `stream-start` part's warnings.
    warnings: Vec<serde_json::Value>,
    /// The open block and its id.
    open: Option<(BlockKind, String)>,
    text_blocks: u32,
    reasoning_blocks: u32,
    finished: bool,
    /// Whether Cursor's own calls are among the parts.
    tool_calls: ToolCallMode,
}

/// What says who runs a call: Cursor's own calls are provider-executed and dynamic (the host has
/// no definition of Cursor's tools) and name Cursor's tool kind; a call the host runs is one of
/// its own tools, so it carries none of that.
fn ran_by_cursor<'a>(
    executor: Executor,
    kind: &'a str,
    server: Option<&'a str>,
) -> (Option<True>, Option<CallMetadata<'a>>) {
    match executor {
        Executor::Cursor => (Some(True), Some(CallMetadata::of(kind, server))),
        Executor::Host => (None, None),
    }
}

impl AiSdkEncoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// An encoder whose `stream-start` part carries `warnings` (each `{type: 'other', message}`,
    /// the AI SDK's warning of no particular setting), with Cursor's own calls or without.
    pub fn with(warnings: &[String], tool_calls: ToolCallMode) -> Self {
        Self {
            warnings: warnings
                .iter()
                .map(|message| serde_json::json!({ "type": "other", "message": message }))
                .collect(),
            tool_calls,
            ..Self::default()
        }
    }

    /// Whether a call of `executor`'s is left out: Cursor's, when asked (a block still ends
    /// there, so text on either side of it is two blocks).
    fn omitted(&self, executor: Executor) -> bool {
        executor == Executor::Cursor && self.tool_calls == ToolCallMode::Omit
    }

    fn close_block(&mut self, out: &mut impl PartWriter) {
        if let Some((kind, id)) = self.open.take() {
            let id = id.as_str();
            out.part(&match kind {
                BlockKind::Text => StreamPart::TextEnd { id },
                BlockKind::Reasoning => StreamPart::ReasoningEnd { id },
            });
        }
    }

    fn delta(&mut self, kind: BlockKind, text: &str, out: &mut impl PartWriter) {
        if self.open.as_ref().map(|(k, _)| *k) != Some(kind) {
            self.close_block(out);
            let counter = match kind {
                BlockKind::Text => &mut self.text_blocks,
                BlockKind::Reasoning => &mut self.reasoning_blocks,
            };
            let id = match kind {
                BlockKind::Text => format!("text-{counter}"),
                BlockKind::Reasoning => format!("reasoning-{counter}"),
            };
            *counter += 1;
            out.part(&match kind {
                BlockKind::Text => StreamPart::TextStart { id: &id },
                BlockKind::Reasoning => StreamPart::ReasoningStart { id: &id },
            });
            self.open = Some((kind, id));
        }
        if let Some((_, id)) = &self.open {
            out.part(&match kind {
                BlockKind::Text => StreamPart::TextDelta { id, delta: text },
                BlockKind::Reasoning => StreamPart::ReasoningDelta { id, delta: text },
            });
        }
    }

    pub fn encode(&mut self, p: &Part<'_>, out: &mut impl PartWriter) {
        if self.finished {
            return;
        }
        if !self.started {
            self.started = true;
            out.part(&StreamPart::StreamStart {
                warnings: &self.warnings,
            });
        }
        match p {
            Part::TextDelta(text) => self.delta(BlockKind::Text, text, out),
            Part::ReasoningDelta(text) => self.delta(BlockKind::Reasoning, text, out),
            Part::ReasoningEnd => {
                if matches!(self.open, Some((BlockKind::Reasoning, _))) {
                    self.close_block(out);
                }
            }
            Part::ToolStarted { .. } | Part::ToolCompleted { .. } => {
                self.close_block(out);
                if !self.omitted(p.executor()) {
                    tool_parts(p, out);
                }
            }
            Part::Finish { reason, usage } => self.finish(*reason, *usage, out),
        }
    }

    /// The end of a step: a step that handed the host its calls ends this response only (the
    /// next one, after the host's answers, starts with its own `stream-start`).
    fn finish(
        &mut self,
        reason: FinishReason<'_>,
        usage: Option<&UsageReport>,
        out: &mut impl PartWriter,
    ) {
        self.close_block(out);
        match reason {
            FinishReason::ToolCalls => self.started = false,
            _ => self.finished = true,
        }
        let (unified, raw) = match reason {
            FinishReason::Stop => (Unified::Stop, "stop"),
            FinishReason::ToolCalls => (Unified::ToolCalls, "tool-calls"),
            FinishReason::Cancelled => (Unified::Other, "cancelled"),
            FinishReason::Error(error) => {
                out.part(&StreamPart::Error { error });
                (Unified::Error, error.code().as_str())
            }
        };
        out.part(&StreamPart::Finish {
            finish_reason: PartFinishReason { unified, raw },
            usage: StreamUsage::of(usage),
        });
    }
}

/// A tool call's parts: its input and the call, or the result of one Cursor ran.
fn tool_parts(p: &Part<'_>, out: &mut impl PartWriter) {
    match p {
        Part::ToolStarted {
            id,
            name,
            kind,
            server,
            input,
            executor,
        } => {
            let (flag, metadata) = ran_by_cursor(*executor, kind, *server);
            out.part(&StreamPart::ToolInputStart {
                id,
                tool_name: name,
                provider_executed: flag,
                dynamic: flag,
                provider_metadata: metadata.clone(),
            });
            out.part(&StreamPart::ToolInputDelta { id, delta: input });
            out.part(&StreamPart::ToolInputEnd { id });
            out.part(&StreamPart::ToolCall {
                tool_call_id: id,
                tool_name: name,
                input,
                provider_executed: flag,
                dynamic: flag,
                provider_metadata: metadata,
            });
        }
        Part::ToolCompleted {
            id,
            name,
            kind,
            server,
            result,
            is_error,
        } => out.part(&StreamPart::ToolResult {
            tool_call_id: id,
            tool_name: name,
            result: CursorResult(result),
            is_error: *is_error,
            provider_executed: True,
            dynamic: True,
            provider_metadata: CallMetadata::of(kind, *server),
        }),
        _ => {}
    }
}

#[cfg(test)]
mod tests;
