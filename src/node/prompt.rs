//! Prompt building for callers that bypass the resume cache.

use napi::{Env, Unknown};
use napi_derive::napi;
use serde_json::Value;

use super::argument::object_argument;
use super::error_code::{to_js_error, Result};
use crate::core::prompt::PromptRequest;
use crate::core::resume::is_title_request as core_is_title_request;

/// What a prompt is built from.
#[allow(
    dead_code,
    reason = "declares the TypeScript shape of a JSON argument that the core parses itself"
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
    let request = object_argument(env, request, "the request")?;
    Ok(PromptRequest::from_json(&request)
        .map_err(to_js_error)?
        .build())
}

/// Whether a request is OpenCode's session-title request: a system prompt containing "title
/// generator" and no tools. Such requests never go through `SessionResumeManager`. Throws
/// `E_INVALID_ARG` for malformed messages.
#[napi(
    catch_unwind,
    ts_args_type = "request: Pick<PromptRequest, 'messages' | 'tools'>"
)]
pub fn is_title_request(env: &Env, request: Unknown<'_>) -> Result<bool> {
    let request = object_argument(env, request, "the request")?;
    let request = PromptRequest::from_json(&request).map_err(to_js_error)?;
    Ok(core_is_title_request(&request.conversation))
}
