//! Pure-Rust core. Data flows one way: cursor-agent stdout bytes -> [`framing`] records ->
//! [`event`]s -> [`translate`] (with the [`tracker`]) -> neutral [`part`]s -> an [`encode`]r.
//! [`transformer`] wires that pipeline; [`agent`] runs the process around it.

pub mod agent;
pub mod classify;
pub mod encode;
pub mod error;
pub mod event;
pub mod framing;
pub mod logging;
pub mod part;
pub mod prompt;
pub mod resume;
pub mod switch;
pub mod tracker;
pub mod transformer;
pub mod translate;
pub mod usage;
