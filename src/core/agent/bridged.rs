//! A run with host tools: its bridge, its private folder, and the environment that points the
//! child there.
//!
//! The child's environment, decided together so the login is found and nothing of the user's own
//! Cursor configuration can loosen the private folder's rules:
//!
//! | variable | value | why |
//! | --- | --- | --- |
//! | `HOME` (`USERPROFILE` on Windows) | `<folder>/home` | Cursor reads `$HOME/.cursor/{mcp,hooks}.json`: only ours |
//! | `CURSOR_DATA_DIR` | `<folder>/cursor-data` | approvals, chats and big results stay private |
//! | `CURSOR_CONFIG_DIR` | `<folder>/config` | `cli-config.json` (approval mode, permissions, sandbox) is ours: only the login identity is carried from the user's |
//! | `XDG_CONFIG_HOME` | the user's, else `<real HOME>/.config` | Linux keeps `cursor-agent login` in `$XDG_CONFIG_HOME/cursor/auth.json`, which the private `HOME` would hide |
//!
//! On macOS the login's tokens are in the Keychain (service `cursor-access-token`, account
//! `cursor-user`), found through the user's login session, not through any of these variables;
//! `USER`, `LOGNAME` and `TMPDIR` are left as they are.

use std::path::{Path, PathBuf};

use crate::core::agent::options::{EnvVars, HostTools};
use crate::core::bridge::workspace::{prepare, write_instructions};
use crate::core::bridge::ToolBridge;
use crate::core::error::{CoreError, ErrorCode};

/// A variable of `env` that is set and not empty.
fn set<'a>(env: &'a EnvVars, name: &str) -> Option<&'a str> {
    env.get(name).map(String::as_str).filter(|v| !v.is_empty())
}

/// The user's real home folder, from their own environment.
fn real_home(env: &EnvVars) -> Option<&str> {
    set(env, "HOME").or_else(|| set(env, "USERPROFILE"))
}

/// The folder the user's own cursor-agent reads `cli-config.json` from: `CURSOR_CONFIG_DIR`,
/// else (Linux) `$XDG_CONFIG_HOME/cursor` when that is set, else `~/.cursor`.
pub(crate) fn user_config_dir(env: &EnvVars) -> Option<PathBuf> {
    if let Some(dir) = set(env, "CURSOR_CONFIG_DIR") {
        return Some(PathBuf::from(dir));
    }
    if cfg!(all(unix, not(target_os = "macos"))) {
        if let Some(xdg) = set(env, "XDG_CONFIG_HOME") {
            return Some(Path::new(xdg).join("cursor"));
        }
    }
    real_home(env).map(|home| Path::new(home).join(".cursor"))
}

/// The user's environment turned into the child's (see the table above).
pub(crate) fn child_env(
    mut env: EnvVars,
    private: &crate::core::bridge::workspace::PrivateWorkspace,
) -> EnvVars {
    if cfg!(unix) && set(&env, "XDG_CONFIG_HOME").is_none() {
        if let Some(home) = real_home(&env) {
            let config = Path::new(home).join(".config");
            env.insert(
                "XDG_CONFIG_HOME".into(),
                config.to_string_lossy().into_owned(),
            );
        }
    }
    let path = |p: &Path| p.to_string_lossy().into_owned();
    if cfg!(windows) {
        env.insert("USERPROFILE".into(), path(&private.home));
    }
    env.insert("HOME".into(), path(&private.home));
    env.insert("CURSOR_CONFIG_DIR".into(), path(&private.config));
    env.insert("CURSOR_DATA_DIR".into(), path(&private.data));
    env
}

/// Start the bridge and prepare the private folder; the child's environment is the user's
/// (`env`, else the host's) pointed into it. Cursor may also Read inside `readable` (the run's
/// saved attachments).
pub(crate) async fn open(
    host: &HostTools,
    env: Option<&EnvVars>,
    readable: Option<&Path>,
) -> Result<(ToolBridge, EnvVars), CoreError> {
    let bridge = ToolBridge::start(host.tools.clone()).await?;
    let folder = PathBuf::from(&host.folder);
    let env: EnvVars = match env {
        Some(env) => env.clone(),
        None => std::env::vars().collect(),
    };
    let user_config = user_config_dir(&env).map(|dir| dir.join("cli-config.json"));
    let (url, token) = (bridge.url().to_owned(), bridge.token().to_owned());
    let instructions = host.instructions.clone();
    let readable = readable.map(Path::to_owned);
    let private = tokio::task::spawn_blocking(move || {
        let private = prepare(
            &folder,
            &url,
            &token,
            user_config.as_deref(),
            readable.as_deref(),
        )?;
        write_instructions(&folder, instructions.as_deref())?;
        Ok::<_, std::io::Error>(private)
    })
    .await
    .map_err(|e| e.to_string())
    .and_then(|prepared| prepared.map_err(|e| e.to_string()))
    .map_err(|error| {
        CoreError::new(
            ErrorCode::AgentExit,
            format!(
                "The private folder {} for OpenCode's tools could not be prepared: {error}",
                host.folder
            ),
        )
    })?;
    tracing::debug!(url = bridge.url(), folder = %host.folder, tools = host.tools.len(), "tool bridge listening");
    Ok((bridge, child_env(env, &private)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> EnvVars {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[tokio::test]
    async fn the_child_lives_in_the_folder_but_finds_the_users_login() {
        let root = std::env::temp_dir().join(format!("ocn-bridged-{}", std::process::id()));
        let folder = root.join("conversation");
        let host = HostTools::new(Vec::new(), folder.to_string_lossy());
        let user = vars(&[("HOME", "/home/me"), ("PATH", "/usr/bin")]);
        let (bridge, env) = open(&host, Some(&user), None).await.unwrap();
        let at = |p: &str| folder.join(p).to_string_lossy().into_owned();
        assert_eq!(env["HOME"], at("home"));
        assert_eq!(env["CURSOR_DATA_DIR"], at("cursor-data"));
        assert_eq!(
            env["CURSOR_CONFIG_DIR"],
            at("config"),
            "the user's approval mode is not read"
        );
        #[cfg(unix)]
        assert_eq!(
            env["XDG_CONFIG_HOME"], "/home/me/.config",
            "a Linux login is found there"
        );
        assert_eq!(env["PATH"], "/usr/bin");
        assert!(bridge.url().starts_with("http://127.0.0.1:"));
        let mut chosen = user.clone();
        chosen.insert("XDG_CONFIG_HOME".into(), "/elsewhere".into());
        chosen.insert("CURSOR_CONFIG_DIR".into(), "/mine".into());
        let (_bridge, env) = open(&host, Some(&chosen), None).await.unwrap();
        assert_eq!(
            env["XDG_CONFIG_HOME"], "/elsewhere",
            "the user's choice stands"
        );
        assert_eq!(env["CURSOR_CONFIG_DIR"], at("config"));
        drop(bridge);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn the_users_configuration_is_where_their_own_cursor_agent_reads_it() {
        type Row = (
            &'static [(&'static str, &'static str)],
            Option<&'static str>,
        );
        let table: &[Row] = &[
            (&[("HOME", "/h")], Some("/h/.cursor")),
            (&[("HOME", "/h"), ("CURSOR_CONFIG_DIR", "/c")], Some("/c")),
            (
                &[("HOME", "/h"), ("CURSOR_CONFIG_DIR", "")],
                Some("/h/.cursor"),
            ),
            #[cfg(all(unix, not(target_os = "macos")))]
            (
                &[("HOME", "/h"), ("XDG_CONFIG_HOME", "/x")],
                Some("/x/cursor"),
            ),
            (&[], None),
        ];
        for (pairs, expected) in table {
            assert_eq!(
                user_config_dir(&vars(pairs)),
                expected.map(PathBuf::from),
                "{pairs:?}"
            );
        }
    }
}
