use super::*;
use serde_json::json;

pub(super) fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ocn-ws-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

pub(super) fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
}

#[test]
fn prepares_the_files_cursor_reads() {
    let root = temp("prepare");
    let folder = root.join("conversation");
    let user_config = root.join("cli-config.json");
    fs::write(
        &user_config,
        r#"{"version":1,"authInfo":{"email":"me@example.com"},"approvalMode":"unrestricted",
            "permissions":{"allow":["Shell(*)"],"deny":[]},"sandbox":{"mode":"disabled"}}"#,
    )
    .unwrap();
    let ws = prepare(
        &folder,
        "http://127.0.0.1:1/mcp/x",
        "secret",
        Some(&user_config),
        None,
    )
    .unwrap();
    assert_eq!(ws.workspace, folder.join("workspace"));
    let servers = read_json(&ws.home.join(".cursor/mcp.json"));
    assert_eq!(
        servers["mcpServers"]["opencode"]["url"],
        "http://127.0.0.1:1/mcp/x"
    );
    assert_eq!(
        servers["mcpServers"]["opencode"]["headers"]["Authorization"],
        "Bearer secret"
    );
    assert_eq!(servers["mcpServers"].as_object().unwrap().len(), 1);
    assert!(
        !ws.workspace.join(".cursor/mcp.json").exists(),
        "a workspace server needs an approval keyed on its URL"
    );
    // Cursor's strict schema: both arrays, no other key.
    let permissions = read_json(&ws.workspace.join(".cursor/cli.json"));
    assert_eq!(permissions.as_object().unwrap().len(), 1);
    let rules = permissions["permissions"].as_object().unwrap();
    assert_eq!(rules.keys().collect::<Vec<_>>(), ["allow", "deny"]);
    assert!(rules["allow"]
        .as_array()
        .unwrap()
        .contains(&json!("Mcp(opencode:*)")));
    for folder in BOOKKEEPING_FOLDERS {
        let rule = format!("Read({}/projects/*/{folder}/**)", ws.data.display());
        assert!(rules["allow"].as_array().unwrap().contains(&json!(rule)));
    }
    assert!(rules["deny"]
        .as_array()
        .unwrap()
        .contains(&json!("Shell(*)")));
    // Only who is logged in is carried from the user's own configuration.
    assert_eq!(
        read_json(&ws.config.join("cli-config.json")),
        json!({"version": 1, "authInfo": {"email": "me@example.com"}})
    );
    #[cfg(unix)]
    for cursor in [ws.workspace.join(".cursor"), ws.home.join(".cursor")] {
        let text = fs::read_to_string(cursor.join("hooks.json")).unwrap();
        assert!(
            !text.contains("//"),
            "Cursor cuts `//` to the line's end: {text}"
        );
        let hooks: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(hooks["version"], 1);
        for event in ["preToolUse", "beforeMCPExecution"] {
            let hook = &hooks["hooks"][event][0];
            assert_eq!(hook["failClosed"], true, "{event}");
            assert!(Path::new(hook["command"].as_str().unwrap()).is_file());
        }
    }
    // Prepared again for the next run: the new URL replaces the old one.
    prepare(&folder, "http://127.0.0.1:2/mcp/y", "other", None, None).unwrap();
    let again = fs::read_to_string(ws.home.join(".cursor/mcp.json")).unwrap();
    assert!(again.contains("127.0.0.1:2") && !again.contains("127.0.0.1:1"));
    assert_eq!(read_json(&ws.config.join("cli-config.json")), json!({}));
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_folder_of_an_earlier_release_loses_its_workspace_server() {
    let root = temp("earlier");
    let folder = root.join("c");
    let old = layout(&folder).workspace.join(".cursor");
    fs::create_dir_all(&old).unwrap();
    fs::write(old.join("mcp.json"), "{}").unwrap();
    prepare(&folder, "http://127.0.0.1:1/m", "t", None, None).unwrap();
    assert!(!old.join("mcp.json").exists());
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn stale_folders_are_removed_and_others_kept() {
    let root = temp("stale");
    let (old, fresh, foreign) = (root.join("old"), root.join("fresh"), root.join("foreign"));
    prepare(&old, "u", "t", None, None).unwrap();
    prepare(&fresh, "u", "t", None, None).unwrap();
    fs::create_dir_all(&foreign).unwrap();
    let later = SystemTime::now() + STALE_AFTER + Duration::from_secs(60);
    assert_eq!(remove_stale(&root, &fresh, later, STALE_AFTER), 1);
    assert!(!old.exists());
    assert!(fresh.exists(), "the folder in use is kept");
    assert!(
        foreign.exists(),
        "a folder not prepared here is not touched"
    );
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_host_that_keeps_running_looks_for_stale_folders_again_an_hour_later() {
    let root = temp("sweep-again");
    let (fresh, old) = (root.join("fresh"), root.join("old"));
    let now = Instant::now();
    prepare(&fresh, "u", "t", None, None).unwrap();
    prepare(&old, "u", "t", None, None).unwrap();
    let long_ago = SystemTime::now() - STALE_AFTER - Duration::from_secs(60);
    let last_used = fs::File::options().write(true).open(old.join(LAST_USED));
    last_used.unwrap().set_modified(long_ago).unwrap();
    sweep_stale(&root, &fresh, now + SWEEP_EVERY / 2);
    assert!(old.exists(), "looked over less than an hour ago");
    sweep_stale(&root, &fresh, now + SWEEP_EVERY + Duration::from_secs(1));
    assert!(!old.exists(), "a long-running host removes it too");
    assert!(fresh.exists());
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn the_hosts_instructions_are_an_always_apply_rule_replaced_each_run_and_removed_without() {
    let root = temp("instructions");
    let folder = root.join("c");
    prepare(&folder, "u", "t", None, None).unwrap();
    let rule = folder
        .join("workspace/.cursor/rules")
        .join(INSTRUCTIONS_RULE);
    write_instructions(&folder, Some("You are opencode.\n---\nBe brief.")).unwrap();
    assert_eq!(
        fs::read_to_string(&rule).unwrap(),
        "---\ndescription: Instructions of the host application (OpenCode) for this conversation\n\
         alwaysApply: true\n---\nYou are opencode.\n---\nBe brief.\n"
    );
    write_instructions(&folder, Some("Second turn.")).unwrap();
    assert!(fs::read_to_string(&rule)
        .unwrap()
        .ends_with("---\nSecond turn.\n"));
    write_instructions(&folder, None).unwrap();
    assert!(
        !rule.exists(),
        "a run without instructions leaves no stale rule"
    );
    write_instructions(&folder, None).unwrap();
    fs::remove_dir_all(&root).unwrap();
}

#[cfg(unix)]
mod private {
    use super::*;
    use std::os::unix::fs::{symlink, PermissionsExt};

    fn mode(path: &Path) -> u32 {
        fs::symlink_metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn the_instructions_rule_is_0600_in_a_0700_folder() {
        let root = temp("instructions-modes");
        let folder = root.join("c");
        prepare(&folder, "u", "t", None, None).unwrap();
        write_instructions(&folder, Some("text")).unwrap();
        let rules = folder.join("workspace/.cursor/rules");
        assert_eq!(mode(&rules), 0o700);
        assert_eq!(mode(&rules.join(INSTRUCTIONS_RULE)), 0o600);
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn every_folder_is_0700_and_every_file_0600_or_0700() {
        let root = temp("modes");
        let folder = root.join("c");
        let ws = prepare(&folder, "http://127.0.0.1:1/m", "t", None, None).unwrap();
        let cursor = [ws.workspace.join(".cursor"), ws.home.join(".cursor")];
        let mut folders = vec![folder.clone(), ws.workspace.clone(), ws.home.clone()];
        folders.extend([ws.data.clone(), ws.config.clone()]);
        for dir in &cursor {
            folders.extend([dir.clone(), dir.join("hooks")]);
        }
        for dir in &folders {
            assert_eq!(mode(dir), 0o700, "{}", dir.display());
        }
        let mut files = vec![
            ws.home.join(".cursor/mcp.json"),
            ws.config.join("cli-config.json"),
        ];
        files.extend([
            ws.workspace.join(".cursor/cli.json"),
            folder.join(LAST_USED),
        ]);
        for dir in &cursor {
            files.push(dir.join("hooks.json"));
            assert_eq!(mode(&dir.join("hooks").join(HOOK_SCRIPT)), 0o700);
        }
        for file in &files {
            assert_eq!(mode(file), 0o600, "{}", file.display());
        }
        // A folder left readable by an earlier release is narrowed.
        fs::set_permissions(&ws.home, fs::Permissions::from_mode(0o755)).unwrap();
        prepare(&folder, "http://127.0.0.1:1/m", "t", None, None).unwrap();
        assert_eq!(mode(&ws.home), 0o700);
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_private_file_has_its_final_mode_before_its_first_byte() {
        let root = temp("first-byte");
        let path = root.join("mcp.json");
        let mut seen = None;
        crate::core::private_file::write_atomic_with(&path, FILE_MODE, |file| {
            let meta = file.metadata()?;
            seen = Some((meta.permissions().mode() & 0o777, meta.len()));
            std::io::Write::write_all(file, b"{}")
        })
        .unwrap();
        assert_eq!(seen, Some((0o600, 0)));
        assert_eq!(fs::read(&path).unwrap(), b"{}");
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn preparations_of_one_folder_at_once_never_fail_or_leave_half_files() {
        let root = temp("atomic");
        let folder = root.join("c");
        let writers: Vec<_> = (0..6)
            .map(|writer| {
                let folder = folder.clone();
                std::thread::spawn(move || {
                    for round in 0..15 {
                        let url = format!("http://127.0.0.1:{writer}/m/{round}");
                        prepare(&folder, &url, &format!("t{writer}{round}"), None, None).unwrap();
                    }
                })
            })
            .collect();
        for writer in writers {
            writer.join().expect("a preparation failed");
        }
        let ws = layout(&folder);
        for file in [
            ws.home.join(".cursor/mcp.json"),
            ws.workspace.join(".cursor/cli.json"),
        ] {
            read_json(&file);
        }
        let leftovers: Vec<_> = fs::read_dir(ws.home.join(".cursor"))
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".partial"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_planted_link_never_makes_the_plugin_write_its_target() {
        let root = temp("links");
        let victim = root.join("victim.txt");
        fs::write(&victim, "mine").unwrap();
        let victim_mode = mode(&victim);
        let folder = root.join("c");
        let ws = layout(&folder);
        let (home_cursor, project_cursor) = (ws.home.join(".cursor"), ws.workspace.join(".cursor"));
        fs::create_dir_all(&home_cursor).unwrap();
        fs::create_dir_all(project_cursor.join("hooks")).unwrap();
        // Where files go, and where an earlier release wrote beside them.
        let planted = [
            home_cursor.join("mcp.json"),
            project_cursor.join("cli.json"),
            project_cursor.join("hooks.json"),
            project_cursor.join("hooks").join(HOOK_SCRIPT),
            project_cursor.join("cli.partial"),
            project_cursor.join("hooks.partial"),
            folder.join("last-used.partial"),
        ];
        for link in &planted {
            symlink(&victim, link).unwrap();
        }
        prepare(&folder, "http://127.0.0.1:1/m", "t", None, None).unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "mine");
        assert_eq!(mode(&victim), victim_mode, "the target's mode is untouched");
        for file in &planted[..4] {
            assert!(!fs::symlink_metadata(file).unwrap().file_type().is_symlink());
        }
        // A folder replaced by a link is refused, and nothing is written into its target.
        let elsewhere = root.join("elsewhere");
        fs::create_dir_all(&elsewhere).unwrap();
        let linked = root.join("linked");
        fs::create_dir_all(layout(&linked).home.join("x")).unwrap();
        fs::remove_dir_all(layout(&linked).home).unwrap();
        symlink(&elsewhere, layout(&linked).home).unwrap();
        let error = prepare(&linked, "http://127.0.0.1:1/m", "t", None, None).unwrap_err();
        assert!(error.to_string().contains("symbolic link"), "{error}");
        assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
        fs::remove_dir_all(&root).unwrap();
    }
}
