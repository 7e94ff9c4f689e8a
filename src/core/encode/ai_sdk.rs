//! AI SDK LanguageModelV3 stream parts as JSON values.
//!
//! Text and reasoning arrive in blocks (`*-start`, `*-delta`..., `*-end`) that never overlap: a
//! block ends at the first part of another kind, at the end of a thinking phase (reasoning), or
//! at the finish. Block ids count per kind (`text-0`, `reasoning-0`, `text-1`, ...), so they do
//! not depend on how the input was chunked.

use serde_json::{json, Map, Value};

use crate::core::part::{FinishReason, Part};
use crate::core::transformer::Output;
use crate::core::usage::ai_sdk_usage;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BlockKind {
    Text,
    Reasoning,
}

impl BlockKind {
    fn name(self) -> &'static str {
        match self {
            Self::Text => "text",
            Self::Reasoning => "reasoning",
        }
    }
}

#[derive(Debug, Default)]
pub struct AiSdkEncoder {
    started: bool,
    /// The open block and its id.
    open: Option<(BlockKind, String)>,
    text_blocks: u32,
    reasoning_blocks: u32,
    finished: bool,
}

fn part(kind: &str, fields: Value) -> Output {
    let mut object = match fields {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    object.insert("type".into(), Value::String(kind.to_owned()));
    Output::Part(Value::Object(object))
}

impl AiSdkEncoder {
    pub fn new() -> Self {
        Self::default()
    }

    fn close_block(&mut self, out: &mut Vec<Output>) {
        if let Some((kind, id)) = self.open.take() {
            let end = match kind {
                BlockKind::Text => "text-end",
                BlockKind::Reasoning => "reasoning-end",
            };
            out.push(part(end, json!({ "id": id })));
        }
    }

    fn delta(&mut self, kind: BlockKind, text: &str, out: &mut Vec<Output>) {
        if self.open.as_ref().map(|(k, _)| *k) != Some(kind) {
            self.close_block(out);
            let counter = match kind {
                BlockKind::Text => &mut self.text_blocks,
                BlockKind::Reasoning => &mut self.reasoning_blocks,
            };
            let id = format!("{}-{}", kind.name(), *counter);
            *counter += 1;
            let start = match kind {
                BlockKind::Text => "text-start",
                BlockKind::Reasoning => "reasoning-start",
            };
            out.push(part(start, json!({ "id": id })));
            self.open = Some((kind, id));
        }
        let id = self
            .open
            .as_ref()
            .map(|(_, id)| id.clone())
            .unwrap_or_default();
        let kind_name = match kind {
            BlockKind::Text => "text-delta",
            BlockKind::Reasoning => "reasoning-delta",
        };
        out.push(part(kind_name, json!({ "id": id, "delta": text })));
    }

    pub fn encode(&mut self, p: &Part<'_>, out: &mut Vec<Output>) {
        if self.finished {
            return;
        }
        if !self.started {
            self.started = true;
            out.push(part("stream-start", json!({ "warnings": [] })));
        }
        match p {
            Part::TextDelta(text) => self.delta(BlockKind::Text, text, out),
            Part::ReasoningDelta(text) => self.delta(BlockKind::Reasoning, text, out),
            Part::ReasoningEnd => {
                if matches!(self.open, Some((BlockKind::Reasoning, _))) {
                    self.close_block(out);
                }
            }
            Part::ToolStarted { id, name, input } => {
                self.close_block(out);
                out.push(part(
                    "tool-input-start",
                    json!({ "id": id, "toolName": name, "providerExecuted": true, "dynamic": true }),
                ));
                out.push(part(
                    "tool-input-delta",
                    json!({ "id": id, "delta": input }),
                ));
                out.push(part("tool-input-end", json!({ "id": id })));
                out.push(part(
                    "tool-call",
                    json!({
                        "toolCallId": id,
                        "toolName": name,
                        "input": input,
                        "providerExecuted": true,
                        "dynamic": true,
                    }),
                ));
            }
            Part::ToolCompleted {
                id,
                name,
                result,
                is_error,
            } => {
                self.close_block(out);
                out.push(part(
                    "tool-result",
                    json!({
                        "toolCallId": id,
                        "toolName": name,
                        "result": result,
                        "isError": is_error,
                        "providerExecuted": true,
                        "dynamic": true,
                    }),
                ));
            }
            Part::Finish { reason, usage } => {
                self.finished = true;
                self.close_block(out);
                let (unified, raw) = match reason {
                    FinishReason::Stop => ("stop", "stop"),
                    FinishReason::Cancelled => ("other", "cancelled"),
                    FinishReason::Error(error) => {
                        out.push(part(
                            "error",
                            json!({ "error": { "code": error.code(), "message": error.message() } }),
                        ));
                        ("error", error.code())
                    }
                };
                out.push(part(
                    "finish",
                    json!({
                        "finishReason": { "unified": unified, "raw": raw },
                        "usage": ai_sdk_usage(*usage),
                    }),
                ));
            }
        }
    }
}
