//! `StreamTransformer` when the host runs the tools (the tool bridge): Cursor's own reports of
//! calls to the bridge stay hidden in both captured shapes, a step's handed-over calls end the
//! response with `tool-calls` and no usage, the stream goes on after them (with a fresh
//! `stream-start` / role chunk), and a tool Cursor runs itself is shown with a notice.

mod support;

use opencode_cursor_native::core::stream::encode::Output;
use opencode_cursor_native::core::stream::transformer::{
    Format, StreamTransformer, TransformerOptions,
};
use opencode_cursor_native::core::stream::translate::HandedCall;
use serde_json::{json, Value};
use support::*;

fn hosting(format: Format) -> TransformerOptions {
    TransformerOptions {
        host_tool_server: Some("opencode".into()),
        ..options(format)
    }
}

/// A `tool_call` record, started or completed, of the call `call` (`{"<kind>": {...}}`).
fn tool_call_record(completed: bool, id: &str, call: Value) -> String {
    json!({
        "type": "tool_call",
        "subtype": if completed { "completed" } else { "started" },
        "call_id": id,
        "tool_call": call,
        "session_id": "chat-1",
    })
    .to_string()
}

/// A `tool_call` record of an MCP call in one of the two captured shapes.
fn mcp_call(completed: bool, id: &str, server_field: &str, server: &str) -> String {
    let separator = if server_field == "providerIdentifier" {
        "-"
    } else {
        ":"
    };
    let mut call = json!({"mcpToolCall": {"args": {
        "name": format!("{server}{separator}read"),
        "args": {"filePath": "/w/a.txt"},
        "toolCallId": id,
        server_field: server,
        "toolName": "read",
    }}});
    if completed {
        call["mcpToolCall"]["result"] =
            json!({"success": {"content": [{"text": {"text": "hello"}}], "isError": false}});
    }
    tool_call_record(completed, id, call)
}

fn shell_call(completed: bool) -> String {
    let mut call = json!({"shellToolCall": {"args": {"command": "ls"}}});
    if completed {
        call["shellToolCall"]["result"] =
            json!({"success": {"exitCode": 0, "stdout": "a.txt\n", "stderr": ""}});
    }
    json!({
        "type": "tool_call",
        "subtype": if completed { "completed" } else { "started" },
        "call_id": "sh-1",
        "tool_call": call,
        "session_id": "chat-1",
    })
    .to_string()
}

fn types(out: &[Output]) -> Vec<String> {
    parts(out)
        .iter()
        .map(|p| p["type"].as_str().unwrap_or_default().to_owned())
        .collect()
}

const HANDED: [HandedCall<'static>; 2] = [
    HandedCall {
        id: "cursor_mcp_1",
        name: "read",
        input: r#"{"filePath":"/w/a.txt"}"#,
    },
    HandedCall {
        id: "cursor_mcp_2",
        name: "glob",
        input: r#"{"pattern":"*"}"#,
    },
];

#[test]
fn cursors_reports_of_bridge_calls_are_hidden_in_both_shapes() {
    for field in ["providerIdentifier", "serverIdentifier"] {
        let input = stream(&[
            delta("Reading."),
            mcp_call(false, "c1", field, "opencode"),
            mcp_call(true, "c1", field, "opencode"),
            delta("Done."),
            result_line(),
        ]);
        let (out, summary) = {
            let (out, summary, _) = run_chunks(hosting(Format::AiSdk), &[&input], &success());
            (out, summary)
        };
        assert_eq!(summary.error, None);
        let shown = types(&out);
        assert!(
            !shown.iter().any(|t| t.starts_with("tool")),
            "{field}: {shown:?}"
        );
        // The text around it is kept whole (no snapshot of the first segment repeats it).
        assert_eq!(visible_text(&out), "Reading.Done.");
    }
}

#[test]
fn calls_to_another_mcp_server_are_cursors_own_and_shown() {
    let input = stream(&[
        mcp_call(false, "c1", "providerIdentifier", "docs"),
        mcp_call(true, "c1", "providerIdentifier", "docs"),
        result_line(),
    ]);
    let (out, _, _) = run_chunks(hosting(Format::AiSdk), &[&input], &success());
    let parts = parts(&out);
    let call = parts
        .iter()
        .find(|p| p["type"] == "tool-call")
        .expect("shown");
    assert_eq!(call["providerExecuted"], true);
    // Cursor's MCP tool, with the server it went to.
    assert_eq!(call["toolName"], "read");
    assert_eq!(
        call["providerMetadata"],
        json!({"cursor": {"kind": "mcpToolCall", "server": "docs"}})
    );
    assert!(visible_text(&out).contains("Cursor ran its own tool"));
}

#[test]
fn a_handed_over_step_ends_the_response_and_the_stream_goes_on() {
    let mut t = StreamTransformer::new(hosting(Format::AiSdk));
    let mut first = Vec::new();
    t.push(stream(&[delta("Let me look.")]).as_slice(), &mut first)
        .unwrap();
    t.hand_over(&HANDED, &mut first);
    let step = parts(&first);
    assert_eq!(
        types(&first),
        [
            "stream-start",
            "text-start",
            "text-delta",
            "text-end",
            "tool-input-start",
            "tool-input-delta",
            "tool-input-end",
            "tool-call",
            "tool-input-start",
            "tool-input-delta",
            "tool-input-end",
            "tool-call",
            "finish"
        ]
    );
    let calls: Vec<&Value> = step.iter().filter(|p| p["type"] == "tool-call").collect();
    assert_eq!(
        *calls[0],
        json!({"type": "tool-call", "toolCallId": "cursor_mcp_1", "toolName": "read", "input": r#"{"filePath":"/w/a.txt"}"#})
    );
    assert_eq!(calls[1]["toolName"], "glob");
    let finish = step.last().unwrap();
    assert_eq!(
        finish["finishReason"],
        json!({"unified": "tool-calls", "raw": "tool-calls"})
    );
    assert_eq!(
        finish["usage"]["inputTokens"],
        json!({}),
        "no usage at a step"
    );
    assert!(!t.is_finished());

    let mut second = Vec::new();
    let usage = r#"{"type":"result","subtype":"success","is_error":false,"session_id":"chat-1","usage":{"inputTokens":10,"outputTokens":5}}"#;
    t.push(
        stream(&[delta("It says hello."), usage.to_owned()]).as_slice(),
        &mut second,
    )
    .unwrap();
    t.finish(&success(), &mut second);
    let next = parts(&second);
    assert_eq!(
        next[0]["type"], "stream-start",
        "the next response starts anew"
    );
    assert_eq!(visible_text(&second), "It says hello.");
    let last = next.last().unwrap();
    assert_eq!(last["finishReason"]["unified"], "stop");
    assert_eq!(
        last["usage"]["inputTokens"]["total"], 10,
        "usage once, at the end"
    );
    let block_ids: Vec<&Value> = step
        .iter()
        .chain(&next)
        .filter(|p| p["type"] == "text-start")
        .map(|p| &p["id"])
        .collect();
    assert_ne!(
        block_ids[0], block_ids[1],
        "block ids stay unique across steps"
    );
}

#[test]
fn sse_hands_over_as_tool_calls_and_starts_a_new_completion_after() {
    let mut t = StreamTransformer::new(hosting(Format::OpenAiSse));
    let mut first = Vec::new();
    t.push(stream(&[delta("Looking.")]).as_slice(), &mut first)
        .unwrap();
    t.hand_over(&HANDED, &mut first);
    let outline = sse_outline(&first);
    assert!(
        outline.contains(&"finish tool_calls".to_owned()),
        "{outline:?}"
    );
    assert!(
        outline
            .iter()
            .any(|l| l.starts_with("tool 0 \"cursor_mcp_1\" read")),
        "{outline:?}"
    );
    assert!(
        outline
            .iter()
            .any(|l| l.starts_with("tool 1 \"cursor_mcp_2\" glob")),
        "{outline:?}"
    );
    let mut second = Vec::new();
    t.push(
        stream(&[delta("Done."), result_line()]).as_slice(),
        &mut second,
    )
    .unwrap();
    t.finish(&success(), &mut second);
    let outline = sse_outline(&second);
    assert!(outline.contains(&"finish stop".to_owned()), "{outline:?}");
}

#[test]
fn a_tool_cursor_runs_itself_is_shown_with_a_notice() {
    let input = stream(&[shell_call(false), shell_call(true), result_line()]);
    let (out, _, _) = run_chunks(hosting(Format::AiSdk), &[&input], &success());
    let parts = parts(&out);
    let result = parts
        .iter()
        .find(|p| p["type"] == "tool-result")
        .expect("shown as in cursor mode");
    assert_eq!(result["providerExecuted"], true);
    assert_eq!(result["toolName"], "shell");
    assert_eq!(
        result["providerMetadata"],
        json!({"cursor": {"kind": "shellToolCall"}})
    );
    let text = visible_text(&out);
    assert!(text.contains("Cursor ran its own tool `shell`"), "{text}");
    // Without the bridge, no notice.
    let (plain, _) = run(Format::AiSdk, &input, &success());
    assert!(!visible_text(&plain).contains("Cursor ran its own tool"));
}

#[test]
fn nothing_is_handed_over_after_the_end_or_without_calls() {
    let mut t = StreamTransformer::new(hosting(Format::AiSdk));
    let mut out = Vec::new();
    t.hand_over(&[], &mut out);
    assert!(out.is_empty());
    t.finish(&success(), &mut out);
    let before = out.len();
    t.hand_over(&HANDED, &mut out);
    assert_eq!(out.len(), before);
}

fn read_call(completed: bool, id: &str, path: &str) -> String {
    let mut call = json!({"readToolCall": {"args": {"path": path}}});
    if completed {
        call["readToolCall"]["result"] =
            json!({"success": {"content": "{\"filePath\":\"x\"}", "totalLines": 1}});
    }
    tool_call_record(completed, id, call)
}

#[test]
fn the_models_reads_of_the_users_attachments_are_not_shown_in_either_tool_mode() {
    let folder = "/tmp/opencode-cursor-native-1000/attachments/42-abc";
    let picture = format!("{folder}/0f3a.png");
    let input = stream(&[
        delta("Looking."),
        read_call(false, "r1", &picture),
        read_call(true, "r1", &picture),
        delta("It is red."),
        result_line(),
    ]);
    let cursor_mode = TransformerOptions {
        format: Format::AiSdk,
        ..TransformerOptions::default()
    };
    for base in [cursor_mode, hosting(Format::AiSdk)] {
        let options = TransformerOptions {
            attachments_dir: Some(folder.into()),
            ..base.clone()
        };
        let (out, summary, _) = run_chunks(options, &[&input], &success());
        assert_eq!(summary.error, None);
        let shown = types(&out);
        assert!(!shown.iter().any(|t| t.starts_with("tool")), "{shown:?}");
        assert_eq!(visible_text(&out), "Looking.It is red.");

        // Outside the folder (or a detour out of it), a read is shown as ever.
        for path in [
            format!("{folder}/../other/x.png"),
            format!("{folder}-other/x.png"),
            format!("{folder}/inner/x.png"),
        ] {
            let input = stream(&[
                read_call(false, "r1", &path),
                read_call(true, "r1", &path),
                result_line(),
            ]);
            let options = TransformerOptions {
                attachments_dir: Some(folder.into()),
                ..base.clone()
            };
            let (out, _, _) = run_chunks(options, &[&input], &success());
            assert!(types(&out).iter().any(|t| t == "tool-call"), "{path}");
        }
    }
}

#[test]
fn cursors_reads_of_its_own_bookkeeping_are_neither_shown_nor_called_its_own_tool() {
    let data = "/private/cursor-data";
    let with_data = || TransformerOptions {
        cursor_data_dir: Some(data.into()),
        ..hosting(Format::AiSdk)
    };
    let kept = format!("{data}/projects/ws/agent-tools/5f1c.txt");
    let described = format!("{data}/projects/ws/mcps/opencode/tools/read.json");
    let input = stream(&[
        delta("Reading."),
        read_call(false, "r1", &kept),
        read_call(true, "r1", &kept),
        read_call(false, "r2", &described),
        read_call(true, "r2", &described),
        delta("Done."),
        result_line(),
    ]);
    let (out, summary, _) = run_chunks(with_data(), &[&input], &success());
    assert_eq!(summary.error, None);
    let shown = types(&out);
    assert!(!shown.iter().any(|t| t.starts_with("tool")), "{shown:?}");
    assert_eq!(visible_text(&out), "Reading.Done.");

    // Anywhere else, a read is Cursor's own tool: shown, with the notice; and so is every read
    // without the bridge (no data folder is named then).
    let escape = format!("{data}/projects/ws/agent-tools/../../../../home/me/.ssh/id_rsa");
    for (options, path) in [
        (with_data(), "/home/me/project/notes.txt".to_owned()),
        (with_data(), escape),
        (hosting(Format::AiSdk), kept.clone()),
    ] {
        let input = stream(&[
            read_call(false, "r1", &path),
            read_call(true, "r1", &path),
            result_line(),
        ]);
        let (out, _, _) = run_chunks(options, &[&input], &success());
        assert!(types(&out).iter().any(|t| t == "tool-call"), "{path}");
        assert!(
            visible_text(&out).contains("Cursor ran its own tool `read`"),
            "{path}"
        );
    }
}

#[test]
fn a_refused_call_to_the_bridge_tells_the_user_it_is_a_configuration_error() {
    for (variant, reason) in [
        ("rejected", "All the MCP tool calls were rejected."),
        ("permissionDenied", "denied by the hook"),
    ] {
        let mut refused: Value =
            serde_json::from_str(&mcp_call(false, "c1", "providerIdentifier", "opencode")).unwrap();
        refused["subtype"] = json!("completed");
        refused["tool_call"]["mcpToolCall"]["result"] = json!({ variant: { "reason": reason } });
        let input = stream(&[
            mcp_call(false, "c1", "providerIdentifier", "opencode"),
            refused.to_string(),
            delta("I could not read it."),
            result_line(),
        ]);
        let (out, _, _) = run_chunks(hosting(Format::AiSdk), &[&input], &success());
        // Not shown as a tool call (the bridge's calls never are), but the user is told why and
        // what to do.
        assert!(
            !types(&out).iter().any(|t| t.starts_with("tool")),
            "{variant}"
        );
        let text = visible_text(&out);
        assert!(
            text.contains(&format!(
                "Cursor refused the call to OpenCode's tool `read` ({variant}: {reason})"
            )),
            "{text}"
        );
        assert!(text.contains("doctor --live"), "{text}");
        assert!(text.contains("team's MCP tool controls"), "{text}");
        assert!(text.contains("CURSOR_ACP_TOOL_MODE=cursor"), "{text}");
        assert!(text.ends_with("I could not read it."), "{text}");
    }
}
