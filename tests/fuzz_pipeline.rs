//! Fuzz targets over the framing and translation pipeline (`StreamTransformer`), on stable Rust:
//! proptest generates byte streams (Cursor-shaped records with arbitrary text, raw garbage,
//! mutated records, every line ending) and cuts them into arbitrary chunks.
//!
//! Properties: no panic and no error while pushing; the outputs do not depend on the chunking;
//! every text and thinking fragment shown is drawn from a string of the input; memory stays
//! bounded by `max_line_bytes`, not by the stream's length.
//!
//! `cargo test` runs a short run. A long run: `FUZZ_CASES=100000 cargo test --release
//! --no-default-features --test fuzz_pipeline` (the cases of each target).

mod support;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::BTreeSet;

use opencode_cursor_native::core::stream::encode::Output;
use opencode_cursor_native::core::stream::encode::SEGMENT_SEPARATOR;
use opencode_cursor_native::core::stream::transformer::{
    Format, StreamTransformer, TransformerOptions,
};
use proptest::prelude::*;
use proptest::test_runner::Config;
use serde_json::{json, Value};
use support::{cut, options, success};

// ---- heap accounting, per thread (each test runs on its own thread) ----

struct CountingAllocator;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn account(delta: isize) {
    // `try_with`: allocations during thread teardown happen after the counters are gone.
    let _ = LIVE.try_with(|live| {
        let now = live.get() + delta;
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

// SAFETY: every call is forwarded to the system allocator unchanged; the counters are plain
// thread-local cells that never allocate.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's layout, passed on.
        let pointer = unsafe { System.alloc(layout) };
        if !pointer.is_null() {
            account(layout.size() as isize);
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        // SAFETY: `pointer` came from `alloc`/`realloc` above with this layout.
        unsafe { System.dealloc(pointer, layout) };
        account(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as for `dealloc`; `new_size` is the caller's.
        let moved = unsafe { System.realloc(pointer, layout, new_size) };
        if !moved.is_null() {
            account(new_size as isize - layout.size() as isize);
        }
        moved
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// The peak heap growth (bytes) of this thread while `f` runs.
fn peak_growth(f: impl FnOnce()) -> isize {
    let start = LIVE.with(Cell::get);
    PEAK.with(|peak| peak.set(start));
    f();
    PEAK.with(Cell::get) - start
}

// ---- run configuration ----

fn fuzz_config(short_run_cases: u32) -> Config {
    let cases = std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(short_run_cases);
    Config::with_cases(cases)
}

// ---- what a stream is made of ----

const SID: &str = "chat-1";

/// Text from a small alphabet (so repeats, extensions and recaps happen) or any characters.
fn text() -> impl Strategy<Value = String> {
    let alphabet = prop::sample::select(vec![
        "Hel",
        "lo",
        " wor",
        "ld",
        "!",
        "\u{e9}",
        "\u{1F600}",
        "\n",
        "\u{2028}",
    ]);
    prop_oneof![
        3 => prop::collection::vec(alphabet, 0..5).prop_map(|pieces| pieces.concat()),
        1 => prop::collection::vec(any::<char>(), 0..12).prop_map(String::from_iter),
    ]
}

#[derive(Debug, Clone)]
enum Piece {
    Delta(String),
    Snapshot(String),
    /// A snapshot of every text delta so far: Cursor's end-of-turn recap.
    Recap,
    ThinkingDelta(String),
    ThinkingCompleted,
    ToolStarted {
        id: u8,
        command: String,
    },
    ToolCompleted {
        id: u8,
        output: String,
        exit: i32,
    },
    /// `interaction_query`, `retry` or `connection` chatter.
    Transport(&'static str),
    Init,
    User(String),
    Result(String),
    /// A record of an unknown type, or a known type with the wrong shape.
    Odd(Value),
    Garbage(Vec<u8>),
}

fn piece() -> impl Strategy<Value = Piece> {
    prop_oneof![
        6 => text().prop_map(Piece::Delta),
        2 => text().prop_map(Piece::Snapshot),
        1 => Just(Piece::Recap),
        2 => text().prop_map(Piece::ThinkingDelta),
        1 => Just(Piece::ThinkingCompleted),
        1 => (0u8..3, text()).prop_map(|(id, command)| Piece::ToolStarted { id, command }),
        1 => (0u8..3, text(), -2i32..3).prop_map(|(id, output, exit)| Piece::ToolCompleted { id, output, exit }),
        1 => prop::sample::select(vec!["interaction_query", "retry", "connection"]).prop_map(Piece::Transport),
        1 => Just(Piece::Init),
        1 => text().prop_map(Piece::User),
        1 => text().prop_map(Piece::Result),
        1 => prop_oneof![
            Just(json!({"type": "assistant", "message": "bad shape"})),
            Just(json!({"type": "assistant", "message": {"content": [{"type": "text", "text": 5}]}})),
            Just(json!({"type": "tool_call", "subtype": "completed", "call_id": 7})),
            Just(json!({"type": "thinking"})),
            Just(json!([1, 2, 3])),
            text().prop_map(|t| json!({"type": t, "session_id": SID})),
        ]
        .prop_map(Piece::Odd),
        1 => prop::collection::vec(any::<u8>(), 0..48).prop_map(Piece::Garbage),
    ]
}

#[derive(Debug, Clone, Copy)]
enum Ending {
    Lf,
    CrLf,
    Blank,
    /// No terminator: the record runs into the next one.
    None,
}

fn ending() -> impl Strategy<Value = Ending> {
    prop_oneof![8 => Just(Ending::Lf), 2 => Just(Ending::CrLf), 1 => Just(Ending::Blank), 1 => Just(Ending::None)]
}

fn assistant(text: &str, snapshot: bool) -> Value {
    let mut record = json!({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": text}]}, "session_id": SID});
    if snapshot {
        record["model_call_id"] = json!("call-0");
    } else {
        record["timestamp_ms"] = json!(1);
    }
    record
}

/// The bytes of one piece (`recap`: the text deltas so far, updated here).
fn render(piece: &Piece, recap: &mut String) -> Vec<u8> {
    let record = match piece {
        Piece::Delta(text) => {
            recap.push_str(text);
            assistant(text, false)
        }
        Piece::Snapshot(text) => assistant(text, true),
        Piece::Recap => assistant(recap, true),
        Piece::ThinkingDelta(text) => {
            json!({"type": "thinking", "subtype": "delta", "text": text, "session_id": SID, "timestamp_ms": 1})
        }
        Piece::ThinkingCompleted => {
            json!({"type": "thinking", "subtype": "completed", "session_id": SID})
        }
        Piece::ToolStarted { id, command } => json!({
            "type": "tool_call", "subtype": "started", "call_id": format!("call-{id}"), "session_id": SID,
            "tool_call": {"shellToolCall": {"args": {"command": command}}},
        }),
        Piece::ToolCompleted { id, output, exit } => json!({
            "type": "tool_call", "subtype": "completed", "call_id": format!("call-{id}"), "session_id": SID,
            "tool_call": {"shellToolCall": {"args": {"command": "x"}, "result": {"success": {"stdout": output, "stderr": "", "exitCode": exit}}}},
        }),
        Piece::Transport(kind) => {
            json!({"type": kind, "subtype": "starting", "session_id": SID, "timestamp_ms": 2})
        }
        Piece::Init => {
            json!({"type": "system", "subtype": "init", "session_id": SID, "model": "Auto"})
        }
        Piece::User(text) => {
            json!({"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": text}]}, "session_id": SID})
        }
        Piece::Result(text) => {
            json!({"type": "result", "subtype": "success", "is_error": false, "result": text, "session_id": SID})
        }
        Piece::Odd(value) => value.clone(),
        Piece::Garbage(bytes) => return bytes.clone(),
    };
    serde_json::to_vec(&record).expect("a JSON value serialises")
}

fn assemble(pieces: &[(Piece, Ending)]) -> Vec<u8> {
    let mut recap = String::new();
    let mut bytes = Vec::new();
    for (piece, ending) in pieces {
        bytes.extend_from_slice(&render(piece, &mut recap));
        bytes.extend_from_slice(match ending {
            Ending::Lf => b"\n".as_slice(),
            Ending::CrLf => b"\r\n",
            Ending::Blank => b"\n\n",
            Ending::None => b"",
        });
    }
    bytes
}

/// A stream, and byte offsets at which it is flipped (a record damaged in transit).
fn stream() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec((piece(), ending()), 0..40),
        prop::collection::vec((any::<usize>(), any::<u8>()), 0..3),
    )
        .prop_map(|(pieces, flips)| {
            let mut bytes = assemble(&pieces);
            if !bytes.is_empty() {
                for (at, xor) in flips {
                    let at = at % bytes.len();
                    bytes[at] ^= xor;
                }
            }
            bytes
        })
}

// ---- running the pipeline ----

fn fuzz_options(format: Format, max_line_bytes: usize) -> TransformerOptions {
    TransformerOptions {
        max_line_bytes,
        ..options(format)
    }
}

fn transform(opts: TransformerOptions, chunks: &[&[u8]]) -> (Vec<Output>, u64) {
    let mut transformer = StreamTransformer::new(opts);
    let mut out = Vec::new();
    for chunk in chunks {
        transformer
            .push(chunk, &mut out)
            .expect("push before finish never fails");
    }
    transformer.finish(&success(), &mut out);
    (out, transformer.skipped_lines())
}

/// Every string anywhere in the records of `input` that parse as JSON: what text shown to the
/// user may be drawn from.
fn input_strings(input: &[u8]) -> Vec<String> {
    fn collect(value: &Value, into: &mut Vec<String>) {
        match value {
            Value::String(text) => into.push(text.clone()),
            Value::Array(items) => items.iter().for_each(|item| collect(item, into)),
            Value::Object(fields) => fields.values().for_each(|field| collect(field, into)),
            _ => {}
        }
    }
    let mut strings = Vec::new();
    for line in input.split(|byte| *byte == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if let Ok(value) = serde_json::from_slice::<Value>(line) {
            collect(&value, &mut strings);
        }
    }
    strings
}

/// The text and thinking fragments shown, in either format.
fn shown_fragments(out: &[Output]) -> Vec<String> {
    let mut fragments = Vec::new();
    for output in out {
        match output {
            Output::Part(part) => {
                if matches!(
                    part["type"].as_str(),
                    Some("text-delta" | "reasoning-delta")
                ) {
                    fragments.push(
                        part["delta"]
                            .as_str()
                            .expect("a delta is a string")
                            .to_owned(),
                    );
                }
            }
            Output::Frame(frame) => {
                let body = frame
                    .strip_prefix("data: ")
                    .and_then(|rest| rest.strip_suffix("\n\n"))
                    .expect("an SSE frame");
                if body == "[DONE]" {
                    continue;
                }
                let chunk: Value = serde_json::from_str(body).expect("an SSE frame carries JSON");
                let delta = &chunk["choices"][0]["delta"];
                for key in ["content", "reasoning_content"] {
                    if let Some(text) = delta[key].as_str() {
                        fragments.push(text.to_owned());
                    }
                }
            }
        }
    }
    fragments
}

fn assert_pipeline_properties(
    input: &[u8],
    cuts: &[usize],
    max_line_bytes: usize,
) -> Result<(), TestCaseError> {
    let strings = input_strings(input);
    for format in [Format::OpenAiSse, Format::AiSdk] {
        let whole = transform(fuzz_options(format, max_line_bytes), &[input]);
        let chunked = transform(fuzz_options(format, max_line_bytes), &cut(input, cuts));
        prop_assert_eq!(&chunked.0, &whole.0, "outputs depend on the chunking");
        prop_assert_eq!(chunked.1, whole.1, "skipped records depend on the chunking");
        let byte_by_byte: Vec<&[u8]> = input.chunks(1).collect();
        let single = transform(fuzz_options(format, max_line_bytes), &byte_by_byte);
        prop_assert_eq!(&single.0, &whole.0, "byte-by-byte outputs differ");
        for fragment in shown_fragments(&whole.0) {
            prop_assert!(!fragment.is_empty(), "an empty fragment was shown");
            // The one text of the package's own: SSE's blank line between text segments.
            let fragment = match fragment.strip_prefix(SEGMENT_SEPARATOR) {
                Some(rest) if format == Format::OpenAiSse && !rest.is_empty() => rest.to_owned(),
                _ => fragment,
            };
            prop_assert!(
                strings.iter().any(|string| string.contains(&fragment)),
                "shown text {:?} is in no string of the input",
                fragment
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(fuzz_config(256))]

    /// Cursor-shaped records, damaged, in any chunking.
    #[test]
    fn fuzz_records_in_any_chunking(
        input in stream(),
        cuts in prop::collection::vec(any::<usize>(), 0..24),
        max_line_bytes in prop::sample::select(vec![48usize, 300, 1 << 16]),
    ) {
        assert_pipeline_properties(&input, &cuts, max_line_bytes)?;
    }

    /// Arbitrary bytes, LF-rich so that they frame into many records.
    #[test]
    fn fuzz_arbitrary_bytes_in_any_chunking(
        input in prop::collection::vec(prop_oneof![4 => any::<u8>(), 1 => Just(b'\n'), 1 => Just(b'{')], 0..600),
        cuts in prop::collection::vec(any::<usize>(), 0..24),
        max_line_bytes in prop::sample::select(vec![16usize, 128, 1 << 16]),
    ) {
        assert_pipeline_properties(&input, &cuts, max_line_bytes)?;
    }
}

// ---- bounded memory ----

/// Bytes a run may hold apart from the text it has shown: the record being framed
/// (`max_line_bytes`, with its buffer's growth slack), the outputs of one push (what one chunk's
/// records become) and a fixed allowance for the pipeline's state.
fn memory_bound(max_line_bytes: usize, chunk: usize) -> isize {
    (4 * max_line_bytes + 32 * chunk + (256 << 10)) as isize
}

/// How much more a four times longer stream may hold: nothing but allocator noise.
const LENGTH_SLACK: isize = 64 << 10;

/// Pushes `unit` repeatedly (`total` bytes in all) in chunks of `chunk` bytes, dropping the
/// outputs after each push, as the runner does; returns the peak heap growth.
fn repeated_run_growth(
    unit: &[u8],
    total: usize,
    chunk: usize,
    max_line_bytes: usize,
    format: Format,
) -> isize {
    let stream: Vec<u8> = unit.iter().copied().cycle().take(total).collect();
    let mut transformer = StreamTransformer::new(fuzz_options(format, max_line_bytes));
    let mut out = Vec::new();
    let growth = peak_growth(|| {
        for piece in stream.chunks(chunk.max(1)) {
            transformer.push(piece, &mut out).expect("push");
            out.clear();
            out.shrink_to(64);
        }
        transformer.finish(&success(), &mut out);
        out.clear();
    });
    drop(transformer);
    growth
}

proptest! {
    #![proptest_config(fuzz_config(24))]

    /// The same records without text (tools, chatter, results, garbage, over-long records),
    /// repeated: a stream four times longer holds no more, and what is held stays within a
    /// record's and a chunk's worth.
    #[test]
    fn fuzz_memory_is_bounded_by_the_record_cap(
        pieces in prop::collection::vec((piece(), ending()), 1..16),
        garbage in prop::collection::vec(any::<u8>(), 0..5_000),
        chunk in 1usize..70_000,
        format in prop::sample::select(vec![Format::OpenAiSse, Format::AiSdk]),
    ) {
        let textless: Vec<(Piece, Ending)> = pieces
            .into_iter()
            .filter(|(piece, _)| !matches!(piece, Piece::Delta(_) | Piece::Snapshot(_) | Piece::Recap | Piece::ThinkingDelta(_)))
            .collect();
        let mut unit = assemble(&textless);
        unit.extend_from_slice(&garbage);
        unit.push(b'\n');
        let max_line_bytes = 4_096;
        let short = repeated_run_growth(&unit, 512 << 10, chunk, max_line_bytes, format);
        let long = repeated_run_growth(&unit, 2 << 20, chunk, max_line_bytes, format);
        prop_assert!(long <= short + LENGTH_SLACK, "peak heap growth {} bytes, {} for a quarter of the stream", long, short);
        prop_assert!(long <= memory_bound(max_line_bytes, chunk), "peak heap growth {} bytes", long);
    }
}

#[test]
fn a_stream_without_line_ends_holds_at_most_one_record() {
    // 8 MB with no LF at all: the framer discards past the cap instead of buffering.
    for max_line_bytes in [1_024, 65_536] {
        let growth = repeated_run_growth(
            b"{\"type\":\"assistant\",\"x\":",
            8 << 20,
            4_096,
            max_line_bytes,
            Format::AiSdk,
        );
        assert!(
            growth <= memory_bound(max_line_bytes, 4_096),
            "peak heap growth {growth} bytes at cap {max_line_bytes}"
        );
    }
}

#[test]
fn the_oracle_sees_the_strings_of_a_record() {
    // The property's own reading of the input: strings of parsed records, nothing from garbage.
    let input = assemble(&[
        (Piece::Delta("Hel".into()), Ending::Lf),
        (Piece::Garbage(b"\"not a string\"x".to_vec()), Ending::CrLf),
        (
            Piece::ToolStarted {
                id: 1,
                command: "ls".into(),
            },
            Ending::CrLf,
        ),
    ]);
    let strings: BTreeSet<String> = input_strings(&input).into_iter().collect();
    assert!(strings.contains("Hel") && strings.contains("ls") && strings.contains("call-1"));
    assert!(!strings.iter().any(|s| s.contains("not a string")));
    let (out, _) = transform(fuzz_options(Format::AiSdk, 1 << 16), &[&input]);
    assert_eq!(shown_fragments(&out), vec!["Hel".to_owned()]);
}
