//! The translation pipeline, one direction: cursor-agent stdout bytes -> [`framing`] records ->
//! [`event`]s -> [`translate`] (reconciled by the [`tracker`]) -> neutral [`part`]s -> an
//! [`encode`]r's outputs. [`transformer`] assembles it behind one type; each stage only knows
//! the stages before it. A [`trace`] of what each stage did is kept on request, and a [`tap`] sees every input with its outputs.

pub mod encode;
pub mod event;
pub mod framing;
pub mod part;

pub mod tool;
pub mod trace;
pub mod tracker;
pub mod transformer;
pub mod translate;
pub mod unknown;
pub mod usage;
