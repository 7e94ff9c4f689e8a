//! cursor-agent itself: where to look for it and what was found, the models it offers, and one
//! of its other commands with what it printed.

use std::collections::HashMap;
use std::time::Duration;

use crate::core::agent::options::{check_lookup, HostTools};
use crate::core::agent::resolve::launcher_version;
use crate::core::agent::{ModelInfo, Resolution, Subcommand, SubcommandOutput};
use crate::core::api::run::HostToolsOptions;
use crate::core::error::CoreError;
use crate::core::whole_number::Positive;
use crate::core::wire::wire_struct;

wire_struct! {
    /// Where to look for cursor-agent; any other field is refused.
    pub struct CursorAgentLookupOptions as named (derive(serde::Deserialize, Default), serde(deny_unknown_fields)) {
        /// Tried first: a path, or a name looked up on `PATH`. Default none.
        executable "executable": Option<String>,
        /// Supplies `PATH`, `HOME` (and `LOCALAPPDATA` on Windows); for `listCursorModels` also
        /// the child's complete environment. Default: the host's environment.
        env "env": Option<HashMap<String, String>>,
    }
}

impl CursorAgentLookupOptions {
    /// The options, once they cannot reach a command line or an environment with a NUL.
    pub fn checked(self) -> Result<Self, CoreError> {
        check_lookup(self.executable.as_deref(), self.env.as_ref())?;
        Ok(self)
    }
}

wire_struct! {
    /// The binary found (or not) and every place looked at, in order.
    pub struct CursorAgentResolution as named (derive(serde::Serialize)) {
        /// Absent when not found.
        path "path": Option<String>,
        /// The version the binary's folder names once links are followed
        /// (`…/cursor-agent/versions/<version>/…`, where Cursor's installer puts each release);
        /// absent when it lies in no such folder.
        version "version": Option<String>,
        tried "tried": Vec<String>,
    }
}

impl From<Resolution> for CursorAgentResolution {
    fn from(resolution: Resolution) -> Self {
        Self {
            version: resolution.launcher.as_ref().and_then(launcher_version),
            path: resolution
                .launcher
                .map(|l| l.program.to_string_lossy().into_owned()),
            tried: resolution.tried,
        }
    }
}

wire_struct! {
    /// A model the Cursor account can use. `cursor-agent models` prints only ids and labels;
    /// the limits and `reasoning` come from a maintained table of Cursor's models (Cursor's
    /// documented 200k window outside Max Mode, the vendors' output limits), the window a label
    /// names (`1M` in `GPT-5.5 1M High`), and for unknown ids a 128k window, 32k output and no
    /// `reasoning`.
    pub struct CursorModel as named (derive(serde::Serialize)) {
        /// What `--model` takes, e.g. `gpt-5.5-high`.
        id "id": String,
        /// Cursor's label, e.g. `GPT-5.5 1M High`.
        name "name": String,
        /// The tokens one request may hold, prompt and answer together, e.g. `200000`.
        context_window "contextWindow": u32,
        /// The most tokens one answer may have, e.g. `128000`.
        max_output_tokens "maxOutputTokens": u32,
        /// Whether Cursor streams the model's thinking before its answer.
        reasoning "reasoning": bool,
        /// Whether the model sees pictures (an attached one is saved for Cursor's Read tool),
        /// by its family as its vendor documents it; `false` for `auto`, Composer and ids the
        /// table does not know.
        pictures "pictures": bool,
    }
}

impl From<ModelInfo> for CursorModel {
    fn from(model: ModelInfo) -> Self {
        Self {
            id: model.id,
            name: model.name,
            context_window: model.spec.context_window,
            max_output_tokens: model.spec.max_output_tokens,
            reasoning: model.spec.reasoning,
            pictures: model.spec.pictures,
        }
    }
}

wire_struct! {
    /// Options of `runCursorAgentCommand`; any other field is refused.
    pub struct CursorAgentCommandOptions as named (derive(serde::Deserialize), serde(deny_unknown_fields)) {
        /// cursor-agent's arguments, e.g. `['--version']` or `['mcp', 'list-tools',
        /// 'opencode']`. Required, not empty.
        args "args": Vec<String>,
        /// As `RunCursorAgentOptions.executable`. Default: resolved as `resolveCursorAgent`
        /// does.
        executable "executable": Option<String>,
        /// The child's complete environment. Default: the host's environment.
        env "env": Option<HashMap<String, String>>,
        /// Serve these tools while the command runs, and run it where a run with these host
        /// tools would run (`<folder>/workspace`, the private `HOME`): what `mcp list-tools
        /// opencode` needs to see the bridge. `waitMs` and `quietMs` do not apply. Default none.
        host_tools "hostTools": Option<HostToolsOptions>,
        /// Stop the command with `E_TIMEOUT` after this long. From 1 to 2^53 - 1; default
        /// 30000.
        timeout_ms "timeoutMs": Option<Positive>,
    }
}

impl TryFrom<CursorAgentCommandOptions> for Subcommand {
    type Error = CoreError;

    /// The command, once checked.
    fn try_from(options: CursorAgentCommandOptions) -> Result<Self, CoreError> {
        let mut command = Subcommand::new(options.args);
        command.executable = options.executable;
        command.env = options.env;
        command.host_tools = options.host_tools.map(HostTools::try_from).transpose()?;
        if let Some(ms) = options.timeout_ms {
            command.timeout = Duration::from_millis(ms.unsigned());
        }
        command.check()?;
        Ok(command)
    }
}

wire_struct! {
    /// How a cursor-agent command ended and what it printed.
    pub struct CursorAgentCommandResult as named (derive(serde::Serialize)) {
        /// Absent when a signal ended it.
        exit_code "exitCode": Option<i32>,
        /// e.g. `'SIGKILL'`.
        signal "signal": Option<String>,
        /// At most 4 MiB (the rest is read and dropped), invalid UTF-8 replaced.
        stdout "stdout": String,
        /// Its last 64 KiB.
        stderr "stderr": String,
    }
}

impl From<SubcommandOutput> for CursorAgentCommandResult {
    fn from(output: SubcommandOutput) -> Self {
        Self {
            exit_code: output.exit_code,
            signal: output.signal,
            stdout: output.stdout,
            stderr: output.stderr,
        }
    }
}
