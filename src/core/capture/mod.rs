//! Captures of runs, for finding out offline why an answer stopped short: a run started with
//! [`CaptureOptions`] writes its command line, the prompt's size and hash, stdout exactly as
//! read (the prompt's echo and secrets masked), its stderr tail, exit, timings and every output
//! into one file ([`record`] is its layout); [`replay`] feeds a capture through the same
//! pipeline again and says what each stage made of it. The folder is rotated by total size
//! ([`store`]).
//!
//! Uses `stream` (the pipeline it records and replays); `agent` uses it.

pub mod mask;
pub mod record;
pub mod replay;
pub mod store;
pub mod writer;

pub use replay::{replay_file, ReplayReport, Stage};
pub use store::{failure_note, fresh_name, DEFAULT_MAX_BYTES};
pub use writer::{Capture, CaptureOptions, EndInfo, StartInfo};
