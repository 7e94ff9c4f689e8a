//! `setLogging`.

use napi::{Env, Unknown};
use napi_derive::napi;

use crate::core::api::logging::LoggingOptions;
use crate::node::error::{to_js_error, Result};
use crate::node::read::read;

/// Turns diagnostic logging on, off, or to another level or file, for the whole process.
/// Logs never go to stdout or stderr. Throws `E_INVALID_ARG` for an unknown level, a file that
/// cannot be opened, or a level other than `'off'` when no file was ever given.
#[napi(catch_unwind, ts_args_type = "options: LoggingOptions")]
pub fn set_logging(env: Env, options: Unknown) -> Result<()> {
    read::<LoggingOptions>(&env, options, "the logging options")?
        .apply()
        .map_err(to_js_error)
}

/// Writes a warning of the TS host's (a setting it ignored, say) to the log, at level `warn`.
#[napi(catch_unwind)]
pub fn log_warning(message: String) {
    tracing::warn!(target: "opencode_cursor_native::settings", "{message}");
}
