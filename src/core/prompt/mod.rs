//! Prompt building: the message model for OpenAI and AI SDK V3 requests, the full prompt for a
//! fresh cursor-agent chat, and the incremental prompt for a resumed one.

pub mod model;
mod render;

use serde_json::Value;

use crate::core::error::CoreError;
pub use model::{Conversation, Message, Part, Role, ToolDefinition};
pub use render::{build_full_prompt, build_incremental_prompt, CONTINUATION};

/// `{messages, tools?, toolsInPrompt?}`: what a prompt is built from.
#[derive(Debug, Clone)]
pub struct PromptRequest<'a> {
    pub conversation: Conversation<'a>,
    /// Whether tool definitions are written into the prompt; default false.
    pub tools_in_prompt: bool,
}

impl<'a> PromptRequest<'a> {
    pub fn from_json(request: &'a Value) -> Result<Self, CoreError> {
        let conversation = Conversation::from_request(request)?;
        let tools_in_prompt = match request.get("toolsInPrompt") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => {
                return Err(CoreError::InvalidArg(
                    "`toolsInPrompt` must be a boolean".into(),
                ))
            }
        };
        Ok(Self {
            conversation,
            tools_in_prompt,
        })
    }

    /// The full prompt.
    pub fn build(&self) -> String {
        build_full_prompt(&self.conversation, self.tools_in_prompt)
    }
}
