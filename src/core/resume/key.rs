//! What identifies a conversation and its state: title-request detection, the anchor (the first
//! real user message), the user-message sequence, the tool-schema fingerprint and the session key.

use sha2::{Digest as _, Sha256};

use crate::core::cursor_id::cursor_model_id;
use crate::core::prompt::model::{Media, MediaSource, Message, Part, Role, ToolDefinition};
use crate::core::prompt::Conversation;

/// A SHA-256 digest.
pub type Digest = [u8; 32];

/// User-message texts that are prompts about the conversation, not part of it.
const META_PHRASES: &[&str] = &["title generator", "thread title", "generate a brief title"];

/// OpenCode's title request: a system prompt containing "title generator", and no tools. It is
/// answered outside the resume cache.
pub fn is_title_request(conversation: &Conversation<'_>) -> bool {
    conversation.tools.is_empty()
        && conversation.messages.iter().any(|m| {
            m.role == Role::System
            && m.parts.iter().any(
                |p| matches!(p, Part::Text(t) if contains_ignore_ascii_case(t, "title generator")),
            )
        })
}

fn contains_ignore_ascii_case(haystack: &str, needle: &str) -> bool {
    let needle = needle.as_bytes();
    haystack
        .as_bytes()
        .windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle))
}

/// A user message that is part of the conversation: not a meta prompt, and with some content.
fn is_real_user_message(message: &Message<'_>) -> bool {
    if message.role != Role::User {
        return false;
    }
    let mut has_content = false;
    for part in &message.parts {
        match part {
            Part::Text(text) => {
                if META_PHRASES
                    .iter()
                    .any(|phrase| contains_ignore_ascii_case(text, phrase))
                {
                    return false;
                }
                has_content |= !text.trim().is_empty();
            }
            _ => has_content = true,
        }
    }
    has_content
}

/// The real user messages as `(index in messages, digest of the canonical message)`.
pub fn real_user_messages(messages: &[Message<'_>]) -> Vec<(usize, Digest)> {
    messages
        .iter()
        .enumerate()
        .filter(|(_, m)| is_real_user_message(m))
        .map(|(index, m)| (index, canonical_digest(m)))
        .collect()
}

/// SHA-256 of the canonical message. Text-only: the texts joined by a newline (so a plain
/// string and one text part hash alike). With media: a tagged sequence of every part, so an
/// image changes the digest.
pub fn canonical_digest(message: &Message<'_>) -> Digest {
    let mut hasher = Sha256::new();
    if message.is_text_only() {
        for (index, part) in message.parts.iter().enumerate() {
            if let Part::Text(text) = part {
                if index > 0 {
                    hasher.update(b"\n");
                }
                hasher.update(text.as_bytes());
            }
        }
    } else {
        hasher.update(b"\0parts\0");
        for part in &message.parts {
            match part {
                Part::Text(text) => field(&mut hasher, b"text", text.as_bytes()),
                Part::Media(media) => media_fields(&mut hasher, media),
                Part::Unsupported(kind) => field(&mut hasher, b"part", kind.as_bytes()),
                Part::Reasoning(_) | Part::ToolCall(_) | Part::ToolResult(_) => {}
            }
        }
    }
    finish(hasher)
}

fn media_fields(hasher: &mut Sha256, media: &Media<'_>) {
    field(hasher, b"media", media.kind.label().as_bytes());
    field(hasher, b"type", media.media_type.unwrap_or("").as_bytes());
    match &media.source {
        MediaSource::Url(url) => field(hasher, b"url", url.as_bytes()),
        MediaSource::Path(path) => field(hasher, b"path", path.as_bytes()),
        MediaSource::Inline {
            data: Some(data), ..
        } => field(hasher, b"data", data.as_bytes()),
        MediaSource::Inline { bytes, data: None } => field(hasher, b"size", &bytes.to_le_bytes()),
        MediaSource::FileId(id) => field(hasher, b"file-id", id.as_bytes()),
    }
}

/// A length-framed field, so no two different part sequences feed the same bytes.
fn field(hasher: &mut Sha256, tag: &[u8], value: &[u8]) {
    hasher.update(tag);
    hasher.update((value.len() as u64).to_le_bytes());
    hasher.update(value);
}

fn finish(hasher: Sha256) -> Digest {
    let mut digest = [0u8; 32];
    digest.copy_from_slice(&hasher.finalize());
    digest
}

/// One digest for a sequence of user-message digests.
pub fn sequence_digest(users: &[(usize, Digest)]) -> Digest {
    let mut hasher = Sha256::new();
    hasher.update((users.len() as u64).to_le_bytes());
    for (_, digest) in users {
        hasher.update(digest);
    }
    finish(hasher)
}

/// The tool-schema fingerprint: per tool its name, a hash of its description (the Task tool's
/// description lists the subagents), its parameter keys and its required keys, sorted; no tools
/// is a fingerprint of its own. Provider-defined tools count by name.
pub fn tool_fingerprint(tools: &[ToolDefinition<'_>]) -> Digest {
    let mut entries: Vec<String> = tools.iter().map(tool_entry).collect();
    entries.sort_unstable();
    let mut hasher = Sha256::new();
    hasher.update((entries.len() as u64).to_le_bytes());
    for entry in &entries {
        field(&mut hasher, b"tool", entry.as_bytes());
    }
    finish(hasher)
}

fn tool_entry(tool: &ToolDefinition<'_>) -> String {
    if tool.provider_defined {
        return format!("{}\0provider", tool.name);
    }
    let description = hex(&finish({
        let mut hasher = Sha256::new();
        hasher.update(tool.description.unwrap_or("").as_bytes());
        hasher
    }));
    let schema = tool.parameters.and_then(|p| p.as_object());
    let mut keys: Vec<&str> = schema
        .and_then(|s| s.get("properties"))
        .and_then(|p| p.as_object())
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    keys.sort_unstable();
    let mut required: Vec<&str> = schema
        .and_then(|s| s.get("required"))
        .and_then(|r| r.as_array())
        .map(|r| r.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default();
    required.sort_unstable();
    format!(
        "{}\0{}\0{}\0{}",
        tool.name,
        &description[..16],
        keys.join(","),
        required.join(",")
    )
}

/// The conversation part of the key: OpenCode's session id when given, else the anchor.
pub enum ConversationRef<'a> {
    SessionId(&'a str),
    Anchor(&'a Digest),
}

/// The cache key: workspace + concrete model + conversation, hashed (it never shows a path).
pub fn session_key(workspace: &str, model: &str, conversation: ConversationRef<'_>) -> String {
    let mut hasher = Sha256::new();
    field(&mut hasher, b"workspace", workspace.as_bytes());
    field(&mut hasher, b"model", cursor_model_id(model).as_bytes());
    match conversation {
        ConversationRef::SessionId(id) => field(&mut hasher, b"session-id", id.as_bytes()),
        ConversationRef::Anchor(anchor) => field(&mut hasher, b"anchor", anchor),
    }
    hex(&finish(hasher))
}

pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 15)] as char);
    }
    out
}

pub fn parse_hex(text: &str) -> Option<Digest> {
    if text.len() != 64 {
        return None;
    }
    let mut digest = [0u8; 32];
    for (i, pair) in text.as_bytes().chunks(2).enumerate() {
        let pair = std::str::from_utf8(pair).ok()?;
        digest[i] = u8::from_str_radix(pair, 16).ok()?;
    }
    Some(digest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    use crate::core::prompt::model::conversation_of;

    #[test]
    fn title_request_is_system_title_generator_without_tools() {
        let title = json!({"messages": [
            {"role": "system", "content": "You are a title generator. You output ONLY a thread title."},
            {"role": "user", "content": [{"type": "text", "text": "Generate a title for this conversation:\n"}]},
            {"role": "user", "content": [{"type": "text", "text": "say hi"}]},
        ]});
        assert!(is_title_request(&conversation_of(&title)));
        let mut with_tools = title.clone();
        with_tools["tools"] = json!([{"type": "function", "name": "read", "inputSchema": {}}]);
        assert!(!is_title_request(&conversation_of(&with_tools)));
        let in_user_text =
            json!({"messages": [{"role": "user", "content": "you are a title generator"}]});
        assert!(!is_title_request(&conversation_of(&in_user_text)));
        let normal = json!({"messages": [{"role": "system", "content": "You are opencode"}, {"role": "user", "content": "hi"}]});
        assert!(!is_title_request(&conversation_of(&normal)));
    }

    #[test]
    fn meta_and_empty_user_messages_are_not_real() {
        let request = json!({"messages": [
            {"role": "user", "content": "   "},
            {"role": "user", "content": "Please generate a brief title for this"},
            {"role": "user", "content": "What's the thread title?"},
            {"role": "user", "content": "real question"},
            {"role": "assistant", "content": "answer"},
            {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://x/y.png"}}]},
        ]});
        let c = conversation_of(&request);
        let indices: Vec<usize> = real_user_messages(&c.messages)
            .iter()
            .map(|(i, _)| *i)
            .collect();
        assert_eq!(indices, vec![3, 5]);
    }

    #[test]
    fn canonical_digest_is_shape_independent_for_text_and_changes_with_an_image() {
        let a = json!({"messages": [{"role": "user", "content": "look at this"}]});
        let b = json!({"messages": [{"role": "user", "content": [{"type": "text", "text": "look at this"}]}]});
        let c = json!({"messages": [{"role": "user", "content": [
            {"type": "text", "text": "look at this"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
        ]}]});
        let d = json!({"messages": [{"role": "user", "content": [
            {"type": "text", "text": "look at this"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,BBBB"}},
        ]}]});
        let digest = |v: &Value| canonical_digest(&conversation_of(v).messages[0]);
        assert_eq!(digest(&a), digest(&b));
        assert_ne!(digest(&a), digest(&c));
        assert_ne!(digest(&c), digest(&d));
    }

    fn tools_fp(tools: Value) -> Digest {
        let request = json!({"messages": [], "tools": tools});
        tool_fingerprint(&conversation_of(&request).tools)
    }

    #[test]
    fn fingerprint_rules() {
        let read = json!({"type": "function", "function": {"name": "read", "description": "Read a file",
            "parameters": {"type": "object", "properties": {"filePath": {"type": "string"}, "limit": {"type": "number"}}, "required": ["filePath"]}}});
        let task = |agents: &str| {
            json!({"type": "function", "name": "task", "description": format!("Launch an agent. Available agents:\n{agents}"),
            "inputSchema": {"type": "object", "properties": {"prompt": {}}, "required": ["prompt"]}})
        };
        let base = tools_fp(json!([read, task("- general\n- explore")]));
        // Order does not matter.
        assert_eq!(base, tools_fp(json!([task("- general\n- explore"), read])));
        // The same tool in the V3 shape fingerprints alike.
        let read_v3 = json!({"type": "function", "name": "read", "description": "Read a file",
            "inputSchema": {"type": "object", "properties": {"limit": {"type": "number"}, "filePath": {"type": "string"}}, "required": ["filePath"]}});
        assert_eq!(
            base,
            tools_fp(json!([read_v3, task("- general\n- explore")]))
        );
        // A changed subagent list (the Task description) changes it.
        assert_ne!(
            base,
            tools_fp(json!([read, task("- general\n- explore\n- reviewer")]))
        );
        // A parameter key or required key change changes it; a parameter's own schema does not.
        let mut extra_key = read.clone();
        extra_key["function"]["parameters"]["properties"]["offset"] = json!({});
        assert_ne!(
            base,
            tools_fp(json!([extra_key, task("- general\n- explore")]))
        );
        let mut required = read.clone();
        required["function"]["parameters"]["required"] = json!(["filePath", "limit"]);
        assert_ne!(
            base,
            tools_fp(json!([required, task("- general\n- explore")]))
        );
        // None vs some tools differ; provider tools count by name.
        assert_ne!(
            tools_fp(json!([])),
            tools_fp(json!([{"type": "provider", "id": "x.search", "name": "search", "args": {}}]))
        );
        assert_eq!(
            tools_fp(
                json!([{"type": "provider", "id": "x.search", "name": "search", "args": {"a": 1}}])
            ),
            tools_fp(
                json!([{"type": "provider", "id": "x.search", "name": "search", "args": {"b": 2}}])
            )
        );
    }

    #[test]
    fn session_key_strips_the_provider_prefix_and_separates_parts() {
        let anchor = [7u8; 32];
        let k = |w, m| session_key(w, m, ConversationRef::Anchor(&anchor));
        assert_eq!(k("/w", "cursor-acp/auto"), k("/w", "auto"));
        assert_ne!(k("/w", "auto"), k("/w", "sonnet-4.6"));
        assert_ne!(k("/w", "auto"), k("/v", "auto"));
        assert_ne!(
            session_key("/w", "auto", ConversationRef::SessionId("ses_1")),
            session_key("/w", "auto", ConversationRef::SessionId("ses_2"))
        );
        assert_eq!(k("/w", "auto").len(), 64);
    }

    #[test]
    fn hex_round_trip() {
        let digest = [0xab; 32];
        assert_eq!(parse_hex(&hex(&digest)), Some(digest));
        assert_eq!(parse_hex("zz"), None);
    }
}
