use super::*;
use Channel::{Text, Thinking};

/// One tracker input: a delta, a snapshot, a record of another kind, or a reset.
enum Step {
    Delta(Channel, &'static str),
    Snap(Channel, &'static str),
    Transport,
    OtherRecord,
    Reset,
}
use Step::*;

/// Runs the steps as the translator does and returns (channel, emitted text) pairs.
fn run(steps: &[Step]) -> Vec<(Channel, String)> {
    run_with_limit(usize::MAX, steps)
}

fn run_with_limit(limit: usize, steps: &[Step]) -> Vec<(Channel, String)> {
    let mut t = MixedDeltaTracker::new(limit);
    let mut out = Vec::new();
    for step in steps {
        let transport = matches!(step, Transport);
        if let Some(released) = t.next_record(transport) {
            out.push(released);
        }
        match step {
            Delta(c, s) => {
                if let Some(e) = t.delta(*c, s) {
                    out.push((*c, e.to_owned()));
                }
            }
            Snap(c, s) => {
                let e = t.snapshot(*c, s);
                if !e.is_empty() {
                    out.push((*c, e.to_owned()));
                }
            }
            Reset => t.reset(),
            Transport | OtherRecord => {}
        }
    }
    out.extend(t.next_record(false));
    out
}

fn texts(items: &[(Channel, &str)]) -> Vec<(Channel, String)> {
    items.iter().map(|(c, s)| (*c, (*s).to_owned())).collect()
}

#[test]
fn deltas_are_appended_as_they_are() {
    let got = run(&[
        Delta(Text, "Check"),
        Delta(Text, "ing"),
        Delta(Text, " now."),
    ]);
    assert_eq!(
        got,
        texts(&[(Text, "Check"), (Text, "ing"), (Text, " now.")])
    );
}

#[test]
fn snapshot_extending_the_emitted_text_emits_the_suffix() {
    let got = run(&[Delta(Text, "Hello"), Snap(Text, "Hello world")]);
    assert_eq!(got, texts(&[(Text, "Hello"), (Text, " world")]));
}

#[test]
fn snapshot_equal_or_shorter_emits_nothing() {
    let got = run(&[
        Delta(Text, "Hello world"),
        Snap(Text, "Hello world"),
        Snap(Text, "Hello"),
    ]);
    assert_eq!(got, texts(&[(Text, "Hello world")]));
}

#[test]
fn rewritten_snapshot_is_emitted_whole_and_becomes_the_reference() {
    let got = run(&[
        Delta(Text, "Hello"),
        Snap(Text, "Goodbye"),
        Snap(Text, "Goodbye all"),
    ]);
    assert_eq!(
        got,
        texts(&[(Text, "Hello"), (Text, "Goodbye"), (Text, " all")])
    );
}

#[test]
fn no_longest_common_prefix_guess() {
    // "Hello there" shares "Hello " with the emitted text but extends neither way.
    let got = run(&[Delta(Text, "Hello world"), Snap(Text, "Hello there")]);
    assert_eq!(got, texts(&[(Text, "Hello world"), (Text, "Hello there")]));
}

#[test]
fn snapshot_only_stream_emits_each_growth_once() {
    let got = run(&[Snap(Text, "a"), Snap(Text, "ab"), Snap(Text, "abc")]);
    assert_eq!(got, texts(&[(Text, "a"), (Text, "b"), (Text, "c")]));
}

#[test]
fn text_and_thinking_buffers_are_separate() {
    let got = run(&[
        Delta(Thinking, "plan"),
        Delta(Text, "answer"),
        Snap(Thinking, "plan more"),
        Snap(Text, "answer"),
    ]);
    assert_eq!(
        got,
        texts(&[(Thinking, "plan"), (Text, "answer"), (Thinking, " more")])
    );
}

#[test]
fn tool_call_start_resets_both_buffers() {
    let got = run(&[
        Delta(Text, "Same"),
        Delta(Thinking, "Think"),
        Reset,
        Snap(Text, "Same"),
        Snap(Thinking, "Think"),
    ]);
    assert_eq!(
        got,
        texts(&[
            (Text, "Same"),
            (Thinking, "Think"),
            (Text, "Same"),
            (Thinking, "Think")
        ])
    );
}

#[test]
fn interaction_flush_before_interaction_query_is_dropped() {
    let got = run(&[
        Delta(Text, "Let me "),
        Delta(Text, "ask."),
        Delta(Text, "Let me ask."),
        Transport,
        Delta(Text, " Done"),
    ]);
    assert_eq!(
        got,
        texts(&[(Text, "Let me "), (Text, "ask."), (Text, " Done")])
    );
}

#[test]
fn thinking_flush_before_retry_is_dropped() {
    let got = run(&[Delta(Thinking, "hmm"), Delta(Thinking, "hmm"), Transport]);
    assert_eq!(got, texts(&[(Thinking, "hmm")]));
}

#[test]
fn repeated_short_delta_survives() {
    let got = run(&[Delta(Text, "ha"), Delta(Text, "ha"), Delta(Text, "!")]);
    assert_eq!(got, texts(&[(Text, "ha"), (Text, "ha"), (Text, "!")]));
    // Released in place, it also counts as emitted text for the next snapshot.
    let got = run(&[Delta(Text, "ha"), Delta(Text, "ha"), Snap(Text, "haha!")]);
    assert_eq!(got, texts(&[(Text, "ha"), (Text, "ha"), (Text, "!")]));
}

#[test]
fn held_delta_is_emitted_at_the_end_and_before_other_records() {
    let got = run(&[Delta(Text, "ha"), Delta(Text, "ha")]);
    assert_eq!(got, texts(&[(Text, "ha"), (Text, "ha")]));
    let got = run(&[Delta(Text, "ha"), Delta(Text, "ha"), OtherRecord, Transport]);
    assert_eq!(got, texts(&[(Text, "ha"), (Text, "ha")]));
}

#[test]
fn a_delta_repeating_only_part_of_the_segment_is_not_held() {
    let got = run(&[Delta(Text, "ab"), Delta(Text, "b"), Transport]);
    assert_eq!(got, texts(&[(Text, "ab"), (Text, "b")]));
}

#[test]
fn first_delta_of_a_segment_is_never_held() {
    let got = run(&[Delta(Text, "x"), Reset, Delta(Text, "x"), Transport]);
    assert_eq!(got, texts(&[(Text, "x"), (Text, "x")]));
}

#[test]
fn a_mis_shaped_delta_later_recapped_shows_each_character_once() {
    let got = run(&[
        Snap(Text, "Hello"),
        Snap(Text, " world"),
        Snap(Text, "Hello world!"),
    ]);
    assert_eq!(
        got,
        texts(&[(Text, "Hello"), (Text, " world"), (Text, "!")])
    );
}

#[test]
fn a_rewrite_extended_after_more_text_shows_each_character_once() {
    let got = run(&[
        Snap(Text, "Hello"),
        Snap(Text, "Bye"),
        Snap(Text, "Bye now"),
        Delta(Text, "!"),
        Snap(Text, "Bye now!?"),
        Snap(Text, "HelloBye now!?"),
    ]);
    assert_eq!(
        got,
        texts(&[
            (Text, "Hello"),
            (Text, "Bye"),
            (Text, " now"),
            (Text, "!"),
            (Text, "?"),
        ])
    );
}

#[test]
fn a_long_answer_keeps_only_a_prefix_of_the_limit_and_reconciles_alike() {
    // With a limit of 8 bytes no record is longer than 8: every snapshot below fits.
    let steps = [
        Delta(Text, "abcd"),
        Delta(Text, "efgh"),
        Delta(Text, "ijkl"),
        Snap(Text, "abcdefgh"),
        Snap(Text, "abc"),
        Snap(Text, "xyz"),
        Snap(Text, "xyz1"),
        Delta(Text, "ab"),
    ];
    let bounded = run_with_limit(8, &steps);
    assert_eq!(bounded, run(&steps));
    let mut t = MixedDeltaTracker::new(8);
    for _ in 0..1000 {
        t.delta(Text, "0123456789");
    }
    assert!(t.text.emitted.text.len() <= 8 + 3);
    assert!(t.text.emitted.cut);
}

#[test]
fn the_prefix_is_cut_on_a_character_boundary() {
    let mut t = MixedDeltaTracker::new(5);
    t.delta(Text, "ab\u{e9}\u{e9}\u{e9}");
    assert_eq!(t.text.emitted.text, "ab\u{e9}\u{e9}");
    assert_eq!(t.snapshot(Text, "ab\u{e9}"), "");
}

#[test]
fn the_log_names_each_decision_and_its_sizes() {
    use Decision::*;
    let table: [(&[Step], &[TrackerStep]); 5] = [
        (
            &[Delta(Text, "Hel"), Delta(Text, "lo"), Snap(Text, "Hello!")],
            &[
                text(Appended, 3, 3),
                text(Appended, 2, 2),
                text(Extended, 6, 1),
            ],
        ),
        (
            &[Delta(Text, "Hello"), Snap(Text, "Hello"), Snap(Text, "Bye")],
            &[
                text(Appended, 5, 5),
                text(Repeated, 5, 0),
                text(Rewritten, 3, 3),
            ],
        ),
        (
            &[Delta(Text, "ab"), Delta(Text, "ab"), Transport],
            &[
                text(Appended, 2, 2),
                text(Held, 2, 0),
                text(DroppedAsFlush, 2, 0),
            ],
        ),
        (
            &[Delta(Text, "ab"), Delta(Text, "ab"), OtherRecord],
            &[text(Appended, 2, 2), text(Held, 2, 0), text(Released, 2, 2)],
        ),
        (
            &[Delta(Thinking, "hm"), Reset, Delta(Text, "x")],
            &[
                TrackerStep::Text {
                    channel: Thinking,
                    decision: Appended,
                    input_bytes: 2,
                    emitted_bytes: 2,
                },
                TrackerStep::Reset,
                text(Appended, 1, 1),
            ],
        ),
    ];
    for (steps, expected) in table {
        let mut t = MixedDeltaTracker::new(usize::MAX);
        t.keep_log();
        for step in steps {
            t.next_record(matches!(step, Transport));
            match step {
                Delta(c, s) => {
                    t.delta(*c, s);
                }
                Snap(c, s) => {
                    t.snapshot(*c, s);
                }
                Reset => t.reset(),
                Transport | OtherRecord => {}
            }
        }
        assert_eq!(t.take_log(), expected);
        assert!(t.take_log().is_empty(), "taken once");
    }
    let mut silent = MixedDeltaTracker::new(usize::MAX);
    silent.delta(Text, "a");
    assert!(silent.take_log().is_empty(), "no log unless asked for");
}

fn text(decision: Decision, input_bytes: usize, emitted_bytes: usize) -> TrackerStep {
    TrackerStep::Text {
        channel: Text,
        decision,
        input_bytes,
        emitted_bytes,
    }
}
