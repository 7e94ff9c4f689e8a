//! Module initialisation and the environment's children: which JS environment owns a child
//! (`owner_of`, `run_context`), and stopping its live children when the host exits or the
//! environment goes away.
//!
//! Env cleanup hooks do not run on `process.exit()` (in Node or Bun), so the addon adds its own
//! `process.once('exit', ...)` listener when it is loaded; it holds for any importer of the
//! package. The listener SIGKILLs the process group of every child still running. An env
//! cleanup hook covers an environment torn down without that event (a terminated
//! `worker_threads` Worker): it SIGKILLs the environment's groups and reaps their leaders, whose
//! run tasks may be dropped with the runtime. A host that dies without running any code is the
//! watchdog's (`core/agent/watchdog.rs`).

use napi::bindgen_prelude::JsObjectValue;
use napi::bindgen_prelude::{Env, FnArgs, Function, Object, Unknown};
use napi_derive::napi;

use crate::core::agent::{self, registry};

/// The registry owner of children started from this JS environment (main thread or a worker).
pub(crate) fn owner_of(env: &Env) -> u64 {
    env.raw() as usize as u64
}

pub(crate) fn run_context(env: &Env) -> agent::RunContext {
    stop_children_with(env);
    let runtime =
        napi::bindgen_prelude::within_runtime_if_available(tokio::runtime::Handle::current);
    agent::RunContext {
        runtime,
        owner: owner_of(env),
    }
}

/// `process.once(event, listener)`.
type ProcessOnce<'a> = Function<'a, FnArgs<(&'a str, Function<'a, (), ()>)>, Unknown<'a>>;

fn add_exit_listener(env: &Env) -> napi::Result<()> {
    let owner = owner_of(env);
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

/// Make sure `env`'s children are stopped when `env` goes away; call before starting one.
///
/// Registered on first use, not at load: cleanup hooks run last-registered first, and this one
/// must run before napi's own (added after the module initialiser), which may shut the runtime
/// down and drop the runs' tasks with their children unreaped.
pub(crate) fn stop_children_with(env: &Env) {
    let owner = owner_of(env);
    if !registry::watch_owner(owner) {
        return;
    }
    let added = env.add_env_cleanup_hook(owner, |owner| {
        registry::owner_gone(owner);
    });
    if let Err(error) = added {
        registry::unwatch_owner(owner);
        tracing::warn!(%error, "could not register the environment cleanup hook");
    }
}

#[napi(module_exports)]
pub fn init(_exports: Object, env: Env) -> napi::Result<()> {
    // A host without a Node-like `process` still gets a working addon (and PDEATHSIG on Linux).
    if let Err(error) = add_exit_listener(&env) {
        tracing::warn!(%error, "could not register the exit listener");
    }
    Ok(())
}
