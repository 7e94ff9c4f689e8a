//! Pure-Rust core; never names napi. Layers, top to bottom (each uses only those below it):
//!
//! * [`agent`]: running cursor-agent around the stream pipeline; [`resume`]: which chat continues
//!   which conversation. Neither uses the other.
//! * [`attachments`]: what a user attached, saved where Cursor's Read tool opens it (uses
//!   [`prompt`]'s model).
//! * [`stream`]: the translation pipeline, stdout bytes -> records -> events -> neutral parts ->
//!   an encoder's outputs; [`prompt`]: conversations -> the text cursor-agent reads.
//! * [`failure`]: what went wrong, from Cursor's own words; [`cursor_id`]: Cursor's model and
//!   chat identifiers; [`call_id`]: the one rule for a tool call's id outside Cursor's stream; [`json`]: deeply nested JSON; [`whole_number`]: the rule of numeric options; [`refusal`]: the words of a refused argument;
//!   [`error`], [`switch_value`], [`logging`].
//!
//! The repository's `ARCHITECTURE.md` draws the same map with the files in each layer.

pub mod agent;
pub mod api;
pub mod attachments;
pub mod bridge;
pub mod call_id;
pub mod capture;
pub mod cursor_id;
pub mod error;
pub mod failure;
pub mod hex;
pub mod json;
pub mod logging;
pub mod private_file;
pub mod prompt;
pub mod refusal;
pub mod resume;
pub mod secrets;
pub mod stream;
pub mod switch_value;
pub mod whole_number;
