//! `setLogging`.

use napi::{Env, Unknown};
use napi_derive::napi;

use crate::core::api::logging::LoggingOptions;
use crate::core::logging::{host_message, LogLevel};
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

/// Writes a line of the TS host's (a setting it ignored, how it started) to the log at `level`.
/// Throws `E_INVALID_ARG` for an unknown level.
#[napi(
    catch_unwind,
    ts_args_type = "level: 'error' | 'warn' | 'info' | 'debug' | 'trace', message: string"
)]
pub fn log_message(level: String, message: String) -> Result<()> {
    let level = level.parse::<LogLevel>().map_err(to_js_error)?;
    host_message(level, &message);
    Ok(())
}
