//! The one message model for both request shapes OpenCode can send: OpenAI chat messages
//! (`/v1/chat/completions`) and AI SDK V3 prompt messages (`LanguageModelV3Prompt`).
//!
//! Everything borrows from the caller's JSON; only values that need re-serialising (a V3
//! tool call's object `input`) are owned.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::core::error::CoreError;

/// Who said a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

impl Role {
    /// The label a flattened transcript uses.
    pub fn label(self) -> &'static str {
        match self {
            Self::System => "SYSTEM",
            Self::User => "USER",
            Self::Assistant => "ASSISTANT",
            Self::Tool => "TOOL",
        }
    }
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct Message<'a> {
    pub role: Role,
    pub parts: Vec<Part<'a>>,
}

impl Message<'_> {
    /// Whether every part is text (an empty message counts as text-only).
    pub fn is_text_only(&self) -> bool {
        self.parts.iter().all(|p| matches!(p, Part::Text(_)))
    }

    /// The text parts joined by a newline; `None` when there is no text part.
    pub fn joined_text(&self) -> Option<Cow<'_, str>> {
        let mut texts = self.parts.iter().filter_map(|p| match p {
            Part::Text(t) => Some(*t),
            _ => None,
        });
        let first = texts.next()?;
        match texts.next() {
            None => Some(Cow::Borrowed(first)),
            Some(second) => {
                let mut joined = String::with_capacity(first.len() + second.len() + 1);
                joined.push_str(first);
                joined.push('\n');
                joined.push_str(second);
                for t in texts {
                    joined.push('\n');
                    joined.push_str(t);
                }
                Some(Cow::Owned(joined))
            }
        }
    }
}

/// One piece of a message.
#[derive(Debug, Clone, PartialEq)]
pub enum Part<'a> {
    Text(&'a str),
    /// The model's own reasoning from an earlier turn.
    Reasoning(&'a str),
    Media(Media<'a>),
    ToolCall(ToolCall<'a>),
    ToolResult(ToolResult<'a>),
    /// A part of a type this model does not know; named so the prompt can say it was left out.
    Unsupported(&'a str),
}

/// An image or file attached to a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Media<'a> {
    pub kind: MediaKind,
    pub media_type: Option<&'a str>,
    pub filename: Option<&'a str>,
    pub source: MediaSource<'a>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaKind {
    Image,
    File,
    Audio,
}

impl MediaKind {
    pub fn label(self) -> &'static str {
        match self {
            Self::Image => "image",
            Self::File => "file",
            Self::Audio => "audio",
        }
    }
}

/// Where the bytes of a [`Media`] are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MediaSource<'a> {
    /// A URL Cursor can fetch (`http:`/`https:`).
    Url(&'a str),
    /// A local path Cursor can read (from a `file:` URL).
    Path(Cow<'a, str>),
    /// Bytes carried inline (base64 or a `data:` URL); `data` is the encoded text when there
    /// is one, and feeds the conversation anchor.
    Inline { bytes: usize, data: Option<&'a str> },
    /// A provider-side file id (OpenAI `file_id`), not readable by Cursor.
    FileId(&'a str),
}

/// A tool call made by the assistant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall<'a> {
    pub id: &'a str,
    pub name: &'a str,
    /// The arguments as JSON text.
    pub arguments: Cow<'a, str>,
}

/// The result of a tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult<'a> {
    pub call_id: &'a str,
    pub name: Option<&'a str>,
    pub output: ToolOutput<'a>,
    pub is_error: bool,
}

/// What a tool returned.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolOutput<'a> {
    Text(&'a str),
    Json(&'a Value),
    /// Mixed content: text and media parts.
    Parts(Vec<Part<'a>>),
    /// The tool was not run; the reason when one was given.
    Denied(Option<&'a str>),
}

/// A tool offered to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDefinition<'a> {
    pub name: &'a str,
    pub description: Option<&'a str>,
    /// The JSON schema of the arguments (`parameters` / `inputSchema`).
    pub parameters: Option<&'a Value>,
    /// A provider-defined tool (V3 `type: 'provider'`): it counts by name only.
    pub provider_defined: bool,
}

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
            _ => return Err(invalid("`messages` must be an array")),
        };
        let tools = match tools {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => parse_tools(items)?,
            Some(_) => return Err(invalid("`tools` must be an array")),
        };
        Ok(Self { messages, tools })
    }
}

/// The conversation of a request-shaped test value: `{messages, tools?}`.
#[cfg(test)]
pub(crate) fn conversation_of(request: &Value) -> Conversation<'_> {
    Conversation::parse(&request["messages"], request.get("tools")).expect("a valid conversation")
}

fn invalid(message: impl Into<String>) -> CoreError {
    CoreError::InvalidArg(message.into())
}

/// Parses OpenAI chat messages and AI SDK V3 prompt messages (they may be mixed).
pub fn parse_messages(items: &[Value]) -> Result<Vec<Message<'_>>, CoreError> {
    items
        .iter()
        .enumerate()
        .map(|(index, item)| {
            parse_message(item).map_err(|e| invalid(format!("messages[{index}]: {}", e.message())))
        })
        .collect()
}

fn parse_message(item: &Value) -> Result<Message<'_>, CoreError> {
    let object = item
        .as_object()
        .ok_or_else(|| invalid("a message must be an object"))?;
    let role = match object.get("role").and_then(Value::as_str) {
        Some("system" | "developer") => Role::System,
        Some("user") => Role::User,
        Some("assistant") => Role::Assistant,
        Some("tool" | "function") => Role::Tool,
        Some(other) => return Err(invalid(format!("unknown role `{other}`"))),
        None => return Err(invalid("`role` must be a string")),
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
                .ok_or_else(|| invalid("`tool_calls` must be an array"))?;
            parts.reserve(calls.len());
            for call in calls {
                parts.push(Part::ToolCall(parse_openai_tool_call(call)?));
            }
        }
    }
    Ok(Message { role, parts })
}

fn parse_content(content: Option<&Value>) -> Result<Vec<Part<'_>>, CoreError> {
    match content {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(text)) => Ok(vec![Part::Text(text)]),
        Some(Value::Array(items)) => items.iter().map(parse_part).collect(),
        Some(_) => Err(invalid(
            "`content` must be a string, an array of parts or null",
        )),
    }
}

fn str_field<'a>(object: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    object.get(key).and_then(Value::as_str)
}

fn required_str<'a>(
    object: &'a Map<String, Value>,
    key: &str,
    what: &str,
) -> Result<&'a str, CoreError> {
    str_field(object, key).ok_or_else(|| invalid(format!("{what} needs a string `{key}`")))
}

fn parse_part(item: &Value) -> Result<Part<'_>, CoreError> {
    let object = item
        .as_object()
        .ok_or_else(|| invalid("a content part must be an object"))?;
    let kind = required_str(object, "type", "a content part")?;
    let part = match kind {
        "text" | "input_text" | "output_text" => {
            Part::Text(required_str(object, "text", "a text part")?)
        }
        "refusal" => Part::Text(required_str(object, "refusal", "a refusal part")?),
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
    let object = call
        .as_object()
        .ok_or_else(|| invalid("a tool call must be an object"))?;
    let id = required_str(object, "id", "a tool call")?;
    let function = object
        .get("function")
        .and_then(Value::as_object)
        .ok_or_else(|| invalid("a tool call needs a `function` object"))?;
    let name = required_str(function, "name", "a tool call's function")?;
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
    let id = required_str(object, "toolCallId", "a tool-call part")?;
    let name = required_str(object, "toolName", "a tool-call part")?;
    let arguments = arguments_text(object.get("input"));
    Ok(ToolCall {
        id,
        name,
        arguments,
    })
}

fn parse_v3_tool_result(object: &Map<String, Value>) -> Result<ToolResult<'_>, CoreError> {
    let call_id = required_str(object, "toolCallId", "a tool-result part")?;
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
            let items = value
                .and_then(Value::as_array)
                .ok_or_else(|| invalid("a `content` tool output needs a `value` array"))?;
            let parts = items
                .iter()
                .map(parse_output_part)
                .collect::<Result<_, _>>()?;
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
    let object = item
        .as_object()
        .ok_or_else(|| invalid("a tool output part must be an object"))?;
    let kind = required_str(object, "type", "a tool output part")?;
    Ok(match kind {
        "text" => Part::Text(required_str(object, "text", "a tool output text part")?),
        "media" | "image-data" | "file-data" => Part::Media(parse_v3_file(object, kind)),
        "image-url" | "file-url" => {
            let url = required_str(object, "url", "a tool output url part")?;
            let kind = if kind == "image-url" {
                MediaKind::Image
            } else {
                MediaKind::File
            };
            Part::Media(Media {
                kind,
                media_type: str_field(object, "mediaType"),
                filename: None,
                source: source_from_url(url),
            })
        }
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
            return items
                .iter()
                .map(|item| {
                    let part = item
                        .as_object()
                        .ok_or_else(|| invalid("a tool part must be an object"))?;
                    match str_field(part, "type") {
                        Some("tool-result") => Ok(Part::ToolResult(parse_v3_tool_result(part)?)),
                        Some(other) => Ok(Part::Unsupported(other)),
                        None => Err(invalid("a tool part needs a string `type`")),
                    }
                })
                .collect();
        }
    }
    // OpenAI: one result with `tool_call_id`, text (or text parts) content.
    let call_id = str_field(object, "tool_call_id").unwrap_or("");
    let name = str_field(object, "name");
    let output = match content {
        None | Some(Value::Null) => ToolOutput::Text(""),
        Some(Value::String(text)) => ToolOutput::Text(text),
        Some(Value::Array(items)) => {
            ToolOutput::Parts(items.iter().map(parse_part).collect::<Result<_, _>>()?)
        }
        Some(other) => ToolOutput::Json(other),
    };
    Ok(vec![Part::ToolResult(ToolResult {
        call_id,
        name,
        output,
        is_error: false,
    })])
}

fn parse_openai_image(object: &Map<String, Value>) -> Result<Media<'_>, CoreError> {
    let url = match object.get("image_url") {
        Some(Value::String(url)) => url.as_str(),
        Some(Value::Object(inner)) => required_str(inner, "url", "an image_url part")?,
        _ => return Err(invalid("an image_url part needs `image_url.url`")),
    };
    let mut media = Media {
        kind: MediaKind::Image,
        media_type: None,
        filename: None,
        source: source_from_url(url),
    };
    if let Some(data_type) = data_url_media_type(url) {
        media.media_type = Some(data_type);
    }
    Ok(media)
}

fn parse_openai_audio(object: &Map<String, Value>) -> Media<'_> {
    let inner = object.get("input_audio").and_then(Value::as_object);
    let data = inner.and_then(|i| str_field(i, "data"));
    Media {
        kind: MediaKind::Audio,
        media_type: inner.and_then(|i| str_field(i, "format")),
        filename: None,
        source: MediaSource::Inline {
            bytes: data.map_or(0, base64_decoded_len),
            data,
        },
    }
}

fn parse_openai_file(object: &Map<String, Value>) -> Media<'_> {
    let inner = object.get("file").and_then(Value::as_object);
    let filename = inner.and_then(|i| str_field(i, "filename"));
    let source = match (
        inner.and_then(|i| str_field(i, "file_data")),
        inner.and_then(|i| str_field(i, "file_id")),
    ) {
        (Some(data), _) => source_from_data(data),
        (None, Some(id)) => MediaSource::FileId(id),
        (None, None) => MediaSource::Inline {
            bytes: 0,
            data: None,
        },
    };
    let media_type = match &source {
        MediaSource::Inline {
            data: Some(data), ..
        } => data_url_media_type(data),
        _ => None,
    };
    Media {
        kind: MediaKind::File,
        media_type,
        filename,
        source,
    }
}

/// V3 `file` parts (`data`, `mediaType`, `filename`), legacy `image` parts (`image`), and V3 tool
/// output `media`/`image-data`/`file-data` parts.
fn parse_v3_file<'a>(object: &'a Map<String, Value>, kind: &str) -> Media<'a> {
    let media_type = str_field(object, "mediaType").or_else(|| str_field(object, "mimeType"));
    let data = object.get("data").or_else(|| object.get("image"));
    let source = match data {
        Some(Value::String(data)) => source_from_data(data),
        // Bytes that reached us as an object (a typed array or a URL without toJSON).
        Some(Value::Object(map)) => MediaSource::Inline {
            bytes: map.len(),
            data: None,
        },
        Some(Value::Array(items)) => MediaSource::Inline {
            bytes: items.len(),
            data: None,
        },
        _ => MediaSource::Inline {
            bytes: 0,
            data: None,
        },
    };
    let is_image = kind == "image"
        || kind == "image-data"
        || media_type.is_some_and(|t| t.starts_with("image/"));
    Media {
        kind: if is_image {
            MediaKind::Image
        } else {
            MediaKind::File
        },
        media_type,
        filename: str_field(object, "filename"),
        source,
    }
}

/// `data` is a URL (`http(s):`, `file:`, `data:`) or base64.
fn source_from_data(data: &str) -> MediaSource<'_> {
    if has_scheme(data, "http:")
        || has_scheme(data, "https:")
        || has_scheme(data, "file:")
        || has_scheme(data, "data:")
    {
        source_from_url(data)
    } else {
        MediaSource::Inline {
            bytes: base64_decoded_len(data),
            data: Some(data),
        }
    }
}

fn source_from_url(url: &str) -> MediaSource<'_> {
    if has_scheme(url, "data:") {
        let payload = url.split_once(',').map_or("", |(_, p)| p);
        let is_base64 = url
            .split_once(',')
            .is_some_and(|(head, _)| head.ends_with(";base64"));
        let bytes = if is_base64 {
            base64_decoded_len(payload)
        } else {
            payload.len()
        };
        MediaSource::Inline {
            bytes,
            data: Some(url),
        }
    } else if has_scheme(url, "file:") {
        MediaSource::Path(file_url_to_path(url))
    } else {
        MediaSource::Url(url)
    }
}

fn has_scheme(text: &str, scheme: &str) -> bool {
    text.get(..scheme.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(scheme))
}

fn data_url_media_type(url: &str) -> Option<&str> {
    if !has_scheme(url, "data:") {
        return None;
    }
    let head = url.get(5..)?.split([',', ';']).next()?;
    (!head.is_empty()).then_some(head)
}

/// `file:///a/b%20c` -> `/a/b c` (percent-decoded; a host other than empty/localhost is kept).
fn file_url_to_path(url: &str) -> Cow<'_, str> {
    let rest = &url[5..];
    let path = match rest.strip_prefix("//") {
        Some(after) => match after.find('/') {
            Some(0) => after,
            Some(slash) if after[..slash].eq_ignore_ascii_case("localhost") => &after[slash..],
            _ => rest,
        },
        None => rest,
    };
    if !path.contains('%') {
        return Cow::Borrowed(path);
    }
    let bytes = path.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
            if let Some(value) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                decoded.push(value);
                i += 3;
                continue;
            }
        }
        decoded.push(bytes[i]);
        i += 1;
    }
    Cow::Owned(String::from_utf8_lossy(&decoded).into_owned())
}

/// Decoded size of base64 text (whitespace ignored).
fn base64_decoded_len(data: &str) -> usize {
    let significant = data.bytes().filter(|b| !b.is_ascii_whitespace()).count();
    let padding = data
        .bytes()
        .rev()
        .filter(|b| !b.is_ascii_whitespace())
        .take(2)
        .filter(|&b| b == b'=')
        .count();
    (significant / 4) * 3
        + match significant % 4 {
            2 => 1,
            3 => 2,
            _ => 0,
        }
        - if significant % 4 == 0 { padding } else { 0 }
}

/// Parses tool definitions in the OpenAI and the AI SDK V3 shape.
pub fn parse_tools(items: &[Value]) -> Result<Vec<ToolDefinition<'_>>, CoreError> {
    items
        .iter()
        .enumerate()
        .map(|(index, item)| {
            parse_tool(item).map_err(|e| invalid(format!("tools[{index}]: {}", e.message())))
        })
        .collect()
}

fn parse_tool(item: &Value) -> Result<ToolDefinition<'_>, CoreError> {
    let object = item
        .as_object()
        .ok_or_else(|| invalid("a tool must be an object"))?;
    if let Some(function) = object.get("function").and_then(Value::as_object) {
        return Ok(ToolDefinition {
            name: required_str(function, "name", "a function tool")?,
            description: str_field(function, "description"),
            parameters: function.get("parameters").filter(|v| !v.is_null()),
            provider_defined: false,
        });
    }
    let provider_defined = matches!(
        str_field(object, "type"),
        Some("provider" | "provider-defined")
    );
    Ok(ToolDefinition {
        name: required_str(object, "name", "a tool")?,
        description: if provider_defined {
            None
        } else {
            str_field(object, "description")
        },
        parameters: if provider_defined {
            None
        } else {
            object
                .get("inputSchema")
                .or_else(|| object.get("parameters"))
                .filter(|v| !v.is_null())
        },
        provider_defined,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
    fn media_sources() {
        let request = json!({"messages": [{"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
            {"type": "file", "mediaType": "application/pdf", "data": "file:///home/u/My%20Doc.pdf", "filename": "My Doc.pdf"},
            {"type": "file", "mediaType": "image/jpeg", "data": "QUJDRA=="},
            {"type": "input_audio", "input_audio": {"data": "AAAAAA==", "format": "wav"}},
        ]}]});
        let c = conversation_of(&request);
        let sources: Vec<_> = c.messages[0]
            .parts
            .iter()
            .map(|p| match p {
                Part::Media(m) => (m.kind, m.media_type, m.source.clone()),
                other => panic!("media expected, got {other:?}"),
            })
            .collect();
        assert_eq!(
            sources,
            vec![
                (
                    MediaKind::Image,
                    None,
                    MediaSource::Url("https://example.com/a.png")
                ),
                (
                    MediaKind::Image,
                    Some("image/png"),
                    MediaSource::Inline {
                        bytes: 3,
                        data: Some("data:image/png;base64,AAAA")
                    }
                ),
                (
                    MediaKind::File,
                    Some("application/pdf"),
                    MediaSource::Path(Cow::Owned("/home/u/My Doc.pdf".into()))
                ),
                (
                    MediaKind::Image,
                    Some("image/jpeg"),
                    MediaSource::Inline {
                        bytes: 4,
                        data: Some("QUJDRA==")
                    }
                ),
                (
                    MediaKind::Audio,
                    Some("wav"),
                    MediaSource::Inline {
                        bytes: 4,
                        data: Some("AAAAAA==")
                    }
                ),
            ]
        );
    }

    #[test]
    fn base64_sizes() {
        for (text, bytes) in [
            ("", 0),
            ("QQ==", 1),
            ("QUI=", 2),
            ("QUJD", 3),
            ("QUJDRA", 4),
            ("QUJD\nREVG", 6),
        ] {
            assert_eq!(base64_decoded_len(text), bytes, "{text:?}");
        }
    }

    #[test]
    fn tool_definitions_in_both_shapes() {
        let request = json!({"messages": [], "tools": [
            {"type": "function", "function": {"name": "read", "description": "Read a file", "parameters": {"type": "object"}}},
            {"type": "function", "name": "bash", "description": "Run", "inputSchema": {"type": "object"}},
            {"type": "provider", "id": "openai.web_search", "name": "web_search", "args": {}},
        ]});
        let c = conversation_of(&request);
        let names: Vec<_> = c
            .tools
            .iter()
            .map(|t| (t.name, t.description, t.provider_defined))
            .collect();
        assert_eq!(
            names,
            vec![
                ("read", Some("Read a file"), false),
                ("bash", Some("Run"), false),
                ("web_search", None, true)
            ]
        );
        assert!(c.tools[0].parameters.is_some() && c.tools[1].parameters.is_some());
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

    #[test]
    fn unknown_part_types_are_kept_as_unsupported() {
        let request = json!({"messages": [{"role": "user", "content": [{"type": "hologram"}]}]});
        assert_eq!(
            conversation_of(&request).messages[0].parts,
            vec![Part::Unsupported("hologram")]
        );
    }
}
