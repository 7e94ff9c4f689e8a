//! Prompt building for callers that bypass the resume cache.

use napi::{Env, Unknown};
use napi_derive::napi;
use serde_json::Value;

use super::error_code::{invalid_arg, to_js_error, Result};
use super::options::Options;
use crate::core::json;
use crate::core::prompt::{Conversation, PromptRequest};
use crate::core::resume::is_title_request as core_is_title_request;

/// `messages` (required), `tools` and `toolsInPrompt` of a request, as the JSON a
/// [`Conversation`] borrows from, and how deep it nests.
pub struct ConversationJson {
    pub messages: Value,
    pub tools: Option<Value>,
    pub tools_in_prompt: bool,
    /// Use and drop the JSON inside [`json::with_stack_for`] this depth.
    pub depth: usize,
}

impl ConversationJson {
    /// The conversation the JSON holds.
    pub fn conversation(&self) -> Result<Conversation<'_>> {
        Conversation::parse(&self.messages, self.tools.as_ref()).map_err(to_js_error)
    }

    /// Runs `work` on the JSON, and drops it, on a stack deep enough for its nesting.
    pub fn use_with<R>(self, work: impl FnOnce(&Self) -> Result<R>) -> Result<R> {
        json::with_stack_for(self.depth, move || work(&self))
    }
}

pub fn read_conversation(env: &Env, request: &Options<'_>) -> Result<ConversationJson> {
    let (messages, messages_depth) = request
        .json_array(env, "messages")?
        .ok_or_else(|| invalid_arg("`messages` is required"))?;
    let (tools, tools_depth) = match request.json_array(env, "tools")? {
        Some((tools, depth)) => (Some(tools), depth),
        None => (None, 0),
    };
    Ok(ConversationJson {
        messages,
        tools,
        tools_in_prompt: request.boolean("toolsInPrompt")?.unwrap_or(false),
        depth: messages_depth.max(tools_depth),
    })
}

/// What a prompt is built from.
#[allow(
    dead_code,
    reason = "declares the TypeScript shape; the argument is read field by field"
)]
#[napi(object, js_name = "PromptRequest")]
pub struct BindingPromptRequest {
    /// OpenAI chat messages or AI SDK V3 prompt messages.
    #[napi(ts_type = "Array<object>")]
    pub messages: Value,
    /// Tool definitions (OpenAI or V3 shape).
    #[napi(ts_type = "Array<object>")]
    pub tools: Option<Value>,
    /// Write the tool definitions into the prompt. Default `false`.
    pub tools_in_prompt: Option<bool>,
}

/// The whole conversation as one cursor-agent prompt: system prompt, tool definitions (only with
/// `toolsInPrompt`), then the transcript with role labels, tool calls and results labelled with
/// tool name and call id. Images and files are carried as a URL or path, or stated as omitted
/// with their type and size. Throws `E_INVALID_ARG` for malformed messages.
#[napi(catch_unwind, ts_args_type = "request: PromptRequest")]
pub fn build_prompt(env: &Env, request: Unknown<'_>) -> Result<String> {
    read_conversation(env, &Options::required(request, "the request")?)?.use_with(|json| {
        Ok(PromptRequest {
            conversation: json.conversation()?,
            tools_in_prompt: json.tools_in_prompt,
        }
        .build())
    })
}

/// Whether a request is OpenCode's session-title request: a system prompt containing "title
/// generator" and no tools. Such requests never go through `SessionResumeManager`. Throws
/// `E_INVALID_ARG` for malformed messages.
#[napi(
    catch_unwind,
    ts_args_type = "request: Pick<PromptRequest, 'messages' | 'tools'>"
)]
pub fn is_title_request(env: &Env, request: Unknown<'_>) -> Result<bool> {
    read_conversation(env, &Options::required(request, "the request")?)?
        .use_with(|json| Ok(core_is_title_request(&json.conversation()?)))
}
