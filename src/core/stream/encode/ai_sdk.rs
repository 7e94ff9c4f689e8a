//! AI SDK LanguageModelV3 stream parts.
//!
//! Text and reasoning arrive in blocks (`*-start`, `*-delta`..., `*-end`) that never overlap: a
//! block ends at the first part of another kind, at the end of a thinking phase (reasoning), or
//! at the finish. Block ids count per kind (`text-0`, `reasoning-0`, `text-1`, ...), so they do
//! not depend on how the input was chunked.
//!
//! The encoder describes each part once, as a list of fields; a [`PartWriter`] turns that into
//! a JSON value ([`Output::Part`]) or appends it as JSON text ([`JsonParts`]), for a host that
//! parses many parts in one go.
//!
//! Tool calls are reported as they came: Cursor's own calls under Cursor's name, with its
//! arguments and result and its tool kind in `providerMetadata`; how a host shows them is the
//! host's business.

use serde_json::{json, Map, Value};

use crate::core::stream::encode::push_json_str;
use crate::core::stream::encode::Output;
use crate::core::stream::part::{Executor, FinishReason, Part};
use crate::core::stream::usage::ai_sdk_usage;

/// The value of one field of a part.
#[derive(Debug, Clone, Copy)]
pub enum Field<'a> {
    Str(&'a str),
    Bool(bool),
    Json(&'a Value),
}

/// Receives finished parts: `kind` is the part's `type`, `fields` the rest, in order.
pub trait PartWriter {
    fn part(&mut self, kind: &str, fields: &[(&str, Field<'_>)]);
}

impl PartWriter for Vec<Output> {
    fn part(&mut self, kind: &str, fields: &[(&str, Field<'_>)]) {
        let mut object = Map::new();
        object.insert("type".to_owned(), Value::String(kind.to_owned()));
        for (name, field) in fields {
            let value = match field {
                Field::Str(s) => Value::String((*s).to_owned()),
                Field::Bool(b) => Value::Bool(*b),
                Field::Json(v) => (*v).clone(),
            };
            object.insert((*name).to_owned(), value);
        }
        self.push(Output::Part(Value::Object(object)));
    }
}

/// Appends each part as a JSON object followed by a comma: wrapped in `[` `]` without the
/// last comma, the text is a JSON array of the parts.
#[derive(Debug)]
pub struct JsonParts<'s>(pub &'s mut String);

impl PartWriter for JsonParts<'_> {
    fn part(&mut self, kind: &str, fields: &[(&str, Field<'_>)]) {
        let out = &mut *self.0;
        out.push_str("{\"type\":");
        push_json_str(out, kind);
        for (name, field) in fields {
            out.push(',');
            push_json_str(out, name);
            out.push(':');
            match field {
                Field::Str(s) => push_json_str(out, s),
                Field::Bool(true) => out.push_str("true"),
                Field::Bool(false) => out.push_str("false"),
                Field::Json(v) => out.push_str(&v.to_string()),
            }
        }
        out.push_str("},");
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BlockKind {
    Text,
    Reasoning,
}

impl BlockKind {
    fn parts(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Self::Text => ("text-start", "text-delta", "text-end"),
            Self::Reasoning => ("reasoning-start", "reasoning-delta", "reasoning-end"),
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

/// The fields that say who runs a call. Cursor's own calls are provider-executed and dynamic
/// (the host has no definition of Cursor's tools) and name Cursor's tool kind; a call the host
/// runs is one of its own tools, so it carries none of that.
fn executor_fields(executor: Executor) -> &'static [(&'static str, Field<'static>)] {
    match executor {
        Executor::Cursor => &[
            ("providerExecuted", Field::Bool(true)),
            ("dynamic", Field::Bool(true)),
        ],
        Executor::Host => &[],
    }
}

/// `providerMetadata` of a call Cursor ran itself: its tool kind and, for an MCP call, its server.
fn cursor_metadata(kind: &str, server: Option<&str>) -> Value {
    let mut cursor = Map::new();
    cursor.insert("kind".to_owned(), Value::from(kind));
    if let Some(server) = server {
        cursor.insert("server".to_owned(), Value::from(server));
    }
    json!({ "cursor": cursor })
}

impl AiSdkEncoder {
    pub fn new() -> Self {
        Self::default()
    }

    fn close_block(&mut self, out: &mut impl PartWriter) {
        if let Some((kind, id)) = self.open.take() {
            out.part(kind.parts().2, &[("id", Field::Str(&id))]);
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
            out.part(kind.parts().0, &[("id", Field::Str(&id))]);
            self.open = Some((kind, id));
        }
        if let Some((_, id)) = &self.open {
            out.part(
                kind.parts().1,
                &[("id", Field::Str(id)), ("delta", Field::Str(text))],
            );
        }
    }

    pub fn encode(&mut self, p: &Part<'_>, out: &mut impl PartWriter) {
        if self.finished {
            return;
        }
        if !self.started {
            self.started = true;
            out.part("stream-start", &[("warnings", Field::Json(&json!([])))]);
        }
        match p {
            Part::TextDelta(text) => self.delta(BlockKind::Text, text, out),
            Part::ReasoningDelta(text) => self.delta(BlockKind::Reasoning, text, out),
            Part::ReasoningEnd => {
                if matches!(self.open, Some((BlockKind::Reasoning, _))) {
                    self.close_block(out);
                }
            }
            Part::ToolStarted {
                id,
                name,
                kind,
                server,
                input,
                executor,
            } => {
                self.close_block(out);
                let metadata = cursor_metadata(kind, *server);
                let mut start = vec![("id", Field::Str(id)), ("toolName", Field::Str(name))];
                let mut call = vec![
                    ("toolCallId", Field::Str(id)),
                    ("toolName", Field::Str(name)),
                    ("input", Field::Str(input)),
                ];
                if *executor == Executor::Cursor {
                    for fields in [&mut start, &mut call] {
                        fields.extend_from_slice(executor_fields(*executor));
                        fields.push(("providerMetadata", Field::Json(&metadata)));
                    }
                }
                out.part("tool-input-start", &start);
                let id = Field::Str(id);
                out.part(
                    "tool-input-delta",
                    &[("id", id), ("delta", Field::Str(input))],
                );
                out.part("tool-input-end", &[("id", id)]);
                out.part("tool-call", &call);
            }
            Part::ToolCompleted {
                id,
                name,
                kind,
                server,
                result,
                is_error,
            } => {
                self.close_block(out);
                let metadata = cursor_metadata(kind, *server);
                let mut fields = vec![
                    ("toolCallId", Field::Str(id)),
                    ("toolName", Field::Str(name)),
                    ("result", Field::Json(result)),
                    ("isError", Field::Bool(*is_error)),
                ];
                fields.extend_from_slice(executor_fields(Executor::Cursor));
                fields.push(("providerMetadata", Field::Json(&metadata)));
                out.part("tool-result", &fields);
            }
            Part::Finish { reason, usage } => {
                self.close_block(out);
                // A step that handed the host its calls ends this response only: the next one
                // (after the host's answers) starts with its own `stream-start`.
                match reason {
                    FinishReason::ToolCalls => self.started = false,
                    _ => self.finished = true,
                }
                let (unified, raw) = match reason {
                    FinishReason::Stop => ("stop", "stop"),
                    FinishReason::ToolCalls => ("tool-calls", "tool-calls"),
                    FinishReason::Cancelled => ("other", "cancelled"),
                    FinishReason::Error(error) => {
                        let mut error_object =
                            json!({ "code": error.code().as_str(), "message": error.message() });
                        if let Some(said) = error.agent_output() {
                            error_object["agentOutput"] = Value::from(said);
                        }
                        out.part("error", &[("error", Field::Json(&error_object))]);
                        ("error", error.code().as_str())
                    }
                };
                let finish_reason = json!({ "unified": unified, "raw": raw });
                out.part(
                    "finish",
                    &[
                        ("finishReason", Field::Json(&finish_reason)),
                        ("usage", Field::Json(&ai_sdk_usage(*usage))),
                    ],
                );
            }
        }
    }
}

#[cfg(test)]
mod tests;
