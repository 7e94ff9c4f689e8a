//! Running cursor-agent: its [`options`], finding it ([`resolve`]), its command line
//! ([`command`], in Cursor's [`mode`]), starting and stopping the [`child`] so it never outlives the host
//! ([`process`], [`registry`], [`watchdog`]), driving its stdout through the
//! [`StreamTransformer`](crate::core::stream::transformer::StreamTransformer) ([`run`]), and listing
//! the account's models and what is known about each ([`models`]), and cursor-agent's other
//! commands ([`subcommand`]); a run or command with host tools gets the tool bridge
//! ([`bridged`]).

mod bridged;
pub mod child;
pub mod command;
pub mod mode;
pub mod models;
pub mod one_at_a_time;
pub mod options;
pub mod process;
pub mod registry;
pub mod resolve;
pub mod run;
pub mod stderr_tail;
pub mod subcommand;
pub mod watchdog;

pub use child::{RunContext, KILL_GRACE};
pub use mode::CursorMode;
pub use models::{
    group_models, list_models, model_for, model_spec, ModelFamily, ModelInfo, ModelSpec,
};
pub use options::{EnvVars, RunOptions, RunRequest, DEFAULT_IDLE_TIMEOUT};
pub use resolve::{resolve_agent, Launcher, Resolution};
pub use run::{start_run, OutputSink, Receipt, RunHandle, RunResult, RunStep, StepReason};
pub use subcommand::{run_subcommand, Subcommand, SubcommandOutput};
