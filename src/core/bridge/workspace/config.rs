//! What the private folder's files say, in the shapes Cursor's own code reads them:
//!
//! - `mcp.json` (`$HOME/.cursor/` only): `{"mcpServers":{name:{url,headers}}}`. Cursor reads the
//!   workspace's file first and gates its servers behind an approval keyed on the server's
//!   (changing) URL; the user-level file needs none.
//! - `cli.json` (the workspace's `.cursor/`): strict `{"permissions":{"allow":[..],"deny":[..]}}`,
//!   both arrays and nothing else; without `Mcp(<server>:*)` (and without `--force`) Cursor
//!   rejects every MCP call after a 33-40 s stall.
//! - `hooks.json` (both places): `"version": 1`, and no `//` anywhere: Cursor strips `//` to the
//!   end of each line before parsing and silently drops a file that no longer parses, which would
//!   open every gate.
//! - `cli-config.json` (the private `CURSOR_CONFIG_DIR`): only who is logged in, carried over
//!   from the user's own file; approval mode, permissions and sandbox are never carried.

use std::path::Path;

use serde_json::{json, Map, Value};

use super::super::SERVER_NAME;

/// The hook script's file name, in `.cursor/hooks/`.
pub const HOOK_SCRIPT: &str = "opencode-tools-only.sh";

/// The keys of the user's `cli-config.json` a run needs to know who is logged in (on macOS the
/// tokens are in the Keychain and the identity in this file). Anything else (`approvalMode`,
/// `permissions`, `sandbox`, keys a later release adds) could loosen the private rules.
pub const CARRIED_CONFIG_KEYS: &[&str] =
    &["version", "authInfo", "privacyCache", "serverConfigCache"];

/// The folders of Cursor's own bookkeeping the model may be told to Read: tool definitions and
/// results too big to inline, under `CURSOR_DATA_DIR/projects/<slug>/`.
pub const BOOKKEEPING_FOLDERS: &[&str] = &["agent-tools", "mcps"];

pub fn mcp_json(url: &str, token: &str) -> Value {
    json!({
        "mcpServers": {
            SERVER_NAME: { "url": url, "headers": { "Authorization": format!("Bearer {token}") } }
        }
    })
}

/// Cursor's permission rules: its own tools denied, the bridge allowed, and Read allowed in its
/// bookkeeping folders and in `readable` (the run's saved attachments) only. There is no
/// `Read(**)` deny: a deny outranks every allow. Reads elsewhere are refused by the hook, and
/// under a read boundary (`readBoundary: "workspace"`, 1.0.32) need an approval print mode
/// cannot give, which an explicit `Read(...)` allow rule spares the attachments.
pub fn cli_json(data: &Path, readable: Option<&Path>) -> Value {
    let data = data.to_string_lossy();
    let mut allow = vec![format!("Mcp({SERVER_NAME}:*)")];
    allow.extend(
        BOOKKEEPING_FOLDERS
            .iter()
            .map(|folder| format!("Read({data}/projects/*/{folder}/**)")),
    );
    allow.extend(readable.map(|folder| format!("Read({}/**)", folder.to_string_lossy())));
    json!({
        "permissions": {
            "allow": allow,
            "deny": ["Shell(*)", "Write(**)", "WebFetch(*)"],
        }
    })
}

/// `hooks.json` running `script` before every tool and before every MCP call, failing closed.
pub fn hooks_json(script: &Path) -> Value {
    let hook = json!({ "command": script.to_string_lossy(), "timeout": 10, "failClosed": true });
    json!({
        "version": 1,
        "hooks": { "preToolUse": [hook.clone()], "beforeMCPExecution": [hook] }
    })
}

/// The user's `cli-config.json` reduced to [`CARRIED_CONFIG_KEYS`] (`{}` when it is missing or
/// is not a JSON object).
pub fn carried_cli_config(user: Option<&[u8]>) -> Value {
    let found: Map<String, Value> = user
        .and_then(|bytes| serde_json::from_slice::<Map<String, Value>>(bytes).ok())
        .unwrap_or_default();
    Value::Object(
        found
            .into_iter()
            .filter(|(key, _)| CARRIED_CONFIG_KEYS.contains(&key.as_str()))
            .collect(),
    )
}

/// `text` as one single-quoted POSIX shell word.
fn shell_word(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The hook: `hook.sh`, a POSIX shell script whose JSON reader is awk, given its settings. Not a
/// program of ours (the host's runtime is OpenCode's) nor cursor-agent's own Node: that is known
/// only where the launcher resolves into a release folder, and would need a second reader for
/// the rest. `preToolUse`: calls to MCP tools, Cursor's lookup of them, and Read inside
/// `<data>/projects/<slug>/{agent-tools,mcps}/` or directly inside `readable` (the run's saved
/// attachments) pass; anything else, or anything unreadable, is denied. `beforeMCPExecution` (the
/// only hook told the server): the bridge alone passes.
pub fn hook_script(data: &Path, url: &str, readable: Option<&Path>) -> String {
    let folders = format!("/{}/", BOOKKEEPING_FOLDERS.join("/"));
    let settings = [
        ("OCN_DATA", data.to_string_lossy()),
        (
            "OCN_ATTACHMENTS",
            readable.map(Path::to_string_lossy).unwrap_or_default(),
        ),
        ("OCN_SERVER", SERVER_NAME.into()),
        ("OCN_URL", url.into()),
        ("OCN_FOLDERS", folders.into()),
    ];
    let settings = settings.map(|(name, value)| format!("{name}={}\n", shell_word(&value)));
    include_str!("hook.sh").replacen("@SETTINGS@\n", &settings.concat(), 1)
}

#[cfg(all(test, unix))]
mod tests;
