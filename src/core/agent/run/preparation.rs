//! What a run prepares before its child starts: the tool bridge (with host tools) and the
//! secrets it hands the child, which mask what cursor-agent prints before it reaches an error
//! message or the log.

use std::path::Path;

use super::Run;
use crate::core::agent::bridged;
use crate::core::agent::options::EnvVars;
use crate::core::attachments::{remove_left_behind_once, AttachmentFolder, Planned};
use crate::core::error::{CoreError, ErrorCode};
use crate::core::secrets::{self, Secrets};

impl Run {
    /// Saves the attachments the prompt names (first removing those of hosts that are gone).
    pub(super) async fn save_attachments(&mut self) -> Result<(), CoreError> {
        let planned = self.options.take_attachments().filter(Planned::has_files);
        let saved = tokio::task::spawn_blocking(move || {
            remove_left_behind_once();
            planned
                .map(|planned| {
                    AttachmentFolder::create(Path::new(&planned.folder), &planned.files)
                        .map_err(|error| (planned.folder, error))
                })
                .transpose()
        })
        .await
        .map_err(|error| CoreError::new(ErrorCode::AgentExit, error.to_string()))?;
        self.attachments = saved.map_err(|(folder, error)| {
            CoreError::new(
                ErrorCode::AgentExit,
                format!("The attachments could not be saved in {folder} for Cursor: {error}"),
            )
        })?;
        Ok(())
    }

    /// With host tools: the bridge is started (and kept for the run) and the child's
    /// environment returned.
    pub(super) async fn open_bridge(&mut self) -> Result<Option<EnvVars>, CoreError> {
        let Some(host) = &self.options.host_tools else {
            return Ok(None);
        };
        let readable = self.attachments.as_ref().map(|a| a.path().to_owned());
        let (bridge, env) =
            bridged::open(host, self.options.env.as_ref(), readable.as_deref()).await?;
        bridge.set_deadline(host.deadline);
        self.bridge = Some(bridge);
        Ok(Some(env))
    }

    /// The secrets the child is given (its environment, the bridge's token), so that the log
    /// and error messages mask them wherever cursor-agent repeats them.
    pub(super) fn remember_secrets(&mut self, env: Option<&EnvVars>) {
        let mut own = Secrets::default();
        let vars = child_vars(env);
        own.add_vars(vars.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        if let Some(bridge) = &self.bridge {
            own.add("tool bridge token", bridge.token());
        }
        // The log is written from anywhere in the process: it masks every run's secrets.
        secrets::remember(&own);
        self.secrets = own;
    }
}

/// The child's variables: `env` when the caller gave one, else the host's, in their order.
pub(super) fn child_vars(env: Option<&EnvVars>) -> Vec<(String, String)> {
    match env {
        Some(env) => env.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        None => std::env::vars().collect(),
    }
}
