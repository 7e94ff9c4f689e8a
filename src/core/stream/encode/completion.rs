//! One OpenAI `chat.completion` object per response: what a client that asked for no stream
//! receives. The same parts as the SSE frames, gathered: `content` is their text, `tool_calls`
//! the calls a frame would carry, `finish_reason` and `usage` those of the finish.

use serde_json::{json, Map, Value};

use crate::core::stream::encode::sse::ERROR_TYPE;
use crate::core::stream::encode::Output;
use crate::core::stream::encode::{ToolCallMode, SEGMENT_SEPARATOR};
use crate::core::stream::part::{Executor, FinishReason, Part};
use crate::core::stream::usage::openai_usage;

#[derive(Debug)]
pub struct CompletionEncoder {
    id: String,
    created: i64,
    model: String,
    tool_calls: ToolCallMode,
    include_usage: bool,
    content: String,
    reasoning: String,
    calls: Vec<Value>,
    /// A tool call came after the last text: the next text starts a new segment.
    tool_since_text: bool,
    finished: bool,
}

impl CompletionEncoder {
    pub fn new(
        id: &str,
        created: i64,
        model: &str,
        tool_calls: ToolCallMode,
        include_usage: bool,
    ) -> Self {
        Self {
            id: id.to_owned(),
            created,
            model: model.to_owned(),
            tool_calls,
            include_usage,
            content: String::new(),
            reasoning: String::new(),
            calls: Vec::new(),
            tool_since_text: false,
            finished: false,
        }
    }

    pub fn encode(&mut self, part: &Part<'_>, out: &mut Vec<Output>) {
        if self.finished {
            return;
        }
        match part {
            Part::TextDelta(text) => {
                // As the SSE frames' `content`: a blank line between the text on either side of
                // a tool call.
                if self.tool_since_text && !self.content.is_empty() {
                    self.content.push_str(SEGMENT_SEPARATOR);
                }
                self.tool_since_text = false;
                self.content.push_str(text);
            }
            Part::ReasoningDelta(text) => self.reasoning.push_str(text),
            Part::ToolStarted {
                id,
                name,
                input,
                executor,
                ..
            } => {
                self.tool_since_text = !self.content.is_empty();
                if *executor == Executor::Cursor && self.tool_calls == ToolCallMode::Omit {
                    return;
                }
                self.calls.push(json!({
                    "id": id,
                    "type": "function",
                    "function": { "name": name, "arguments": input },
                }));
            }
            Part::ReasoningEnd | Part::ToolCompleted { .. } => {}
            Part::Finish { reason, usage } => {
                self.finished = *reason != FinishReason::ToolCalls;
                let finish_reason = match reason {
                    FinishReason::Stop => "stop",
                    FinishReason::ToolCalls => "tool_calls",
                    // A cancelled completion has nothing to say; a failed one says why.
                    FinishReason::Cancelled => return,
                    FinishReason::Error(error) => {
                        out.push(Output::Part(json!({ "error": {
                            "message": error.to_string(),
                            "type": ERROR_TYPE,
                            "code": error.code().as_str(),
                        }})));
                        return;
                    }
                };
                let mut completion = self.completion(finish_reason);
                if let (true, Some(usage)) = (self.include_usage, usage) {
                    completion.insert("usage".into(), openai_usage(&usage.counts));
                }
                out.push(Output::Part(Value::Object(completion)));
            }
        }
    }

    /// The response so far as one completion, and a fresh start for the next one.
    fn completion(&mut self, finish_reason: &str) -> Map<String, Value> {
        let content = std::mem::take(&mut self.content);
        let calls = std::mem::take(&mut self.calls);
        let reasoning = std::mem::take(&mut self.reasoning);
        self.tool_since_text = false;
        let mut message = json!({
            "role": "assistant",
            "content": if content.is_empty() && !calls.is_empty() { Value::Null } else { content.into() },
        });
        if !reasoning.is_empty() {
            message["reasoning_content"] = reasoning.into();
        }
        if !calls.is_empty() {
            message["tool_calls"] = calls.into();
        }
        let completion = json!({
            "id": self.id,
            "object": "chat.completion",
            "created": self.created,
            "model": self.model,
            "choices": [{ "index": 0, "message": message, "finish_reason": finish_reason }],
        });
        match completion {
            Value::Object(completion) => completion,
            _ => Map::new(),
        }
    }
}

#[cfg(test)]
mod tests;
