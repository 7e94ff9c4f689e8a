//! cursor-agent itself: where it is (`resolveCursorAgent`), what models it offers
//! (`listCursorModels`, `describeCursorModel`), and its other commands (`runCursorAgentCommand`).

use std::collections::HashMap;
use std::time::Duration;

use napi::bindgen_prelude::{Env, PromiseRaw};
use napi::Unknown;
use napi_derive::napi;
use serde::Deserialize;

use super::error::{from_napi, invalid_arg, rejection, to_js_error, Result};
use super::init::run_context;
use super::read::{read, read_optional};
use super::run::HostToolsOptions;
use crate::core::agent::options::{check_lookup, HostTools};
use crate::core::agent::{self, ModelInfo, Subcommand, SubcommandOutput};
use crate::core::whole_number::Positive;

/// Where to look for cursor-agent; any other field is refused.
#[napi(object, object_from_js = false, object_to_js = false)]
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CursorAgentLookupOptions {
    /// Tried first: a path, or a name looked up on `PATH`. Default none.
    pub executable: Option<String>,
    /// Supplies `PATH`, `HOME` (and `LOCALAPPDATA` on Windows); for `listCursorModels` also the
    /// child's complete environment. Default: the host's environment.
    pub env: Option<HashMap<String, String>>,
}

impl CursorAgentLookupOptions {
    fn read(env: &Env, options: Option<Unknown<'_>>) -> Result<Self> {
        let options: Self = read_optional(env, options, "the lookup options")?.unwrap_or_default();
        check_lookup(options.executable.as_deref(), options.env.as_ref()).map_err(to_js_error)?;
        Ok(options)
    }
}

/// The binary found (or not) and every place looked at, in order.
#[napi(object)]
pub struct CursorAgentResolution {
    /// Absent when not found.
    pub path: Option<String>,
    pub tried: Vec<String>,
}

/// Find cursor-agent: `executable`, then `cursor-agent` and `agent` on `PATH`,
/// `~/.local/bin/cursor-agent`, `~/.cursor-agent/cursor-agent`, and on Windows the newest
/// `versions/<v>/node.exe` under `%LOCALAPPDATA%/cursor-agent` (run with its `index.js`; the
/// `.cmd` shim cannot be started without a shell). The default lookup (no `executable`) is
/// cached, keyed by the `PATH`, `HOME` and `LOCALAPPDATA` it used.
#[napi(
    catch_unwind,
    ts_args_type = "options?: CursorAgentLookupOptions | undefined | null"
)]
pub fn resolve_cursor_agent(env: Env, options: Option<Unknown>) -> Result<CursorAgentResolution> {
    let options = CursorAgentLookupOptions::read(&env, options)?;
    let resolution = agent::resolve_agent(options.executable.as_deref(), options.env.as_ref());
    Ok(CursorAgentResolution {
        path: resolution
            .launcher
            .map(|l| l.program.to_string_lossy().into_owned()),
        tried: resolution.tried,
    })
}

/// A model the Cursor account can use. `cursor-agent models` prints only ids and labels; the
/// limits and `reasoning` come from a maintained table of Cursor's models (Cursor's documented
/// 200k window outside Max Mode, the vendors' output limits), the window a label names (`1M` in
/// `GPT-5.5 1M High`), and for unknown ids a 128k window, 32k output and no `reasoning`.
#[napi(object)]
pub struct CursorModel {
    /// What `--model` takes, e.g. `gpt-5.5-high`.
    pub id: String,
    /// Cursor's label, e.g. `GPT-5.5 1M High`.
    pub name: String,
    /// The tokens one request may hold, prompt and answer together, e.g. `200000`.
    pub context_window: u32,
    /// The most tokens one answer may have, e.g. `128000`.
    pub max_output_tokens: u32,
    /// Whether Cursor streams the model's thinking before its answer.
    pub reasoning: bool,
}

impl From<ModelInfo> for CursorModel {
    fn from(model: ModelInfo) -> Self {
        Self {
            id: model.id,
            name: model.name,
            context_window: model.spec.context_window,
            max_output_tokens: model.spec.max_output_tokens,
            reasoning: model.spec.reasoning,
        }
    }
}

/// What `listCursorModels` would report for the model `id` labelled `name`, without asking
/// Cursor: for a model list kept from an earlier start, or one written by hand. `name` defaults to
/// the id (also when empty). Rejects an empty or missing `id` with `E_INVALID_ARG`.
#[napi(
    catch_unwind,
    ts_args_type = "id: string, name?: string | undefined | null"
)]
pub fn describe_cursor_model(
    env: Env,
    id: Option<Unknown>,
    name: Option<Unknown>,
) -> Result<CursorModel> {
    let id = read_optional::<String>(&env, id, "the model id")?
        .filter(|id| !id.trim().is_empty())
        .ok_or_else(|| invalid_arg("the model id must be a non-empty string"))?;
    let name = read_optional::<String>(&env, name, "the model name")?
        .filter(|name| !name.trim().is_empty())
        .unwrap_or_else(|| id.clone());
    Ok(ModelInfo::new(id, name).into())
}

/// Run `cursor-agent models` and parse its list. Resolves `[]` when Cursor says no models are
/// available; rejects with a stable `code` (`E_AGENT_NOT_FOUND`, `E_AUTH`, `E_TIMEOUT` after
/// 30 s, `E_AGENT_EXIT`, ...) when the command fails.
#[napi(
    catch_unwind,
    ts_args_type = "options?: CursorAgentLookupOptions | undefined | null",
    ts_return_type = "Promise<Array<CursorModel>>"
)]
pub fn list_cursor_models<'env>(
    env: &'env Env,
    options: Option<Unknown>,
) -> Result<PromiseRaw<'env, Vec<CursorModel>>> {
    let CursorAgentLookupOptions {
        executable,
        env: vars,
    } = CursorAgentLookupOptions::read(env, options)?;
    let ctx = run_context(env);
    env.spawn_future_with_callback(
        async move { Ok(agent::list_models(executable, vars, ctx).await) },
        |env, listed| match listed {
            Ok(models) => Ok(models.into_iter().map(CursorModel::from).collect()),
            Err(error) => Err(rejection(env, error)),
        },
    )
    .map_err(from_napi)
}

/// Options of `runCursorAgentCommand`; any other field is refused.
#[napi(object, object_from_js = false, object_to_js = false)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CursorAgentCommandOptions {
    /// cursor-agent's arguments, e.g. `['--version']` or `['mcp', 'list-tools', 'opencode']`.
    /// Required, not empty.
    pub args: Vec<String>,
    /// As `RunCursorAgentOptions.executable`. Default: resolved as `resolveCursorAgent` does.
    pub executable: Option<String>,
    /// The child's complete environment. Default: the host's environment.
    pub env: Option<HashMap<String, String>>,
    /// Serve these tools while the command runs, and run it where a run with these host tools
    /// would run (`<folder>/workspace`, the private `HOME`): what `mcp list-tools opencode`
    /// needs to see the bridge. `waitMs` and `quietMs` do not apply. Default none.
    pub host_tools: Option<HostToolsOptions>,
    /// Stop the command with `E_TIMEOUT` after this long. From 1 to 2^53 - 1; default 30000.
    #[napi(ts_type = "number")]
    pub timeout_ms: Option<Positive>,
}

impl TryFrom<CursorAgentCommandOptions> for Subcommand {
    type Error = napi::Error<super::error::Code>;

    fn try_from(options: CursorAgentCommandOptions) -> Result<Self> {
        let mut command = Subcommand::new(options.args);
        command.executable = options.executable;
        command.env = options.env;
        command.host_tools = options.host_tools.map(HostTools::try_from).transpose()?;
        if let Some(ms) = options.timeout_ms {
            command.timeout = Duration::from_millis(ms.unsigned());
        }
        Ok(command)
    }
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
    options: Unknown,
) -> Result<PromiseRaw<'env, CursorAgentCommandResult>> {
    let options: CursorAgentCommandOptions = read(env, options, "the command options")?;
    let command = Subcommand::try_from(options)?;
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
