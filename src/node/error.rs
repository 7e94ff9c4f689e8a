//! The error contract as JS sees it: `err.code` of every thrown error and `error.code` of every
//! error output or result is one of [`ErrorCode`], declared from the core's one list of codes.

use napi_derive::napi;

use crate::core::error::CoreError;

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
    };
}

crate::with_error_codes!(declare_js_error_code);

/// Result of a binding that throws errors with a stable `err.code`: an [`ErrorCode`]'s text for
/// core failures, napi's own status name for failures inside napi (a panic caught at the
/// boundary).
pub type Result<T> = napi::Result<T, String>;

/// The JS error for a core failure: `err.code` is the stable code, `err.message` the message
/// followed by what cursor-agent said, if anything.
pub fn to_js_error(error: CoreError) -> napi::Error<String> {
    napi::Error::new(error.code().as_str().to_owned(), error.to_string())
}

/// An `E_INVALID_ARG` error with `message`.
pub fn invalid_arg(message: impl Into<String>) -> napi::Error<String> {
    to_js_error(CoreError::invalid_arg(message))
}

/// The rejection of a promise whose core work failed: a JS error carrying the stable `code`
/// (a promise callback can only reject with a plain `napi::Error`).
pub fn rejection(env: &napi::Env, error: CoreError) -> napi::Error {
    let js_error = napi::JsError::from(to_js_error(error)).into_unknown(*env);
    napi::Error::from(js_error)
}

/// Re-codes a napi failure (e.g. a failed JS call) so it carries its status's name as its code.
pub fn from_napi(error: napi::Error) -> napi::Error<String> {
    napi::Error::new(error.status.as_ref().to_owned(), error.reason)
}
