//! The `system` records: which subtypes the translator knows, and the CLI version a
//! `system/init` may carry.
//!
//! `task_notification` and `background_shell_timeout` are written by cursor-agent 2026.09 and
//! later (found in its bundle, never captured), so their fields are unknown: they are read as
//! notices whose whole record is kept for the log.

use serde_json::{Map, Value};

use crate::core::json;

/// A `system` record that reports something that happened during the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notice {
    /// `task_notification`: Cursor's own bookkeeping of a task (a subagent, a todo).
    TaskNotification,
    /// `background_shell_timeout`: a shell command Cursor left running in the background ran
    /// past its time limit.
    BackgroundShellTimeout,
}

impl Notice {
    /// The record's subtype, as Cursor writes it.
    pub fn subtype(self) -> &'static str {
        match self {
            Self::TaskNotification => "task_notification",
            Self::BackgroundShellTimeout => "background_shell_timeout",
        }
    }

    /// The label a trace gives the record.
    pub fn trace_label(self) -> &'static str {
        match self {
            Self::TaskNotification => "system task_notification",
            Self::BackgroundShellTimeout => "system background_shell_timeout",
        }
    }
}

/// What a `system` record's subtype makes of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SystemKind {
    /// `init` (or no subtype): the session id, and maybe the CLI version.
    Init,
    Notice(Notice),
}

/// Every `system` subtype the translator knows; any other is an unknown record.
const SYSTEM_SUBTYPES: &[(&str, SystemKind)] = &[
    ("init", SystemKind::Init),
    (
        "task_notification",
        SystemKind::Notice(Notice::TaskNotification),
    ),
    (
        "background_shell_timeout",
        SystemKind::Notice(Notice::BackgroundShellTimeout),
    ),
];

/// The kind of a `system` record with this subtype; `None` for an unknown subtype. A record
/// without a subtype is read as `init`, as it always has been.
pub(super) fn system_kind(subtype: Option<&str>) -> Option<SystemKind> {
    let Some(subtype) = subtype else {
        return Some(SystemKind::Init);
    };
    SYSTEM_SUBTYPES
        .iter()
        .find(|(name, _)| *name == subtype)
        .map(|(_, kind)| *kind)
}

/// Fields of `system/init` that may carry the CLI's version, in order of preference. None has
/// been seen in a capture: these are guesses (Cursor's records use snake_case at the top level
/// and camelCase inside, so both spellings are tried).
const VERSION_FIELDS: &[&str] = &[
    "version",
    "cliVersion",
    "agentVersion",
    "cli_version",
    "agent_version",
];

/// The CLI version a `system/init` record carries, if any of [`VERSION_FIELDS`] is a non-empty
/// string. Read from the whole record, which is one per run, so the common records pay nothing.
pub(super) fn agent_version(record: &str) -> Option<String> {
    let object: Map<String, Value> = json::from_str(record).ok()?;
    VERSION_FIELDS.iter().find_map(|field| {
        object
            .get(*field)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
    })
}
