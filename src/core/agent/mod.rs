//! Running cursor-agent: finding it ([`resolve`]), its command line ([`command`]), spawning it
//! so it never outlives the host ([`process`], [`registry`]), driving its stdout through the
//! [`StreamTransformer`](crate::core::stream::transformer::StreamTransformer) ([`run`]), and listing
//! the account's models ([`models`]).

pub mod command;
pub mod models;
pub mod process;
pub mod registry;
pub mod resolve;
pub mod run;
pub mod tail;

pub use command::{EnvVars, RunOptions, RunRequest};
pub use models::{list_models, ModelInfo};
pub use resolve::{resolve_agent, Launcher, Resolution};
pub use run::{start_run, OutputSink, Receipt, RunContext, RunHandle, RunResult};
