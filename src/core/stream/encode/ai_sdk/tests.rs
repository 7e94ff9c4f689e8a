use serde_json::{json, Value};

use super::*;
use crate::core::error::CoreError;
use crate::core::stream::encode::encode_all;

fn encoded(parts: &[Part<'_>]) -> Vec<Value> {
    let mut encoder = AiSdkEncoder::new();
    let out = encode_all(parts, |part, out| encoder.encode(part, out));
    out.into_iter()
        .map(|o| o.into_part().expect("a V3 part"))
        .collect()
}

/// Both writers describe the same parts.
#[test]
fn json_text_and_values_agree() {
    let result = json!({"status": "success", "stdout": "a\"b\n"});
    let mcp_result = json!({"status": "success", "content": [{"text": {"text": "found"}}]});
    let error = CoreError::new(
        crate::core::error::ErrorCode::Auth,
        "run `cursor-agent login`",
    );
    let parts = [
        Part::ReasoningDelta("think"),
        Part::ReasoningEnd,
        Part::TextDelta("say \"hi\"\n"),
        Part::ToolStarted {
            id: "c\n1",
            name: "shell",
            kind: "shellToolCall",
            server: None,
            input: r#"{"command":"ls"}"#,
            executor: Executor::Cursor,
        },
        Part::ToolCompleted {
            id: "c\n1",
            name: "shell",
            kind: "shellToolCall",
            server: None,
            result: &result,
            is_error: false,
        },
        Part::ToolStarted {
            id: "m1",
            name: "search",
            kind: "mcpToolCall",
            server: Some("docs"),
            input: r#"{"args":{"q":"é"}}"#,
            executor: Executor::Cursor,
        },
        Part::ToolCompleted {
            id: "m1",
            name: "search",
            kind: "mcpToolCall",
            server: Some("docs"),
            result: &mcp_result,
            is_error: false,
        },
        Part::ToolStarted {
            id: "h1",
            name: "read",
            kind: "function",
            server: None,
            input: r#"{"filePath":"a"}"#,
            executor: Executor::Host,
        },
        Part::TextDelta("done"),
        Part::Finish {
            reason: FinishReason::Error(&error),
            usage: None,
        },
    ];
    let mut values = Vec::new();
    let mut batch = Batch::new();
    let (mut a, mut b) = (AiSdkEncoder::new(), AiSdkEncoder::new());
    for p in &parts {
        a.encode(p, &mut values);
        b.encode(p, &mut BatchParts(&mut batch));
    }
    assert_eq!(batch.to_outputs(), values);
    let values: Vec<Value> = values
        .into_iter()
        .map(|o| o.into_part().expect("a V3 part"))
        .collect();
    let types: Vec<&str> = values.iter().map(|v| v["type"].as_str().unwrap()).collect();
    let tool_parts = [
        "tool-input-start",
        "tool-input-delta",
        "tool-input-end",
        "tool-call",
    ];
    let expected: Vec<&str> = [
        &[
            "stream-start",
            "reasoning-start",
            "reasoning-delta",
            "reasoning-end",
        ][..],
        &["text-start", "text-delta", "text-end"],
        &tool_parts,
        &["tool-result"],
        &tool_parts,
        &["tool-result"],
        &tool_parts,
        &["text-start", "text-delta", "text-end", "error", "finish"],
    ]
    .concat();
    assert_eq!(types, expected);
    assert_eq!(
        values.last().unwrap(),
        &json!({"type": "finish", "finishReason": {"unified": "error", "raw": "E_AUTH"},
                "usage": {"inputTokens": {}, "outputTokens": {}}})
    );
    assert_eq!(
        values[values.len() - 2],
        json!({"type": "error", "error": {"code": "E_AUTH", "message": "run `cursor-agent login`"}})
    );
}

#[test]
fn cursors_own_call_is_reported_as_cursor_gave_it_with_its_kind() {
    let input = r#"{"command":"ls","workingDirectory":"","toolCallId":"c1"}"#;
    let result = json!({"status": "failure", "exitCode": 1, "stderr": "boom\n"});
    let parts = encoded(&[
        Part::ToolStarted {
            id: "c1",
            name: "shell",
            kind: "shellToolCall",
            server: None,
            input,
            executor: Executor::Cursor,
        },
        Part::ToolCompleted {
            id: "c1",
            name: "shell",
            kind: "shellToolCall",
            server: None,
            result: &result,
            is_error: false,
        },
        Part::Finish {
            reason: FinishReason::Stop,
            usage: None,
        },
    ]);
    let cursor = json!({"cursor": {"kind": "shellToolCall"}});
    assert_eq!(
        parts[1..6],
        [
            json!({"type": "tool-input-start", "id": "c1", "toolName": "shell",
                   "providerExecuted": true, "dynamic": true, "providerMetadata": cursor}),
            json!({"type": "tool-input-delta", "id": "c1", "delta": input}),
            json!({"type": "tool-input-end", "id": "c1"}),
            json!({"type": "tool-call", "toolCallId": "c1", "toolName": "shell", "input": input,
                   "providerExecuted": true, "dynamic": true, "providerMetadata": cursor}),
            json!({"type": "tool-result", "toolCallId": "c1", "toolName": "shell",
                   "result": {"status": "failure", "exitCode": 1, "stderr": "boom\n"},
                   "isError": false, "providerExecuted": true, "dynamic": true,
                   "providerMetadata": cursor}),
        ]
    );
    assert_eq!(
        parts[6]["finishReason"],
        json!({"unified": "stop", "raw": "stop"})
    );
}

#[test]
fn an_mcp_call_names_its_server_beside_its_kind() {
    let result = json!({"status": "success", "content": [], "isError": true});
    let parts = encoded(&[
        Part::ToolStarted {
            id: "m1",
            name: "search",
            kind: "mcpToolCall",
            server: Some("docs"),
            input: "{}",
            executor: Executor::Cursor,
        },
        Part::ToolCompleted {
            id: "m1",
            name: "search",
            kind: "mcpToolCall",
            server: Some("docs"),
            result: &result,
            is_error: true,
        },
    ]);
    let metadata = json!({"cursor": {"kind": "mcpToolCall", "server": "docs"}});
    for part in [&parts[1], &parts[4], &parts[5]] {
        assert_eq!(part["providerMetadata"], metadata, "{part}");
    }
    assert_eq!(parts[5]["result"], result);
    assert_eq!(parts[5]["isError"], true);
}

#[test]
fn a_call_the_host_runs_carries_nothing_of_cursors() {
    let host = encoded(&[
        Part::ToolStarted {
            id: "h1",
            name: "read",
            kind: "function",
            server: None,
            input: r#"{"filePath":"a"}"#,
            executor: Executor::Host,
        },
        Part::Finish {
            reason: FinishReason::ToolCalls,
            usage: None,
        },
    ]);
    assert_eq!(
        host[1],
        json!({"type": "tool-input-start", "id": "h1", "toolName": "read"})
    );
    assert_eq!(
        host[4],
        json!({"type": "tool-call", "toolCallId": "h1", "toolName": "read",
               "input": r#"{"filePath":"a"}"#})
    );
    assert_eq!(
        host[5]["finishReason"],
        json!({"unified": "tool-calls", "raw": "tool-calls"})
    );
}

#[test]
fn an_error_keeps_cursors_words_apart_and_a_cancel_is_other() {
    let said = CoreError::new(crate::core::error::ErrorCode::Auth, "log in")
        .with_agent_output("not logged in");
    let failed = encoded(&[Part::Finish {
        reason: FinishReason::Error(&said),
        usage: None,
    }]);
    assert_eq!(
        failed[1],
        json!({"type": "error", "error": {"code": "E_AUTH", "message": "log in",
                                         "agentOutput": "not logged in"}})
    );
    let cancelled = encoded(&[Part::Finish {
        reason: FinishReason::Cancelled,
        usage: None,
    }]);
    assert_eq!(
        cancelled[1]["finishReason"],
        json!({"unified": "other", "raw": "cancelled"})
    );
}

proptest::proptest! {
    #[test]
    fn deltas_in_a_batch_read_back_as_the_serializer_writes_them(
        id in "[a-z0-9-]{0,12}",
        delta in proptest::prelude::any::<String>(),
        reasoning in proptest::prelude::any::<bool>(),
    ) {
        let part = if reasoning {
            StreamPart::ReasoningDelta { id: &id, delta: &delta }
        } else {
            StreamPart::TextDelta { id: &id, delta: &delta }
        };
        let mut batch = Batch::new();
        BatchParts(&mut batch).part(&part);
        let by_serde = serde_json::to_value(&part).unwrap();
        proptest::prop_assert_eq!(batch.to_outputs(), vec![Output::Part(by_serde)]);
    }
}

#[test]
fn the_stream_start_carries_the_warnings_it_was_given() {
    let warnings = ["The attached image \"a.svg\" was not sent to Cursor: it is SVG.".to_owned()];
    let mut encoder = AiSdkEncoder::with(&warnings, ToolCallMode::Emit);
    let mut out = Vec::new();
    encoder.encode(&Part::TextDelta("hi"), &mut out);
    encoder.encode(&Part::TextDelta(" there"), &mut out);
    let starts: Vec<Value> = out
        .into_iter()
        .filter_map(Output::into_part)
        .filter(|part| part["type"] == "stream-start")
        .collect();
    assert_eq!(
        starts,
        [json!({"type": "stream-start", "warnings": [{"type": "other", "message": warnings[0]}]})]
    );
}

/// Asked to, the encoder leaves out Cursor's own calls, which a client that runs every call it
/// gets would run again; a call the host runs always reaches it; blocks end at a left-out call.
#[test]
fn cursor_calls_are_left_out_when_asked_and_host_calls_never() {
    let result = json!({"status": "success"});
    let parts = [
        Part::TextDelta("a"),
        Part::ToolStarted {
            id: "c1",
            name: "shell",
            kind: "shellToolCall",
            server: None,
            input: "{}",
            executor: Executor::Cursor,
        },
        Part::ToolCompleted {
            id: "c1",
            name: "shell",
            kind: "shellToolCall",
            server: None,
            result: &result,
            is_error: false,
        },
        Part::TextDelta("b"),
        Part::ToolStarted {
            id: "h1",
            name: "read",
            kind: "function",
            server: None,
            input: "{}",
            executor: Executor::Host,
        },
        Part::Finish {
            reason: FinishReason::ToolCalls,
            usage: None,
        },
    ];
    let types = |mode| {
        let mut encoder = AiSdkEncoder::with(&[], mode);
        let out = encode_all(&parts, |part, out| encoder.encode(part, out));
        out.into_iter()
            .map(|o| o.into_part().unwrap()["type"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    let host_call = [
        "tool-input-start",
        "tool-input-delta",
        "tool-input-end",
        "tool-call",
    ];
    let omitted = types(ToolCallMode::Omit);
    let mut expected = vec!["stream-start"];
    expected.extend(["text-start", "text-delta", "text-end"]);
    expected.extend(["text-start", "text-delta", "text-end"]);
    expected.extend(host_call);
    expected.push("finish");
    assert_eq!(omitted, expected);
    let emitted = types(ToolCallMode::Emit);
    assert_eq!(emitted.iter().filter(|t| *t == "tool-call").count(), 2);
    assert_eq!(emitted.iter().filter(|t| *t == "tool-result").count(), 1);
}
