//! The error contract as JS sees it: `err.code` of every thrown error and `error.code` of every
//! error output or result is one of [`ErrorCode`].

use std::borrow::Cow;

use napi::Status;
use napi_derive::napi;

use crate::core::error::{self as core, CoreError};

/// Every `code` the package reports: `err.code` of thrown errors, `error.code` of `error`
/// stream parts, SSE error frames and run results. Cancellation is not an error. Messages are
/// the package's own words, free of millisecond counts and of phrases hosts take as transient
/// ("fetch failed", HTTP status numbers); what cursor-agent printed is `agentOutput`.
#[napi(string_enum)]
pub enum ErrorCode {
    /// The cursor-agent binary cannot be found or started; the message lists where it looked
    /// and how to install it.
    #[napi(value = "E_AGENT_NOT_FOUND")]
    AgentNotFound,
    /// Not logged in or invalid key: run `cursor-agent login` or set `CURSOR_API_KEY`.
    #[napi(value = "E_AUTH")]
    Auth,
    /// Cursor's usage limit was reached, before or during the answer (what arrived stays, and the
    /// message says the answer was cut off and, when Cursor says, when the limit resets).
    #[napi(value = "E_QUOTA")]
    Quota,
    /// Unknown or unavailable model; the message lists what the account can use.
    #[napi(value = "E_MODEL")]
    Model,
    /// The resumed chat is gone or was silently replaced: evict it and rerun as a fresh chat.
    #[napi(value = "E_RESUME")]
    Resume,
    /// Cursor's servers could not be reached, or failed to answer (HTTP 5xx, overloaded), after
    /// Cursor's own retries.
    #[napi(value = "E_NETWORK")]
    Network,
    /// The idle or the overall timeout was hit.
    #[napi(value = "E_TIMEOUT")]
    Timeout,
    /// The JS output callback threw.
    #[napi(value = "E_CALLBACK")]
    Callback,
    /// Any other failure of the agent process; `agentOutput` holds the last lines of stderr.
    #[napi(value = "E_AGENT_EXIT")]
    AgentExit,
    /// Bad options or arguments from the caller, or a call the object's state does not allow.
    #[napi(value = "E_INVALID_ARG")]
    InvalidArg,
    /// The OpenAI-compatible server (`serve`, `startProxy`): a request without the server's
    /// bearer token (401, with `WWW-Authenticate: Bearer`). The refusals below start no agent.
    #[allow(
        dead_code,
        reason = "a code of the TypeScript server, listed here to document it"
    )]
    #[napi(value = "E_UNAUTHORIZED")]
    Unauthorized,
    /// The server: a `Host` that is neither a loopback name nor the `--host` value (DNS
    /// rebinding), or any `Origin` (a web page) (403).
    #[allow(
        dead_code,
        reason = "a code of the TypeScript server, listed here to document it"
    )]
    #[napi(value = "E_FORBIDDEN")]
    Forbidden,
    /// The server: no such endpoint (404).
    #[allow(
        dead_code,
        reason = "a code of the TypeScript server, listed here to document it"
    )]
    #[napi(value = "E_NOT_FOUND")]
    NotFound,
    /// The server: a body that is not `application/json` (415).
    #[allow(
        dead_code,
        reason = "a code of the TypeScript server, listed here to document it"
    )]
    #[napi(value = "E_UNSUPPORTED_MEDIA_TYPE")]
    UnsupportedMediaType,
    /// The server: a body over the size cap, 32 MiB by default (413).
    #[allow(
        dead_code,
        reason = "a code of the TypeScript server, listed here to document it"
    )]
    #[napi(value = "E_PAYLOAD_TOO_LARGE")]
    PayloadTooLarge,
    /// The server: a body still arriving after 10 s (408).
    #[allow(
        dead_code,
        reason = "a code of the TypeScript server, listed here to document it"
    )]
    #[napi(value = "E_REQUEST_TIMEOUT")]
    RequestTimeout,
    /// The server: the concurrency cap (8 by default, runs waiting for tool results included)
    /// is reached (429, with `Retry-After`).
    #[allow(
        dead_code,
        reason = "a code of the TypeScript server, listed here to document it"
    )]
    #[napi(value = "E_BUSY")]
    Busy,
}

impl From<core::ErrorCode> for ErrorCode {
    fn from(code: core::ErrorCode) -> Self {
        match code {
            core::ErrorCode::AgentNotFound => Self::AgentNotFound,
            core::ErrorCode::Auth => Self::Auth,
            core::ErrorCode::Quota => Self::Quota,
            core::ErrorCode::Model => Self::Model,
            core::ErrorCode::Resume => Self::Resume,
            core::ErrorCode::Network => Self::Network,
            core::ErrorCode::Timeout => Self::Timeout,
            core::ErrorCode::Callback => Self::Callback,
            core::ErrorCode::AgentExit => Self::AgentExit,
            core::ErrorCode::InvalidArg => Self::InvalidArg,
        }
    }
}

/// The `code` carried by errors thrown from bindings: an [`ErrorCode`] for core failures,
/// napi's own status name for failures inside napi (a panic caught at the boundary).
pub struct Code(Cow<'static, str>);

impl AsRef<str> for Code {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl From<Status> for Code {
    fn from(status: Status) -> Self {
        Self(Cow::Owned(status.as_ref().to_owned()))
    }
}

/// Result of a binding that throws errors with a stable `err.code`.
pub type Result<T> = napi::Result<T, Code>;

/// The JS error for a core failure: `err.code` is the stable code, `err.message` the message
/// followed by what cursor-agent said, if anything.
pub fn to_js_error(error: CoreError) -> napi::Error<Code> {
    let code = error.code().as_str();
    napi::Error::new(Code(Cow::Borrowed(code)), error.to_string())
}

/// An `E_INVALID_ARG` error with `message`.
pub fn invalid_arg(message: impl Into<String>) -> napi::Error<Code> {
    to_js_error(CoreError::InvalidArg(message.into()))
}

/// The rejection of a promise whose core work failed: a JS error carrying the stable `code`
/// (a promise callback can only reject with a plain `napi::Error`).
pub fn rejection(env: &napi::Env, error: CoreError) -> napi::Error {
    let js_error = napi::JsError::from(to_js_error(error)).into_unknown(*env);
    napi::Error::from(js_error)
}

/// Re-codes a napi failure (e.g. a failed JS call) so it carries a [`Code`].
pub fn from_napi(error: napi::Error) -> napi::Error<Code> {
    napi::Error::new(Code::from(error.status), error.reason)
}
