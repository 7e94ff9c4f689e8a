use super::*;
use crate::core::capture::replay::SkippedRecord;
use crate::core::stream::event::Channel;
use crate::core::stream::trace::RecordRead;

fn snapshot_step(decision: Decision, input: usize, emitted: usize) -> TrackerStep {
    TrackerStep::Text {
        channel: Channel::Text,
        decision,
        input_bytes: input,
        emitted_bytes: emitted,
    }
}

fn entry(record: u64, tracker: Vec<TrackerStep>) -> TraceEntry {
    let read = RecordRead::Event {
        kind: "assistant",
        partial: false,
    };
    let mut entry = TraceEntry::new(TraceAt::Record(record), Some(read), 10);
    entry.tracker = tracker;
    entry
}

#[test]
fn a_snapshot_longer_than_what_was_emitted_is_a_reconciliation_loss() {
    let table = [
        // Deltas of 5 + 5, a snapshot of 10 adding nothing: complete.
        (
            vec![
                entry(1, vec![snapshot_step(Decision::Appended, 5, 5)]),
                entry(2, vec![snapshot_step(Decision::Appended, 5, 5)]),
                entry(3, vec![snapshot_step(Decision::Repeated, 10, 0)]),
            ],
            None,
        ),
        // A snapshot says 30 bytes, only 10 came out.
        (
            vec![
                entry(1, vec![snapshot_step(Decision::Appended, 10, 10)]),
                entry(2, vec![snapshot_step(Decision::Repeated, 30, 0)]),
            ],
            Some((Some(2), 30, 10)),
        ),
        // The loss is found when its segment ends, before the next one begins.
        (
            vec![
                entry(1, vec![snapshot_step(Decision::Repeated, 8, 0)]),
                entry(
                    2,
                    vec![TrackerStep::Reset, snapshot_step(Decision::Appended, 3, 3)],
                ),
            ],
            Some((Some(1), 8, 0)),
        ),
    ];
    for (trace, expected) in table {
        assert_eq!(reconciliation_loss(&trace), expected);
    }
}

fn process(ending: &str, exit_code: Option<i32>, signal: Option<&str>) -> ProcessStage {
    ProcessStage {
        ending: Some(ending.to_owned()),
        exit_code,
        signal: signal.map(str::to_owned),
        cancelled: false,
        stderr: String::new(),
        stdout_bytes: 0,
        reads: 0,
        first_stdout_ms: None,
        exited_at_ms: None,
        duration_ms: None,
        error: None,
    }
}

fn framing(saw_result: bool, skipped: bool) -> FramingStage {
    FramingStage {
        records: 3,
        kinds: Vec::new(),
        skipped: skipped
            .then(|| SkippedRecord {
                record: 2,
                reason: "not a JSON object".into(),
                bytes: 4,
                prefix: None,
            })
            .into_iter()
            .collect(),
        saw_result,
    }
}

fn consumer(live: usize, delivered: u64) -> ConsumerStage {
    ConsumerStage {
        outputs: Vec::new(),
        live_outputs: live,
        delivered: Some(delivered),
        text: String::new(),
        live_text: String::new(),
    }
}

#[test]
fn the_verdict_names_the_first_stage_in_pipeline_order() {
    let table = [
        (
            process("finished", Some(0), None),
            framing(true, false),
            consumer(5, 5),
            None,
        ),
        (
            process("finished", Some(0), None),
            framing(false, false),
            consumer(5, 5),
            Some(Stage::Process),
        ),
        (
            process("finished", None, Some("SIGKILL")),
            framing(true, true),
            consumer(5, 5),
            Some(Stage::Process),
        ),
        (
            process("overall timeout", None, Some("SIGTERM")),
            framing(false, false),
            consumer(5, 5),
            Some(Stage::Process),
        ),
        (
            process("finished", Some(0), None),
            framing(true, true),
            consumer(5, 5),
            Some(Stage::Framing),
        ),
        (
            process("finished", Some(0), None),
            framing(true, false),
            consumer(5, 3),
            Some(Stage::Consumer),
        ),
        (
            process("consumer gone", None, Some("SIGTERM")),
            framing(false, false),
            consumer(5, 5),
            Some(Stage::Consumer),
        ),
        (
            process("callback threw", None, None),
            framing(false, true),
            consumer(5, 5),
            Some(Stage::Consumer),
        ),
    ];
    for (process, framing, consumer, expected) in table {
        let found = verdict(&process, &framing, &[], &consumer, true).map(|v| v.stage);
        assert_eq!(found, expected, "{process:?} {framing:?}");
    }
    let none = verdict(
        &process("finished", Some(0), None),
        &framing(true, false),
        &[],
        &consumer(1, 1),
        false,
    );
    assert_eq!(
        none.map(|v| v.stage),
        Some(Stage::Process),
        "a capture without its end"
    );
}
