//! OpenAI `chat.completion.chunk` SSE frames, written directly into strings.
//!
//! The constant head of every chunk (`id`, `object`, `created`, `model`) is built once; each
//! frame is that head, one escaped field, and a constant tail.

use crate::core::error::CoreError;
use crate::core::stream::encode::{push_json_str, Output, ToolCallMode, SEGMENT_SEPARATOR};
use crate::core::stream::part::{Executor, FinishReason, Part};
use crate::core::stream::usage::{openai_usage, UsageReport};

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
    /// Text went out in this completion.
    text_sent: bool,
    /// A tool call came after the last text: the next text starts a new segment.
    tool_since_text: bool,
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
            text_sent: false,
            tool_since_text: false,
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
                // `content` is one string: text on either side of a tool call would run
                // together ("...entries there are.There are 4 files"), so a blank line
                // separates the segments, as the ai-sdk format's separate blocks do.
                let chunk = if self.text_sent && self.tool_since_text {
                    self.text_chunk("content", &format!("{SEGMENT_SEPARATOR}{text}"))
                } else {
                    self.text_chunk("content", text)
                };
                self.text_sent = true;
                self.tool_since_text = false;
                out.push(chunk);
            }
            Part::ReasoningDelta(text) => out.push(self.text_chunk("reasoning_content", text)),
            Part::ToolStarted {
                id, name, input, ..
            } => {
                self.tool_since_text = self.text_sent;
                // A call the host must run always reaches it; Cursor's own, only when asked for.
                if part.executor() == Executor::Host || self.tool_calls == ToolCallMode::Emit {
                    out.push(self.tool_call(id, name, input));
                }
            }
            Part::ReasoningEnd | Part::ToolCompleted { .. } => {}
            Part::Finish { reason, usage } => self.finish(*reason, *usage, out),
        }
    }

    /// A `tool_calls` delta of one call, with the next index of the completion.
    fn tool_call(&mut self, id: &str, name: &str, input: &str) -> Output {
        let index = self.next_tool_index;
        self.next_tool_index += 1;
        self.chunk(
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
        )
    }

    /// The end of a step: its `finish_reason` chunk and usage, or its error frame, then
    /// `[DONE]`. No `finish_reason` claims an answer that was cut short: a cancelled completion
    /// ends with `[DONE]` alone, a failed one with its error frame.
    fn finish(
        &mut self,
        reason: FinishReason<'_>,
        usage: Option<&UsageReport>,
        out: &mut Vec<Output>,
    ) {
        self.finished = reason != FinishReason::ToolCalls;
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
            FinishReason::Cancelled => {}
            FinishReason::Error(error) => out.push(Output::Frame(error_frame(error))),
        }
        out.push(Output::Frame(DONE.to_owned()));
        if !self.finished {
            // The response ended with calls for the client; the next one (after its answers)
            // is a new completion with its own role chunk and tool indexes.
            self.role_sent = false;
            self.next_tool_index = 0;
            self.text_sent = false;
            self.tool_since_text = false;
        }
    }
}

/// The frame of a failure. An OpenAI client shows only the message: it carries Cursor's words
/// too.
fn error_frame(error: &CoreError) -> String {
    let mut frame = String::from("data: {\"error\":{\"message\":");
    push_json_str(&mut frame, &error.to_string());
    frame.push_str(",\"type\":");
    push_json_str(&mut frame, ERROR_TYPE);
    frame.push_str(",\"code\":");
    push_json_str(&mut frame, error.code().as_str());
    frame.push_str("}}\n\n");
    frame
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
            server: None,
            input: r#"{"filePath":"a"}"#,
            executor: Executor::Host,
        };
        let cursor_call = Part::ToolStarted {
            id: "c1",
            name: "shell",
            kind: "shellToolCall",
            server: None,
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

    fn contents(frames: &[String]) -> Vec<String> {
        frames
            .iter()
            .filter_map(|frame| {
                let body = frame.strip_prefix("data: ")?.strip_suffix("\n\n")?;
                let chunk: serde_json::Value = serde_json::from_str(body).ok()?;
                chunk["choices"][0]["delta"]["content"]
                    .as_str()
                    .map(str::to_owned)
            })
            .collect()
    }

    #[test]
    fn text_after_a_tool_call_starts_a_new_paragraph_only_when_text_came_before() {
        let tool = || Part::ToolStarted {
            id: "c1",
            name: "shell",
            kind: "shellToolCall",
            server: None,
            input: "{}",
            executor: Executor::Cursor,
        };
        let stop = || Part::Finish {
            reason: FinishReason::Stop,
            usage: None,
        };
        let table: [(&[Part<'_>], &[&str]); 3] = [
            (
                &[
                    Part::TextDelta("There are"),
                    Part::TextDelta(" entries."),
                    tool(),
                    Part::TextDelta("There are 4 files."),
                    stop(),
                ],
                &["There are", " entries.", "\n\nThere are 4 files."],
            ),
            (
                &[tool(), Part::TextDelta("First text."), stop()],
                &["First text."],
            ),
            (
                &[
                    Part::TextDelta("a"),
                    tool(),
                    tool(),
                    Part::TextDelta("b"),
                    Part::TextDelta("c"),
                    stop(),
                ],
                &["a", "\n\nb", "c"],
            ),
        ];
        for mode in [ToolCallMode::Emit, ToolCallMode::Omit] {
            for (parts, expected) in &table {
                assert_eq!(contents(&frames(mode, parts)), *expected, "{mode:?}");
            }
        }
    }

    #[test]
    fn a_cancelled_or_failed_completion_claims_no_finish_reason() {
        let cancelled = frames(
            ToolCallMode::Omit,
            &[
                Part::TextDelta("hi"),
                Part::Finish {
                    reason: FinishReason::Cancelled,
                    usage: None,
                },
            ],
        );
        assert_eq!(cancelled.len(), 2);
        assert!(cancelled[0].contains(r#""content":"hi""#));
        assert_eq!(cancelled[1], "data: [DONE]\n\n");
        let error = crate::core::error::CoreError::new(
            crate::core::error::ErrorCode::Network,
            "no connection",
        );
        let failed = frames(
            ToolCallMode::Omit,
            &[Part::Finish {
                reason: FinishReason::Error(&error),
                usage: None,
            }],
        );
        assert_eq!(failed.len(), 2, "{failed:?}");
        assert!(
            failed[0].starts_with(r#"data: {"error":{"message":"#),
            "{failed:?}"
        );
        assert!(failed[0].contains(r#""code":"E_NETWORK""#));
        assert_eq!(failed[1], "data: [DONE]\n\n");
    }
}
