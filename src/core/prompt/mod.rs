//! Prompt building: the message model for OpenAI and AI SDK V3 requests, the full prompt for a
//! fresh cursor-agent chat, and the incremental prompt for a resumed one.

pub mod model;
mod render;

pub use model::{Conversation, Message, Part, Role, ToolDefinition};
pub use render::{build_full_prompt, build_incremental_prompt, CONTINUATION};
