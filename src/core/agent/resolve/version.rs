//! Which cursor-agent a launcher runs, from where it lives. Cursor's installer puts every release
//! in its own folder, `…/cursor-agent/versions/<version>/` (`~/.local/share/cursor-agent/versions/
//! 2026.09.18-9a7762b/cursor-agent`, linked from `~/.local/bin/cursor-agent`; on Windows
//! `%LOCALAPPDATA%\cursor-agent\versions\<version>\node.exe index.js`), and updates itself between
//! runs by adding a folder and moving the link, so the folder a run starts from names its version.

use std::ffi::OsStr;
use std::path::{Component, Path};

use super::Launcher;

/// The longest folder name taken for a version.
const MAX_VERSION_LEN: usize = 64;

/// A version folder's name: a digit first, then letters, digits, `.`, `_` and `-` only.
fn looks_like_version(name: &str) -> bool {
    name.len() <= MAX_VERSION_LEN
        && name.starts_with(|c: char| c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// The version `path` names: the innermost `cursor-agent/versions/<version>/<file>` in it.
pub fn version_in_path(path: &Path) -> Option<String> {
    let names: Vec<&OsStr> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(name),
            _ => None,
        })
        .collect();
    let is = |name: &OsStr, wanted: &str| {
        name.to_str()
            .is_some_and(|n| n.eq_ignore_ascii_case(wanted))
    };
    names.windows(4).rev().find_map(|w| {
        let version = w[2].to_str()?;
        (is(w[0], "cursor-agent") && is(w[1], "versions") && looks_like_version(version))
            .then(|| version.to_owned())
    })
}

/// The version the launcher's files name once links are followed: the program (a link such as
/// `~/.local/bin/cursor-agent`, or the versioned wrapper itself), then the script it runs first
/// (Windows: `index.js`). `None` when none lies in a version folder (a custom build, a copy).
pub fn launcher_version(launcher: &Launcher) -> Option<String> {
    std::iter::once(launcher.program.as_os_str())
        .chain(launcher.leading_args.iter().map(|a| a.as_os_str()))
        .map(Path::new)
        .find_map(|path| {
            let target = std::fs::canonicalize(path).ok();
            target
                .as_deref()
                .and_then(version_in_path)
                .or_else(|| version_in_path(path))
        })
}
