//! A run with host tools: its bridge, its private folder, and the environment that points the
//! child there.

use std::path::{Path, PathBuf};

use crate::core::agent::options::{EnvVars, HostTools};
use crate::core::bridge::workspace::prepare;
use crate::core::bridge::ToolBridge;
use crate::core::error::{CoreError, ErrorCode};

/// Start the bridge and prepare the private folder. The child's environment (`env`, else the
/// host's) then has `HOME` and `CURSOR_DATA_DIR` in the folder, while `CURSOR_CONFIG_DIR`
/// stays the user's (where Cursor keeps the login) unless `env` sets it.
pub(crate) async fn open(
    host: &HostTools,
    env: Option<&EnvVars>,
) -> Result<(ToolBridge, EnvVars), CoreError> {
    let bridge = ToolBridge::start(host.tools.clone()).await?;
    let folder = PathBuf::from(&host.folder);
    let (url, token) = (bridge.url().to_owned(), bridge.token().to_owned());
    let private = tokio::task::spawn_blocking(move || prepare(&folder, &url, &token))
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
    let mut env: EnvVars = match env {
        Some(env) => env.clone(),
        None => std::env::vars().collect(),
    };
    if !env.contains_key("CURSOR_CONFIG_DIR") {
        let user_home = env.get("HOME").or_else(|| env.get("USERPROFILE")).cloned();
        if let Some(home) = user_home {
            let config = Path::new(&home).join(".cursor");
            env.insert(
                "CURSOR_CONFIG_DIR".into(),
                config.to_string_lossy().into_owned(),
            );
        }
    }
    let home = private.home.to_string_lossy().into_owned();
    if cfg!(windows) {
        env.insert("USERPROFILE".into(), home.clone());
    }
    env.insert("HOME".into(), home);
    env.insert(
        "CURSOR_DATA_DIR".into(),
        private.data.to_string_lossy().into_owned(),
    );
    tracing::debug!(url = bridge.url(), folder = %host.folder, tools = host.tools.len(), "tool bridge listening");
    Ok((bridge, env))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_child_lives_in_the_folder_but_keeps_the_users_login() {
        let root = std::env::temp_dir().join(format!("ocn-bridged-{}", std::process::id()));
        let folder = root.join("conversation");
        let host = HostTools::new(Vec::new(), folder.to_string_lossy());
        let user: EnvVars = [("HOME", "/home/me"), ("PATH", "/usr/bin")]
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .into();
        let (bridge, env) = open(&host, Some(&user)).await.unwrap();
        assert_eq!(env["HOME"], folder.join("home").to_string_lossy());
        assert_eq!(
            env["CURSOR_DATA_DIR"],
            folder.join("cursor-data").to_string_lossy()
        );
        assert_eq!(
            env["CURSOR_CONFIG_DIR"],
            Path::new("/home/me/.cursor").to_string_lossy()
        );
        assert_eq!(env["PATH"], "/usr/bin");
        assert!(bridge.url().starts_with("http://127.0.0.1:"));
        let mut chosen = user.clone();
        chosen.insert("CURSOR_CONFIG_DIR".into(), "/elsewhere".into());
        let (_bridge, env) = open(&host, Some(&chosen)).await.unwrap();
        assert_eq!(
            env["CURSOR_CONFIG_DIR"], "/elsewhere",
            "the caller's choice stands"
        );
        drop(bridge);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
