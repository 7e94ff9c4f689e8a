//! The private folder a bridged run works in, one per host conversation:
//!
//! ```text
//! <folder>/workspace/.cursor/mcp.json     the bridge, with its URL and token (0600)
//! <folder>/workspace/.cursor/cli.json     Cursor's permission rules: its own tools denied
//! <folder>/workspace/.cursor/hooks.json   a fail-closed preToolUse hook (Unix)
//! <folder>/home/.cursor/hooks.json        the same hook where Cursor looks from $HOME
//! <folder>/cursor-data/                   CURSOR_DATA_DIR
//! ```
//!
//! `--workspace` and the child's cwd are `<folder>/workspace`, and `HOME` is `<folder>/home`, so
//! neither the repository's `.cursor/mcp.json` nor the user's `~/.cursor/mcp.json` is loaded,
//! and nothing is written into the project or into `~/.cursor`. The folder stays the same for
//! every run of one conversation (Cursor keys its chats by the workspace path, so `--resume`
//! keeps working); folders unused for [`STALE_AFTER`] are removed.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use serde_json::json;

use super::SERVER_NAME;

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
}

/// The reply of the hook to anything but a call to the bridge (the hook is a POSIX shell
/// script: the host's own runtime is OpenCode's, not a program of ours).
const HOOK_SCRIPT: &str = r#"#!/bin/sh
# Written by opencode-cursor-native. In this folder OpenCode runs the tools: only calls to its
# MCP server (and Cursor's lookup of MCP tools) may pass; anything else, or anything this
# script cannot read, is denied.
input=$(cat)
case "$input" in
  *'"tool_name":"MCP:'* | *'"tool_name": "MCP:'* | *'"tool_name":"'[Gg]et[Mm]cp[Tt]ools* | *'"tool_name": "'[Gg]et[Mm]cp[Tt]ools*)
    printf '%s\n' '{"permission":"allow"}' ;;
  *)
    printf '%s\n' '{"permission":"deny","user_message":"opencode-cursor-native: Cursor tried one of its own tools; OpenCode owns the tools here.","agent_message":"This tool is not available. Use the tools of the opencode MCP server instead."}' ;;
esac
"#;

fn write_private(path: &Path, contents: &[u8]) -> io::Result<()> {
    // Written beside, then renamed: a run starting meanwhile never reads half a file.
    let partial = path.with_extension("partial");
    fs::write(&partial, contents)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&partial, fs::Permissions::from_mode(0o600))?;
    }
    fs::rename(&partial, path)
}

fn write_hook(cursor_dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let hooks = cursor_dir.join("hooks");
        fs::create_dir_all(&hooks)?;
        let script = hooks.join("opencode-tools-only.sh");
        write_private(&script, HOOK_SCRIPT.as_bytes())?;
        fs::set_permissions(&script, fs::Permissions::from_mode(0o700))?;
        let config = json!({
            "version": 1,
            "hooks": {
                "preToolUse": [{
                    "command": script.to_string_lossy(),
                    "timeout": 10,
                    "failClosed": true,
                }]
            }
        });
        write_private(
            &cursor_dir.join("hooks.json"),
            config.to_string().as_bytes(),
        )
    }
    #[cfg(not(unix))]
    {
        // No POSIX shell to run the hook: the tool filter and the permission rules remain.
        let _ = cursor_dir;
        Ok(())
    }
}

/// Where the folders of conversation folder `folder` are (nothing is created).
pub fn layout(folder: &Path) -> PrivateWorkspace {
    PrivateWorkspace {
        workspace: folder.join("workspace"),
        home: folder.join("home"),
        data: folder.join("cursor-data"),
    }
}

/// Make `folder` ready for a run against the bridge at `url`, and clean up old siblings.
pub fn prepare(folder: &Path, url: &str, token: &str) -> io::Result<PrivateWorkspace> {
    let PrivateWorkspace {
        workspace,
        home,
        data,
    } = layout(folder);
    let project_cursor = workspace.join(".cursor");
    let home_cursor = home.join(".cursor");
    for dir in [&project_cursor, &home_cursor, &data] {
        fs::create_dir_all(dir)?;
    }
    let servers = json!({
        "mcpServers": {
            SERVER_NAME: { "url": url, "headers": { "Authorization": format!("Bearer {token}") } }
        }
    });
    write_private(
        &project_cursor.join("mcp.json"),
        servers.to_string().as_bytes(),
    )?;
    let permissions = json!({
        "permissions": {
            "allow": [format!("Mcp({SERVER_NAME}:*)")],
            "deny": ["Shell(*)", "Read(**)", "Write(**)", "WebFetch(*)"],
        }
    });
    write_private(
        &project_cursor.join("cli.json"),
        permissions.to_string().as_bytes(),
    )?;
    write_hook(&project_cursor)?;
    write_hook(&home_cursor)?;
    write_private(&folder.join(LAST_USED), b"")?;
    if let Some(parent) = folder.parent() {
        clean_stale_once(parent, folder);
    }
    Ok(PrivateWorkspace {
        workspace,
        home,
        data,
    })
}

/// Once per parent folder and process: the scan costs a directory listing.
fn clean_stale_once(parent: &Path, keep: &Path) {
    static CLEANED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
    let mut cleaned = CLEANED.lock().unwrap_or_else(|p| p.into_inner());
    if cleaned.iter().any(|p| p == parent) {
        return;
    }
    cleaned.push(parent.to_owned());
    drop(cleaned);
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
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ocn-ws-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn prepares_the_files_cursor_reads() {
        let root = temp("prepare");
        let folder = root.join("conversation");
        let ws = prepare(&folder, "http://127.0.0.1:1/mcp/x", "secret").unwrap();
        assert_eq!(ws.workspace, folder.join("workspace"));
        let servers: serde_json::Value =
            serde_json::from_slice(&fs::read(ws.workspace.join(".cursor/mcp.json")).unwrap())
                .unwrap();
        assert_eq!(
            servers["mcpServers"]["opencode"]["url"],
            "http://127.0.0.1:1/mcp/x"
        );
        assert_eq!(
            servers["mcpServers"]["opencode"]["headers"]["Authorization"],
            "Bearer secret"
        );
        assert_eq!(servers["mcpServers"].as_object().unwrap().len(), 1);
        let permissions: serde_json::Value =
            serde_json::from_slice(&fs::read(ws.workspace.join(".cursor/cli.json")).unwrap())
                .unwrap();
        assert!(permissions["permissions"]["deny"]
            .as_array()
            .unwrap()
            .contains(&json!("Shell(*)")));
        assert!(ws.data.is_dir());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(ws.workspace.join(".cursor/mcp.json"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o077, 0, "the token is readable by others");
            for cursor in [ws.workspace.join(".cursor"), ws.home.join(".cursor")] {
                let hooks: serde_json::Value =
                    serde_json::from_slice(&fs::read(cursor.join("hooks.json")).unwrap()).unwrap();
                let hook = &hooks["hooks"]["preToolUse"][0];
                assert_eq!(hook["failClosed"], true);
                assert!(Path::new(hook["command"].as_str().unwrap()).is_file());
            }
        }
        // Prepared again for the next run: the new URL replaces the old one.
        prepare(&folder, "http://127.0.0.1:2/mcp/y", "other").unwrap();
        let again = fs::read_to_string(ws.workspace.join(".cursor/mcp.json")).unwrap();
        assert!(again.contains("127.0.0.1:2") && !again.contains("127.0.0.1:1"));
        fs::remove_dir_all(&root).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn the_hook_allows_only_mcp_calls_and_fails_closed() {
        use std::io::Write;
        use std::process::{Command, Stdio};
        let root = temp("hook");
        let ws = prepare(&root.join("c"), "http://127.0.0.1:1/m", "t").unwrap();
        let script = ws.workspace.join(".cursor/hooks/opencode-tools-only.sh");
        let table = [
            (
                r#"{"hook_event_name":"preToolUse","tool_name":"MCP:opencode:read","tool_input":{}}"#,
                "allow",
            ),
            (r#"{"tool_name": "MCP:read"}"#, "allow"),
            (
                r#"{"tool_name":"getMcpTools","tool_input":{"pattern":"*"}}"#,
                "allow",
            ),
            (
                r#"{"tool_name":"Shell","tool_input":{"command":"echo \"tool_name\":\"MCP:x\""}}"#,
                "deny",
            ),
            (
                r#"{"tool_name":"Read","tool_input":{"path":"/etc/passwd"}}"#,
                "deny",
            ),
            (r#"{"tool_name":"Write"}"#, "deny"),
            ("not json", "deny"),
            ("", "deny"),
        ];
        for (input, verdict) in table {
            let mut child = Command::new(&script)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .unwrap();
            child
                .stdin
                .take()
                .unwrap()
                .write_all(input.as_bytes())
                .unwrap();
            let out = child.wait_with_output().unwrap();
            let reply: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(reply["permission"], verdict, "{input}");
        }
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn stale_folders_are_removed_and_others_kept() {
        let root = temp("stale");
        let (old, fresh, foreign) = (root.join("old"), root.join("fresh"), root.join("foreign"));
        prepare(&old, "u", "t").unwrap();
        prepare(&fresh, "u", "t").unwrap();
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
}
