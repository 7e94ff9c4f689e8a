//! Prompt building for callers that bypass the resume cache.

use napi::{Env, Unknown};
use napi_derive::napi;
use serde::Deserialize;
use serde_json::Value;

use super::error::{to_js_error, Result};
use super::read::read_json;
use crate::core::prompt::{Conversation, PromptRequest as CorePromptRequest};
use crate::core::resume::is_title_request as core_is_title_request;

/// What a prompt is built from; read as the JSON data `JSON.stringify` makes of it. Other
/// fields (those of a `ResumeRequest`, say) are not read.
#[napi(object, object_from_js = false, object_to_js = false)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptRequest {
    /// OpenAI chat messages or AI SDK V3 prompt messages.
    #[napi(ts_type = "Array<object>")]
    pub messages: Value,
    /// Tool definitions (OpenAI or V3 shape).
    #[napi(ts_type = "Array<object>")]
    pub tools: Option<Value>,
    /// Write the tool definitions into the prompt. Default `false`.
    pub tools_in_prompt: Option<bool>,
}

impl PromptRequest {
    /// The conversation the request holds.
    pub fn conversation(&self) -> Result<Conversation<'_>> {
        Conversation::parse(&self.messages, self.tools.as_ref()).map_err(to_js_error)
    }
}

/// The whole conversation as one cursor-agent prompt: system prompt, tool definitions (only with
/// `toolsInPrompt`), then the transcript with role labels, tool calls and results labelled with
/// tool name and call id. Images and files are carried as a URL or path, or stated as omitted
/// with their type and size. Throws `E_INVALID_ARG` for malformed messages.
#[napi(catch_unwind, ts_args_type = "request: PromptRequest")]
pub fn build_prompt(env: &Env, request: Unknown<'_>) -> Result<String> {
    read_json::<PromptRequest>(env, request, "the request")?.use_with(|request| {
        Ok(CorePromptRequest {
            conversation: request.conversation()?,
            tools_in_prompt: request.tools_in_prompt.unwrap_or(false),
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
    read_json::<PromptRequest>(env, request, "the request")?
        .use_with(|request| Ok(core_is_title_request(&request.conversation()?)))
}
