//! OpenAI `chat.completion.chunk` SSE frames, written directly into strings.
//!
//! The constant head of every chunk (`id`, `object`, `created`, `model`) is built once; each
//! frame is that head, one escaped field, and a constant tail.

use crate::core::stream::encode::push_json_str;
use crate::core::stream::encode::Output;
use crate::core::stream::part::{Executor, FinishReason, Part};
use crate::core::stream::usage::openai_usage;

/// Whether Cursor's own tool calls appear as `tool_calls` deltas in SSE output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolCallMode {
    #[default]
    Emit,
    Omit,
}

/// Error `type` in the error frame.
pub const ERROR_TYPE: &str = "cursor_agent_error";
const DONE: &str = "data: [DONE]\n\n";

#[derive(Debug)]
pub struct SseEncoder {
    /// `data: {"id":…,"object":"chat.completion.chunk","created":…,"model":…,"choices":`
    head: String,
    tool_calls: ToolCallMode,
    include_usage: bool,
    role_sent: bool,
    next_tool_index: u32,
    finished: bool,
}

impl SseEncoder {
    pub fn new(
        id: &str,
        created: i64,
        model: &str,
        tool_calls: ToolCallMode,
        include_usage: bool,
    ) -> Self {
        let mut head = String::with_capacity(96 + id.len() + model.len());
        head.push_str("data: {\"id\":");
        push_json_str(&mut head, id);
        head.push_str(",\"object\":\"chat.completion.chunk\",\"created\":");
        head.push_str(&created.to_string());
        head.push_str(",\"model\":");
        push_json_str(&mut head, model);
        head.push_str(",\"choices\":");
        Self {
            head,
            tool_calls,
            include_usage,
            role_sent: false,
            next_tool_index: 0,
            finished: false,
        }
    }

    /// A chunk with one choice: `delta` holds `fields` (already JSON, without braces).
    fn chunk(
        &mut self,
        extra: usize,
        fields: impl FnOnce(&mut String),
        finish_reason: Option<&str>,
    ) -> Output {
        let mut frame = String::with_capacity(self.head.len() + extra + 80);
        frame.push_str(&self.head);
        frame.push_str("[{\"index\":0,\"delta\":{");
        if !self.role_sent {
            self.role_sent = true;
            frame.push_str("\"role\":\"assistant\"");
            let before = frame.len();
            fields(&mut frame);
            if frame.len() > before {
                frame.insert(before, ',');
            }
        } else {
            fields(&mut frame);
        }
        frame.push_str("},\"finish_reason\":");
        match finish_reason {
            Some(reason) => push_json_str(&mut frame, reason),
            None => frame.push_str("null"),
        }
        frame.push_str("}]}\n\n");
        Output::Frame(frame)
    }

    fn text_chunk(&mut self, field: &str, text: &str) -> Output {
        self.chunk(
            field.len() + text.len() + text.len() / 8,
            |f| {
                f.push('"');
                f.push_str(field);
                f.push_str("\":");
                push_json_str(f, text);
            },
            None,
        )
    }

    pub fn encode(&mut self, part: &Part<'_>, out: &mut Vec<Output>) {
        if self.finished {
            return;
        }
        match part {
            Part::TextDelta(text) => {
                let chunk = self.text_chunk("content", text);
                out.push(chunk);
            }
            Part::ReasoningDelta(text) => {
                let chunk = self.text_chunk("reasoning_content", text);
                out.push(chunk);
            }
            Part::ToolStarted {
                id,
                name,
                input,
                executor,
                ..
            } => {
                // A call the host must run always reaches it; Cursor's own, only when asked for.
                if *executor == Executor::Cursor && self.tool_calls == ToolCallMode::Omit {
                    return;
                }
                let index = self.next_tool_index;
                self.next_tool_index += 1;
                let chunk = self.chunk(
                    id.len() + name.len() + input.len() * 9 / 8,
                    |f| {
                        f.push_str("\"tool_calls\":[{\"index\":");
                        f.push_str(&index.to_string());
                        f.push_str(",\"id\":");
                        push_json_str(f, id);
                        f.push_str(",\"type\":\"function\",\"function\":{\"name\":");
                        push_json_str(f, name);
                        f.push_str(",\"arguments\":");
                        push_json_str(f, input);
                        f.push_str("}}]");
                    },
                    None,
                );
                out.push(chunk);
            }
            Part::ReasoningEnd | Part::ToolCompleted { .. } => {}
            Part::Finish { reason, usage } => {
                self.finished = *reason != FinishReason::ToolCalls;
                match reason {
                    FinishReason::Stop | FinishReason::ToolCalls => {
                        let finish_reason = match reason {
                            FinishReason::ToolCalls => "tool_calls",
                            _ => "stop",
                        };
                        out.push(self.chunk(0, |_| {}, Some(finish_reason)));
                        if let (true, Some(usage)) = (self.include_usage, usage) {
                            let mut frame = self.head.clone();
                            frame.push_str("[],\"usage\":");
                            frame.push_str(&openai_usage(&usage.counts).to_string());
                            frame.push_str("}\n\n");
                            out.push(Output::Frame(frame));
                        }
                    }
                    FinishReason::Cancelled => out.push(self.chunk(0, |_| {}, Some("stop"))),
                    FinishReason::Error(error) => {
                        let mut frame = String::from("data: {\"error\":{\"message\":");
                        // An OpenAI client shows only the message: it carries Cursor's words too.
                        push_json_str(&mut frame, &error.to_string());
                        frame.push_str(",\"type\":");
                        push_json_str(&mut frame, ERROR_TYPE);
                        frame.push_str(",\"code\":");
                        push_json_str(&mut frame, error.code().as_str());
                        frame.push_str("}}\n\n");
                        out.push(Output::Frame(frame));
                        out.push(self.chunk(0, |_| {}, Some("error")));
                    }
                }
                out.push(Output::Frame(DONE.to_owned()));
                if !self.finished {
                    // The response ended with calls for the client; the next one (after its
                    // answers) is a new completion with its own role chunk and tool indexes.
                    self.role_sent = false;
                    self.next_tool_index = 0;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::stream::encode::encode_all;

    fn frames(tool_calls: ToolCallMode, parts: &[Part<'_>]) -> Vec<String> {
        let mut encoder = SseEncoder::new("id-1", 7, "auto", tool_calls, false);
        let out = encode_all(parts, |part, out| encoder.encode(part, out));
        out.into_iter()
            .map(|o| o.into_frame().expect("an SSE frame"))
            .collect()
    }

    const HEAD: &str = r#"data: {"id":"id-1","object":"chat.completion.chunk","created":7,"model":"auto","choices":"#;

    #[test]
    fn host_calls_always_reach_the_client_and_end_the_turn_with_tool_calls() {
        let host_call = Part::ToolStarted {
            id: "h1",
            name: "read",
            kind: "function",
            input: r#"{"filePath":"a"}"#,
            executor: Executor::Host,
        };
        let cursor_call = Part::ToolStarted {
            id: "c1",
            name: "shell",
            kind: "shellToolCall",
            input: "{}",
            executor: Executor::Cursor,
        };
        let finish = Part::Finish {
            reason: FinishReason::ToolCalls,
            usage: None,
        };
        let got = frames(ToolCallMode::Omit, &[cursor_call, host_call, finish]);
        assert_eq!(
            got,
            [
                format!(
                    r#"{HEAD}[{{"index":0,"delta":{{"role":"assistant","tool_calls":[{{"index":0,"id":"h1","type":"function","function":{{"name":"read","arguments":"{{\"filePath\":\"a\"}}"}}}}]}},"finish_reason":null}}]}}"#
                ) + "\n\n",
                format!(r#"{HEAD}[{{"index":0,"delta":{{}},"finish_reason":"tool_calls"}}]}}"#)
                    + "\n\n",
                "data: [DONE]\n\n".to_owned(),
            ]
        );
    }
}
