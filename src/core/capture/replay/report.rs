//! What a replay reports: the four stages a cut-off answer can come from, whether the replay
//! matches the live outputs, and where the text stopped. Serialized as `ReplayReport` in JS.

use serde::Serialize;
use serde_json::Value;

use super::gaps::StdoutGaps;
use crate::core::capture::record::ErrorRecord;

/// Everything a replay found.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplayReport {
    pub name: String,
    /// The package version that made the capture.
    pub package: String,
    pub argv: Vec<String>,
    pub model: String,
    pub format: String,
    pub process: ProcessStage,
    pub framing: FramingStage,
    pub reconciliation: ReconciliationStage,
    pub consumer: ConsumerStage,
    /// Whether the replay produced exactly the outputs the run emitted.
    pub matches: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mismatch: Option<Mismatch>,
    /// Where the answer stopped short, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text_stopped: Option<Verdict>,
    /// The capture stopped keeping data at its size limit.
    pub truncated: bool,
    /// Records of a kind this version does not know (`type` or `type/subtype`), ignored, with
    /// their counts in the order first seen.
    pub unknown_records: Vec<(String, u64)>,
    /// The silences of stdout: the long ones, and the longest.
    pub gaps: StdoutGaps,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProcessStage {
    /// How the run ended (see [`End::ending`]); `None` when the capture has no end line.
    pub ending: Option<String>,
    pub exit_code: Option<i32>,
    pub signal: Option<String>,
    pub cancelled: bool,
    /// What the run kept of stderr (its tail).
    pub stderr: String,
    pub stdout_bytes: u64,
    pub reads: u64,
    pub first_stdout_ms: Option<f64>,
    pub exited_at_ms: Option<f64>,
    pub duration_ms: Option<f64>,
    /// The run's error, as it reported it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorRecord>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FramingStage {
    pub records: u64,
    /// Records by event type (`assistant`, `tool_call started`, `ignored`, ...).
    pub kinds: Vec<(String, u64)>,
    pub skipped: Vec<SkippedRecord>,
    pub saw_result: bool,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkippedRecord {
    pub record: u64,
    pub reason: String,
    pub bytes: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReconciliationStage {
    /// The tracker's decision for every piece of text, in order.
    pub decisions: Vec<DecisionEntry>,
    /// How often each decision was made.
    pub counts: Vec<(String, u64)>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DecisionEntry {
    /// The record (1-based) the decision was made on; `None` for a hand-over or the close.
    pub record: Option<u64>,
    /// `assistant`, `thinking`, ..., or `hand-over` / `close`.
    pub event: String,
    pub partial: bool,
    /// `text` or `thinking`; `None` for a segment's end.
    pub channel: Option<String>,
    pub decision: String,
    pub input_bytes: usize,
    pub emitted_bytes: usize,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsumerStage {
    /// The outputs the replay produced (SSE frame strings or V3 parts).
    pub outputs: Vec<Value>,
    /// How many outputs the run produced live, and how many it handed to its consumer.
    pub live_outputs: usize,
    pub delivered: Option<u64>,
    /// The answer text of the replayed outputs, and of the live ones.
    pub text: String,
    pub live_text: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Mismatch {
    /// The first output that differs (0-based).
    pub index: usize,
    pub live: Option<Value>,
    pub replayed: Option<Value>,
}

/// One of the four places.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    Process,
    Framing,
    Reconciliation,
    Consumer,
}

#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    pub stage: Stage,
    pub reason: String,
}
