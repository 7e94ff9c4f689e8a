//! Finding the cursor-agent binary: a table of candidate places, tried in order.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::options::EnvVars;

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
        let path = PathBuf::from(executable);
        tried.push(executable.to_owned());
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

/// Find cursor-agent: `executable` (a path, or a name on `PATH`), then `cursor-agent` and
/// `agent` on `PATH`, `~/.local/bin/cursor-agent`, `~/.cursor-agent/cursor-agent`, and on
/// Windows the newest `%LOCALAPPDATA%\cursor-agent\versions\<v>\node.exe index.js`. `PATH`,
/// `HOME` and `LOCALAPPDATA` come from `env` when given, else from the process. Only the
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
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    struct TempDir(PathBuf);
    impl TempDir {
        fn new(tag: &str) -> Self {
            static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
            let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let dir =
                std::env::temp_dir().join(format!("ocn-resolve-{tag}-{}-{n}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            Self(dir)
        }
        fn file(&self, rel: &str, mode: u32) -> PathBuf {
            let p = self.0.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
            p
        }
    }
    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn env(path: &[&Path], home: &Path) -> EnvVars {
        let path = std::env::join_paths(path).unwrap().into_string().unwrap();
        EnvVars::from([
            ("PATH".into(), path),
            ("HOME".into(), home.to_string_lossy().into()),
        ])
    }

    #[test]
    fn table_order_and_tried_list() {
        let t = TempDir::new("order");
        let (bin1, bin2, home) = (t.0.join("bin1"), t.0.join("bin2"), t.0.join("home"));
        std::fs::create_dir_all(&bin1).unwrap();
        std::fs::create_dir_all(&bin2).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        let e = env(&[&bin1, &bin2], &home);

        // nothing installed: every place is listed, in table order
        let r = resolve_agent(Some("custom-agent"), Some(&e));
        assert_eq!(r.launcher, None);
        let s = |p: PathBuf| p.to_string_lossy().into_owned();
        assert_eq!(
            r.tried,
            [
                s(bin1.join("custom-agent")),
                s(bin2.join("custom-agent")),
                s(bin1.join("cursor-agent")),
                s(bin2.join("cursor-agent")),
                s(bin1.join("agent")),
                s(bin2.join("agent")),
                s(home.join(".local/bin/cursor-agent")),
                s(home.join(".cursor-agent/cursor-agent")),
            ]
        );

        // each candidate, installed alone, wins; earlier ones win over later ones
        let legacy = t.file("home/.cursor-agent/cursor-agent", 0o755);
        assert_eq!(
            resolve_agent(Some("custom-agent"), Some(&e))
                .launcher
                .unwrap()
                .program,
            legacy
        );
        let local = t.file("home/.local/bin/cursor-agent", 0o755);
        assert_eq!(
            resolve_agent(Some("custom-agent"), Some(&e))
                .launcher
                .unwrap()
                .program,
            local
        );
        let agent = t.file("bin2/agent", 0o755);
        assert_eq!(
            resolve_agent(Some("custom-agent"), Some(&e))
                .launcher
                .unwrap()
                .program,
            agent
        );
        let cursor_agent = t.file("bin2/cursor-agent", 0o755);
        assert_eq!(
            resolve_agent(Some("custom-agent"), Some(&e))
                .launcher
                .unwrap()
                .program,
            cursor_agent
        );
        let custom = t.file("bin2/custom-agent", 0o755);
        assert_eq!(
            resolve_agent(Some("custom-agent"), Some(&e))
                .launcher
                .unwrap()
                .program,
            custom
        );
    }

    #[test]
    fn non_executable_files_and_directories_are_skipped() {
        let t = TempDir::new("noexec");
        let bin = t.0.join("bin");
        std::fs::create_dir_all(bin.join("agent")).unwrap(); // a directory named agent
        t.file("bin/cursor-agent", 0o644);
        let e = env(&[&bin], &t.0);
        let r = resolve_agent(Some(&bin.join("nope").to_string_lossy()), Some(&e));
        assert_eq!(r.launcher, None);
        assert_eq!(r.tried[0], bin.join("nope").to_string_lossy());
    }

    #[test]
    fn explicit_path_is_used_as_given() {
        let t = TempDir::new("explicit");
        let exe = t.file("x/my-agent", 0o700);
        let e = env(&[], &t.0);
        let r = resolve_agent(Some(&exe.to_string_lossy()), Some(&e));
        assert_eq!(
            r.launcher,
            Some(Launcher {
                program: exe.clone(),
                leading_args: vec![]
            })
        );
        assert_eq!(r.tried, [exe.to_string_lossy().into_owned()]);
    }

    #[test]
    fn default_lookup_is_cached_per_path_and_home_and_revalidated() {
        let t = TempDir::new("cache");
        let (a, b) = (t.0.join("a"), t.0.join("b"));
        let in_a = t.file("a/cursor-agent", 0o755);
        let in_b = t.file("b/cursor-agent", 0o755);
        let ea = env(&[&a], &t.0);
        let eb = env(&[&b], &t.0);
        assert_eq!(
            resolve_agent(None, Some(&ea)).launcher.unwrap().program,
            in_a
        );
        // a different PATH is a different key
        assert_eq!(
            resolve_agent(None, Some(&eb)).launcher.unwrap().program,
            in_b
        );
        // the cached result is dropped once it no longer exists
        std::fs::remove_file(&in_b).unwrap();
        let r = resolve_agent(None, Some(&eb));
        assert_eq!(r.launcher, None);
        assert!(r.tried.contains(&in_b.to_string_lossy().into_owned()));
    }

    #[test]
    fn newest_version_folder_wins() {
        assert_eq!(
            newest_version(["2026.01.28-fd13201", "2026.10.01-e373342", "2026.9.30-aaaa"]),
            Some("2026.10.01-e373342")
        );
        assert_eq!(newest_version(Vec::<&str>::new()), None);
    }

    #[test]
    fn windows_layout_launcher() {
        let t = TempDir::new("win");
        for v in ["2026.08.11-e8db854", "2026.10.01-e373342"] {
            t.file(&format!("cursor-agent/versions/{v}/node"), 0o755);
            t.file(&format!("cursor-agent/versions/{v}/index.js"), 0o644);
        }
        let mut tried = Vec::new();
        let l = local_app_data_launcher(&t.0, &mut tried).unwrap();
        let dir = t.0.join("cursor-agent/versions/2026.10.01-e373342");
        assert_eq!(l.program, dir.join("node"));
        assert_eq!(l.leading_args, [dir.join("index.js").into_os_string()]);
    }

    #[test]
    fn not_found_message_lists_places_and_install() {
        let m = not_found_message(&["/a/cursor-agent".into(), "/b/agent".into()]);
        assert!(m.contains("/a/cursor-agent, /b/agent"));
        assert!(m.contains("curl https://cursor.com/install -fsS | bash"));
    }
}
