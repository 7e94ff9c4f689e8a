//! Prompt building for callers that bypass the resume cache.

use napi::{Env, Unknown};
use napi_derive::napi;

use super::error::{to_js_error, Result};
use super::read::read_json;
use crate::core::api::prompt::PromptRequest;

/// The whole conversation as one cursor-agent prompt: system prompt, tool definitions (only with
/// `toolsInPrompt`), then the transcript with role labels, tool calls and results labelled with
/// tool name and call id. Images and files are carried as a URL or path, or stated as omitted
/// with their type and size. Throws `E_INVALID_ARG` for malformed messages.
#[napi(catch_unwind, ts_args_type = "request: PromptRequest")]
pub fn build_prompt(env: &Env, request: Unknown<'_>) -> Result<String> {
    read_json::<PromptRequest>(env, request, "the request")?
        .use_with(|request| request.prompt().map_err(to_js_error))
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
        .use_with(|request| request.is_title_request().map_err(to_js_error))
}
