//! `resolveCursorAgent`, `listCursorModels` and `describeCursorModel`: where cursor-agent is,
//! what it offers, and what is known about each model.

use std::collections::HashMap;

use napi::bindgen_prelude::{Env, PromiseRaw};
use napi::{Unknown, ValueType};
use napi_derive::napi;

use super::error_code::{from_napi, invalid_arg, rejection, to_js_error, Result};
use super::init::run_context;
use super::options::{argument, Options};
use crate::core::agent::{self, EnvVars, ModelInfo};

/// Where to look for cursor-agent.
#[allow(
    dead_code,
    reason = "declares the TypeScript shape; the options are read field by field"
)]
#[napi(object)]
pub struct CursorAgentLookupOptions {
    /// Tried first: a path, or a name looked up on `PATH`. Default none.
    pub executable: Option<String>,
    /// Supplies `PATH`, `HOME` (and `LOCALAPPDATA` on Windows); for `listCursorModels` also the
    /// child's complete environment. Default: the host's environment.
    pub env: Option<HashMap<String, String>>,
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
pub fn resolve_cursor_agent(options: Option<Unknown>) -> Result<CursorAgentResolution> {
    let (executable, env) = read_lookup(options)?;
    let resolution = agent::resolve_agent(executable.as_deref(), env.as_ref());
    Ok(CursorAgentResolution {
        path: resolution
            .launcher
            .map(|l| l.program.to_string_lossy().into_owned()),
        tried: resolution.tried,
    })
}

/// `executable` and `env` of a lookup.
fn read_lookup(options: Option<Unknown<'_>>) -> Result<(Option<String>, Option<EnvVars>)> {
    let options = Options::new(options, "the lookup options")?;
    let (executable, env) = (options.string("executable")?, options.string_map("env")?);
    agent::options::check_lookup(executable.as_deref(), env.as_ref()).map_err(to_js_error)?;
    Ok((executable, env))
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
pub fn describe_cursor_model(id: Option<Unknown>, name: Option<Unknown>) -> Result<CursorModel> {
    let id: String = argument(id, ValueType::String, "the model id", "a string")?
        .filter(|id: &String| !id.trim().is_empty())
        .ok_or_else(|| invalid_arg("the model id must be a non-empty string"))?;
    let name: Option<String> = argument(name, ValueType::String, "the model name", "a string")?;
    let name = name
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
    let (executable, vars) = read_lookup(options)?;
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
