//! What identifies a conversation and its state: title-request detection, the anchor (the first
//! real user message), the user-message sequence, the tool-schema fingerprint and the session key.

use sha2::{Digest as _, Sha256};

use crate::core::cursor_id::cursor_model_id;
use crate::core::hex::hex;
use crate::core::prompt::Conversation;
use crate::core::prompt::{Media, MediaSource, Message, Part, Role, ToolDefinition};

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
        // Placed for a run (after its key was taken): hashed by what still identifies them.
        MediaSource::Saved { path, .. } => field(hasher, b"saved", path.as_bytes()),
        MediaSource::Refused { reason, .. } => field(hasher, b"refused", reason.as_bytes()),
        MediaSource::Earlier { bytes } => {
            field(hasher, b"earlier", &bytes.unwrap_or(0).to_le_bytes())
        }
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
mod tests;
