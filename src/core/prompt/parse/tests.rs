use super::*;
use serde_json::json;

use crate::core::prompt::conversation_of;

#[test]
fn openai_and_v3_text_messages_parse_to_the_same_model() {
    let openai = json!({"messages": [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "hi"},
    ]});
    let v3 = json!({"messages": [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
    ]});
    assert_eq!(conversation_of(&openai), conversation_of(&v3));
}

#[test]
fn openai_assistant_tool_calls_and_tool_message() {
    let request = json!({"messages": [
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "read", "arguments": "{\"filePath\":\"a\"}"}}
        ]},
        {"role": "tool", "tool_call_id": "call_1", "content": "file body"},
    ]});
    let c = conversation_of(&request);
    assert_eq!(
        c.messages[0].parts,
        vec![
            Part::Text(""),
            Part::ToolCall(ToolCall {
                id: "call_1",
                name: "read",
                arguments: Cow::Borrowed("{\"filePath\":\"a\"}")
            })
        ]
    );
    assert_eq!(
        c.messages[1].parts,
        vec![Part::ToolResult(ToolResult {
            call_id: "call_1",
            name: None,
            output: ToolOutput::Text("file body"),
            is_error: false
        })]
    );
}

#[test]
fn v3_tool_call_with_object_input_and_tool_result_output() {
    let request = json!({"messages": [
        {"role": "assistant", "content": [
            {"type": "reasoning", "text": "Thinking locally."},
            {"type": "tool-call", "toolCallId": "call_local_1", "toolName": "read", "input": {"filePath": "/p/hello.txt"}},
        ]},
        {"role": "tool", "content": [
            {"type": "tool-result", "toolCallId": "call_local_1", "toolName": "read", "output": {"type": "text", "value": "body"}},
            {"type": "tool-result", "toolCallId": "call_2", "toolName": "bash", "output": {"type": "error-text", "value": "boom"}},
        ]},
    ]});
    let c = conversation_of(&request);
    assert_eq!(c.messages[0].parts[0], Part::Reasoning("Thinking locally."));
    assert_eq!(
        c.messages[0].parts[1],
        Part::ToolCall(ToolCall {
            id: "call_local_1",
            name: "read",
            arguments: Cow::Owned("{\"filePath\":\"/p/hello.txt\"}".into())
        })
    );
    let Part::ToolResult(second) = &c.messages[1].parts[1] else {
        panic!("tool result expected")
    };
    assert!(second.is_error);
    assert_eq!(second.output, ToolOutput::Text("boom"));
    assert_eq!(second.name, Some("bash"));
}

#[test]
fn unknown_part_types_are_kept_as_unsupported() {
    let request = json!({"messages": [{"role": "user", "content": [{"type": "hologram"}]}]});
    assert_eq!(
        conversation_of(&request).messages[0].parts,
        vec![Part::Unsupported("hologram")]
    );
}
