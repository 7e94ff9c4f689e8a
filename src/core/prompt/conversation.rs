//! One request's messages and tools, parsed from the caller's JSON.

use serde_json::Value;

use super::message::{Message, Part, Role};
use super::parse::parse_messages;
use super::tools::{parse_tools, ToolDefinition};
use crate::core::error::CoreError;

/// Messages and tools of one request.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Conversation<'a> {
    pub messages: Vec<Message<'a>>,
    pub tools: Vec<ToolDefinition<'a>>,
}

impl<'a> Conversation<'a> {
    /// Parses `messages` (an array of OpenAI chat or AI SDK V3 prompt messages) and `tools` (an
    /// array of tool definitions, or none).
    pub fn parse(messages: &'a Value, tools: Option<&'a Value>) -> Result<Self, CoreError> {
        let messages = match messages {
            Value::Array(items) => parse_messages(items)?,
            _ => return Err(CoreError::invalid_arg("`messages` must be an array")),
        };
        let tools = match tools {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => parse_tools(items)?,
            Some(_) => return Err(CoreError::invalid_arg("`tools` must be an array")),
        };
        Ok(Self { messages, tools })
    }
}

impl Conversation<'_> {
    /// The system prompt taken out for Cursor's rules channel: the text of every system message
    /// (`system` and `developer` alike), joined by a blank line. Nothing is taken when a system
    /// message holds anything but text, or when their text is blank.
    pub fn take_instructions(&mut self) -> Option<String> {
        let mut texts = Vec::new();
        for message in self.messages.iter().filter(|m| m.role == Role::System) {
            let mut text = String::new();
            for part in &message.parts {
                let Part::Text(piece) = part else { return None };
                text.push_str(piece);
            }
            texts.push(text);
        }
        texts.retain(|text| !text.trim().is_empty());
        if texts.is_empty() {
            return None;
        }
        self.messages.retain(|m| m.role != Role::System);
        Some(texts.join("\n\n"))
    }
}

/// The conversation of a request-shaped test value: `{messages, tools?}`.
#[cfg(test)]
pub(crate) fn conversation_of(request: &Value) -> Conversation<'_> {
    Conversation::parse(&request["messages"], request.get("tools")).expect("a valid conversation")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn system_and_developer_messages_are_the_instructions_when_all_are_text() {
        let user = json!({"role": "user", "content": [{"type": "text", "text": "hi"}]});
        let table = [
            (
                json!([{"role": "system", "content": "S"}, user]),
                Some("S"),
                1,
            ),
            (
                json!([{"role": "system", "content": "A"}, user,
                       {"role": "developer", "content": "B"}, {"role": "assistant", "content": "x"}]),
                Some("A\n\nB"),
                2,
            ),
            (
                json!([{"role": "developer", "content": [{"type": "input_text", "text": "A"},
                                                          {"type": "text", "text": "B"}]}, user]),
                Some("AB"),
                1,
            ),
            (
                json!([{"role": "system", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}, user]),
                None,
                2,
            ),
            (json!([user]), None, 1),
            (json!([{"role": "system", "content": " "}, user]), None, 2),
        ];
        for (messages, instructions, left) in table {
            let mut conversation = Conversation::parse(&messages, None).unwrap();
            assert_eq!(
                conversation.take_instructions().as_deref(),
                instructions,
                "{messages}"
            );
            assert_eq!(conversation.messages.len(), left, "{messages}");
            assert!(
                instructions.is_none()
                    || conversation.messages.iter().all(|m| m.role != Role::System)
            );
        }
    }

    #[test]
    fn bad_input_is_invalid_arg() {
        for bad in [
            json!([]),
            json!({}),
            json!({"messages": {}}),
            json!({"messages": [{"content": "x"}]}),
            json!({"messages": [{"role": "robot", "content": "x"}]}),
            json!({"messages": [{"role": "user", "content": 5}]}),
            json!({"messages": [{"role": "user", "content": [{"type": "text"}]}]}),
            json!({"messages": [], "tools": [{"type": "function"}]}),
            json!({"messages": [], "tools": "read"}),
        ] {
            let err = Conversation::parse(&bad["messages"], bad.get("tools"))
                .expect_err(&bad.to_string());
            assert_eq!(err.code(), "E_INVALID_ARG", "{bad}");
        }
    }
}
