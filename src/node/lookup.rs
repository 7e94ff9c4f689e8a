//! `resolveCursorAgent` and `listCursorModels`: where cursor-agent is, and what it offers.

use std::collections::HashMap;

use napi::bindgen_prelude::{Env, PromiseRaw};
use napi::{JsError, Unknown};
use napi_derive::napi;

use super::error_code::{from_napi, to_js_error, Result};
use super::options::Options;
use super::run::run_context;
use crate::core::agent::{self, EnvVars};

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
    Ok((options.string("executable")?, options.string_map("env")?))
}

/// A model the Cursor account can use.
#[napi(object)]
pub struct CursorModel {
    /// What `--model` takes, e.g. `gpt-5.5-high`.
    pub id: String,
    /// Cursor's label, e.g. `GPT-5.5 1M High`.
    pub name: String,
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
            Ok(models) => Ok(models
                .into_iter()
                .map(|m| CursorModel {
                    id: m.id,
                    name: m.name,
                })
                .collect()),
            Err(error) => {
                let js_error = JsError::from(to_js_error(error)).into_unknown(*env);
                Err(napi::Error::from(js_error))
            }
        },
    )
    .map_err(from_napi)
}
