//! `buildPrompt` and `isTitleRequest`: the conversation a prompt is built from.

use crate::core::error::CoreError;
use crate::core::prompt::Conversation;
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
}
