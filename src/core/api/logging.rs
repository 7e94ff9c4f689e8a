//! `setLogging`: where and how much the addon logs.

use std::path::Path;

use crate::core::error::CoreError;
use crate::core::logging::{configure, LogLevel};
use crate::core::wire::{wire_struct, WireType};

/// A level's name, in any case (`'debug'`, `'DEBUG'`).
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(transparent)]
pub struct LevelName(pub String);

impl WireType for LevelName {
    #[cfg(test)]
    fn typescript(_: usize) -> String {
        "'off' | 'error' | 'warn' | 'info' | 'debug' | 'trace'".into()
    }
}

wire_struct! {
    /// Where and how much the addon logs. The TS host fills it from `CURSOR_ACP_LOG_LEVEL` and
    /// `CURSOR_ACP_LOG_FILE`; the addon reads no environment.
    pub struct LoggingOptions as named (derive(serde::Deserialize), serde(deny_unknown_fields)) {
        /// `'off'` (the default), `'error'`, `'warn'`, `'info'`, `'debug'` or `'trace'`;
        /// case-insensitive.
        level "level": Option<LevelName>,
        /// The file records are appended to (created with its folder when missing). Needed
        /// when turning logging on unless a file was given before; default: keep the current
        /// file.
        file "file": Option<String>,
    }
}

impl LoggingOptions {
    /// Logging as these options say, for the whole process.
    pub fn apply(self) -> Result<(), CoreError> {
        let level = match self.level {
            Some(LevelName(name)) => name.parse::<LogLevel>()?,
            None => LogLevel::Off,
        };
        configure(level, self.file.as_deref().map(Path::new))
    }
}
