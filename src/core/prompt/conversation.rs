//! One request's messages and tools, parsed from the caller's JSON.

use serde_json::Value;

use super::message::Message;
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
