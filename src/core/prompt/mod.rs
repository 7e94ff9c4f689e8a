//! Prompt building: the message model for OpenAI and AI SDK V3 requests, the full prompt for a
//! fresh cursor-agent chat, and the incremental prompt for a resumed one.
//!
//! Files, each using only those before it: `fields` (reading the caller's JSON), `media`,
//! `message` (the model), `tools` and `parse` (the parsers), `conversation` (one request),
//! `render` (the prompts).

mod conversation;
mod fields;
mod media;
mod message;
mod parse;
mod render;
pub mod tools;

// Callers name the model by this module only, so the files can move without touching them.
#[cfg(test)]
pub(crate) use conversation::conversation_of;
pub use conversation::Conversation;
pub use media::{data_url, DataUrl, Media, MediaKind, MediaSource};
pub use message::{Message, Part, Role, ToolCall, ToolOutput, ToolResult};
pub use parse::parse_messages;
pub use render::{build_full_prompt, build_incremental_prompt, CONTINUATION};
pub use tools::{parse_tools, ToolDefinition};

/// What a prompt is built from.
#[derive(Debug, Clone)]
pub struct PromptRequest<'a> {
    pub conversation: Conversation<'a>,
    /// Whether tool definitions are written into the prompt; default false.
    pub tools_in_prompt: bool,
}

impl PromptRequest<'_> {
    /// The full prompt.
    pub fn build(&self) -> String {
        build_full_prompt(&self.conversation, self.tools_in_prompt)
    }
}
