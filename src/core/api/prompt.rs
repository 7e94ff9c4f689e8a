//! `buildPrompt` and `isTitleRequest`: the conversation a prompt is built from.

use crate::core::error::CoreError;
use crate::core::prompt::{Conversation, PromptRequest as Prompt};
use crate::core::resume::is_title_request;
use crate::core::wire::{wire_struct, Objects};

wire_struct! {
    /// What a prompt is built from; read as the JSON data `JSON.stringify` makes of it. Other
    /// fields (those of a `ResumeRequest`, say) are not read.
    pub struct PromptRequest as named (derive(serde::Deserialize)) {
        /// OpenAI chat messages or AI SDK V3 prompt messages.
        messages "messages": Objects,
        /// Tool definitions (OpenAI or V3 shape).
        tools "tools": Option<Objects>,
        /// Write the tool definitions into the prompt. Default `false`.
        tools_in_prompt "toolsInPrompt": Option<bool>,
    }
}

impl PromptRequest {
    /// The conversation the request holds.
    pub fn conversation(&self) -> Result<Conversation<'_>, CoreError> {
        Conversation::parse(&self.messages.0, self.tools.as_ref().map(|tools| &tools.0))
    }

    /// The whole conversation as one cursor-agent prompt.
    pub fn prompt(&self) -> Result<String, CoreError> {
        let conversation = self.conversation()?;
        let tools_in_prompt = self.tools_in_prompt.unwrap_or(false);
        Ok(Prompt {
            conversation,
            tools_in_prompt,
        }
        .build())
    }

    /// Whether the request is OpenCode's session-title request.
    pub fn is_title_request(&self) -> Result<bool, CoreError> {
        Ok(is_title_request(&self.conversation()?))
    }
}
