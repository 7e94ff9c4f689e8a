//! Which cursor-agent a launcher runs, from where it lives. Cursor's installer puts every release
//! in its own folder, `…/cursor-agent/versions/<version>/` (`~/.local/share/cursor-agent/versions/
//! 2026.09.18-9a7762b/cursor-agent`, linked from `~/.local/bin/cursor-agent`; on Windows
//! `%LOCALAPPDATA%\cursor-agent\versions\<version>\node.exe index.js`), and updates itself between
//! runs by adding a folder and moving the link, so the folder a run starts from names its version.

use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

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

/// At most this many links are followed from one file.
const MAX_LINKS: usize = 8;

/// The paths a file is reached through: itself, each link's target in turn, then its real path.
fn link_chain(path: &Path) -> Vec<PathBuf> {
    let mut chain = vec![path.to_path_buf()];
    while chain.len() <= MAX_LINKS {
        let Some(last) = chain.last() else { break };
        let Ok(target) = std::fs::read_link(last) else {
            break;
        };
        // A relative target is relative to the link's folder; an absolute one replaces it.
        let next = last
            .parent()
            .map_or_else(|| target.clone(), |dir| dir.join(&target));
        chain.push(next);
    }
    chain.extend(std::fs::canonicalize(path));
    chain
}

/// The version the launcher's files name once links are followed: the program (a link such as
/// `~/.local/bin/cursor-agent`, or the versioned wrapper itself), then the script it runs first
/// (Windows: `index.js`). Of the paths a file is reached through, the one nearest the real file
/// that lies in a version folder counts. `None` when none does (a custom build, a copy).
pub fn launcher_version(launcher: &Launcher) -> Option<String> {
    std::iter::once(launcher.program.as_os_str())
        .chain(launcher.leading_args.iter().map(|a| a.as_os_str()))
        .find_map(|file| {
            link_chain(Path::new(file))
                .iter()
                .rev()
                .find_map(|path| version_in_path(path))
        })
}
