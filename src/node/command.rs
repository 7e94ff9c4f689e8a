//! `runCursorAgentCommand`: one of cursor-agent's own commands (`--version`, `status`, `mcp
//! list-tools <server>`, ...), its output captured.

use std::time::Duration;

use napi::bindgen_prelude::{Env, PromiseRaw};
use napi::Unknown;
use napi_derive::napi;

use super::error_code::{from_napi, invalid_arg, rejection, to_js_error, Result};
use super::init::run_context;
use super::options::{Options, MAX_SAFE_INTEGER};
use super::run::{read_host_tools, HostToolsOptions};
use crate::core::agent::{self, Subcommand, SubcommandOutput};

/// Options of `runCursorAgentCommand`.
#[allow(
    dead_code,
    reason = "declares the TypeScript shape; the options are read field by field"
)]
#[napi(object)]
pub struct CursorAgentCommandOptions {
    /// cursor-agent's arguments, e.g. `['--version']` or `['mcp', 'list-tools', 'opencode']`.
    /// Required, not empty.
    pub args: Vec<String>,
    /// As `RunCursorAgentOptions.executable`. Default: resolved as `resolveCursorAgent` does.
    pub executable: Option<String>,
    /// The child's complete environment. Default: the host's environment.
    pub env: Option<std::collections::HashMap<String, String>>,
    /// Serve these tools while the command runs, and run it where a run with these host tools
    /// would run (`<folder>/workspace`, the private `HOME`): what `mcp list-tools opencode`
    /// needs to see the bridge. `waitMs` and `quietMs` do not apply. Default none.
    pub host_tools: Option<HostToolsOptions>,
    /// Stop the command with `E_TIMEOUT` after this long. From 1 to 2^53 - 1; default 30000.
    pub timeout_ms: Option<f64>,
}

/// How a cursor-agent command ended and what it printed.
#[napi(object)]
pub struct CursorAgentCommandResult {
    /// Absent when a signal ended it.
    pub exit_code: Option<i32>,
    /// e.g. `'SIGKILL'`.
    pub signal: Option<String>,
    /// At most 4 MiB (the rest is read and dropped), invalid UTF-8 replaced.
    pub stdout: String,
    /// Its last 64 KiB.
    pub stderr: String,
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

/// Run one of cursor-agent's commands other than a prompt, in its own process group like a
/// run, and resolve with its exit and output, a non-zero exit included. Rejects with
/// `E_AGENT_NOT_FOUND` or `E_AGENT_EXIT` when it cannot start, `E_TIMEOUT` past `timeoutMs`
/// (the group is killed), and throws `E_INVALID_ARG` for bad options.
#[napi(
    catch_unwind,
    ts_args_type = "options: CursorAgentCommandOptions",
    ts_return_type = "Promise<CursorAgentCommandResult>"
)]
pub fn run_cursor_agent_command<'env>(
    env: &'env Env,
    options: Option<Unknown>,
) -> Result<PromiseRaw<'env, CursorAgentCommandResult>> {
    let options = Options::new(options, "the command options")?;
    let args = options
        .strings("args")?
        .ok_or_else(|| invalid_arg("`args` is required"))?;
    let mut command = Subcommand::new(args);
    command.executable = options.string("executable")?;
    command.env = options.string_map("env")?;
    command.host_tools = read_host_tools(env, &options)?;
    if let Some(ms) = options.whole_number("timeoutMs", 1..=MAX_SAFE_INTEGER)? {
        command.timeout = Duration::from_millis(ms.unsigned_abs());
    }
    command.check().map_err(to_js_error)?;
    let ctx = run_context(env);
    env.spawn_future_with_callback(
        async move { Ok(agent::run_subcommand(command, ctx).await) },
        |env, ran| match ran {
            Ok(output) => Ok(CursorAgentCommandResult::from(output)),
            Err(error) => Err(rejection(env, error)),
        },
    )
    .map_err(from_napi)
}
