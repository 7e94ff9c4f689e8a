//! Module initialisation: stop this environment's live children when the host exits.
//!
//! Env cleanup hooks do not run on `process.exit()` (in Node or Bun), so the addon adds its own
//! `process.once('exit', ...)` listener when it is loaded; it holds for any importer of the
//! package. The listener SIGKILLs the process group of every child still running.

use napi::bindgen_prelude::JsObjectValue;
use napi::bindgen_prelude::{Env, FnArgs, Function, Object, Unknown};
use napi_derive::napi;

use crate::core::agent::registry;

/// `process.once(event, listener)`.
type ProcessOnce<'a> = Function<'a, FnArgs<(&'a str, Function<'a, (), ()>)>, Unknown<'a>>;

fn add_exit_listener(env: &Env) -> napi::Result<()> {
    let owner = super::run::owner_of(env);
    let global = env.get_global()?;
    let process: Object = global.get_named_property("process")?;
    let once: ProcessOnce = process.get_named_property("once")?;
    let listener = env.create_function_from_closure("stopCursorAgentChildren", move |_ctx| {
        registry::kill_all(Some(owner));
        Ok(())
    })?;
    once.apply(process, FnArgs::from(("exit", listener)))?;
    Ok(())
}

#[napi(module_exports)]
pub fn init(_exports: Object, env: Env) -> napi::Result<()> {
    // A host without a Node-like `process` still gets a working addon (and PDEATHSIG on Linux).
    if let Err(error) = add_exit_listener(&env) {
        tracing::warn!(%error, "could not register the exit listener");
    }
    Ok(())
}
