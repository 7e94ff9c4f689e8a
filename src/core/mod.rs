//! Pure-Rust core; never names napi. Layers, top to bottom (each uses only those below it):
//!
//! * [`api`]: the native API's data, declared with [`wire`]'s macros.
//! * [`agent`]: running cursor-agent around the stream pipeline; [`resume`]: which chat continues
//!   which conversation. Neither uses the other.
//! * [`bridge`]: the host's tools served to cursor-agent; [`capture`]: a run recorded and
//!   replayed.
//! * [`stream`]: the translation pipeline, stdout bytes -> records -> events -> neutral parts ->
//!   an encoder's outputs; [`attachments`]: what a user attached, saved where Cursor's Read tool
//!   opens it (uses [`prompt`]'s model); [`prompt`]: conversations -> the text cursor-agent reads.
//! * [`failure`]: what went wrong, from Cursor's own words; [`json`]: deeply nested JSON;
//!   [`logging`].
//! * Leaves: [`cursor_id`]: Cursor's model and chat identifiers; [`call_id`]: the one rule for a
//!   tool call's id outside Cursor's stream; [`refusal`]: the words of a refused argument;
//!   [`process_alive`]; [`error`], [`switch_value`], [`hex`], [`secrets`], [`private_file`];
//!   below them [`wire`]: types declared once for serde and TypeScript; [`whole_number`]: the
//!   rule of numeric options.
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
pub mod process_alive;
pub mod prompt;
pub mod refusal;
pub mod resume;
pub mod secrets;
pub mod stream;
pub mod switch_value;
pub mod whole_number;
pub mod wire;
