//! Prompt building: the message model for OpenAI and AI SDK V3 requests, the full prompt for a
//! fresh cursor-agent chat, and the incremental prompt for a resumed one.

pub mod model;
mod render;

pub use model::{Conversation, Message, Part, Role, ToolDefinition};
pub use render::{build_full_prompt, build_incremental_prompt, CONTINUATION};

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
