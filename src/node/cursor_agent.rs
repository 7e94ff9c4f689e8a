//! cursor-agent itself: where it is (`resolveCursorAgent`), what models it offers
//! (`listCursorModels`, `describeCursorModel`), those models as families with variants
//! (`groupCursorModels`, `cursorModelToRun`), and its other commands (`runCursorAgentCommand`).

use napi::bindgen_prelude::{Env, PromiseRaw};
use napi::Unknown;
use napi_derive::napi;

use super::error::{from_napi, rejection, to_js_error, Result};
use super::init::run_context;
use super::output::Json;
use super::read::{read, read_optional};
use crate::core::agent::{self, ModelInfo, Subcommand};
use crate::core::api::agent::{
    CursorAgentCommandOptions, CursorAgentCommandResult, CursorAgentLookupOptions,
    CursorAgentResolution, CursorModel,
};
use crate::core::api::models::{model_families, model_to_run, CursorModelFamily, CursorModelName};
use crate::core::error::CoreError;

/// The lookup options of a call, checked.
fn lookup(env: &Env, options: Option<Unknown<'_>>) -> Result<CursorAgentLookupOptions> {
    read_optional::<CursorAgentLookupOptions>(env, options, "the lookup options")?
        .unwrap_or_default()
        .checked()
        .map_err(to_js_error)
}

/// Find cursor-agent: `executable`, then `cursor-agent` and `agent` on `PATH`,
/// `~/.local/bin/cursor-agent`, `~/.cursor-agent/cursor-agent`, and on Windows the newest
/// `versions/<v>/node.exe` under `%LOCALAPPDATA%/cursor-agent` (run with its `index.js`; the
/// `.cmd` shim cannot be started without a shell). The default lookup (no `executable`) is
/// cached, keyed by the `PATH`, `HOME` and `LOCALAPPDATA` it used.
#[napi(
    catch_unwind,
    ts_args_type = "options?: CursorAgentLookupOptions | undefined | null",
    ts_return_type = "CursorAgentResolution"
)]
pub fn resolve_cursor_agent(
    env: Env,
    options: Option<Unknown>,
) -> Result<Json<CursorAgentResolution>> {
    let options = lookup(&env, options)?;
    let resolution = agent::resolve_agent(options.executable.as_deref(), options.env.as_ref());
    Ok(Json(resolution.into()))
}

/// What `listCursorModels` would report for the model `id` labelled `name`, without asking
/// Cursor: for a model list kept from an earlier start, or one written by hand. `name` defaults to
/// the id (also when empty). Rejects an empty or missing `id` with `E_INVALID_ARG`.
#[napi(
    catch_unwind,
    ts_args_type = "id: string, name?: string | undefined | null",
    ts_return_type = "CursorModel"
)]
pub fn describe_cursor_model(
    env: Env,
    id: Option<Unknown>,
    name: Option<Unknown>,
) -> Result<Json<CursorModel>> {
    let id = read_optional(&env, id, "the model id")?;
    let name = read_optional(&env, name, "the model name")?;
    let model = ModelInfo::described(id, name).map_err(to_js_error)?;
    Ok(Json(model.into()))
}

/// Cursor's listed models as a picker shows them: one family per base with a variant per
/// effort, thinking and speed Cursor lists for it, by rule from the ids; an id that fits no
/// family alone and unchanged. Throws `E_INVALID_ARG` for a list that is not `{id, name}`s.
#[napi(
    catch_unwind,
    ts_args_type = "models: Array<CursorModelName>",
    ts_return_type = "Array<CursorModelFamily>"
)]
pub fn group_cursor_models(env: Env, models: Unknown) -> Result<Json<Vec<CursorModelFamily>>> {
    let listing: Vec<CursorModelName> = read(&env, models, "the models")?;
    Ok(Json(model_families(listing)))
}

/// The listed id a request for `model` runs among `models`: a family's id with an `effort`
/// (`low`, `medium`, `high`, `xhigh` or `extra-high`, `max`, ...) that Cursor lists for it
/// runs that rung; a family's id otherwise its default; any other name, every listed id among
/// them, as it is. Throws `E_INVALID_ARG` for bad arguments.
#[napi(
    catch_unwind,
    ts_args_type = "models: Array<CursorModelName>, model: string, effort?: string | undefined | null",
    ts_return_type = "string"
)]
pub fn cursor_model_to_run(
    env: Env,
    models: Unknown,
    model: Unknown,
    effort: Option<Unknown>,
) -> Result<String> {
    let listing: Vec<CursorModelName> = read(&env, models, "the models")?;
    let model: String = read(&env, model, "the model")?;
    let effort: Option<String> = read_optional(&env, effort, "the effort")?;
    Ok(model_to_run(listing, &model, effort.as_deref()))
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
) -> Result<PromiseRaw<'env, Json<Vec<CursorModel>>>> {
    let options = lookup(env, options)?;
    let listed = agent::list_models(options.executable, options.env, run_context(env));
    settled(env, listed, |models| {
        models.into_iter().map(CursorModel::from).collect()
    })
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
) -> Result<PromiseRaw<'env, Json<CursorAgentCommandResult>>> {
    let options: CursorAgentCommandOptions = read(env, options, "the command options")?;
    let command = Subcommand::try_from(options).map_err(to_js_error)?;
    let ran = agent::run_subcommand(command, run_context(env));
    settled(env, ran, CursorAgentCommandResult::from)
}

/// A promise of what `work` gives, as `into` writes it; rejected with the failure's code.
fn settled<'env, T: Send + 'static, W: serde::Serialize>(
    env: &'env Env,
    work: impl std::future::Future<Output = std::result::Result<T, CoreError>> + Send + 'static,
    into: impl FnOnce(T) -> W + 'static,
) -> Result<PromiseRaw<'env, Json<W>>> {
    env.spawn_future_with_callback(async move { Ok(work.await) }, |env, done| match done {
        Ok(value) => Ok(Json(into(value))),
        Err(error) => Err(rejection(env, error)),
    })
    .map_err(from_napi)
}
