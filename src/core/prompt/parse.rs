//! Parsing OpenAI chat messages (`/v1/chat/completions`) and AI SDK V3 prompt messages
//! (`LanguageModelV3Prompt`) into the message model.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::fields::{as_object, parse_each, required_str, str_field, within};
use super::media::{
    parse_openai_audio, parse_openai_file, parse_openai_image, parse_v3_file, parse_v3_url,
};
use super::message::{Message, Part, Role, ToolCall, ToolOutput, ToolResult};
use crate::core::error::CoreError;

/// Parses OpenAI chat messages and AI SDK V3 prompt messages (they may be mixed).
pub fn parse_messages(items: &[Value]) -> Result<Vec<Message<'_>>, CoreError> {
    parse_each("messages", items, parse_message)
}

fn parse_message(item: &Value) -> Result<Message<'_>, CoreError> {
    let object = as_object(item, "a message")?;
    let role = match object.get("role").and_then(Value::as_str) {
        Some("system" | "developer") => Role::System,
        Some("user") => Role::User,
        Some("assistant") => Role::Assistant,
        Some("tool" | "function") => Role::Tool,
        _ => {
            return Err(CoreError::invalid_arg(
                "`role` must be one of system, developer, user, assistant, tool, function",
            ))
        }
    };
    let content = object.get("content");
    let mut parts = match role {
        Role::Tool => parse_tool_message(object, content)?,
        _ => parse_content(content)?,
    };
    if role == Role::Assistant {
        if let Some(calls) = object.get("tool_calls").filter(|v| !v.is_null()) {
            let calls = calls
                .as_array()
                .ok_or_else(|| CoreError::invalid_arg("`tool_calls` must be an array"))?;
            let calls = parse_each("tool_calls", calls, parse_openai_tool_call)?;
            parts.extend(calls.into_iter().map(Part::ToolCall));
        }
    }
    Ok(Message { role, parts })
}

fn parse_content(content: Option<&Value>) -> Result<Vec<Part<'_>>, CoreError> {
    match content {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(text)) => Ok(vec![Part::Text(text)]),
        Some(Value::Array(items)) => parse_each("content", items, parse_part),
        Some(_) => Err(CoreError::invalid_arg(
            "`content` must be a string, an array of parts or null",
        )),
    }
}

fn parse_part(item: &Value) -> Result<Part<'_>, CoreError> {
    let object = as_object(item, "a content part")?;
    let kind = required_str(object, "type")?;
    let part = match kind {
        "text" | "input_text" | "output_text" => Part::Text(required_str(object, "text")?),
        "refusal" => Part::Text(required_str(object, "refusal")?),
        "reasoning" => Part::Reasoning(str_field(object, "text").unwrap_or("")),
        "image_url" => Part::Media(parse_openai_image(object)?),
        "input_audio" => Part::Media(parse_openai_audio(object)),
        "file" if object.get("file").is_some_and(Value::is_object) => {
            Part::Media(parse_openai_file(object))
        }
        "file" | "image" => Part::Media(parse_v3_file(object, kind)),
        "tool-call" => Part::ToolCall(parse_v3_tool_call(object)?),
        "tool-result" => Part::ToolResult(parse_v3_tool_result(object)?),
        other => Part::Unsupported(other),
    };
    Ok(part)
}

fn parse_openai_tool_call(call: &Value) -> Result<ToolCall<'_>, CoreError> {
    let object = as_object(call, "a tool call")?;
    let id = required_str(object, "id")?;
    let function = object
        .get("function")
        .and_then(Value::as_object)
        .ok_or_else(|| CoreError::invalid_arg("`function` must be an object"))?;
    let name = required_str(function, "name").map_err(|e| within("function", &e))?;
    let arguments = arguments_text(function.get("arguments"));
    Ok(ToolCall {
        id,
        name,
        arguments,
    })
}

/// Tool-call arguments as JSON text: OpenAI sends a string, V3 an object; absent means none.
fn arguments_text(value: Option<&Value>) -> Cow<'_, str> {
    match value {
        Some(Value::String(text)) => Cow::Borrowed(text.as_str()),
        None | Some(Value::Null) => Cow::Borrowed("{}"),
        Some(other) => Cow::Owned(other.to_string()),
    }
}

fn parse_v3_tool_call(object: &Map<String, Value>) -> Result<ToolCall<'_>, CoreError> {
    let id = required_str(object, "toolCallId")?;
    let name = required_str(object, "toolName")?;
    let arguments = arguments_text(object.get("input"));
    Ok(ToolCall {
        id,
        name,
        arguments,
    })
}

fn parse_v3_tool_result(object: &Map<String, Value>) -> Result<ToolResult<'_>, CoreError> {
    let call_id = required_str(object, "toolCallId")?;
    let name = str_field(object, "toolName");
    // `output` is the V3 prompt shape; `result` is the stream-part shape some callers echo back.
    let raw = object.get("output").or_else(|| object.get("result"));
    let (output, is_error) = match raw {
        Some(Value::Object(output)) if output.get("type").is_some_and(Value::is_string) => {
            parse_v3_output(output)?
        }
        Some(Value::String(text)) => (ToolOutput::Text(text), false),
        Some(other) => (ToolOutput::Json(other), false),
        None => (ToolOutput::Text(""), false),
    };
    let is_error = is_error
        || object
            .get("isError")
            .and_then(Value::as_bool)
            .unwrap_or(false);
    Ok(ToolResult {
        call_id,
        name,
        output,
        is_error,
    })
}

fn parse_v3_output(output: &Map<String, Value>) -> Result<(ToolOutput<'_>, bool), CoreError> {
    let kind = str_field(output, "type").unwrap_or("");
    let value = output.get("value");
    Ok(match kind {
        "text" | "json" => (text_or_json(value), false),
        "error-text" | "error-json" => (text_or_json(value), true),
        "execution-denied" => (ToolOutput::Denied(str_field(output, "reason")), true),
        "content" => {
            let items = value.and_then(Value::as_array).ok_or_else(|| {
                CoreError::invalid_arg("`value` must be an array (a `content` tool output)")
            })?;
            let parts = parse_each("value", items, parse_output_part)?;
            (ToolOutput::Parts(parts), false)
        }
        // An output type this model does not know: keep it as JSON rather than lose it.
        _ => (ToolOutput::Json(value.unwrap_or(&Value::Null)), false),
    })
}

fn text_or_json(value: Option<&Value>) -> ToolOutput<'_> {
    match value {
        Some(Value::String(text)) => ToolOutput::Text(text),
        Some(other) => ToolOutput::Json(other),
        None => ToolOutput::Text(""),
    }
}

fn parse_output_part(item: &Value) -> Result<Part<'_>, CoreError> {
    let object = as_object(item, "a tool output part")?;
    let kind = required_str(object, "type")?;
    Ok(match kind {
        "text" => Part::Text(required_str(object, "text")?),
        "media" | "image-data" | "file-data" => Part::Media(parse_v3_file(object, kind)),
        "image-url" | "file-url" => Part::Media(parse_v3_url(object, kind)?),
        other => Part::Unsupported(other),
    })
}

fn parse_tool_message<'a>(
    object: &'a Map<String, Value>,
    content: Option<&'a Value>,
) -> Result<Vec<Part<'a>>, CoreError> {
    // AI SDK V3: a list of tool-result parts.
    if let Some(Value::Array(items)) = content {
        let v3 = items
            .iter()
            .any(|p| p.get("type").and_then(Value::as_str) == Some("tool-result"));
        if v3 {
            return parse_each("content", items, |item| {
                let part = as_object(item, "a tool part")?;
                match required_str(part, "type")? {
                    "tool-result" => Ok(Part::ToolResult(parse_v3_tool_result(part)?)),
                    other => Ok(Part::Unsupported(other)),
                }
            });
        }
    }
    // OpenAI: one result with `tool_call_id`, text (or text parts) content.
    let call_id = str_field(object, "tool_call_id").unwrap_or("");
    let name = str_field(object, "name");
    let output = match content {
        None | Some(Value::Null) => ToolOutput::Text(""),
        Some(Value::String(text)) => ToolOutput::Text(text),
        Some(Value::Array(items)) => ToolOutput::Parts(parse_each("content", items, parse_part)?),
        Some(other) => ToolOutput::Json(other),
    };
    Ok(vec![Part::ToolResult(ToolResult {
        call_id,
        name,
        output,
        is_error: false,
    })])
}

#[cfg(test)]
mod tests;
