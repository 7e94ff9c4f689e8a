//! Finding the cursor-agent binary: a table of candidate places, tried in order.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::options::EnvVars;
pub use version::{launcher_version, version_in_path};

mod version;

/// How to start cursor-agent: a program and the arguments that come before cursor-agent's own
/// (on Windows the bundled `node.exe` runs `index.js`; a `.cmd` shim needs a shell).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launcher {
    pub program: PathBuf,
    pub leading_args: Vec<OsString>,
}

/// The outcome of a lookup: what was found (if anything) and every place looked at, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolution {
    pub launcher: Option<Launcher>,
    pub tried: Vec<String>,
}

/// One kind of place cursor-agent can be installed.
#[derive(Debug, Clone, Copy)]
enum Candidate {
    /// A name searched on `PATH`.
    OnPath(&'static str),
    /// A path under the home folder.
    UnderHome(&'static str),
    /// `%LOCALAPPDATA%\cursor-agent\versions\<newest>\node.exe index.js`.
    LocalAppDataVersions,
}

/// The default places, in order (the caller's `executable` comes first when given).
const DEFAULT_CANDIDATES: &[Candidate] = &[
    Candidate::OnPath("cursor-agent"),
    Candidate::OnPath("agent"),
    Candidate::UnderHome(".local/bin/cursor-agent"),
    Candidate::UnderHome(".cursor-agent/cursor-agent"),
    Candidate::LocalAppDataVersions,
];

/// What the default lookup depends on; the cache is keyed by it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct LookupKey {
    path: Option<OsString>,
    home: Option<OsString>,
    local_app_data: Option<OsString>,
}

static DEFAULT_LOOKUP_CACHE: Mutex<Option<(LookupKey, Resolution)>> = Mutex::new(None);

/// A variable from the given environment, else from the process's own.
fn var(env: Option<&EnvVars>, name: &str) -> Option<OsString> {
    match env {
        Some(env) => env
            .iter()
            .find(|(k, _)| {
                if cfg!(windows) {
                    k.eq_ignore_ascii_case(name)
                } else {
                    k.as_str() == name
                }
            })
            .map(|(_, v)| OsString::from(v)),
        None => std::env::var_os(name),
    }
}

fn lookup_key(env: Option<&EnvVars>) -> LookupKey {
    let home = var(env, "HOME").or_else(|| {
        if cfg!(windows) {
            var(env, "USERPROFILE")
        } else {
            None
        }
    });
    LookupKey {
        path: var(env, "PATH"),
        home,
        local_app_data: var(env, "LOCALAPPDATA"),
    }
}

#[cfg(unix)]
fn is_executable_file(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable_file(path: &Path) -> bool {
    path.is_file()
}

/// The file name of a program on this platform (`.exe` added on Windows; a `.cmd` cannot be
/// spawned without a shell, so it is never looked for).
fn program_file_name(name: &str) -> String {
    if cfg!(windows) && Path::new(name).extension().is_none() {
        format!("{name}.exe")
    } else {
        name.to_owned()
    }
}

fn search_path(name: &str, path_var: Option<&OsStr>, tried: &mut Vec<String>) -> Option<PathBuf> {
    let Some(path_var) = path_var else {
        tried.push(format!("{name} on PATH (PATH is not set)"));
        return None;
    };
    let file = program_file_name(name);
    for dir in std::env::split_paths(path_var) {
        if dir.as_os_str().is_empty() {
            continue;
        }
        // A relative entry would be checked against the host's folder but run from the
        // workspace (the child's cwd), a repository that may plant its own copy: never used.
        if dir.is_relative() {
            tried.push(format!(
                "{} (a relative PATH entry, skipped)",
                dir.display()
            ));
            continue;
        }
        let candidate = dir.join(&file);
        tried.push(candidate.to_string_lossy().into_owned());
        if is_executable_file(&candidate) {
            return Some(candidate);
        }
    }
    None
}

/// Orders version folder names like `2026.10.01-e373342`: numeric fields first, then the text.
fn version_key(name: &str) -> (Vec<u64>, String) {
    let numeric_part = name.split('-').next().unwrap_or("");
    let numbers = numeric_part
        .split('.')
        .map(|n| n.parse().unwrap_or(0))
        .collect();
    (numbers, name.to_owned())
}

/// The newest `versions/<v>` folder name among `names`.
fn newest_version<'a>(names: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    names.into_iter().max_by_key(|n| version_key(n))
}

fn local_app_data_launcher(root: &Path, tried: &mut Vec<String>) -> Option<Launcher> {
    let versions = root.join("cursor-agent").join("versions");
    tried.push(
        versions
            .join("<newest>")
            .join("node.exe")
            .to_string_lossy()
            .into_owned(),
    );
    let names: Vec<String> = std::fs::read_dir(&versions)
        .ok()?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    let newest = newest_version(names.iter().map(String::as_str))?;
    let dir = versions.join(newest);
    let node = dir.join(if cfg!(windows) { "node.exe" } else { "node" });
    let script = dir.join("index.js");
    (is_executable_file(&node) && script.is_file()).then(|| Launcher {
        program: node,
        leading_args: vec![script.into_os_string()],
    })
}

fn try_candidate(
    candidate: Candidate,
    key: &LookupKey,
    tried: &mut Vec<String>,
) -> Option<Launcher> {
    let plain = |program: PathBuf| Launcher {
        program,
        leading_args: Vec::new(),
    };
    match candidate {
        Candidate::OnPath(name) => search_path(name, key.path.as_deref(), tried).map(plain),
        Candidate::UnderHome(rel) => {
            let Some(home) = &key.home else {
                tried.push(format!("~/{rel} (HOME is not set)"));
                return None;
            };
            let mut path = PathBuf::from(home);
            path.extend(rel.split('/'));
            let program = PathBuf::from(program_file_name(&path.to_string_lossy()));
            tried.push(program.to_string_lossy().into_owned());
            is_executable_file(&program).then(|| plain(program))
        }
        Candidate::LocalAppDataVersions => {
            if !cfg!(windows) {
                return None;
            }
            let root = key.local_app_data.as_ref()?;
            local_app_data_launcher(Path::new(root), tried)
        }
    }
}

fn try_explicit(executable: &str, key: &LookupKey, tried: &mut Vec<String>) -> Option<Launcher> {
    let has_separator = executable.contains('/') || (cfg!(windows) && executable.contains('\\'));
    let program = if has_separator {
        // Resolved once, against the host's folder, and run as that absolute path: the child
        // starts in the workspace, where the relative path would name another file.
        let path = std::path::absolute(executable).unwrap_or_else(|_| PathBuf::from(executable));
        tried.push(path.to_string_lossy().into_owned());
        is_executable_file(&path).then_some(path)
    } else {
        search_path(executable, key.path.as_deref(), tried)
    }?;
    Some(Launcher {
        program,
        leading_args: Vec::new(),
    })
}

fn lookup(executable: Option<&str>, key: &LookupKey) -> Resolution {
    let mut tried = Vec::new();
    let launcher = executable
        .and_then(|exe| try_explicit(exe, key, &mut tried))
        .or_else(|| {
            DEFAULT_CANDIDATES
                .iter()
                .find_map(|c| try_candidate(*c, key, &mut tried))
        });
    Resolution { launcher, tried }
}

/// Find cursor-agent: `executable` (a path, made absolute against the host's working folder,
/// or a name on `PATH`), then `cursor-agent` and
/// `agent` on `PATH`, `~/.local/bin/cursor-agent`, `~/.cursor-agent/cursor-agent`, and on
/// Windows the newest `%LOCALAPPDATA%\cursor-agent\versions\<v>\node.exe index.js`. `PATH`,
/// `HOME` and `LOCALAPPDATA` come from `env` when given, else from the process; relative `PATH`
/// entries are skipped. Only the
/// default lookup (no `executable`) is cached, keyed by the variables it used, and only
/// while its result still exists on disk.
pub fn resolve_agent(executable: Option<&str>, env: Option<&EnvVars>) -> Resolution {
    let key = lookup_key(env);
    if executable.is_some() {
        return lookup(executable, &key);
    }
    let mut cache = DEFAULT_LOOKUP_CACHE
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some((cached_key, resolution)) = cache.as_ref() {
        let still_there = resolution
            .launcher
            .as_ref()
            .is_some_and(|l| is_executable_file(&l.program));
        if *cached_key == key && still_there {
            return resolution.clone();
        }
    }
    let resolution = lookup(None, &key);
    *cache = resolution
        .launcher
        .is_some()
        .then(|| (key, resolution.clone()));
    resolution
}

/// The `E_AGENT_NOT_FOUND` message: every place looked at and how to install.
pub fn not_found_message(tried: &[String]) -> String {
    let install = if cfg!(windows) {
        "irm 'https://cursor.com/install?win32=true' | iex"
    } else {
        "curl https://cursor.com/install -fsS | bash"
    };
    format!(
        "cursor-agent was not found. Looked in: {}. Install it with `{install}`, then run \
         `cursor-agent login`; or point CURSOR_AGENT_EXECUTABLE at the binary.",
        if tried.is_empty() {
            "nowhere (no PATH or HOME)".to_owned()
        } else {
            tried.join(", ")
        }
    )
}

#[cfg(all(test, unix))]
mod tests;
