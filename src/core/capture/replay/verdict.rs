//! Where a cut-off answer stopped: the first of the four places, in pipeline order (the
//! process, framing, reconciliation, the consumer), whose record says the answer fell short.

use super::{ConsumerStage, FramingStage, ProcessStage, Stage, Verdict};
use crate::core::stream::trace::{TraceAt, TraceEntry};
use crate::core::stream::tracker::{Decision, TrackerStep};

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
pub(super) fn verdict(
    process: &ProcessStage,
    framing: &FramingStage,
    trace: &[TraceEntry],
    consumer: &ConsumerStage,
    ended: bool,
) -> Option<Verdict> {
    let at = |stage, reason: String| Some(Verdict { stage, reason });
    if let Some(found) = how_the_run_ended(process, framing.saw_result, ended) {
        return Some(found);
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
        let error = error_suffix(process);
        return at(Stage::Process, format!("cursor-agent's run failed{error}"));
    }
    None
}

/// The verdict the run's own ending gives, when it did not finish with a result record: no
/// end, a consumer gone or cancelling, another ending, an exit that failed, no result.
fn how_the_run_ended(process: &ProcessStage, saw_result: bool, ended: bool) -> Option<Verdict> {
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
    let error = error_suffix(process);
    if ending != Some("finished") {
        let how = ending.unwrap_or("unknown");
        return at(Stage::Process, format!("the run ended by {how}{error}"));
    }
    let result = if saw_result { "after" } else { "before" };
    match (process.exit_code, &process.signal) {
        (_, Some(signal)) => at(
            Stage::Process,
            format!("cursor-agent was ended by {signal} {result} its result record{error}"),
        ),
        (Some(code), None) if code != 0 => at(
            Stage::Process,
            format!("cursor-agent exited with code {code} {result} its result record{error}"),
        ),
        _ if !saw_result => at(
            Stage::Process,
            format!("cursor-agent's stdout ended without a result record{error}"),
        ),
        _ => None,
    }
}

/// `: <code> <message>` of the run's error, or nothing.
fn error_suffix(process: &ProcessStage) -> String {
    process
        .error
        .as_ref()
        .map(|e| format!(": {} {}", e.code, e.message))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests;
