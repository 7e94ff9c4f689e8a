//! A run's capture, made by tapping the transformer as the runner does, replayed offline through
//! the same pipeline: byte-exact stdout (the prompt echo and secrets masked), matching outputs,
//! and the stage a cut-off answer is blamed on.

mod support;

use std::path::{Path, PathBuf};

use opencode_cursor_native::core::capture::record::Line;
use opencode_cursor_native::core::capture::store::capture_path;
use opencode_cursor_native::core::capture::{
    fresh_name, replay_file, Capture, CaptureOptions, EndInfo, ReplayReport, Stage, StartInfo,
};
use opencode_cursor_native::core::error::{CoreError, ErrorCode};
use opencode_cursor_native::core::stream::encode::Output;
use opencode_cursor_native::core::stream::transformer::{
    Format, StreamTransformer, TransformerOptions,
};
use opencode_cursor_native::core::stream::translate::{HandedCall, Outcome};
use serde_json::Value;
use support::{capture, options, stream_fixture, success};

const API_KEY: &str = "key_live_0123456789abcdef";

fn folder() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ocn-capture-test-{}", fresh_name()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// How the captured stream ends.
enum Closing {
    Finish(Outcome),
    /// The writer died in the middle of a record, then the process outcome.
    CutOff(Outcome),
    Fail(CoreError),
}

struct Captured {
    path: PathBuf,
    live: Vec<Value>,
}

fn value(output: &Output) -> Value {
    match output {
        Output::Frame(frame) => Value::String(frame.clone()),
        Output::Part(part) => part.clone(),
    }
}

/// One input of a run's transformer.
enum Input<'a> {
    Stdout(&'a [u8]),
    HandOver(&'a [HandedCall<'a>]),
}

/// Runs `chunks` through a transformer with a capture's tap, as a run does.
fn captured(
    dir: &Path,
    opts: TransformerOptions,
    chunks: &[&[u8]],
    closing: Closing,
    ending: &'static str,
    max_bytes: Option<u64>,
) -> Captured {
    let inputs: Vec<Input<'_>> = chunks.iter().map(|c| Input::Stdout(c)).collect();
    captured_inputs(dir, opts, &inputs, closing, ending, max_bytes)
}

fn captured_inputs(
    dir: &Path,
    opts: TransformerOptions,
    inputs: &[Input<'_>],
    closing: Closing,
    ending: &'static str,
    max_bytes: Option<u64>,
) -> Captured {
    let name = fresh_name();
    let mut capture_options = CaptureOptions::new(dir);
    if let Some(max) = max_bytes {
        capture_options.max_bytes = max;
    }
    let capture = Capture::create(&capture_options, &name).expect("capture created");
    let mut transformer = StreamTransformer::new(opts);
    capture.start(StartInfo {
        argv: vec!["cursor-agent".into(), "--print".into()],
        workspace: dir,
        env: vec![("CURSOR_API_KEY", API_KEY), ("PATH", "/usr/bin")],
        prompt: "the user's prompt",
        transformer: transformer.options(),
        resume_chat_id: None,
        host_tools: None,
        agent_version: None,
        secrets: Vec::new(),
    });
    transformer.set_tap(capture.tap());
    let mut out = Vec::new();
    for input in inputs {
        match input {
            Input::Stdout(bytes) => transformer.push(bytes, &mut out).unwrap(),
            Input::HandOver(calls) => transformer.hand_over(calls, &mut out),
        }
    }
    let (error, exit_code) = match closing {
        Closing::Finish(outcome) => (
            transformer.finish(&outcome, &mut out).error,
            outcome.exit_code,
        ),
        Closing::CutOff(outcome) => {
            transformer.drop_unterminated();
            (
                transformer.finish(&outcome, &mut out).error,
                outcome.exit_code,
            )
        }
        // Stopped by the run: SIGTERM.
        Closing::Fail(error) => (transformer.fail(error, &mut out).error, None),
    };
    capture.end(EndInfo {
        ending,
        exit_code,
        signal: None,
        cancelled: false,
        error: error.as_ref(),
        skipped_lines: transformer.skipped_lines(),
        delivered: out.len() as u64,
        agent_version: None,
    });
    Captured {
        path: capture_path(dir, &name),
        live: out.iter().map(value).collect(),
    }
}

fn lines(path: &Path) -> Vec<Line> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The stdout the capture kept, concatenated.
fn kept_stdout(path: &Path) -> Vec<u8> {
    let mut bytes = Vec::new();
    for line in lines(path) {
        if let Line::Stdout {
            data: Some(data), ..
        } = line
        {
            bytes.extend_from_slice(data.as_bytes());
        }
    }
    bytes
}

/// The fixture as the capture must keep it: the prompt echoed in the `user` record replaced.
fn masked_fixture(raw: &[u8]) -> Vec<u8> {
    let text = String::from_utf8(raw.to_vec()).unwrap();
    let mut out = String::new();
    for line in text.split_inclusive('\n') {
        let record: Value = serde_json::from_str(line.trim_end()).unwrap_or(Value::Null);
        if record["type"] == "user" {
            let prompt = record["message"]["content"][0]["text"].as_str().unwrap();
            let quoted = serde_json::to_string(prompt).unwrap();
            out.push_str(&line.replace(&quoted, "\"[prompt masked]\""));
        } else {
            out.push_str(line);
        }
    }
    out.into_bytes()
}

const CAPTURES: [&str; 5] = [
    "01_simple_no_tool.jsonl",
    "02_shell_tool_call.jsonl",
    "03_edit_tool_call.jsonl",
    "04_partial_output.jsonl",
    "05_rejected_shell.jsonl",
];

#[test]
fn every_real_capture_replays_to_the_same_outputs_in_both_formats() {
    let dir = folder();
    for name in CAPTURES {
        let raw = capture(name);
        for format in [Format::AiSdk, Format::OpenAiSse] {
            // Reads of 4 KiB, as a pipe may deliver them: records straddle reads.
            let chunks: Vec<&[u8]> = raw.chunks(4096).collect();
            let run = captured(
                &dir,
                options(format),
                &chunks,
                Closing::Finish(success()),
                "finished",
                None,
            );
            assert_eq!(
                kept_stdout(&run.path),
                masked_fixture(&raw),
                "{name} {format:?}: stdout byte for byte"
            );
            let report = replay_file(&run.path).unwrap();
            assert!(report.matches, "{name} {format:?}: {:?}", report.mismatch);
            assert_eq!(report.consumer.outputs, run.live, "{name} {format:?}");
            assert_eq!(
                report.text_stopped.as_ref().map(|v| v.stage),
                None,
                "{name} {format:?}: {:?}",
                report.text_stopped
            );
            let Line::Start(start) = &lines(&run.path)[0] else {
                panic!("no start line")
            };
            assert_eq!(start.prompt.text, None);
            assert_eq!(start.prompt.bytes, "the user's prompt".len());
            assert!(start.masked.prompt);
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

fn stream(lines: &[&str]) -> Vec<u8> {
    lines
        .iter()
        .map(|l| format!("{l}\n"))
        .collect::<String>()
        .into_bytes()
}

const INIT: &str = r#"{"type":"system","subtype":"init","session_id":"s-1","model":"Fake"}"#;
const RESULT: &str = r#"{"type":"result","subtype":"success","is_error":false,"result":"Hello world","session_id":"s-1"}"#;

fn delta(text: &str) -> String {
    format!(
        r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"text","text":{}}}]}},"session_id":"s-1","timestamp_ms":1}}"#,
        serde_json::to_string(text).unwrap()
    )
}

fn verdict(report: &ReplayReport) -> (Option<Stage>, String) {
    let v = report.text_stopped.as_ref();
    (
        v.map(|v| v.stage),
        v.map(|v| v.reason.clone()).unwrap_or_default(),
    )
}

#[test]
fn a_run_cut_off_in_a_record_is_blamed_on_the_process() {
    let dir = folder();
    let (a, b) = (delta("Hello"), delta(" wor"));
    let mut bytes = stream(&[INIT, &a]);
    bytes.extend_from_slice(b.as_bytes()); // no line feed: the writer died here
    let failed = Outcome {
        exit_code: Some(1),
        stderr: "Error: connection lost\n".into(),
        ..Default::default()
    };
    let run = captured(
        &dir,
        options(Format::AiSdk),
        &[&bytes],
        Closing::CutOff(failed),
        "finished",
        None,
    );
    let report = replay_file(&run.path).unwrap();
    assert!(report.matches, "{:?}", report.mismatch);
    let (stage, reason) = verdict(&report);
    assert_eq!(stage, Some(Stage::Process), "{reason}");
    assert!(
        reason.contains("exited with code 1 before its result record"),
        "{reason}"
    );
    assert_eq!(report.consumer.text, "Hello");
    let skipped = &report.framing.skipped;
    assert_eq!(skipped.len(), 1);
    assert!(skipped[0].reason.contains("cut off"), "{:?}", skipped[0]);
    assert_eq!(skipped[0].bytes, b.len());
    assert_eq!(report.process.stderr, "Error: connection lost\n");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_record_framing_could_not_read_is_blamed_on_framing() {
    let dir = folder();
    let mut bytes = stream(&[INIT, &delta("Hello")]);
    bytes.extend_from_slice(b"{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\" \xff\xfe\"}]}}\n");
    bytes.extend_from_slice(&stream(&[RESULT]));
    let run = captured(
        &dir,
        options(Format::OpenAiSse),
        &[&bytes],
        Closing::Finish(success()),
        "finished",
        None,
    );
    let report = replay_file(&run.path).unwrap();
    assert!(report.matches, "{:?}", report.mismatch);
    let (stage, reason) = verdict(&report);
    assert_eq!(stage, Some(Stage::Framing), "{reason}");
    assert!(
        reason.contains("record 3") && reason.contains("not valid UTF-8"),
        "{reason}"
    );
    let Some(Line::Stdout {
        base64: Some(_), ..
    }) = lines(&run.path).get(1).cloned()
    else {
        panic!("bytes that are not UTF-8 are kept as base64");
    };
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_consumer_that_threw_or_got_less_is_blamed_on_the_consumer() {
    let dir = folder();
    let bytes = stream(&[INIT, &delta("Hello"), RESULT]);
    let threw = CoreError::new(
        ErrorCode::Callback,
        "the onOutput callback threw, so the run was stopped: boom",
    );
    let run = captured(
        &dir,
        options(Format::AiSdk),
        &[&bytes],
        Closing::Fail(threw),
        "callback threw",
        None,
    );
    let report = replay_file(&run.path).unwrap();
    assert!(report.matches);
    assert_eq!(verdict(&report).0, Some(Stage::Consumer));
    assert_eq!(
        report.process.error.as_ref().map(|e| e.code.as_str()),
        Some("E_CALLBACK")
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_timeout_is_blamed_on_the_process_and_named() {
    let dir = folder();
    let bytes = stream(&[INIT, &delta("Hello")]);
    let timeout = CoreError::new(
        ErrorCode::Timeout,
        "cursor-agent printed nothing for 5 minutes",
    );
    let run = captured(
        &dir,
        options(Format::AiSdk),
        &[&bytes],
        Closing::Fail(timeout),
        "idle timeout",
        None,
    );
    let report = replay_file(&run.path).unwrap();
    assert!(report.matches);
    let (stage, reason) = verdict(&report);
    assert_eq!(stage, Some(Stage::Process));
    assert!(
        reason.contains("idle timeout") && reason.contains("E_TIMEOUT"),
        "{reason}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_api_key_never_reaches_the_capture_and_the_replay_still_matches() {
    let dir = folder();
    let leak = delta(&format!("your key is {API_KEY}"));
    let bytes = stream(&[INIT, &leak, RESULT]);
    let failed = Outcome {
        exit_code: Some(1),
        stderr: format!("Error: invalid key {API_KEY}\n"),
        ..Default::default()
    };
    let run = captured(
        &dir,
        options(Format::AiSdk),
        &[&bytes],
        Closing::Finish(failed),
        "finished",
        None,
    );
    let text = std::fs::read_to_string(&run.path).unwrap();
    assert!(!text.contains(API_KEY));
    assert!(text.contains("[masked CURSOR_API_KEY]"));
    let report = replay_file(&run.path).unwrap();
    assert!(report.matches, "{:?}", report.mismatch);
    assert_eq!(report.consumer.text, "your key is [masked CURSOR_API_KEY]");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_capture_over_its_share_of_the_folder_is_truncated_and_cannot_match() {
    let dir = folder();
    let long = delta(&"x".repeat(4000));
    let bytes = stream(&[INIT, &long, &long, &long, RESULT]);
    let chunks: Vec<&[u8]> = bytes.chunks(1000).collect();
    // A quarter of 16 KiB: the start line and a few reads fit, not the rest.
    let run = captured(
        &dir,
        options(Format::AiSdk),
        &chunks,
        Closing::Finish(success()),
        "finished",
        Some(16 * 1024),
    );
    assert!(std::fs::metadata(&run.path).unwrap().len() <= 4 * 1024 + 1024);
    let report = replay_file(&run.path).unwrap();
    assert!(report.truncated);
    assert!(!report.matches);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_file_that_is_not_a_capture_is_refused_with_the_line() {
    let dir = folder();
    let table = [
        ("not json\n", "line 1"),
        (
            "{\"kind\":\"stdout\",\"t\":1,\"read\":1,\"outputs\":[]}\n",
            "first line is not its start",
        ),
    ];
    for (content, expected) in table {
        let path = dir.join("bad.ndjson");
        std::fs::write(&path, content).unwrap();
        let error = replay_file(&path).unwrap_err();
        assert_eq!(error.code(), "E_INVALID_ARG");
        assert!(error.message().contains(expected), "{}", error.message());
    }
    let missing = replay_file(&dir.join("none.ndjson")).unwrap_err();
    assert_eq!(missing.code(), "E_INVALID_ARG");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn an_edited_output_is_found_as_a_mismatch() {
    let dir = folder();
    let bytes = stream(&[INIT, &delta("Hello"), RESULT]);
    let run = captured(
        &dir,
        options(Format::AiSdk),
        &[&bytes],
        Closing::Finish(success()),
        "finished",
        None,
    );
    let text = std::fs::read_to_string(&run.path).unwrap();
    std::fs::write(
        &run.path,
        text.replace("\"delta\":\"Hello\"", "\"delta\":\"Hellp\""),
    )
    .unwrap();
    let report = replay_file(&run.path).unwrap();
    assert!(!report.matches);
    let mismatch = report.mismatch.expect("the first difference");
    assert_eq!(mismatch.live.unwrap()["delta"], "Hellp");
    assert_eq!(mismatch.replayed.unwrap()["delta"], "Hello");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_step_handed_to_the_host_replays_in_its_place() {
    let dir = folder();
    let mcp_start = r#"{"type":"tool_call","subtype":"started","call_id":"m-1","tool_call":{"mcpToolCall":{"args":{"name":"opencode-read","providerIdentifier":"opencode","toolName":"read","args":{"filePath":"a"}}}},"session_id":"s-1"}"#;
    let before = stream(&[INIT, &delta("Reading."), mcp_start]);
    let after = stream(&[&delta("It says hi."), RESULT]);
    let calls = [HandedCall {
        id: "m-1",
        name: "read",
        input: r#"{"filePath":"a"}"#,
    }];
    let inputs = [
        Input::Stdout(&before),
        Input::HandOver(&calls),
        Input::Stdout(&after),
    ];
    for format in [Format::AiSdk, Format::OpenAiSse] {
        let opts = TransformerOptions {
            host_tool_server: Some("opencode".into()),
            ..options(format)
        };
        let run = captured_inputs(
            &dir,
            opts,
            &inputs,
            Closing::Finish(success()),
            "finished",
            None,
        );
        let handed = lines(&run.path)
            .into_iter()
            .filter(|l| matches!(l, Line::HandOver { .. }))
            .count();
        assert_eq!(handed, 1, "{format:?}");
        let report = replay_file(&run.path).unwrap();
        assert!(report.matches, "{format:?}: {:?}", report.mismatch);
        let text = &report.consumer.text;
        assert_eq!(text, &report.consumer.live_text);
        assert!(
            text.starts_with("Reading.") && text.ends_with("It says hi."),
            "{format:?}: {text}"
        );
        let ends: Vec<&str> = report
            .reconciliation
            .decisions
            .iter()
            .map(|d| d.event.as_str())
            .filter(|e| *e == "hand-over")
            .collect();
        assert_eq!(
            ends,
            ["hand-over"],
            "{format:?}: the hand-over ends the segment"
        );
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_replay_lists_the_records_of_unknown_kinds() {
    let dir = folder();
    let raw = stream_fixture("unknown-records.ndjson");
    let run = captured(
        &dir,
        options(Format::AiSdk),
        &[&raw],
        Closing::Finish(success()),
        "finished",
        None,
    );
    let report = replay_file(&run.path).unwrap();
    assert!(report.matches, "{:?}", report.mismatch);
    assert_eq!(report.text_stopped.as_ref().map(|v| v.stage), None);
    assert_eq!(report.consumer.text, "Hi there.");
    let expected: Vec<(String, u64)> = [
        ("heartbeat", 3),
        ("system/compaction", 1),
        ("tool_call/progress", 1),
        ("prompt_suggestion", 1),
    ]
    .iter()
    .map(|(kind, count)| ((*kind).to_owned(), *count))
    .collect();
    assert_eq!(report.unknown_records, expected);
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(
        json["unknownRecords"][0],
        serde_json::json!(["heartbeat", 3])
    );
    std::fs::remove_dir_all(dir).unwrap();
}
