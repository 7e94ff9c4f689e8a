//! Cursor's plan document (`createPlanToolCall`, `--mode plan`): the answer a user sees is never
//! empty because the model put its findings into the plan, in either output format.

mod support;

use opencode_cursor_native::core::stream::encode::{Output, SEGMENT_SEPARATOR};
use opencode_cursor_native::core::stream::transformer::Format;
use serde_json::json;
use support::*;

/// A `createPlanToolCall` record with these arguments, `started` or `completed`.
fn plan_call(subtype: &str, args: serde_json::Value) -> String {
    let mut call = json!({ "args": args });
    if subtype == "completed" {
        call["result"] = json!({ "success": {}, "planUri": "file:///plans/p.plan.md" });
    }
    json!({
        "type": "tool_call",
        "subtype": subtype,
        "call_id": "plan_1",
        "tool_call": { "createPlanToolCall": call },
        "session_id": "chat-1",
    })
    .to_string()
}

fn plan_args(plan: &str) -> serde_json::Value {
    json!({ "name": "Fix", "overview": "Two steps.", "plan": plan, "todos": [] })
}

fn plan_records(args: serde_json::Value) -> Vec<String> {
    vec![
        plan_call("started", args.clone()),
        plan_call("completed", args),
    ]
}

#[test]
fn a_plan_no_text_followed_is_the_answer() {
    let plan = "# Fix\n\n1. Read.\n2. Change.";
    let cases: Vec<(&str, Vec<String>, String)> = vec![
        ("only the plan", plan_records(plan_args(plan)), plan.into()),
        (
            "a preamble, then the plan",
            [
                vec![delta("Here is my plan.")],
                plan_records(plan_args(plan)),
            ]
            .concat(),
            format!("Here is my plan.{SEGMENT_SEPARATOR}{plan}"),
        ),
        (
            "the plan, then an answer",
            [plan_records(plan_args(plan)), vec![delta("Done planning.")]].concat(),
            "Done planning.".into(),
        ),
        (
            "an empty plan: its overview",
            plan_records(plan_args("  ")),
            "Two steps.".into(),
        ),
        (
            "the last of two plans",
            [
                plan_records(plan_args("first")),
                plan_records(plan_args("second")),
            ]
            .concat(),
            "second".into(),
        ),
        (
            "only a start",
            vec![plan_call("started", plan_args(plan))],
            plan.into(),
        ),
        ("no plan", vec![delta("Just text.")], "Just text.".into()),
        (
            "a plan without arguments",
            vec![plan_call("completed", serde_json::Value::Null)],
            String::new(),
        ),
    ];
    for (name, mut lines, expected) in cases {
        lines.push(result_line());
        for format in [Format::AiSdk, Format::OpenAiSse] {
            let (out, summary) = run(format, &stream(&lines), &success());
            assert!(summary.error.is_none(), "{name}");
            // A V3 stream's text blocks are joined with the separator SSE puts between segments.
            let text = match format {
                Format::AiSdk => text_blocks(&out).join(SEGMENT_SEPARATOR),
                Format::OpenAiSse => sse_text(&as_values(&out)),
            };
            assert_eq!(text, expected, "{name} ({format:?})");
        }
    }
}

/// The text of each V3 text block.
fn text_blocks(out: &[Output]) -> Vec<String> {
    let mut blocks: Vec<String> = Vec::new();
    for part in parts(out) {
        match part["type"].as_str() {
            Some("text-start") => blocks.push(String::new()),
            Some("text-delta") => blocks.last_mut().unwrap().push_str(s(&part, "delta")),
            _ => {}
        }
    }
    blocks
}

/// The text of SSE frames' `delta.content`, joined.
fn sse_text(frames: &[serde_json::Value]) -> String {
    frames
        .iter()
        .filter_map(|frame| frame.as_str()?.strip_prefix("data: "))
        .filter_map(|data| serde_json::from_str::<serde_json::Value>(data.trim()).ok())
        .filter_map(|chunk| {
            chunk["choices"][0]["delta"]["content"]
                .as_str()
                .map(str::to_owned)
        })
        .collect()
}

/// When the host runs the tools, a tool Cursor runs itself gets a notice in the answer; its plan
/// is no tool acting on the user's files, and gets none: the plan alone is the answer.
#[test]
fn a_plan_gets_no_notice_when_the_host_runs_the_tools() {
    use opencode_cursor_native::core::stream::transformer::TransformerOptions;
    let hosting = TransformerOptions {
        host_tool_server: Some("opencode".into()),
        ..options(Format::AiSdk)
    };
    let mut lines = plan_records(plan_args("the plan"));
    lines.push(result_line());
    let (out, summary, _) = run_chunks(hosting.clone(), &[&stream(&lines)], &success());
    assert!(summary.error.is_none());
    assert_eq!(visible_text(&out), "the plan");
    // A tool of Cursor's own in the same place is told.
    let shell = json!({
        "type": "tool_call", "subtype": "started", "call_id": "sh_1",
        "tool_call": { "shellToolCall": { "args": { "command": "ls" } } }, "session_id": "chat-1",
    });
    let (out, _, _) = run_chunks(
        hosting,
        &[&stream(&[shell.to_string(), result_line()])],
        &success(),
    );
    assert!(visible_text(&out).contains("Cursor ran its own tool `shell`"));
}
