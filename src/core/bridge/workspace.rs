//! The private folder a bridged run works in, one per host conversation:
//!
//! ```text
//! <folder>/workspace/.cursor/cli.json     Cursor's permission rules: its own tools denied
//! <folder>/workspace/.cursor/hooks.json   fail-closed preToolUse and beforeMCPExecution hooks (Unix)
//! <folder>/workspace/.cursor/rules/opencode-host.mdc   the host's system prompt, an always-apply rule
//! <folder>/home/.cursor/mcp.json          the bridge, with its URL and token
//! <folder>/home/.cursor/hooks.json        the same hooks where Cursor looks from $HOME
//! <folder>/config/cli-config.json         CURSOR_CONFIG_DIR: who is logged in, nothing else
//! <folder>/cursor-data/                   CURSOR_DATA_DIR
//! ```
//!
//! `--workspace` and the child's cwd are `<folder>/workspace`, and `HOME` is `<folder>/home`, so
//! neither the repository's `.cursor/mcp.json` nor the user's `~/.cursor/mcp.json` is loaded,
//! and nothing is written into the project or into `~/.cursor`. The bridge is a user-level server
//! (`$HOME/.cursor/mcp.json`): Cursor reads the workspace's file first and holds its servers for
//! an approval keyed on their URL, which changes every run. Every folder is `0700`, every file
//! is written whole with its final mode and renamed into place, and no link is followed
//! ([`crate::core::private_file`]). The folder stays the same for every run of one conversation (Cursor keys its
//! chats by the workspace path, so `--resume` keeps working); folders unused for [`STALE_AFTER`]
//! are removed, looked for at a run's start at most once per [`SWEEP_EVERY`].

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;

mod config;

use crate::core::private_file::{
    create_folder, remove_if_present, write_atomic_with_mode, FILE_MODE, SCRIPT_MODE,
};
pub use config::{carried_cli_config, BOOKKEEPING_FOLDERS, CARRIED_CONFIG_KEYS, HOOK_SCRIPT};

/// The rule file that carries the host's system prompt, under `<workspace>/.cursor/rules/`.
pub const INSTRUCTIONS_RULE: &str = "opencode-host.mdc";

/// The rule text: Cursor's `.mdc` front matter with `alwaysApply: true` (a `global` rule, sent
/// with every request of the run), then the instructions as they are.
pub fn instructions_rule(instructions: &str) -> String {
    format!(
        "---\ndescription: Instructions of the host application (OpenCode) for this conversation\nalwaysApply: true\n---\n{instructions}\n"
    )
}

/// Writes the host's system prompt as an always-apply rule in the prepared workspace of
/// `folder`, or removes the rule when there is none, so a later run never reads a stale one.
/// cursor-agent loads `<dir>/.cursor/rules/**/*.mdc` of its workspace and every ancestor
/// (`@cursor/sdk` 1.0.32, `LocalCursorRulesService.loadRulesFromDirAndAncestors`).
pub fn write_instructions(folder: &Path, instructions: Option<&str>) -> io::Result<()> {
    let rules = layout(folder).workspace.join(".cursor").join("rules");
    let rule = rules.join(INSTRUCTIONS_RULE);
    match instructions {
        Some(text) => {
            create_folder(&rules)?;
            write_atomic_with_mode(&rule, instructions_rule(text).as_bytes(), FILE_MODE)
        }
        None => remove_if_present(&rule),
    }
}

/// A conversation folder untouched this long is removed by the next prepared one.
pub const STALE_AFTER: Duration = Duration::from_secs(7 * 24 * 60 * 60);

/// The file whose modification time says when a folder was last used.
const LAST_USED: &str = "last-used";

/// The folders of one prepared run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrivateWorkspace {
    /// `--workspace` and the child's cwd.
    pub workspace: PathBuf,
    /// The child's `HOME`.
    pub home: PathBuf,
    /// The child's `CURSOR_DATA_DIR`.
    pub data: PathBuf,
    /// The child's `CURSOR_CONFIG_DIR`.
    pub config: PathBuf,
}

/// Where the folders of conversation folder `folder` are (nothing is created).
pub fn layout(folder: &Path) -> PrivateWorkspace {
    PrivateWorkspace {
        workspace: folder.join("workspace"),
        home: folder.join("home"),
        data: folder.join("cursor-data"),
        config: folder.join("config"),
    }
}

fn write_json(path: &Path, value: &Value) -> io::Result<()> {
    write_atomic_with_mode(path, value.to_string().as_bytes(), FILE_MODE)
}

/// The hook script and the `hooks.json` that runs it, in `cursor_dir`.
fn write_hooks(
    cursor_dir: &Path,
    data: &Path,
    url: &str,
    readable: Option<&Path>,
) -> io::Result<()> {
    if cfg!(not(unix)) {
        // No POSIX shell to run the hook: the tool filter and the permission rules remain.
        return Ok(());
    }
    let hooks = cursor_dir.join("hooks");
    create_folder(&hooks)?;
    let script = hooks.join(HOOK_SCRIPT);
    write_atomic_with_mode(
        &script,
        config::hook_script(data, url, readable).as_bytes(),
        SCRIPT_MODE,
    )?;
    let text = config::hooks_json(&script).to_string();
    if text.contains("//") {
        // Cursor would cut the line there and drop the whole file: every gate open.
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "the hook's path {} contains `//`, which Cursor's hooks reader cuts off",
                script.display()
            ),
        ));
    }
    write_atomic_with_mode(&cursor_dir.join("hooks.json"), text.as_bytes(), FILE_MODE)
}

/// Make `folder` ready for a run against the bridge at `url`, and clean up old siblings.
/// `user_config` is the user's own `cli-config.json`, whose login identity is carried over.
/// Cursor may also Read inside `readable` (the run's saved attachments), and nowhere else new.
pub fn prepare(
    folder: &Path,
    url: &str,
    token: &str,
    user_config: Option<&Path>,
    readable: Option<&Path>,
) -> io::Result<PrivateWorkspace> {
    let private = layout(folder);
    let project_cursor = private.workspace.join(".cursor");
    let home_cursor = private.home.join(".cursor");
    for dir in [
        folder,
        &private.workspace,
        &project_cursor,
        &private.home,
        &home_cursor,
        &private.data,
        &private.config,
    ] {
        create_folder(dir)?;
    }
    write_json(&home_cursor.join("mcp.json"), &config::mcp_json(url, token))?;
    // Folders of earlier releases had the bridge in the workspace, where it needs an approval.
    remove_if_present(&project_cursor.join("mcp.json"))?;
    write_json(
        &project_cursor.join("cli.json"),
        &config::cli_json(&private.data, readable),
    )?;
    write_hooks(&project_cursor, &private.data, url, readable)?;
    write_hooks(&home_cursor, &private.data, url, readable)?;
    let user = user_config.and_then(|path| fs::read(path).ok());
    write_json(
        &private.config.join("cli-config.json"),
        &carried_cli_config(user.as_deref()),
    )?;
    write_atomic_with_mode(&folder.join(LAST_USED), b"", FILE_MODE)?;
    if let Some(parent) = folder.parent() {
        sweep_stale(parent, folder, Instant::now());
    }
    Ok(private)
}

/// How often the folders beside a prepared one are looked over again, at a run's start: a host
/// that runs for weeks (the server) still removes what went unused.
pub const SWEEP_EVERY: Duration = Duration::from_secs(60 * 60);

/// At most once per [`SWEEP_EVERY`] for each parent folder: the scan costs a directory listing.
fn sweep_stale(parent: &Path, keep: &Path, now: Instant) {
    static SWEPT: Mutex<Vec<(PathBuf, Instant)>> = Mutex::new(Vec::new());
    let mut swept = SWEPT.lock().unwrap_or_else(|p| p.into_inner());
    match swept.iter_mut().find(|(swept, _)| swept == parent) {
        Some((_, last)) if now.saturating_duration_since(*last) < SWEEP_EVERY => return,
        Some((_, last)) => *last = now,
        None => swept.push((parent.to_owned(), now)),
    }
    drop(swept);
    let removed = remove_stale(parent, keep, SystemTime::now(), STALE_AFTER);
    if removed > 0 {
        tracing::debug!(removed, parent = %parent.display(), "old conversation folders removed");
    }
}

/// Remove the folders under `parent` (other than `keep`) whose last use is older than `age`;
/// only folders this module prepared (they hold [`LAST_USED`]) are touched.
pub fn remove_stale(parent: &Path, keep: &Path, now: SystemTime, age: Duration) -> usize {
    let Ok(entries) = fs::read_dir(parent) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        if path == keep {
            continue;
        }
        let Ok(used) = fs::metadata(path.join(LAST_USED)).and_then(|m| m.modified()) else {
            continue;
        };
        if now.duration_since(used).is_ok_and(|idle| idle > age)
            && fs::remove_dir_all(&path).is_ok()
        {
            removed += 1;
        }
    }
    removed
}

#[cfg(test)]
mod tests;
