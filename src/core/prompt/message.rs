//! The one message model for both request shapes OpenCode can send: OpenAI chat messages
//! (`/v1/chat/completions`) and AI SDK V3 prompt messages (`LanguageModelV3Prompt`).
//!
//! Everything borrows from the caller's JSON; only values that need re-serialising (a V3
//! tool call's object `input`) are owned.

use std::borrow::Cow;

use serde_json::Value;

use super::media::Media;

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
