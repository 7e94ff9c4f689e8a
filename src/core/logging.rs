//! Diagnostic logging: `tracing` records appended to a file at a chosen level.
//!
//! Off by default, and never written to stdout or stderr: inside OpenCode those belong to the
//! TUI. The level and the file come from the caller (the TS host reads `CURSOR_ACP_LOG_LEVEL`
//! and `CURSOR_ACP_LOG_FILE`); the subscriber is installed once, on the first call that turns
//! logging on, and both settings can change afterwards.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};

use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::{reload, Registry};

use crate::core::error::{CoreError, ErrorCode};
use crate::core::private_file;
use crate::core::secrets;

/// How much is logged; each level includes the ones before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LogLevel {
    #[default]
    Off,
    Error,
    Warn,
    Info,
    Debug,
    Trace,
}

impl LogLevel {
    fn filter(self) -> LevelFilter {
        match self {
            Self::Off => LevelFilter::OFF,
            Self::Error => LevelFilter::ERROR,
            Self::Warn => LevelFilter::WARN,
            Self::Info => LevelFilter::INFO,
            Self::Debug => LevelFilter::DEBUG,
            Self::Trace => LevelFilter::TRACE,
        }
    }
}

/// Writes a line of the TS host's (a setting it ignored, how it started) to the log at `level`,
/// under its own target; `off` writes nothing.
pub fn host_message(level: LogLevel, message: &str) {
    const TARGET: &str = "opencode_cursor_native::host";
    match level {
        LogLevel::Off => {}
        LogLevel::Error => tracing::error!(target: TARGET, "{message}"),
        LogLevel::Warn => tracing::warn!(target: TARGET, "{message}"),
        LogLevel::Info => tracing::info!(target: TARGET, "{message}"),
        LogLevel::Debug => tracing::debug!(target: TARGET, "{message}"),
        LogLevel::Trace => tracing::trace!(target: TARGET, "{message}"),
    }
}

impl FromStr for LogLevel {
    type Err = CoreError;

    /// Case-insensitive, surrounding spaces ignored; empty means `off`.
    fn from_str(value: &str) -> Result<Self, CoreError> {
        match value.trim().to_ascii_lowercase().as_str() {
            "" | "off" => Ok(Self::Off),
            "error" => Ok(Self::Error),
            "warn" => Ok(Self::Warn),
            "info" => Ok(Self::Info),
            "debug" => Ok(Self::Debug),
            "trace" => Ok(Self::Trace),
            _ => Err(CoreError::new(
                ErrorCode::InvalidArg,
                format!("unknown log level {value:?}: use off, error, warn, info, debug or trace"),
            )),
        }
    }
}

/// The open log file that every record is appended to; `None` while logging is off.
struct Sink {
    file: Mutex<Option<(PathBuf, File)>>,
}

impl Sink {
    fn lock(&self) -> MutexGuard<'_, Option<(PathBuf, File)>> {
        // A panic while writing a record leaves the file usable; keep logging.
        self.file.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// One record's writer: `fmt` formats a whole record, then writes it with one `write_all`.
struct SinkWriter(&'static Sink);

impl Write for SinkWriter {
    /// A whole record: written at once, masked of every secret a child was given.
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_all(buf).map(|()| buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self.0.lock().as_mut() {
            Some((_, file)) => {
                let text = String::from_utf8_lossy(buf);
                file.write_all(secrets::mask_known(&text).as_bytes())
            }
            None => Ok(()),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self.0.lock().as_mut() {
            Some((_, file)) => file.flush(),
            None => Ok(()),
        }
    }
}

impl<'a> MakeWriter<'a> for &'static Sink {
    type Writer = SinkWriter;

    fn make_writer(&'a self) -> SinkWriter {
        SinkWriter(self)
    }
}

struct Installed {
    level: reload::Handle<LevelFilter, Registry>,
    sink: &'static Sink,
}

static INSTALLED: OnceLock<Installed> = OnceLock::new();

/// Sets the level and, when `file` is given, the file records are appended to (created with its
/// folder when missing). Turning logging on needs a file, given now or earlier; `Off` closes it.
/// `E_INVALID_ARG` when the file cannot be opened or no file is known.
pub fn configure(level: LogLevel, file: Option<&Path>) -> Result<(), CoreError> {
    if level == LogLevel::Off && INSTALLED.get().is_none() {
        return Ok(());
    }
    let opened = match file {
        Some(path) if level != LogLevel::Off => Some((path.to_path_buf(), open_append(path)?)),
        _ => None,
    };
    let installed = install()?;
    {
        let mut current = installed.sink.lock();
        if level == LogLevel::Off {
            *current = None;
        } else if let Some(opened) = opened {
            *current = Some(opened);
        } else if current.is_none() {
            return Err(CoreError::new(
                ErrorCode::InvalidArg,
                "logging needs a file: pass `file` with the level",
            ));
        }
    }
    installed
        .level
        .modify(|filter| *filter = level.filter())
        .map_err(|e| {
            CoreError::new(
                ErrorCode::InvalidArg,
                format!("cannot change the log level: {e}"),
            )
        })
}

fn open_append(path: &Path) -> Result<File, CoreError> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        // A folder the user named may be shared (`/tmp`): only a missing one is made private.
        if !parent.exists() {
            private_file::create_folder(parent).map_err(|e| cannot_open(path, &e))?;
        }
    }
    private_file::open_append(path).map_err(|e| cannot_open(path, &e))
}

fn cannot_open(path: &Path, error: &io::Error) -> CoreError {
    CoreError::new(
        ErrorCode::InvalidArg,
        format!("cannot open the log file {}: {error}", path.display()),
    )
}

fn install() -> Result<&'static Installed, CoreError> {
    if let Some(installed) = INSTALLED.get() {
        return Ok(installed);
    }
    let sink: &'static Sink = Box::leak(Box::new(Sink {
        file: Mutex::new(None),
    }));
    let (level_layer, level) = reload::Layer::new(LevelFilter::OFF);
    let subscriber = Registry::default().with(level_layer).with(
        tracing_subscriber::fmt::layer()
            .with_ansi(false)
            .with_writer(sink),
    );
    // Two threads may race to install: the loser's subscriber is dropped and the winner's kept.
    let mut result = Ok(());
    let installed = INSTALLED.get_or_init(|| {
        result = tracing::subscriber::set_global_default(subscriber).map_err(|e| {
            CoreError::new(
                ErrorCode::InvalidArg,
                format!("another logger is already installed: {e}"),
            )
        });
        Installed { level, sink }
    });
    result.map(|()| installed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_names_parse_case_insensitively_and_reject_others() {
        let table = [
            ("off", LogLevel::Off),
            ("", LogLevel::Off),
            (" ERROR ", LogLevel::Error),
            ("warn", LogLevel::Warn),
            ("Info", LogLevel::Info),
            ("debug", LogLevel::Debug),
            ("trace", LogLevel::Trace),
        ];
        for (name, level) in table {
            assert_eq!(name.parse::<LogLevel>(), Ok(level), "{name:?}");
        }
        let err = "verbose".parse::<LogLevel>().unwrap_err();
        assert_eq!(err.code(), "E_INVALID_ARG");
    }

    fn read(path: &Path) -> String {
        std::fs::read_to_string(path).unwrap_or_default()
    }

    // One test owns the process-wide subscriber, so the steps run in order.
    #[test]
    fn records_reach_the_file_at_the_level_and_stop_when_off() {
        let dir = std::env::temp_dir().join(format!("ocn-logging-{}", std::process::id()));
        let first = dir.join("nested").join("first.log");
        let second = dir.join("second.log");

        assert_eq!(
            configure(LogLevel::Debug, None).map_err(|e| e.code().as_str()),
            Err("E_INVALID_ARG"),
            "turning logging on needs a file"
        );

        configure(LogLevel::Info, Some(&first)).expect("info to the first file");
        tracing::info!("visible-info-record");
        tracing::debug!("hidden-debug-record");
        let text = read(&first);
        assert!(text.contains("visible-info-record"), "{text}");
        assert!(!text.contains("hidden-debug-record"), "{text}");

        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&first), 0o600, "the log is the user's alone");
            assert_eq!(
                mode(first.parent().unwrap()),
                0o700,
                "so is the folder made for it"
            );
        }
        let mut run_secrets = crate::core::secrets::Secrets::default();
        run_secrets.add("CURSOR_API_KEY", "logged-secret-0123456789");
        crate::core::secrets::remember(&run_secrets);
        tracing::warn!("cursor-agent said: bad key logged-secret-0123456789; tail 0123456789");
        let text = read(&first);
        assert!(!text.contains("logged-secret-0123456789"), "{text}");
        assert!(text.contains("bad key [masked CURSOR_API_KEY]"), "{text}");

        configure(LogLevel::Debug, None).expect("raise the level, same file");
        tracing::debug!("now-visible-debug-record");
        assert!(read(&first).contains("now-visible-debug-record"));

        configure(LogLevel::Trace, Some(&second)).expect("switch files");
        tracing::trace!("trace-in-second-file");
        assert!(read(&second).contains("trace-in-second-file"));
        assert!(!read(&first).contains("trace-in-second-file"));

        configure(LogLevel::Off, None).expect("off");
        tracing::error!("error-while-off");
        assert!(!read(&second).contains("error-while-off"));
        assert!(!read(&first).contains("error-while-off"));

        let blocked = dir.join("second.log").join("cannot-be-a-child-of-a-file");
        let err = configure(LogLevel::Debug, Some(&blocked)).unwrap_err();
        assert_eq!(err.code(), "E_INVALID_ARG");

        let _ = std::fs::remove_dir_all(&dir);
    }
}
