//! A captured run: its capture file opened with the start line (and the transformer's tap) when
//! the child starts, and closed with the end line when the run is over.

use std::ffi::OsString;

use super::preparation::child_vars;
use super::{EnvVars, Launcher, Run};
use crate::core::capture::record::AgentVersionRecord;
use crate::core::capture::{Capture, EndInfo, StartInfo};

impl Run {
    /// With a capture asked for: the capture file and its start line, and the transformer's tap.
    pub(super) fn open_capture(
        &mut self,
        args: &[OsString],
        launcher: Option<&Launcher>,
        agent_version: Option<&str>,
        env: Option<&EnvVars>,
    ) {
        let (Some(options), Some(name)) = (&self.options.capture, self.options.capture_name())
        else {
            return;
        };
        let Some(capture) = Capture::create(options, name) else {
            return;
        };
        let program = match launcher {
            Some(launcher) => launcher.program.as_os_str().to_owned(),
            None => OsString::from(self.options.executable.as_deref().unwrap_or("cursor-agent")),
        };
        let leading = launcher
            .map(|l| l.leading_args.as_slice())
            .unwrap_or_default();
        let argv = std::iter::once(&program)
            .chain(leading)
            .chain(args)
            .map(|arg| arg.to_string_lossy().into_owned())
            .collect();
        let vars = child_vars(env);
        let secrets = self
            .bridge
            .iter()
            .map(|bridge| ("tool bridge token", bridge.token()))
            .collect();
        capture.start(StartInfo {
            argv,
            workspace: self.options.workspace_dir(),
            env: vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect(),
            prompt: &self.options.prompt,
            transformer: self.transformer.options(),
            resume_chat_id: self.options.resume_chat_id.as_deref(),
            host_tools: self
                .options
                .host_tools
                .as_ref()
                .map(|h| h.tools.iter().map(|t| t.name.clone()).collect()),
            agent_version: agent_version.map(AgentVersionRecord::from_path),
            secrets,
        });
        self.transformer.set_tap(capture.tap());
        self.capture = Some(capture);
    }

    /// The capture's end line (with the outputs delivered so far); returns the capture's name.
    pub(super) fn end_capture(&mut self, info: EndInfo<'_>) -> Option<String> {
        let capture = self.capture.take()?;
        capture.end(EndInfo {
            delivered: self.delivered,
            agent_version: self
                .transformer
                .agent_version()
                .map(AgentVersionRecord::from_init),
            ..info
        });
        Some(capture.name().to_owned())
    }
}
