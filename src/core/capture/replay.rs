//! Replaying a capture offline: its inputs fed to a new
//! [`StreamTransformer`](crate::core::stream::transformer::StreamTransformer) (the pipeline a
//! live run uses, with its trace kept), and what each of the four places a cut-off answer can
//! come from made of the run: the process, framing, reconciliation and the consumer.

use std::path::Path;

use base64::Engine;
use serde_json::Value;

use super::record::{ClosingRecord, End, Line, Start, CAPTURE_VERSION};
use crate::core::error::CoreError;
use crate::core::stream::encode::Output;
use crate::core::stream::trace::{RecordRead, TraceAt, TraceEntry};
use crate::core::stream::tracker::TrackerStep;
use crate::core::stream::transformer::StreamTransformer;
use crate::core::stream::translate::HandedCall;
pub use gaps::{stdout_gaps, Gap, StdoutGaps, LONG_GAP_MS};
pub use report::{
    ConsumerStage, DecisionEntry, FramingStage, Mismatch, ProcessStage, ReconciliationStage,
    ReplayReport, SkippedRecord, Stage, Verdict,
};
use verdict::verdict;

mod gaps;
mod report;
mod verdict;

fn invalid(path: &Path, line: usize, what: impl std::fmt::Display) -> CoreError {
    CoreError::invalid_arg(format!(
        "{} is not a readable capture (line {line}): {what}",
        path.display()
    ))
}

/// Reads the capture at `path` and replays it.
pub fn replay_file(path: &Path) -> Result<ReplayReport, CoreError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        CoreError::invalid_arg(format!(
            "the capture {} cannot be read: {e}",
            path.display()
        ))
    })?;
    let mut lines = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let parsed: Line = serde_json::from_str(line).map_err(|e| invalid(path, index + 1, e))?;
        lines.push(parsed);
    }
    replay(&lines).map_err(|what| invalid(path, 1, what))
}

/// Replays the lines of a capture.
pub fn replay(lines: &[Line]) -> Result<ReplayReport, String> {
    let Some(Line::Start(start)) = lines.first() else {
        return Err("the first line is not its start".into());
    };
    if start.capture != CAPTURE_VERSION {
        return Err(format!(
            "it has layout version {}; this version reads {CAPTURE_VERSION}",
            start.capture
        ));
    }
    let mut replay = Replay::new(start);
    for line in &lines[1..] {
        replay.read(line)?;
    }
    Ok(replay.report(stdout_gaps(lines)))
}

/// What a replay gathers from the lines after the start.
struct Replay<'a> {
    start: &'a Start,
    transformer: StreamTransformer,
    replayed: Vec<Output>,
    /// The outputs the live run put out.
    live: Vec<Value>,
    trace: Vec<TraceEntry>,
    end: Option<&'a End>,
    stderr: String,
    /// Reads of stdout that returned bytes.
    reads: u64,
    exited_at: Option<f64>,
    truncated: bool,
}

impl<'a> Replay<'a> {
    fn new(start: &'a Start) -> Self {
        let mut transformer = StreamTransformer::new(start.transformer.clone());
        transformer.keep_trace();
        Self {
            start,
            transformer,
            replayed: Vec::new(),
            live: Vec::new(),
            trace: Vec::new(),
            end: None,
            stderr: String::new(),
            reads: 0,
            exited_at: None,
            truncated: false,
        }
    }

    /// Feeds one line to the transformer, as the live run did.
    fn read(&mut self, line: &'a Line) -> Result<(), String> {
        match line {
            Line::Start(_) => return Err("it has a second start line".into()),
            Line::Stdout {
                read,
                data,
                base64,
                outputs,
                ..
            } => {
                self.reads += u64::from(*read > 0);
                let bytes = stdout_bytes(data.as_deref(), base64.as_deref())?;
                self.live.extend(outputs.iter().cloned());
                if !bytes.is_empty() {
                    self.transformer
                        .push(&bytes, &mut self.replayed)
                        .map_err(|e| e.to_string())?;
                }
            }
            Line::HandOver { calls, outputs, .. } => {
                self.live.extend(outputs.iter().cloned());
                let handed: Vec<HandedCall<'_>> = calls.iter().map(HandedCall::from).collect();
                self.transformer.hand_over(&handed, &mut self.replayed);
            }
            Line::CutOff { .. } => self.transformer.drop_unterminated(),
            Line::Close {
                closing, outputs, ..
            } => {
                self.live.extend(outputs.iter().cloned());
                self.close(closing)?;
            }
            Line::Exit { t, .. } => self.exited_at = Some(*t),
            Line::Answers { .. } => {}
            Line::Truncated { .. } => self.truncated = true,
            Line::End(e) => self.end = Some(e),
        }
        self.trace.extend(self.transformer.take_trace());
        Ok(())
    }

    fn close(&mut self, closing: &ClosingRecord) -> Result<(), String> {
        match closing {
            ClosingRecord::Outcome(outcome) => {
                self.stderr.clone_from(&outcome.stderr);
                self.transformer.finish(outcome, &mut self.replayed);
            }
            ClosingRecord::Failure(error) => {
                let error = error
                    .to_error()
                    .ok_or_else(|| format!("unknown error code {}", error.code))?;
                self.transformer.fail(error, &mut self.replayed);
            }
        }
        Ok(())
    }

    fn report(self, gaps: StdoutGaps) -> ReplayReport {
        let (start, end, trace) = (self.start, self.end, &self.trace[..]);
        let framing = framing_stage(trace);
        let process = self.process_stage();
        let replayed: Vec<Value> = self.replayed.into_iter().map(Value::from).collect();
        let live = self.live;
        let mismatch = (0..replayed.len().max(live.len()))
            .find(|&i| replayed.get(i) != live.get(i))
            .map(|index| Mismatch {
                index,
                live: live.get(index).cloned(),
                replayed: replayed.get(index).cloned(),
            });
        let consumer = ConsumerStage {
            text: text_of(&replayed),
            live_text: text_of(&live),
            live_outputs: live.len(),
            delivered: end.map(|e| e.delivered),
            outputs: replayed,
        };
        ReplayReport {
            name: start.name.clone(),
            package: start.package.clone(),
            argv: start.argv.clone(),
            model: start.transformer.model.clone(),
            format: serde_json::to_value(start.transformer.format)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
            text_stopped: verdict(&process, &framing, trace, &consumer, end.is_some()),
            process,
            framing,
            reconciliation: reconciliation_stage(trace),
            consumer,
            matches: mismatch.is_none() && !self.truncated,
            mismatch,
            truncated: self.truncated,
            unknown_records: self.transformer.unknown_records().to_vec(),
            gaps,
        }
    }

    fn process_stage(&self) -> ProcessStage {
        let end = self.end;
        ProcessStage {
            ending: end.map(|e| e.ending.clone()),
            exit_code: end.and_then(|e| e.exit_code),
            signal: end.and_then(|e| e.signal.clone()),
            cancelled: end.is_some_and(|e| e.cancelled),
            stderr: self.stderr.clone(),
            stdout_bytes: end.map_or(0, |e| e.stdout_bytes),
            reads: self.reads,
            first_stdout_ms: end.and_then(|e| e.first_stdout_ms),
            exited_at_ms: self.exited_at,
            duration_ms: end.map(|e| e.t),
            error: end.and_then(|e| e.error.clone()).map(|mut error| {
                // The capture's own name in the message says nothing to whoever reads its replay.
                if let Some(note) = &self.start.transformer.failure_note {
                    error.message = error.message.replace(note, "").trim_end().to_owned();
                }
                error
            }),
        }
    }
}

/// The bytes of a stdout line: as text, or base64 when they were not UTF-8.
fn stdout_bytes(data: Option<&str>, base64: Option<&str>) -> Result<Vec<u8>, String> {
    match (data, base64) {
        (Some(text), _) => Ok(text.as_bytes().to_vec()),
        (None, Some(encoded)) => base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .map_err(|e| format!("a stdout line's base64 is invalid: {e}")),
        (None, None) => Ok(Vec::new()),
    }
}

/// The answer text an output carries: a V3 `text-delta`, an SSE frame's `delta.content`, or a
/// completion's `message.content`.
fn output_text(output: &Value) -> Option<String> {
    match output {
        Value::Object(part) if part.get("type") == Some(&Value::from("text-delta")) => {
            part.get("delta")?.as_str().map(str::to_owned)
        }
        Value::Object(completion)
            if completion.get("object") == Some(&"chat.completion".into()) =>
        {
            output
                .pointer("/choices/0/message/content")?
                .as_str()
                .map(str::to_owned)
        }

        Value::String(frame) => {
            let data: Value =
                serde_json::from_str(frame.strip_prefix("data: ")?.trim_end()).ok()?;
            data.pointer("/choices/0/delta/content")?
                .as_str()
                .map(str::to_owned)
        }
        _ => None,
    }
}

fn text_of(outputs: &[Value]) -> String {
    outputs.iter().filter_map(output_text).collect()
}

/// One more of `name` in `counts`, which keeps the order names first came in.
fn count(counts: &mut Vec<(String, u64)>, name: &str) {
    match counts.iter_mut().find(|(known, _)| known == name) {
        Some((_, count)) => *count += 1,
        None => counts.push((name.to_owned(), 1)),
    }
}

fn framing_stage(trace: &[TraceEntry]) -> FramingStage {
    let mut kinds: Vec<(String, u64)> = Vec::new();
    let mut skipped = Vec::new();
    let mut records = 0;
    let mut saw_result = false;
    for entry in trace {
        let (TraceAt::Record(record), Some(read)) = (entry.at, entry.read) else {
            continue;
        };
        records = record;
        let kind = match read {
            RecordRead::Event { kind, .. } => kind,
            RecordRead::Ignored => "ignored",
            RecordRead::Skipped(why) => {
                skipped.push(SkippedRecord {
                    record,
                    reason: why.as_str().to_owned(),
                    bytes: entry.bytes,
                    prefix: entry.prefix.clone(),
                });
                "skipped"
            }
        };
        saw_result |= kind == "result";
        count(&mut kinds, kind);
    }
    FramingStage {
        records,
        kinds,
        skipped,
        saw_result,
    }
}

fn reconciliation_stage(trace: &[TraceEntry]) -> ReconciliationStage {
    let mut decisions = Vec::new();
    let mut counts: Vec<(String, u64)> = Vec::new();
    for entry in trace {
        let (record, event, partial) = match (entry.at, entry.read) {
            (TraceAt::Record(n), Some(RecordRead::Event { kind, partial })) => {
                (Some(n), kind, partial)
            }
            (TraceAt::Record(n), _) => (Some(n), "ignored", false),
            (TraceAt::HandOver, _) => (None, "hand-over", false),
            (TraceAt::Close, _) => (None, "close", false),
        };
        for step in &entry.tracker {
            let (channel, decision, input_bytes, emitted_bytes) = match *step {
                TrackerStep::Text {
                    channel,
                    decision,
                    input_bytes,
                    emitted_bytes,
                } => (
                    Some(format!("{channel:?}").to_lowercase()),
                    decision.as_str(),
                    input_bytes,
                    emitted_bytes,
                ),
                TrackerStep::Reset => (None, "segment ended", 0, 0),
            };
            count(&mut counts, decision);
            decisions.push(DecisionEntry {
                record,
                event: event.to_owned(),
                partial,
                channel,
                decision: decision.to_owned(),
                input_bytes,
                emitted_bytes,
            });
        }
    }
    ReconciliationStage { decisions, counts }
}
