//! What went wrong, read from Cursor's own words: [`classify`] turns a failed run's stderr,
//! exit status and in-stream error into a stable code; [`resume`] tells "the resumed chat is
//! gone" apart from transient failures; [`duration`] words the limits a run hit; `reset` reads
//! when a usage limit resets.

pub mod classify;
pub mod duration;
mod reset;
pub mod resume;
