//! `setLogging`.

use std::path::Path;

use napi::{Env, Unknown};
use napi_derive::napi;
use serde::Deserialize;

use crate::core::logging::{self, LogLevel};
use crate::node::error::{to_js_error, Result};
use crate::node::read::read;

/// Where and how much the addon logs. The TS host fills it from `CURSOR_ACP_LOG_LEVEL` and
/// `CURSOR_ACP_LOG_FILE`; the addon reads no environment.
#[napi(object, object_from_js = false, object_to_js = false)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LoggingOptions {
    /// `'off'` (the default), `'error'`, `'warn'`, `'info'`, `'debug'` or `'trace'`;
    /// case-insensitive.
    #[napi(ts_type = "'off' | 'error' | 'warn' | 'info' | 'debug' | 'trace'")]
    pub level: Option<String>,
    /// The file records are appended to (created with its folder when missing). Needed when
    /// turning logging on unless a file was given before; default: keep the current file.
    pub file: Option<String>,
}

/// Turns diagnostic logging on, off, or to another level or file, for the whole process.
/// Logs never go to stdout or stderr. Throws `E_INVALID_ARG` for an unknown level, a file that
/// cannot be opened, or a level other than `'off'` when no file was ever given.
#[napi(catch_unwind, ts_args_type = "options: LoggingOptions")]
pub fn set_logging(env: Env, options: Unknown) -> Result<()> {
    let options: LoggingOptions = read(&env, options, "the logging options")?;
    let level = match options.level {
        Some(name) => name.parse::<LogLevel>().map_err(to_js_error)?,
        None => LogLevel::Off,
    };
    logging::configure(level, options.file.as_deref().map(Path::new)).map_err(to_js_error)
}
