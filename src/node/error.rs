//! The error contract as JS sees it: `err.code` of every thrown error and `error.code` of every
//! error output or result is one of [`ErrorCode`], declared from the core's one list of codes.

use std::borrow::Cow;

use napi::Status;
use napi_derive::napi;

use crate::core::error::{self as core, CoreError};

macro_rules! declare_js_error_code {
    ($($(#[doc = $doc:literal])* $variant:ident = $text:literal,)*) => {
        /// Every `code` the native API reports: `err.code` of thrown errors, `error.code` of
        /// `error` stream parts, SSE error frames and run results. Cancellation is not an error.
        /// Messages are the package's own words, free of millisecond counts and of phrases hosts
        /// take as transient ("fetch failed", HTTP status numbers); what cursor-agent printed is
        /// `agentOutput`. The OpenAI-compatible server adds its own refusal codes
        /// (`opencode-cursor-native/proxy` exports `ProxyErrorCode` and the union of both).
        #[napi(string_enum)]
        pub enum ErrorCode {
            $($(#[doc = $doc])* #[napi(value = $text)] $variant,)*
        }

        impl From<core::ErrorCode> for ErrorCode {
            fn from(code: core::ErrorCode) -> Self {
                match code {
                    $(core::ErrorCode::$variant => Self::$variant,)*
                }
            }
        }
    };
}

crate::with_error_codes!(declare_js_error_code);

/// A failure with a stable code: what a run's result, an `error` part and a thrown error carry.
#[napi(object)]
pub struct RunError {
    #[napi(ts_type = "`${ErrorCode}`")]
    pub code: ErrorCode,
    /// What happened and what to do, in the package's words. It holds no millisecond counts
    /// and no text of Cursor's, which some hosts would read as a transient failure and retry.
    pub message: String,
    /// What cursor-agent itself printed about the failure (its error result, then its last
    /// stderr lines), verbatim with ANSI removed; absent when it printed nothing.
    pub agent_output: Option<String>,
    /// `E_QUOTA` only: when the usage limit resets, as the date Cursor named: epoch milliseconds
    /// of that day's midnight UTC. Absent when Cursor named no date.
    pub resets_at: Option<f64>,
}

impl From<CoreError> for RunError {
    fn from(error: CoreError) -> Self {
        Self {
            code: error.code().into(),
            agent_output: error.agent_output().map(str::to_owned),
            // Dates stay far below 2^53 ms, where f64 is exact.
            resets_at: error.resets_at().map(|ms| ms as f64),
            message: error.message().to_owned(),
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
    to_js_error(CoreError::invalid_arg(message))
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
