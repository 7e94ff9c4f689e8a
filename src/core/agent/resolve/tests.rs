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
    let winner = || {
        resolve_agent(Some("custom-agent"), Some(&e))
            .launcher
            .unwrap()
            .program
    };
    let legacy = t.file("home/.cursor-agent/cursor-agent", 0o755);
    assert_eq!(winner(), legacy);
    let local = t.file("home/.local/bin/cursor-agent", 0o755);
    assert_eq!(winner(), local);
    let agent = t.file("bin2/agent", 0o755);
    assert_eq!(winner(), agent);
    let cursor_agent = t.file("bin2/cursor-agent", 0o755);
    assert_eq!(winner(), cursor_agent);
    let custom = t.file("bin2/custom-agent", 0o755);
    assert_eq!(winner(), custom);
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

#[test]
fn relative_path_entries_are_skipped() {
    let t = TempDir::new("relative");
    let abs = t.0.join("bin");
    let planted = t.file("bin/cursor-agent", 0o755);
    let path = format!(".:bin:{}", abs.display());
    let e = EnvVars::from([("PATH".into(), path)]);
    let r = resolve_agent(Some("cursor-agent"), Some(&e));
    assert_eq!(r.launcher.map(|l| l.program), Some(planted));
    assert_eq!(
        r.tried[..2],
        [
            ". (a relative PATH entry, skipped)".to_owned(),
            "bin (a relative PATH entry, skipped)".to_owned()
        ]
    );
}

#[test]
fn a_relative_executable_runs_as_the_absolute_path_it_was_checked_as() {
    // Cargo runs tests in the package folder, where this script exists.
    let relative = "./__test__/support/agents/hang-agent.sh";
    let expected = std::env::current_dir()
        .unwrap()
        .join("__test__/support/agents/hang-agent.sh");
    assert!(expected.is_file());
    let r = resolve_agent(Some(relative), Some(&EnvVars::new()));
    let program = r.launcher.unwrap().program;
    assert!(program.is_absolute(), "{}", program.display());
    assert_eq!(
        std::fs::canonicalize(&program).unwrap(),
        std::fs::canonicalize(expected).unwrap()
    );
}

#[test]
fn the_version_a_path_names() {
    let too_long = format!("/x/cursor-agent/versions/1{}/a", "0".repeat(64));
    let cases: &[(&str, Option<&str>)] = &[
        (
            "/home/u/.local/share/cursor-agent/versions/2026.09.18-9a7762b/cursor-agent",
            Some("2026.09.18-9a7762b"),
        ),
        (
            "/home/u/.local/share/cursor-agent/versions/2026.10.01-e373342/index.js",
            Some("2026.10.01-e373342"),
        ),
        // Windows' folder, in any letter case
        (
            "/Users/u/AppData/Local/Cursor-Agent/Versions/2026.08.11-e8db854/node.exe",
            Some("2026.08.11-e8db854"),
        ),
        // the innermost of two
        (
            "/cursor-agent/versions/1.0/cursor-agent/versions/2.0/cursor-agent",
            Some("2.0"),
        ),
        // the link, not its target
        ("/home/u/.local/bin/cursor-agent", None),
        // the versions folder itself, no file in it
        (
            "/home/u/.local/share/cursor-agent/versions/2026.09.18-9a7762b",
            None,
        ),
        // not a version: no leading digit, a space, or too long
        ("/x/cursor-agent/versions/latest/cursor-agent", None),
        ("/x/cursor-agent/versions/2026 09/cursor-agent", None),
        (&too_long, None),
        // another program's versions
        ("/x/node/versions/20.1.0/bin/node", None),
        ("", None),
    ];
    for (path, expected) in cases {
        assert_eq!(
            version_in_path(Path::new(path)).as_deref(),
            *expected,
            "{path}"
        );
    }
}

#[test]
fn a_launcher_names_the_version_its_link_points_into() {
    let t = TempDir::new("version");
    let versioned = t.file(
        "share/cursor-agent/versions/2026.09.18-9a7762b/cursor-agent",
        0o755,
    );
    std::fs::create_dir_all(t.0.join("bin")).unwrap();
    let link = t.0.join("bin/cursor-agent");
    std::os::unix::fs::symlink(&versioned, &link).unwrap();
    let plain = |program: PathBuf| Launcher {
        program,
        leading_args: vec![],
    };
    assert_eq!(
        launcher_version(&plain(link)).as_deref(),
        Some("2026.09.18-9a7762b")
    );
    assert_eq!(
        launcher_version(&plain(versioned)).as_deref(),
        Some("2026.09.18-9a7762b")
    );
    // node plus the versioned script (the Windows layout)
    let script = t.file(
        "share/cursor-agent/versions/2026.10.01-e373342/index.js",
        0o644,
    );
    let node = t.file("node/bin/node", 0o755);
    let wrapped = Launcher {
        program: node.clone(),
        leading_args: vec![script.into_os_string()],
    };
    assert_eq!(
        launcher_version(&wrapped).as_deref(),
        Some("2026.10.01-e373342")
    );
    assert_eq!(launcher_version(&plain(node)), None);
    // a release folder whose file is itself a link elsewhere (a relative one here)
    let elsewhere = t.file("builds/agent", 0o755);
    let release = t.0.join("share/cursor-agent/versions/2026.11.02-aaaa111");
    std::fs::create_dir_all(&release).unwrap();
    std::os::unix::fs::symlink("../../../../builds/agent", release.join("cursor-agent")).unwrap();
    let current = t.0.join("bin/current");
    std::os::unix::fs::symlink(release.join("cursor-agent"), &current).unwrap();
    assert_eq!(
        launcher_version(&plain(current)).as_deref(),
        Some("2026.11.02-aaaa111")
    );
    assert_eq!(launcher_version(&plain(elsewhere)), None);
}
