//! `replayCapture`: a run's capture fed through the pipeline again, offline.

use napi_derive::napi;

use super::error::{to_js_error, Result};
use super::output::Json;
use crate::core::capture::{replay_file, ReplayReport};

/// Replays the capture file at `path` (made with `RunCursorAgentOptions.capture`) through the
/// same pipeline a run uses, and reports what each stage made of it: the process (exit,
/// signal, stderr), framing (records, skipped ones), reconciliation (the delta tracker's
/// decision for every piece of text) and the consumer (outputs, text), whether the outputs
/// match those the run emitted, and where the answer stopped short, if it did. Throws
/// `E_INVALID_ARG` for a file that cannot be read or is not a capture.
#[napi(catch_unwind, ts_return_type = "ReplayReport")]
pub fn replay_capture(path: String) -> Result<Json<ReplayReport>> {
    replay_file(std::path::Path::new(&path))
        .map(Json)
        .map_err(to_js_error)
}
