//! The record shapes of cursor-agent 2026.09 and later, read tolerantly: the hand-written
//! streams of `__test__/fixtures/streams/` (their README names each guess and its source),
//! through the whole pipeline in both output formats.

mod support;

use opencode_cursor_native::core::stream::tool::TOOL_REFUSALS;
use opencode_cursor_native::core::stream::transformer::Format;
use serde_json::{json, Value};
use support::*;

/// The outlines of a fixture in both formats, with the transformer of the `ai-sdk` run.
fn both(
    name: &str,
) -> (
    Vec<String>,
    Vec<String>,
    Vec<Value>,
    opencode_cursor_native::core::stream::transformer::StreamTransformer,
) {
    let input = stream_fixture(name);
    let (sse, sse_summary, _) = run_chunks(options(Format::OpenAiSse), &[&input], &success());
    let (ai, ai_summary, t) = run_chunks(options(Format::AiSdk), &[&input], &success());
    assert_eq!(sse_summary.error, None, "{name}: never fatal");
    assert_eq!(ai_summary.error, None, "{name}: never fatal");
    assert_eq!(t.skipped_lines(), 0, "{name}: nothing skipped");
    (sse_outline(&sse), ai_sdk_outline(&ai), parts(&ai), t)
}

fn owned(lines: &[&str]) -> Vec<String> {
    lines.iter().map(|l| (*l).to_owned()).collect()
}

fn counts(pairs: &[(&str, u64)]) -> Vec<(String, u64)> {
    pairs.iter().map(|(k, c)| ((*k).to_owned(), *c)).collect()
}

#[test]
fn a_text_record_repeating_the_deltas_is_shown_once() {
    let (sse, ai, _, t) = both("text-record-repeat.ndjson");
    assert_eq!(sse, owned(&["text: Hello there.", "finish stop", "[DONE]"]));
    assert_eq!(
        ai,
        owned(&[
            "stream-start",
            "text text-0: Hello there.",
            "finish stop/stop"
        ])
    );
    assert!(t.unknown_records().is_empty());
}

#[test]
fn a_text_record_that_alone_carries_the_answer_is_shown() {
    let (sse, ai, _, t) = both("text-record-only.ndjson");
    let text = "Hello from a text record. And more.";
    assert_eq!(
        sse,
        vec![
            "reasoning: Greeting.".to_owned(),
            format!("text: {text}"),
            "finish stop".into(),
            "[DONE]".into()
        ]
    );
    assert_eq!(
        ai,
        vec![
            "stream-start".to_owned(),
            "reasoning reasoning-0: Greeting.".into(),
            format!("text text-0: {text}"),
            "finish stop/stop".into()
        ]
    );
    // The two `text` records of no readable shape: not shown, counted.
    assert_eq!(t.unknown_records(), counts(&[("text", 2)]).as_slice());
}

#[test]
fn system_notices_are_never_fatal_and_only_a_shell_timeout_is_shown_apart_from_the_answer() {
    let (sse, ai, _, t) = both("system-subtypes.ndjson");
    let notice =
        "(A shell command Cursor left running in the background timed out: `npm run dev`.)";
    assert_eq!(
        sse,
        vec![
            "text: Started it.".to_owned(),
            format!("reasoning: {notice}"),
            "text:  Checked.".into(),
            "finish stop".into(),
            "[DONE]".into()
        ]
    );
    assert_eq!(
        ai,
        vec![
            "stream-start".to_owned(),
            "text text-0: Started it.".into(),
            format!("reasoning reasoning-0: {notice}"),
            "text text-1:  Checked.".into(),
            "finish stop/stop".into()
        ]
    );
    assert_eq!(
        t.unknown_records(),
        counts(&[("system/compaction_started", 1)]).as_slice()
    );
    assert_eq!(t.agent_version(), Some("2026.09.18-9a7762b"));
}

#[test]
fn the_cli_version_is_none_when_init_gives_none() {
    let (_, _, _, t) = both("unknown-records.ndjson");
    assert_eq!(t.agent_version(), None);
    assert_eq!(t.session_id(), Some("fixture-unknown-records"));
}

/// The `tool-result` parts of an `ai-sdk` run, by call id: (status, isError, reason).
fn results(parts: &[Value]) -> Vec<(String, String, bool, Option<String>)> {
    parts
        .iter()
        .filter(|p| p["type"] == "tool-result")
        .map(|p| {
            (
                s(p, "toolCallId").to_owned(),
                s(&p["result"], "status").to_owned(),
                p["isError"].as_bool().unwrap(),
                p["result"]["reason"].as_str().map(str::to_owned),
            )
        })
        .collect()
}

#[test]
fn calls_ending_in_a_refusal_show_as_failed_with_their_reason() {
    let (sse, ai, parts, t) = both("tool-results-2026.ndjson");
    let unexplained = |variant: &str| {
        TOOL_REFUSALS
            .iter()
            .find(|r| r.variant == variant)
            .unwrap()
            .unexplained
            .to_owned()
    };
    let r = |id: &str, status: &str, failed: bool, reason: Option<String>| {
        (id.to_owned(), status.to_owned(), failed, reason)
    };
    assert_eq!(
        results(&parts),
        vec![
            r(
                "mcp_timeout",
                "timeout",
                true,
                Some("MCP error -32001: Request timed out".into())
            ),
            r(
                "mcp_denied",
                "permissionDenied",
                true,
                Some("MCP server probe is not approved".into())
            ),
            r(
                "shell_spawn",
                "spawnError",
                true,
                Some("spawn nosuchtool ENOENT".into())
            ),
            r(
                "shell_timeout",
                "timeout",
                true,
                Some(unexplained("timeout"))
            ),
            r(
                "mcp_rejected",
                "rejected",
                true,
                Some("User rejected MCP: probe-erase".into())
            ),
            r("mcp_ok", "success", false, None),
        ]
    );
    let tools: Vec<&String> = ai.iter().filter(|l| l.starts_with("tool ")).collect();
    assert_eq!(
        tools,
        [
            r#"tool slow "mcp_timeout""#,
            r#"tool write "mcp_denied""#,
            r#"tool shell "shell_spawn""#,
            r#"tool shell "shell_timeout""#,
            r#"tool erase "mcp_rejected""#,
            r#"tool fast "mcp_ok""#,
        ]
    );
    // SSE reports Cursor's calls with their arguments, without the approval flags.
    let slow = sse
        .iter()
        .find(|l| l.contains("\"mcp_timeout\""))
        .expect("the timed-out call");
    assert_eq!(
        slow,
        r#"tool 0 "mcp_timeout" slow {"name":"probe-slow","args":{"q":"x"},"toolCallId":"mcp_timeout","providerIdentifier":"probe","toolName":"slow","serverIdentifier":"probe"}"#
    );
    assert_eq!(sse.last().map(String::as_str), Some("[DONE]"));
    assert!(sse.contains(&"text: Probed.".to_owned()), "{sse:?}");
    assert!(t.unknown_records().is_empty());
}

#[test]
fn mcp_calls_name_server_and_tool_in_either_form_without_the_approval_flags() {
    let (sse, _, parts, _) = both("mcp-args-2026.ndjson");
    let calls: Vec<(String, String, Value, Value)> = parts
        .iter()
        .filter(|p| p["type"] == "tool-call")
        .map(|p| {
            (
                s(p, "toolCallId").to_owned(),
                s(p, "toolName").to_owned(),
                p["providerMetadata"]["cursor"]["server"].clone(),
                serde_json::from_str(s(p, "input")).unwrap(),
            )
        })
        .collect();
    assert_eq!(
        calls,
        vec![
            (
                "mcp_full".to_owned(),
                "slow".to_owned(),
                json!("probe"),
                json!({"name":"probe-slow","args":{"seconds":1},"toolCallId":"mcp_full",
                       "providerIdentifier":"probe","toolName":"slow","serverIdentifier":"probe"}),
            ),
            (
                "mcp_colon".to_owned(),
                "search".to_owned(),
                json!("my-docs"),
                json!({"name":"my-docs:search","args":{"q":"napi"},"toolCallId":"mcp_colon"}),
            ),
            (
                "mcp_server_only".to_owned(),
                "lookup".to_owned(),
                json!("my-docs"),
                json!({"name":"my-docs-lookup","args":{"id":7},"toolCallId":"mcp_server_only",
                       "serverIdentifier":"my-docs"}),
            ),
        ]
    );
    let tools: Vec<&String> = sse.iter().filter(|l| l.starts_with("tool ")).collect();
    assert_eq!(tools.len(), 3);
    for (line, name) in tools.iter().zip(["slow", "search", "lookup"]) {
        assert!(line.contains(&format!(" {name} {{")), "{line}");
        assert!(!line.contains("skipApproval"), "{line}");
        assert!(!line.contains("smartModeApprovalOnly"), "{line}");
    }
}

#[test]
fn unknown_records_are_counted_per_kind_and_change_nothing_else() {
    let (sse, ai, _, t) = both("unknown-records.ndjson");
    assert_eq!(sse, owned(&["text: Hi there.", "finish stop", "[DONE]"]));
    assert_eq!(
        ai,
        owned(&["stream-start", "text text-0: Hi there.", "finish stop/stop"])
    );
    assert_eq!(
        t.unknown_records(),
        counts(&[
            ("heartbeat", 3),
            ("system/compaction", 1),
            ("tool_call/progress", 1),
            ("prompt_suggestion", 1),
        ])
        .as_slice()
    );
}

#[test]
fn the_new_shapes_read_the_same_in_any_chunking() {
    for name in [
        "text-record-repeat.ndjson",
        "text-record-only.ndjson",
        "system-subtypes.ndjson",
        "tool-results-2026.ndjson",
        "mcp-args-2026.ndjson",
        "unknown-records.ndjson",
        "sdk-1032-records.ndjson",
        "connection-drop.ndjson",
    ] {
        let input = stream_fixture(name);
        for format in [Format::OpenAiSse, Format::AiSdk] {
            let whole = run_chunks(options(format), &[&input], &success()).0;
            let bytes: Vec<&[u8]> = input.chunks(7).collect();
            let (chunked, _, t) = run_chunks(options(format), &bytes, &success());
            assert_eq!(chunked, whole, "{name} {format:?}");
            let (_, _, once) = run_chunks(options(format), &[&input], &success());
            assert_eq!(t.unknown_records(), once.unknown_records(), "{name}");
        }
    }
}

#[test]
fn the_records_of_sdk_1_0_32_read_as_notices_tools_and_usage() {
    let (sse, ai, parts, t) = both("sdk-1032-records.ndjson");
    let notice = "(Cursor: High demand: responses may be slower.)";
    // The server notice is beside the answer, never in it.
    assert_eq!(sse[0], format!("reasoning: {notice}"));
    assert_eq!(ai[1], format!("reasoning reasoning-0: {notice}"));
    assert_eq!(visible_text_of(&parts), "Here. Done.");
    // Each new kind of call shows under its name with its arguments.
    let calls: Vec<(String, Value)> = parts
        .iter()
        .filter(|p| p["type"] == "tool-call")
        .map(|p| {
            (
                s(p, "toolName").to_owned(),
                serde_json::from_str(s(p, "input")).unwrap(),
            )
        })
        .collect();
    assert_eq!(
        calls,
        vec![
            (
                "sendToUser".to_owned(),
                json!({"message": "Deployed to staging."})
            ),
            ("piRead".into(), json!({"path": "/w/README.md"})),
            (
                "createAgent".into(),
                json!({"name": "helper", "prompt": "Look at the tests."})
            ),
            (
                "writeCanvas".into(),
                json!({"canvasId": "canvas-1", "content": "<h1>Plan</h1>"})
            ),
            ("createGoal".into(), json!({"title": "Ship the fix"})),
            (
                "shell".into(),
                json!({"command": "seq 100000", "workingDirectory": ""})
            ),
        ]
    );
    // What Cursor kept of a long shell output, and how much it left out, reach the host.
    let shell = parts
        .iter()
        .find(|p| p["type"] == "tool-result" && p["toolCallId"] == "c_shell")
        .unwrap();
    assert_eq!(shell["result"]["outputHead"], "1\n2\n3\n");
    assert_eq!(shell["result"]["outputTail"], "99999\n100000\n");
    assert_eq!(shell["result"]["elidedChars"], "588877");
    assert_eq!(shell["isError"], false);
    // Cursor's reasoning count joins its usage.
    assert_eq!(t.usage().and_then(|u| u.reasoning_tokens), Some(12));
    let finish = parts.iter().find(|p| p["type"] == "finish").unwrap();
    assert_eq!(finish["usage"]["outputTokens"]["reasoning"], 12);
    assert_eq!(finish["usage"]["raw"]["reasoning_tokens"], 12);
    assert!(t.unknown_records().is_empty());
}

#[test]
fn cursor_agents_report_of_a_dropped_connection_is_never_answer_text() {
    let input = stream_fixture("connection-drop.ndjson");
    let stderr = "Connection lost, reconnecting to https://api2.cursor.sh\nRetriableError: WritableIterable is closed";
    let dropped = opencode_cursor_native::core::stream::translate::Outcome {
        exit_code: Some(1),
        signal: None,
        stderr: stderr.into(),
        cancelled: false,
    };
    for format in [Format::OpenAiSse, Format::AiSdk] {
        let (out, summary, _) = run_chunks(options(format), &[&input], &dropped);
        let shown = match format {
            Format::AiSdk => visible_text(&out),
            Format::OpenAiSse => sse_outline(&out)
                .into_iter()
                .filter(|line| line.starts_with("text:"))
                .collect(),
        };
        assert!(shown.contains("Editing the file"), "{format:?}: {shown}");
        assert!(!shown.contains("WritableIterable"), "{format:?}: {shown}");
        let error = summary.error.expect("a drop is a failure");
        assert_eq!(error.code(), "E_NETWORK");
        assert!(
            error.message().contains("answer was cut off"),
            "{}",
            error.message()
        );
    }
}

/// The text of an `ai-sdk` run's text parts.
fn visible_text_of(parts: &[Value]) -> String {
    parts
        .iter()
        .filter(|p| p["type"] == "text-delta")
        .map(|p| s(p, "delta"))
        .collect()
}
