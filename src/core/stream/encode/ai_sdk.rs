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
//! Cursor's own tool calls appear as OpenCode shows its own tools of that kind
//! ([`OpenCodeView`]): OpenCode's tool name, its argument names, and a result of `title`,
//! `output` and `metadata`.

use serde_json::{json, Map, Value};

use crate::core::stream::encode::push_json_str;
use crate::core::stream::encode::Output;
use crate::core::stream::part::{Executor, FinishReason, Part};
use crate::core::stream::tool::display::OpenCodeView;
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
/// (the host has no definition of Cursor's tools); a call the host runs is one of its own tools,
/// so it carries neither.
fn executor_fields(executor: Executor) -> &'static [(&'static str, Field<'static>)] {
    match executor {
        Executor::Cursor => &[
            ("providerExecuted", Field::Bool(true)),
            ("dynamic", Field::Bool(true)),
        ],
        Executor::Host => &[],
    }
}

/// `fields` followed by the executor's fields.
fn with_executor<'f>(
    fields: &[(&'f str, Field<'f>)],
    executor: Executor,
) -> Vec<(&'f str, Field<'f>)> {
    let mut all = fields.to_vec();
    all.extend_from_slice(executor_fields(executor));
    all
}

/// How OpenCode shows a call: Cursor's own calls through the display table; a host call is one of
/// the host's own tools already.
fn shown(executor: Executor, kind: &str, name: &str, input: &str) -> Option<OpenCodeView> {
    match executor {
        Executor::Cursor => Some(OpenCodeView::of(kind, name, input)),
        Executor::Host => None,
    }
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
                input,
                executor,
            } => {
                self.close_block(out);
                let view = shown(*executor, kind, name, input);
                let (name, input) = match &view {
                    Some(view) => (view.tool.as_str(), view.input_json()),
                    None => (*name, (*input).to_owned()),
                };
                let id = Field::Str(id);
                let name = Field::Str(name);
                let input = Field::Str(&input);
                out.part(
                    "tool-input-start",
                    &with_executor(&[("id", id), ("toolName", name)], *executor),
                );
                out.part("tool-input-delta", &[("id", id), ("delta", input)]);
                out.part("tool-input-end", &[("id", id)]);
                let call = [("toolCallId", id), ("toolName", name), ("input", input)];
                out.part("tool-call", &with_executor(&call, *executor));
            }
            Part::ToolCompleted {
                id,
                name,
                kind,
                input,
                result,
                is_error,
                executor,
            } => {
                self.close_block(out);
                let view = shown(*executor, kind, name, input);
                let shaped = view.as_ref().map(|v| v.result(result, *is_error));
                let name = view.as_ref().map_or(*name, |v| v.tool.as_str());
                let fields = [
                    ("toolCallId", Field::Str(id)),
                    ("toolName", Field::Str(name)),
                    ("result", Field::Json(shaped.as_ref().unwrap_or(result))),
                    ("isError", Field::Bool(*is_error)),
                ];
                out.part("tool-result", &with_executor(&fields, *executor));
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
mod tests {
    use super::*;
    use crate::core::error::{CoreError, ErrorCode};
    use crate::core::stream::encode::encode_all;

    /// Both writers describe the same parts.
    #[test]
    fn json_text_and_values_agree() {
        let result = json!({"status": "success", "stdout": "a\"b\n"});
        let error = CoreError::new(ErrorCode::Auth, "run `cursor-agent login`");
        let parts = [
            Part::ReasoningDelta("think"),
            Part::ReasoningEnd,
            Part::TextDelta("say \"hi\"\n"),
            Part::ToolStarted {
                id: "c\n1",
                name: "shell",
                kind: "shellToolCall",
                input: r#"{"command":"ls"}"#,
                executor: Executor::Cursor,
            },
            Part::ToolCompleted {
                id: "c\n1",
                name: "shell",
                kind: "shellToolCall",
                input: r#"{"command":"ls"}"#,
                result: &result,
                is_error: false,
                executor: Executor::Cursor,
            },
            Part::TextDelta("done"),
            Part::Finish {
                reason: FinishReason::Error(&error),
                usage: None,
            },
        ];
        let mut values = Vec::new();
        let mut text = String::new();
        let (mut a, mut b) = (AiSdkEncoder::new(), AiSdkEncoder::new());
        for p in &parts {
            a.encode(p, &mut values);
            b.encode(p, &mut JsonParts(&mut text));
        }
        let parsed: Vec<Value> =
            serde_json::from_str(&format!("[{}]", text.trim_end_matches(','))).unwrap();
        let values: Vec<Value> = values
            .into_iter()
            .map(|o| o.into_part().expect("a V3 part"))
            .collect();
        assert_eq!(parsed, values);
        let types: Vec<&str> = values.iter().map(|v| v["type"].as_str().unwrap()).collect();
        assert_eq!(
            types,
            [
                "stream-start",
                "reasoning-start",
                "reasoning-delta",
                "reasoning-end",
                "text-start",
                "text-delta",
                "text-end",
                "tool-input-start",
                "tool-input-delta",
                "tool-input-end",
                "tool-call",
                "tool-result",
                "text-start",
                "text-delta",
                "text-end",
                "error",
                "finish",
            ]
        );
        assert_eq!(
            values[16],
            json!({"type": "finish", "finishReason": {"unified": "error", "raw": "E_AUTH"},
                   "usage": {"inputTokens": {}, "outputTokens": {}}})
        );
    }

    fn encoded(parts: &[Part<'_>]) -> Vec<Value> {
        let mut encoder = AiSdkEncoder::new();
        let out = encode_all(parts, |part, out| encoder.encode(part, out));
        out.into_iter()
            .map(|o| o.into_part().expect("a V3 part"))
            .collect()
    }

    #[test]
    fn who_runs_a_call_decides_its_fields_and_the_finish() {
        let cursor = encoded(&[
            Part::ToolStarted {
                id: "c1",
                name: "shell",
                kind: "shellToolCall",
                input: r#"{"command":"ls","toolCallId":"c1"}"#,
                executor: Executor::Cursor,
            },
            Part::Finish {
                reason: FinishReason::Stop,
                usage: None,
            },
        ]);
        assert_eq!(
            cursor[1],
            json!({"type": "tool-input-start", "id": "c1", "toolName": "bash",
                   "providerExecuted": true, "dynamic": true})
        );
        assert_eq!(
            cursor[4],
            json!({"type": "tool-call", "toolCallId": "c1", "toolName": "bash",
                   "input": r#"{"command":"ls"}"#, "providerExecuted": true, "dynamic": true})
        );
        assert_eq!(
            cursor[5]["finishReason"],
            json!({"unified": "stop", "raw": "stop"})
        );

        let host = encoded(&[
            Part::ToolStarted {
                id: "h1",
                name: "read",
                kind: "function",
                input: r#"{"filePath":"a"}"#,
                executor: Executor::Host,
            },
            Part::Finish {
                reason: FinishReason::ToolCalls,
                usage: None,
            },
        ]);
        assert_eq!(
            host[1],
            json!({"type": "tool-input-start", "id": "h1", "toolName": "read"})
        );
        assert_eq!(
            host[4],
            json!({"type": "tool-call", "toolCallId": "h1", "toolName": "read",
                   "input": r#"{"filePath":"a"}"#})
        );
        assert_eq!(
            host[5]["finishReason"],
            json!({"unified": "tool-calls", "raw": "tool-calls"})
        );
    }
}
