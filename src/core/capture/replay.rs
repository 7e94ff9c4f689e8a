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
use crate::core::stream::tracker::{Decision, TrackerStep};
use crate::core::stream::transformer::StreamTransformer;
use crate::core::stream::translate::{HandedCall, Outcome};
pub use gaps::{stdout_gaps, Gap, StdoutGaps, LONG_GAP_MS};
pub use report::{
    ConsumerStage, DecisionEntry, FramingStage, Mismatch, ProcessStage, ReconciliationStage,
    ReplayReport, SkippedRecord, Stage, Verdict,
};

mod gaps;
mod report;

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
    let mut transformer = StreamTransformer::new((&start.transformer).into());
    transformer.keep_trace();
    let mut replayed: Vec<Output> = Vec::new();
    let mut live: Vec<Value> = Vec::new();
    let mut trace: Vec<TraceEntry> = Vec::new();
    let mut end: Option<&End> = None;
    let mut stderr = String::new();
    let (mut reads, mut exited_at, mut truncated) = (0u64, None, false);
    for line in &lines[1..] {
        match line {
            Line::Start(_) => return Err("it has a second start line".into()),
            Line::Stdout {
                read,
                data,
                base64,
                outputs,
                ..
            } => {
                reads += u64::from(*read > 0);
                let bytes = match (data, base64) {
                    (Some(text), _) => text.as_bytes().to_vec(),
                    (None, Some(encoded)) => base64::engine::general_purpose::STANDARD
                        .decode(encoded)
                        .map_err(|e| format!("a stdout line's base64 is invalid: {e}"))?,
                    (None, None) => Vec::new(),
                };
                live.extend(outputs.iter().cloned());
                if !bytes.is_empty() {
                    transformer
                        .push(&bytes, &mut replayed)
                        .map_err(|e| e.to_string())?;
                }
            }
            Line::HandOver { calls, outputs, .. } => {
                live.extend(outputs.iter().cloned());
                let handed: Vec<HandedCall<'_>> = calls.iter().map(HandedCall::from).collect();
                transformer.hand_over(&handed, &mut replayed);
            }
            Line::CutOff { .. } => transformer.drop_unterminated(),
            Line::Close {
                closing, outputs, ..
            } => {
                live.extend(outputs.iter().cloned());
                match closing {
                    ClosingRecord::Outcome {
                        exit_code,
                        signal,
                        stderr: tail,
                        cancelled,
                    } => {
                        stderr.clone_from(tail);
                        let outcome = Outcome {
                            exit_code: *exit_code,
                            signal: signal.clone(),
                            stderr: tail.clone(),
                            cancelled: *cancelled,
                        };
                        transformer.finish(&outcome, &mut replayed);
                    }
                    ClosingRecord::Failure(error) => {
                        let error = error
                            .to_error()
                            .ok_or_else(|| format!("unknown error code {}", error.code))?;
                        transformer.fail(error, &mut replayed);
                    }
                }
            }
            Line::Exit { t, .. } => exited_at = Some(*t),
            Line::Answers { .. } => {}
            Line::Truncated { .. } => truncated = true,
            Line::End(e) => end = Some(e),
        }
        trace.extend(transformer.take_trace());
    }
    let replayed: Vec<Value> = replayed.into_iter().map(output_value).collect();
    let gaps = stdout_gaps(lines);
    let mut found = report(
        start, end, stderr, reads, exited_at, truncated, &trace, replayed, live, gaps,
    );
    found.unknown_records = transformer.unknown_records().to_vec();
    Ok(found)
}

fn output_value(output: Output) -> Value {
    match output {
        Output::Frame(frame) => Value::String(frame),
        Output::Part(part) => part,
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

#[allow(
    clippy::too_many_arguments,
    reason = "one call site, which gathers these while it reads the capture"
)]
fn report(
    start: &Start,
    end: Option<&End>,
    stderr: String,
    reads: u64,
    exited_at: Option<f64>,
    truncated: bool,
    trace: &[TraceEntry],
    replayed: Vec<Value>,
    live: Vec<Value>,
    gaps: StdoutGaps,
) -> ReplayReport {
    let framing = framing_stage(trace);
    let reconciliation = reconciliation_stage(trace);
    let process = ProcessStage {
        ending: end.map(|e| e.ending.clone()),
        exit_code: end.and_then(|e| e.exit_code),
        signal: end.and_then(|e| e.signal.clone()),
        cancelled: end.is_some_and(|e| e.cancelled),
        stderr,
        stdout_bytes: end.map_or(0, |e| e.stdout_bytes),
        reads,
        first_stdout_ms: end.and_then(|e| e.first_stdout_ms),
        exited_at_ms: exited_at,
        duration_ms: end.map(|e| e.t),
        error: end.and_then(|e| e.error.clone()).map(|mut error| {
            // The capture's own name in the message says nothing to whoever reads its replay.
            if let Some(note) = &start.transformer.failure_note {
                error.message = error.message.replace(note, "").trim_end().to_owned();
            }
            error
        }),
    };
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
    let text_stopped = verdict(&process, &framing, trace, &consumer, end.is_some());
    ReplayReport {
        name: start.name.clone(),
        package: start.package.clone(),
        argv: start.argv.clone(),
        model: start.transformer.model.clone(),
        format: serde_json::to_value(start.transformer.format)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default(),
        process,
        framing,
        reconciliation,
        consumer,
        matches: mismatch.is_none() && !truncated,
        mismatch,
        text_stopped,
        truncated,
        unknown_records: Vec::new(),
        gaps,
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
        match kinds.iter_mut().find(|(k, _)| k == kind) {
            Some((_, count)) => *count += 1,
            None => kinds.push((kind.to_owned(), 1)),
        }
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
            match counts.iter_mut().find(|(d, _)| d == decision) {
                Some((_, count)) => *count += 1,
                None => counts.push((decision.to_owned(), 1)),
            }
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

/// One channel's text since the last reset, as the tracker's log tells it.
#[derive(Debug, Default, Clone, Copy)]
struct Segment {
    emitted: usize,
    /// The last snapshot's size, and its record.
    snapshot: Option<(usize, Option<u64>)>,
}

impl Segment {
    /// `(record, snapshot bytes, emitted bytes)` when the last snapshot says more than came out.
    fn loss(self) -> Option<(Option<u64>, usize, usize)> {
        let (bytes, record) = self.snapshot?;
        (bytes > self.emitted).then_some((record, bytes, self.emitted))
    }
}

/// A segment (per channel) whose last snapshot says its text is longer than what was emitted:
/// `(record, snapshot bytes, emitted bytes)`.
fn reconciliation_loss(trace: &[TraceEntry]) -> Option<(Option<u64>, usize, usize)> {
    let mut segments = [Segment::default(); 2];
    for entry in trace {
        let record = match entry.at {
            TraceAt::Record(n) => Some(n),
            _ => None,
        };
        for step in &entry.tracker {
            match *step {
                TrackerStep::Reset => {
                    if let Some(loss) = segments.iter().find_map(|s| s.loss()) {
                        return Some(loss);
                    }
                    segments = [Segment::default(); 2];
                }
                TrackerStep::Text {
                    channel,
                    decision,
                    input_bytes,
                    emitted_bytes,
                } => {
                    let segment = &mut segments[channel as usize];
                    segment.emitted += emitted_bytes;
                    if matches!(
                        decision,
                        Decision::Extended | Decision::Repeated | Decision::Rewritten
                    ) {
                        segment.snapshot = Some((input_bytes, record));
                    }
                }
            }
        }
    }
    segments.iter().find_map(|s| s.loss())
}

/// The first of the four places, in pipeline order, where the answer stopped short.
fn verdict(
    process: &ProcessStage,
    framing: &FramingStage,
    trace: &[TraceEntry],
    consumer: &ConsumerStage,
    ended: bool,
) -> Option<Verdict> {
    let at = |stage, reason: String| Some(Verdict { stage, reason });
    let ending = process.ending.as_deref();
    if !ended {
        return at(
            Stage::Process,
            "the capture has no end: the host stopped before the run ended".into(),
        );
    }
    if let Some(ending @ ("consumer gone" | "callback threw")) = ending {
        return at(
            Stage::Consumer,
            format!("the run was stopped because its consumer was gone or failed ({ending})"),
        );
    }
    if process.cancelled {
        return at(Stage::Consumer, "the consumer cancelled the run".into());
    }
    let error = process
        .error
        .as_ref()
        .map(|e| format!(": {} {}", e.code, e.message))
        .unwrap_or_default();
    let ended_how = match (process.exit_code, &process.signal) {
        (_, Some(signal)) => Some(format!("cursor-agent was ended by {signal}")),
        (Some(code), None) if code != 0 => Some(format!("cursor-agent exited with code {code}")),
        _ => None,
    };
    if ending != Some("finished") {
        let how = ending.unwrap_or("unknown");
        return at(Stage::Process, format!("the run ended by {how}{error}"));
    }
    if let Some(how) = ended_how {
        let result = if framing.saw_result {
            "after"
        } else {
            "before"
        };
        return at(
            Stage::Process,
            format!("{how} {result} its result record{error}"),
        );
    }
    if !framing.saw_result {
        return at(
            Stage::Process,
            format!("cursor-agent's stdout ended without a result record{error}"),
        );
    }
    if let Some(skipped) = framing.skipped.first() {
        return at(
            Stage::Framing,
            format!(
                "record {} ({} bytes) was skipped: {}",
                skipped.record, skipped.bytes, skipped.reason
            ),
        );
    }
    if let Some((record, snapshot, emitted)) = reconciliation_loss(trace) {
        let place = record.map_or_else(String::new, |r| format!(" at record {r}"));
        return at(
            Stage::Reconciliation,
            format!(
                "a snapshot{place} holds {snapshot} bytes of text, but only {emitted} were emitted"
            ),
        );
    }
    if let Some(delivered) = consumer.delivered {
        let produced = consumer.live_outputs as u64;
        if delivered < produced {
            return at(
                Stage::Consumer,
                format!("{produced} outputs were produced, but only {delivered} were delivered to the consumer"),
            );
        }
    }
    if process.error.is_some() {
        return at(Stage::Process, format!("cursor-agent's run failed{error}"));
    }
    None
}

#[cfg(test)]
mod tests;
