//! `StreamTransformer` on hand-written streams: framing hazards in any chunking, Cursor's
//! flushes and repeats, skipped records and their logs, the finish table, tool-call indexes,
//! usage and ids.

mod support;

use opencode_cursor_native::core::error::{CoreError, ErrorCode};
use opencode_cursor_native::core::stream::encode::Output;
use opencode_cursor_native::core::stream::encode::ToolCallMode;
use opencode_cursor_native::core::stream::tool::INTERRUPTED_MESSAGE;
use opencode_cursor_native::core::stream::transformer::{
    Format, StreamTransformer, TransformerOptions,
};
use opencode_cursor_native::core::stream::translate::{FinishSummary, Outcome};
use proptest::prelude::*;
use serde_json::{json, Value};
use support::*;

/// A stream with every framing hazard: multi-byte characters, CRLF, a raw U+2028, blank
/// lines, an over-long record, invalid UTF-8, invalid JSON, and an interaction flush.
fn hazard_stream() -> Vec<u8> {
    let mut s = Vec::new();
    s.extend_from_slice(format!("{}\r\n", delta("h\u{e9}llo \u{1F600}")).as_bytes());
    s.extend_from_slice(format!("{}\n\n  \n", delta(" x\u{2028}y")).as_bytes());
    s.extend_from_slice(format!("{}\n", delta(&"long ".repeat(40))).as_bytes());
    s.extend_from_slice(b"\xf0\x9f\x98\nnot json\n");
    s.extend_from_slice(format!("{}\n", delta("h\u{e9}llo \u{1F600} x\u{2028}y")).as_bytes());
    s.extend_from_slice(
        format!(r#"{{"type":"retry","subtype":"starting",{SID},"timestamp_ms":9}}"#).as_bytes(),
    );
    s.extend_from_slice(format!("\n{}\n{}", delta(" \u{4e16}\u{754c}"), result_line()).as_bytes());
    s
}

fn hazard_options(format: Format) -> TransformerOptions {
    TransformerOptions {
        max_line_bytes: 160,
        ..options(format)
    }
}

#[test]
fn hazard_stream_translation() {
    let (out, _, t) = run_chunks(
        hazard_options(Format::AiSdk),
        &[&hazard_stream()],
        &success(),
    );
    assert_eq!(
        visible_text(&out),
        "h\u{e9}llo \u{1F600} x\u{2028}y \u{4e16}\u{754c}"
    );
    // The over-long record, the invalid UTF-8 one and "not json".
    assert_eq!(t.skipped_lines(), 3);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]
    #[test]
    fn every_chunking_of_the_hazard_stream_gives_the_same_outputs(
        cuts in proptest::collection::vec(0usize..2_000, 0..60)
    ) {
        let input = hazard_stream();
        for format in [Format::OpenAiSse, Format::AiSdk] {
            let whole = run_chunks(hazard_options(format), &[&input], &success());
            let chunked = run_chunks(hazard_options(format), &cut(&input, &cuts), &success());
            prop_assert_eq!(&chunked.0, &whole.0);
            prop_assert_eq!(chunked.2.skipped_lines(), whole.2.skipped_lines());
        }
    }
}

// ---- hand-written streams ----

#[test]
fn interaction_flush_is_not_duplicated() {
    let input = stream(&[
        delta("Let me "),
        delta("ask you."),
        delta("Let me ask you."),
        format!(
            r#"{{"type":"interaction_query","subtype":"request","query_type":"askQuestionInteractionQuery","query":{{"id":0}},{SID},"timestamp_ms":2}}"#
        ),
        format!(
            r#"{{"type":"interaction_query","subtype":"response","response":{{"id":0}},{SID},"timestamp_ms":3}}"#
        ),
        delta(" Skipped."),
        result_line(),
    ]);
    let (out, _) = run(Format::AiSdk, &input, &success());
    assert_eq!(visible_text(&out), "Let me ask you. Skipped.");
}

#[test]
fn a_connection_record_neither_releases_nor_drops_a_held_flush() {
    let connection = r#"{"type":"connection","subtype":"reconnecting","attempt":1}"#.to_owned();
    let retry = format!(r#"{{"type":"retry","subtype":"starting",{SID},"timestamp_ms":9}}"#);
    // A flush, Cursor reconnecting, then its retry: the flush is dropped, the text shown once.
    let input = stream(&[
        delta("abc"),
        delta("abc"),
        connection.clone(),
        retry,
        result_line(),
    ]);
    let (out, _) = run(Format::AiSdk, &input, &success());
    assert_eq!(visible_text(&out), "abc");
    // A real repeat around a reconnect still survives: the next other record releases it.
    let input = stream(&[
        delta("ha"),
        delta("ha"),
        connection.clone(),
        connection,
        delta("!"),
        result_line(),
    ]);
    let (out, _) = run(Format::AiSdk, &input, &success());
    assert_eq!(visible_text(&out), "haha!");
}

#[test]
fn repeated_short_deltas_survive_through_the_transformer() {
    let input = stream(&[delta("ha"), delta("ha"), result_line()]);
    let (out, _) = run(Format::AiSdk, &input, &success());
    assert_eq!(visible_text(&out), "haha");
    // Held at the very end of the stream: still emitted, before the finish.
    let input = stream(&[delta("ha"), delta("ha")]);
    let (out, _) = run(Format::AiSdk, &input, &success());
    assert_eq!(visible_text(&out), "haha");
}

#[test]
fn skipped_lines_count_only_unusable_records() {
    let mut input = Vec::new();
    input.extend_from_slice(b"not json\n[1]\n\n   \n\xff\xfe\n");
    input.extend_from_slice(br#"{"type":"assistant","message":"bad shape"}"#);
    input.extend_from_slice(b"\n{\"type\":\"connection\",\"subtype\":\"reconnecting\"}\n");
    input.extend_from_slice(format!("{}\n", "x".repeat(70)).as_bytes());
    let opts = TransformerOptions {
        max_line_bytes: 60,
        ..options(Format::AiSdk)
    };
    let (_, _, t) = run_chunks(opts, &[&input], &success());
    // "not json", "[1]", invalid UTF-8, the 70-byte record.
    assert_eq!(t.skipped_lines(), 4);
}

/// Log lines written on this thread while `f` runs, at every level. One global subscriber
/// that enables everything serves the whole test binary: whether a callsite is enabled is
/// cached for the process, and a scoped subscriber loses when a test on another thread (with
/// none) caches "never" first.
fn captured_logs(f: impl FnOnce()) -> String {
    use std::cell::RefCell;
    use std::sync::Once;
    thread_local! {
        static CAPTURE: RefCell<Option<Vec<u8>>> = const { RefCell::new(None) };
    }
    struct ThreadBuffer;
    impl std::io::Write for ThreadBuffer {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            CAPTURE.with(|c| {
                if let Some(buffer) = c.borrow_mut().as_mut() {
                    buffer.extend_from_slice(bytes);
                }
            });
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_ansi(false)
            .with_writer(|| ThreadBuffer)
            .finish();
        tracing::subscriber::set_global_default(subscriber).expect("the only subscriber");
        tracing::callsite::rebuild_interest_cache();
    });
    CAPTURE.with(|c| *c.borrow_mut() = Some(Vec::new()));
    f();
    let bytes = CAPTURE.with(|c| c.borrow_mut().take()).unwrap_or_default();
    String::from_utf8(bytes).unwrap()
}

#[test]
fn skipped_records_are_logged_at_debug_with_a_short_prefix() {
    let garbage = format!("{}{}", "\u{e9}".repeat(100), "TAIL".repeat(50));
    let logs = captured_logs(|| {
        let mut t = StreamTransformer::new(options(Format::AiSdk));
        let mut out = Vec::new();
        t.push(format!("{garbage}\n").as_bytes(), &mut out).unwrap();
        assert_eq!(t.skipped_lines(), 1);
    });
    assert!(logs.contains("DEBUG"), "{logs}");
    assert!(logs.contains("not a JSON object"), "{logs}");
    // 100 bytes of the record: fifty two-byte characters, nothing of the tail.
    assert!(logs.contains(&"\u{e9}".repeat(50)), "{logs}");
    assert!(!logs.contains(&"\u{e9}".repeat(51)), "{logs}");
    assert!(!logs.contains("TAIL"), "{logs}");
}

#[test]
fn unknown_records_are_logged_once_per_kind_with_their_keys_and_notices_at_info() {
    let input = stream(&[
        format!(r#"{{"type":"heartbeat","beat":1,{SID}}}"#),
        format!(r#"{{"type":"heartbeat","beat":2,{SID}}}"#),
        format!(r#"{{"type":"text","text":{{"value":"x"}},{SID}}}"#),
        format!(
            r#"{{"type":"system","subtype":"task_notification","task":{{"id":"t-9","status":"done"}},{SID}}}"#
        ),
        result_line(),
    ]);
    let logs = captured_logs(|| {
        let (_, summary, t) = run_chunks(options(Format::AiSdk), &[&input], &success());
        assert_eq!(summary.error, None);
        assert_eq!(t.unknown_records().len(), 2);
    });
    let unknown: Vec<&str> = logs
        .lines()
        .filter(|l| l.contains("does not know"))
        .collect();
    assert_eq!(unknown.len(), 2, "{logs}");
    assert!(unknown[0].contains("INFO") && unknown[0].contains("kind=heartbeat"));
    assert!(unknown[0].contains("keys=beat,session_id,type"), "{logs}");
    assert!(unknown[1].contains("kind=text") && unknown[1].contains("keys=session_id,text,type"));
    let notice = logs
        .lines()
        .find(|l| l.contains("system notice"))
        .expect("the notice is logged");
    assert!(notice.contains("INFO") && notice.contains("subtype=\"task_notification\""));
    assert!(
        notice.contains(r#"task.id="t-9" task.status="done""#),
        "{notice}"
    );
}

#[test]
fn quota_after_output_is_reported_with_cursors_words_apart() {
    let stderr = "Error: You've hit your usage limit\nIt will reset when your monthly cycle ends on 1/1/2027.";
    let (out, summary) = run(
        Format::AiSdk,
        &stream(&[delta("kept")]),
        &outcome(Some(1), None, stderr, false),
    );
    let error = summary
        .error
        .expect("a usage limit mid-answer is a failure");
    assert_eq!(error.code(), "E_QUOTA");
    assert!(
        error.message().contains("It resets on 1/1/2027."),
        "{}",
        error.message()
    );
    assert_eq!(error.agent_output(), Some(stderr));
    let parts = parts(&out);
    let error_part = parts
        .iter()
        .find(|p| p["type"] == "error")
        .expect("an error part");
    assert_eq!(error_part["error"]["code"], "E_QUOTA");
    assert_eq!(error_part["error"]["agentOutput"], stderr);
    assert!(parts
        .iter()
        .any(|p| p["type"] == "text-delta" && p["delta"] == "kept"));
}

#[test]
fn push_after_finish_is_invalid_and_second_finish_is_empty() {
    let mut t = StreamTransformer::new(options(Format::AiSdk));
    let mut out = Vec::new();
    t.finish(&success(), &mut out);
    assert!(!out.is_empty());
    let err = t.push(b"{}\n", &mut out).unwrap_err();
    assert_eq!(err.code(), "E_INVALID_ARG");
    let mut again = Vec::new();
    assert_eq!(t.finish(&success(), &mut again), FinishSummary::default());
    assert!(again.is_empty());
}

#[test]
fn tool_calls_omit_and_distinct_indexes() {
    let tool = |id: &str, sub: &str| {
        format!(
            r#"{{"type":"tool_call","subtype":"{sub}","call_id":"{id}","tool_call":{{"readToolCall":{{"args":{{"path":"/{id}"}}}}}},{SID},"timestamp_ms":1}}"#
        )
    };
    let input = stream(&[
        tool("a", "started"),
        tool("b", "started"),
        tool("b", "completed"),
        tool("a", "completed"),
        tool("c", "completed"),
        result_line(),
    ]);
    let (out, _) = run(Format::OpenAiSse, &input, &success());
    let lines = sse_outline(&out);
    assert_eq!(
        lines,
        vec![
            r#"tool 0 "a" read {"path":"/a"}"#,
            r#"tool 1 "b" read {"path":"/b"}"#,
            r#"tool 2 "c" read {"path":"/c"}"#,
            "finish stop",
            "[DONE]",
        ]
    );
    let opts = TransformerOptions {
        tool_calls: ToolCallMode::Omit,
        ..options(Format::OpenAiSse)
    };
    let (out, _, _) = run_chunks(opts, &[&input], &success());
    assert_eq!(sse_outline(&out), vec!["finish stop", "[DONE]"]);
    // In ai-sdk, the completion without a start yields both.
    let (out, _) = run(Format::AiSdk, &input, &success());
    assert_eq!(
        ai_sdk_outline(&out),
        vec![
            "stream-start",
            r#"tool read "a""#,
            r#"tool read "b""#,
            r#"result read "b" unknown error=true"#,
            r#"result read "a" unknown error=true"#,
            r#"tool read "c""#,
            r#"result read "c" unknown error=true"#,
            "finish stop/stop",
        ]
    );
}

#[test]
fn usage_chunk_only_when_reported_and_included() {
    let with_usage = stream(&[
        delta("x"),
        format!(r#"{{"type":"result","is_error":false,"usage":{{"outputTokens":3}},{SID}}}"#),
    ]);
    let (out, _) = run(Format::OpenAiSse, &with_usage, &success());
    assert!(sse_outline(&out).iter().any(|l| l.starts_with("usage ")));
    let opts = TransformerOptions {
        include_usage: false,
        ..options(Format::OpenAiSse)
    };
    let (out, _, _) = run_chunks(opts, &[&with_usage], &success());
    assert_eq!(sse_outline(&out), vec!["text: x", "finish stop", "[DONE]"]);
    let without = stream(&[delta("x"), result_line()]);
    let (out, _) = run(Format::OpenAiSse, &without, &success());
    assert_eq!(sse_outline(&out), vec!["text: x", "finish stop", "[DONE]"]);
    let (out, _) = run(Format::AiSdk, &without, &success());
    let finish = parts(&out).pop().unwrap();
    assert_eq!(
        finish["usage"],
        json!({"inputTokens": {}, "outputTokens": {}})
    );
}

// ---- the finish table ----

struct FinishCase {
    name: &'static str,
    lines: Vec<String>,
    outcome: Outcome,
    /// `None`: no error; else the code.
    code: Option<&'static str>,
    ai_sdk_tail: &'static [&'static str],
    sse_tail: &'static [&'static str],
}

fn outcome(exit: Option<i32>, signal: Option<&str>, stderr: &str, cancelled: bool) -> Outcome {
    Outcome {
        exit_code: exit,
        signal: signal.map(str::to_owned),
        stderr: stderr.to_owned(),
        cancelled,
    }
}

#[test]
fn finish_table() {
    let quota = "Error: You've hit your usage limit";
    let is_error = format!(
        r#"{{"type":"result","subtype":"error","is_error":true,"result":"Model overloaded",{SID}}}"#
    );
    let quota_result = format!(
        r#"{{"type":"result","is_error":true,"error":{{"message":"You've hit your usage limit"}},{SID}}}"#
    );
    let cases = vec![
        FinishCase {
            name: "success",
            lines: vec![delta("hi"), result_line()],
            outcome: outcome(Some(0), None, "", false),
            code: None,
            ai_sdk_tail: &["text text-0: hi", "finish stop/stop"],
            sse_tail: &["text: hi", "finish stop", "[DONE]"],
        },
        FinishCase {
            name: "success without an exit status (pure translation)",
            lines: vec![delta("hi"), result_line()],
            outcome: Outcome::default(),
            code: None,
            ai_sdk_tail: &["text text-0: hi", "finish stop/stop"],
            sse_tail: &["text: hi", "finish stop", "[DONE]"],
        },
        FinishCase {
            name: "cancelled wins over a failure",
            lines: vec![delta("hi")],
            outcome: outcome(None, Some("SIGTERM"), "", true),
            code: None,
            ai_sdk_tail: &["text text-0: hi", "finish other/cancelled"],
            sse_tail: &["text: hi", "[DONE]"],
        },
        FinishCase {
            name: "quota after output: the text stays, the answer is reported cut off",
            lines: vec![delta("hi")],
            outcome: outcome(Some(1), None, quota, false),
            code: Some("E_QUOTA"),
            ai_sdk_tail: &["text text-0: hi", "error E_QUOTA", "finish error/E_QUOTA"],
            sse_tail: &["text: hi", "[DONE]"],
        },
        FinishCase {
            name: "quota reported in the result after output",
            lines: vec![delta("hi"), quota_result.clone()],
            outcome: outcome(Some(1), None, "", false),
            code: Some("E_QUOTA"),
            ai_sdk_tail: &["text text-0: hi", "error E_QUOTA", "finish error/E_QUOTA"],
            sse_tail: &["text: hi", "[DONE]"],
        },
        FinishCase {
            name: "quota before output",
            lines: vec![],
            outcome: outcome(Some(1), None, quota, false),
            code: Some("E_QUOTA"),
            ai_sdk_tail: &["stream-start", "error E_QUOTA", "finish error/E_QUOTA"],
            sse_tail: &["[DONE]"],
        },
        FinishCase {
            name: "failing exit after a successful result",
            lines: vec![delta("hi"), result_line()],
            outcome: outcome(Some(1), None, "Error: Authentication required.", false),
            code: Some("E_AUTH"),
            ai_sdk_tail: &["text text-0: hi", "error E_AUTH", "finish error/E_AUTH"],
            sse_tail: &["text: hi", "[DONE]"],
        },
        FinishCase {
            name: "no result at all, exit 0",
            lines: vec![delta("hi")],
            outcome: outcome(Some(0), None, "", false),
            code: Some("E_AGENT_EXIT"),
            ai_sdk_tail: &[
                "text text-0: hi",
                "error E_AGENT_EXIT",
                "finish error/E_AGENT_EXIT",
            ],
            sse_tail: &["text: hi", "[DONE]"],
        },
        FinishCase {
            name: "is_error result (an overloaded model is a fault on Cursor's side)",
            lines: vec![is_error.clone()],
            outcome: outcome(Some(0), None, "", false),
            code: Some("E_NETWORK"),
            ai_sdk_tail: &["stream-start", "error E_NETWORK", "finish error/E_NETWORK"],
            sse_tail: &["[DONE]"],
        },
        FinishCase {
            name: "signal without cancel",
            lines: vec![result_line()],
            outcome: outcome(None, Some("SIGKILL"), "", false),
            code: Some("E_AGENT_EXIT"),
            ai_sdk_tail: &[
                "stream-start",
                "error E_AGENT_EXIT",
                "finish error/E_AGENT_EXIT",
            ],
            sse_tail: &["[DONE]"],
        },
    ];
    for case in cases {
        let input = stream(&case.lines);
        let input = if case.lines.is_empty() {
            Vec::new()
        } else {
            input
        };
        let (out, summary) = run(Format::AiSdk, &input, &case.outcome);
        assert_eq!(
            summary.error.as_ref().map(|e| e.code().as_str()),
            case.code,
            "{}",
            case.name
        );
        let outline = ai_sdk_outline(&out);
        assert_eq!(
            outline[outline.len() - case.ai_sdk_tail.len()..],
            *case.ai_sdk_tail,
            "{}",
            case.name
        );
        if let Some(code) = case.code {
            let error = parts(&out)
                .into_iter()
                .find(|p| p["type"] == "error")
                .unwrap();
            assert_eq!(error["error"]["code"], code);
            assert_eq!(
                error["error"]["message"],
                summary.error.as_ref().unwrap().message(),
                "{}",
                case.name
            );
        }
        let (out, sse_summary) = run(Format::OpenAiSse, &input, &case.outcome);
        assert_eq!(sse_summary, summary, "{}", case.name);
        let outline = sse_outline(&out);
        let without_error: Vec<&String> = outline
            .iter()
            .filter(|l| !l.starts_with("error "))
            .collect();
        let tail = &without_error[without_error.len() - case.sse_tail.len()..];
        assert_eq!(tail, case.sse_tail, "{}", case.name);
        let error_lines: Vec<_> = outline.iter().filter(|l| l.starts_with("error ")).collect();
        match case.code {
            Some(code) => {
                assert_eq!(error_lines.len(), 1, "{}", case.name);
                assert!(error_lines[0].starts_with(&format!("error {code}: ")));
                // The error frame comes right before `[DONE]`, with no finish chunk.
                assert_eq!(outline[outline.len() - 2], *error_lines[0]);
            }
            None => assert!(error_lines.is_empty(), "{}", case.name),
        }
    }
}

#[test]
fn fail_closes_with_the_given_error() {
    let input = stream(&[delta("partial"), result_line()]);
    let timeout = CoreError::new(ErrorCode::Timeout, "no output for 300 s");
    let mut t = StreamTransformer::new(options(Format::AiSdk));
    let mut out = Vec::new();
    t.push(&input, &mut out).unwrap();
    let summary = t.fail(timeout.clone(), &mut out);
    assert_eq!(summary.error, Some(timeout.clone()));
    assert_eq!(
        ai_sdk_outline(&out),
        vec![
            "stream-start",
            "text text-0: partial",
            "error E_TIMEOUT",
            "finish error/E_TIMEOUT"
        ]
    );
    assert_eq!(t.finish(&success(), &mut out), FinishSummary::default());
    assert!(t.push(b"x", &mut out).is_err());
    let mut t = StreamTransformer::new(options(Format::OpenAiSse));
    let mut out = Vec::new();
    t.push(&input, &mut out).unwrap();
    t.fail(timeout, &mut out);
    assert_eq!(
        sse_outline(&out),
        vec![
            "text: partial",
            "error E_TIMEOUT: no output for 300 s",
            "[DONE]"
        ]
    );
}

#[test]
fn open_tool_call_at_finish_gets_an_interrupted_result() {
    let input = stream(&[
        delta("Running."),
        format!(
            r#"{{"type":"tool_call","call_id":"t1","tool_call":{{"shellToolCall":{{"args":{{"command":"sleep 9"}}}}}},{SID},"timestamp_ms":1}}"#
        ),
    ]);
    let mut t = StreamTransformer::new(options(Format::AiSdk));
    let mut out = Vec::new();
    t.push(&input, &mut out).unwrap();
    assert_eq!(t.open_tool_calls(), 1);
    t.finish(&outcome(None, Some("SIGTERM"), "", true), &mut out);
    assert_eq!(
        ai_sdk_outline(&out),
        vec![
            "stream-start",
            "text text-0: Running.",
            r#"tool shell "t1""#,
            r#"result shell "t1" interrupted error=true"#,
            "finish other/cancelled",
        ]
    );
    let result = parts(&out)
        .into_iter()
        .find(|p| p["type"] == "tool-result")
        .unwrap();
    assert_eq!(
        result["result"],
        json!({"status": "interrupted", "message": INTERRUPTED_MESSAGE})
    );
    assert_eq!(result["isError"], true);
    assert_eq!(
        result["providerMetadata"],
        json!({"cursor": {"kind": "shellToolCall"}})
    );
}

#[test]
fn reasoning_block_ends_at_thinking_completed_and_blocks_never_overlap() {
    let thinking = |text: &str| {
        format!(r#"{{"type":"thinking","subtype":"delta","text":"{text}",{SID},"timestamp_ms":1}}"#)
    };
    let input = stream(&[
        thinking("a"),
        delta("x"),
        thinking("b"),
        format!(r#"{{"type":"thinking","subtype":"completed",{SID},"timestamp_ms":1}}"#),
        delta("y"),
        result_line(),
    ]);
    let (out, _) = run(Format::AiSdk, &input, &success());
    assert_eq!(
        ai_sdk_outline(&out),
        vec![
            "stream-start",
            "reasoning reasoning-0: a",
            "text text-0: x",
            "reasoning reasoning-1: b",
            "text text-1: y",
            "finish stop/stop",
        ]
    );
}

#[test]
fn generated_sse_ids_differ_between_streams() {
    let id = || {
        let mut t = StreamTransformer::new(TransformerOptions::default());
        let mut out = Vec::new();
        t.push(&stream(&[delta("hi"), result_line()]), &mut out)
            .unwrap();
        let Some(Output::Frame(first)) = out.first() else {
            panic!("no SSE frame: {out:?}")
        };
        let chunk: Value = serde_json::from_str(&first["data: ".len()..]).unwrap();
        s(&chunk, "id").to_owned()
    };
    let (a, b) = (id(), id());
    assert!(a.starts_with("chatcmpl-cursor-"), "{a}");
    assert_ne!(a, b);
}

/// A tool call whose completed result nests `depth` arrays deep.
fn deep_tool_stream(depth: usize) -> Vec<u8> {
    let deep = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
    let call = |sub: &str, result: &str| {
        format!(
            r#"{{"type":"tool_call","subtype":"{sub}","call_id":"d","tool_call":{{"fooToolCall":{{"args":{{"q":1}}{result}}}}},{SID},"timestamp_ms":1}}"#
        )
    };
    stream(&[
        call("started", ""),
        call(
            "completed",
            &format!(r#","result":{{"success":{{"value":{deep}}}}}"#),
        ),
        result_line(),
    ])
}

#[test]
fn a_deeply_nested_tool_result_is_kept_and_a_deeper_record_is_skipped() {
    // A small thread: the pipeline must grow its own stack for deep records, not rely on ours.
    std::thread::Builder::new()
        .stack_size(512 * 1024)
        .spawn(|| {
            let (out, _) = run(Format::AiSdk, &deep_tool_stream(9_990), &success());
            let first = parts(&out);
            let result = first
                .iter()
                .find(|p| p["type"] == "tool-result")
                .expect("a tool result");
            assert_ne!(
                result["isError"],
                json!(true),
                "{}",
                &result.to_string()[..200]
            );
            // Kept whole, as its compact JSON text: a value that deep would take more stack to
            // clone, print and drop than whoever holds the outputs has.
            let kept = s(&result["result"], "value");
            assert_eq!(kept, format!("{}1{}", "[".repeat(9_990), "]".repeat(9_990)));
            assert_eq!(result["result"]["status"], "success");

            let opts = options(Format::AiSdk);
            let (out, _, t) = run_chunks(opts, &[&deep_tool_stream(10_001)], &success());
            assert_eq!(t.skipped_lines(), 1, "the completion record is skipped");
            let results = parts(&out)
                .into_iter()
                .filter(|p| p["type"] == "tool-result")
                .count();
            assert_eq!(results, 1, "the call still ends, as interrupted");
        })
        .expect("spawns")
        .join()
        .expect("no overflow, no panic");
}
