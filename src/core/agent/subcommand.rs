//! One of cursor-agent's own commands (`models`, `--version`, `status`, `mcp list-tools
//! <server>`): started and cleaned up like a run, its stdout capped and read without stalling,
//! within a time limit. With host tools, the command sees the tool bridge as a run would:
//! the bridge serves while it runs, and it works in the conversation's private folder.

use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::process::ChildStdout;

use super::bridged;
use super::child::{start_agent, sweep, RunContext, Started};
use super::options::{check_lookup, EnvVars, HostTools};
use super::process;
use super::stderr_tail::StderrTail;
use crate::core::bridge::workspace::layout;
use crate::core::error::{CoreError, ErrorCode};
use crate::core::failure::duration::readable_duration;

/// What of a command's stdout is read; the rest is read and dropped.
pub const MAX_SUBCOMMAND_OUTPUT_BYTES: usize = 4 * 1024 * 1024;
/// Default of [`Subcommand::timeout`] (`models` and `status` ask Cursor's servers).
pub const DEFAULT_SUBCOMMAND_TIMEOUT: Duration = Duration::from_secs(30);

/// A cursor-agent command to run.
#[derive(Debug, Clone)]
pub struct Subcommand {
    /// The arguments after the launcher's own, e.g. `["mcp", "list-tools", "opencode"]`.
    pub args: Vec<String>,
    /// As [`super::RunRequest::executable`].
    pub executable: Option<String>,
    /// The child's complete environment; `None` inherits the host's.
    pub env: Option<EnvVars>,
    /// Serve these tools while the command runs, and run it in their private folder's
    /// workspace with the private `HOME`, as a run with host tools is.
    pub host_tools: Option<HostTools>,
    /// Past this the command is stopped with `E_TIMEOUT`.
    pub timeout: Duration,
}

impl Subcommand {
    pub fn new<S: Into<String>>(args: impl IntoIterator<Item = S>) -> Self {
        Self {
            args: args.into_iter().map(Into::into).collect(),
            executable: None,
            env: None,
            host_tools: None,
            timeout: DEFAULT_SUBCOMMAND_TIMEOUT,
        }
    }

    /// What can be checked before starting; every refusal is `E_INVALID_ARG`.
    pub fn check(&self) -> Result<(), CoreError> {
        check_lookup(self.executable.as_deref(), self.env.as_ref())?;
        if self.args.is_empty() {
            return Err(CoreError::invalid_arg(
                "args must name a cursor-agent command",
            ));
        }
        if self.args.iter().any(|arg| arg.contains('\0')) {
            return Err(CoreError::invalid_arg(
                "args must not contain NUL characters",
            ));
        }
        if let Some(host) = &self.host_tools {
            host.check()?;
        }
        Ok(())
    }
}

/// How a command ended and what it printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubcommandOutput {
    pub exit_code: Option<i32>,
    /// e.g. `SIGKILL`.
    pub signal: Option<String>,
    /// At most [`MAX_SUBCOMMAND_OUTPUT_BYTES`], invalid UTF-8 replaced.
    pub stdout: String,
    /// Its last 64 KiB.
    pub stderr: String,
}

impl SubcommandOutput {
    pub fn success(&self) -> bool {
        self.exit_code == Some(0)
    }
}

/// Run the command to its end. Fails only when it cannot start (`E_AGENT_NOT_FOUND`,
/// `E_AGENT_EXIT`), its private folder cannot be prepared, or it outlives its time limit
/// (`E_TIMEOUT`); a non-zero exit is reported in the output, for the caller to judge.
pub async fn run_subcommand(
    command: Subcommand,
    ctx: RunContext,
) -> Result<SubcommandOutput, CoreError> {
    command.check()?;
    let name = command.args.join(" ");
    // Kept until the command has ended: dropping it stops the server.
    let (_bridge, env, cwd) = match &command.host_tools {
        Some(host) => {
            let (bridge, env) = bridged::open(host, command.env.as_ref(), None).await?;
            let workspace: PathBuf = layout(host.folder.as_ref()).workspace;
            (Some(bridge), Some(env), Some(workspace))
        }
        None => (None, command.env.clone(), None),
    };
    let Started {
        mut child,
        group,
        registration,
        ..
    } = start_agent(
        command.executable.as_deref(),
        command.env.as_ref(),
        env.as_ref(),
        command.args.iter().map(Into::into).collect(),
        Stdio::null(),
        cwd.as_deref(),
        &ctx,
    )
    .await?;

    let stderr_tail = StderrTail::spawn(&ctx.runtime, child.stderr.take());
    let mut stdout = child.stdout.take();
    let collect = async {
        let out = match stdout.as_mut() {
            Some(stdout) => read_capped(stdout, &name).await,
            None => Vec::new(),
        };
        (out, child.wait().await)
    };
    let Ok((out, status)) = tokio::time::timeout(command.timeout, collect).await else {
        if let Some(group) = group {
            group.kill();
        }
        let _ = child.start_kill();
        let _ = child.wait().await;
        sweep(&ctx.runtime, group, registration);
        return Err(CoreError::new(
            ErrorCode::Timeout,
            format!(
                "`cursor-agent {name}` did not finish within {}",
                readable_duration(command.timeout)
            ),
        ));
    };
    sweep(&ctx.runtime, group, registration);
    let stderr = stderr_tail.finish().await;
    let status: ExitStatus = status.map_err(|e| {
        CoreError::new(
            ErrorCode::AgentExit,
            format!("waiting for cursor-agent: {e}"),
        )
    })?;
    Ok(SubcommandOutput {
        exit_code: status.code(),
        signal: process::exit_signal(&status),
        stdout: String::from_utf8_lossy(&out).into_owned(),
        stderr,
    })
}

/// At most [`MAX_SUBCOMMAND_OUTPUT_BYTES`] of `stdout`, all of which is read: past the cap the
/// rest is read and dropped, since a child blocked on a full pipe would never exit.
async fn read_capped(stdout: &mut ChildStdout, name: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let _ = stdout
        .take(MAX_SUBCOMMAND_OUTPUT_BYTES as u64)
        .read_to_end(&mut out)
        .await;
    let dropped = tokio::io::copy(stdout, &mut tokio::io::sink()).await;
    if let Ok(dropped @ 1..) = dropped {
        tracing::warn!(
            dropped,
            "`cursor-agent {name}` printed more than {MAX_SUBCOMMAND_OUTPUT_BYTES} bytes; \
             the rest was ignored"
        );
    }
    out
}

#[cfg(test)]
mod tests {
    /// Where Cursor's installer puts it, `~/.local/bin`, off `PATH`: found for a command in the
    /// private folder too, whose `HOME` is not the user's; the child still gets the private one.
    #[cfg(unix)]
    #[tokio::test]
    async fn the_agent_is_found_in_the_users_home_not_the_private_one() {
        use super::*;
        use std::os::unix::fs::PermissionsExt;
        let root = std::env::temp_dir().join(format!("ocn-subcommand-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let bin = root.join("me/.local/bin");
        std::fs::create_dir_all(&bin).unwrap();
        let agent = bin.join("cursor-agent");
        std::fs::write(&agent, "#!/bin/sh\nprintf '%s' \"$HOME\"\n").unwrap();
        std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755)).unwrap();
        let home = root.join("me").to_string_lossy().into_owned();
        let env: EnvVars = [("HOME", home.as_str()), ("PATH", "/usr/bin:/bin")]
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .into();
        let folder = root.join("conversation");
        let mut command = Subcommand::new(["status"]);
        command.env = Some(env);
        command.host_tools = Some(HostTools::new(Vec::new(), folder.to_string_lossy()));
        let ctx = RunContext {
            runtime: tokio::runtime::Handle::current(),
            owner: 0,
        };
        let ran = run_subcommand(command, ctx).await.unwrap();
        assert!(ran.success(), "{ran:?}");
        assert_eq!(ran.stdout, folder.join("home").to_string_lossy());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
