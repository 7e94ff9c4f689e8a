use super::*;
use crate::core::stream::event::{parse, Event, EventBody, Parsed};
use serde_json::json;

fn body(line: &str) -> ToolCallBody<'_> {
    match parse(line) {
        Parsed::Event(Event {
            body: EventBody::ToolCall { call, .. },
            ..
        }) => call,
        other => panic!("{other:?}"),
    }
}

#[test]
fn tool_names_table() {
    let table = [
        (r#""shellToolCall":{"args":{}}"#, "shell"),
        (r#""readToolCall":{}"#, "read"),
        (r#""updateTodosToolCall":{}"#, "updateTodos"),
        (r#""lsToolCall":{}"#, "ls"),
        (
            r#""mcpToolCall":{"args":{"name":"srv-search","toolName":"search"}}"#,
            "search",
        ),
        (r#""mcpToolCall":{"args":{"name":"srv-search"}}"#, "mcp"),
        (r#""mcpToolCall":{"args":{"name":"srv:search"}}"#, "search"),
        (
            r#""mcpToolCall":{"args":{"name":"my-srv-search","serverIdentifier":"my-srv"}}"#,
            "search",
        ),
        (r#""function":{"name":"lookup","arguments":"{}"}"#, "lookup"),
        (r#""function":{"arguments":"{}"}"#, "function"),
        (r#""hookAdditionalContexts":[],"editToolCall":{}"#, "edit"),
        (r#""ToolCall":{}"#, "toolCall"),
    ];
    for (entry, expected) in table {
        let line = format!(r#"{{"type":"tool_call","call_id":"c","tool_call":{{{entry}}}}}"#);
        assert_eq!(tool_name(&body(&line)), expected, "{entry}");
    }
}

#[test]
fn mcp_server_table() {
    let table = [
        (
            r#""mcpToolCall":{"args":{"name":"docs-search","providerIdentifier":"docs","toolName":"search"}}"#,
            Some("docs"),
        ),
        (
            r#""mcpToolCall":{"args":{"name":"docs:search","serverIdentifier":"docs","toolName":"search"}}"#,
            Some("docs"),
        ),
        (
            r#""mcpToolCall":{"args":{"name":"docs:search","toolName":"search"}}"#,
            Some("docs"),
        ),
        (
            r#""mcpToolCall":{"args":{"name":"docs-search","toolName":"search"}}"#,
            Some("docs"),
        ),
        (
            r#""mcpToolCall":{"args":{"name":"search","toolName":"search"}}"#,
            None,
        ),
        (
            r#""mcpToolCall":{"args":{"providerIdentifier":"","name":"x-search","toolName":"search"}}"#,
            Some("x"),
        ),
        (r#""mcpToolCall":{}"#, None),
        (
            r#""shellToolCall":{"args":{"providerIdentifier":"docs"}}"#,
            None,
        ),
    ];
    for (entry, expected) in table {
        let line = format!(r#"{{"type":"tool_call","call_id":"c","tool_call":{{{entry}}}}}"#);
        assert_eq!(mcp_server(&body(&line)).as_deref(), expected, "{entry}");
    }
}

#[test]
fn tool_input_is_the_raw_args_or_the_function_arguments() {
    let table = [
        (
            r#""shellToolCall":{"args":{"command":"ls", "x":[1]}}"#,
            r#"{"command":"ls", "x":[1]}"#,
        ),
        (r#""shellToolCall":{"result":{}}"#, "{}"),
        (
            r#""function":{"name":"f","arguments":"{\"a\":1}"}"#,
            r#"{"a":1}"#,
        ),
        (r#""function":{"name":"f","arguments":""}"#, "{}"),
        (
            r#""mcpToolCall":{"args":{"name":"p-t","args":{"q":1},"skipApproval":false,"smartModeApprovalOnly":false,"toolName":"t"}}"#,
            r#"{"name":"p-t","args":{"q":1},"toolName":"t"}"#,
        ),
        // Only an MCP call's own top-level flags are Cursor's bookkeeping.
        (
            r#""shellToolCall":{"args":{"command":"ls","skipApproval":true}}"#,
            r#"{"command":"ls","skipApproval":true}"#,
        ),
    ];
    for (entry, expected) in table {
        let line = format!(r#"{{"type":"tool_call","call_id":"c","tool_call":{{{entry}}}}}"#);
        assert_eq!(tool_input(&body(&line)), expected, "{entry}");
    }
}

#[test]
fn tool_result_variants() {
    let raw = |s: &str| RawValue::from_string(s.to_owned()).unwrap();
    let table = [
        (
            r#"{"success":{"exitCode":0,"stdout":"4\n"},"isBackground":false}"#,
            json!({"status":"success","exitCode":0,"stdout":"4\n"}),
        ),
        (
            r#"{"isBackground":false,"failure":{"exitCode":1}}"#,
            json!({"status":"failure","exitCode":1}),
        ),
        (
            r#"{"error":"File not found: x"}"#,
            json!({"status":"error","error":"File not found: x"}),
        ),
        (
            r#"{"error":{"error":"spawn nope ENOENT"}}"#,
            json!({"status":"error","error":"spawn nope ENOENT"}),
        ),
        (
            r#"{"rejected":{"command":"uname -a","reason":"","isReadonly":false}}"#,
            json!({"status":"rejected","command":"uname -a","reason":REJECTED_REASON,"isReadonly":false}),
        ),
        (
            r#"{"rejected":{"reason":"Questions skipped by the user"}}"#,
            json!({"status":"rejected","reason":"Questions skipped by the user"}),
        ),
        (
            r#"{"flag":true,"someNewVariant":{"a":1}}"#,
            json!({"status":"someNewVariant","a":1}),
        ),
        // 2026.09 and later: more refusals, each with its reason wherever it is.
        (
            r#"{"timeout":{"error":{"message":"MCP error -32001: Request timed out"}}}"#,
            json!({"status":"timeout","error":{"message":"MCP error -32001: Request timed out"},
                   "reason":"MCP error -32001: Request timed out"}),
        ),
        (
            r#"{"permissionDenied":{"error":"not approved"}}"#,
            json!({"status":"permissionDenied","error":"not approved","reason":"not approved"}),
        ),
        (
            r#"{"spawnError":"spawn x ENOENT"}"#,
            json!({"status":"spawnError","spawnError":"spawn x ENOENT","reason":"spawn x ENOENT"}),
        ),
        (
            r#"{"timeout":{}}"#,
            json!({"status":"timeout","reason":TOOL_REFUSALS[2].unexplained}),
        ),
        (
            r#"{"success":{"content":[],"isError":false,"systemReminders":[]}}"#,
            json!({"status":"success","content":[],"isError":false,"systemReminders":[]}),
        ),
        (r#"{"flag":true}"#, json!({"status":"unknown"})),
        ("[]", json!({"status":"unknown"})),
    ];
    for (input, expected) in table {
        assert_eq!(tool_result(Some(&raw(input))), expected, "{input}");
    }
    assert_eq!(tool_result(None), json!({"status":"unknown"}));
}

#[test]
fn a_field_too_deep_for_an_ordinary_stack_is_kept_as_its_text() {
    let nested = |depth: usize| format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
    let (kept, deep) = (nested(json::SHALLOW_DEPTH - 1), nested(json::SHALLOW_DEPTH));
    let raw = RawValue::from_string(format!(
        r#"{{"success":{{"kept":{kept},"deep":{deep},"n":1}}}}"#
    ))
    .unwrap();
    let result = tool_result(Some(&raw));
    assert_eq!(result["deep"], Value::String(deep.clone()));
    assert_eq!(result["kept"], json::from_str::<Value>(&kept).unwrap());
    assert_eq!(result["n"], 1);
    assert_eq!(result["status"], "success");
    let raw = RawValue::from_string(format!(r#"{{"success":{deep}}}"#)).unwrap();
    assert_eq!(tool_result(Some(&raw))["success"], Value::String(deep));
}

#[test]
fn which_results_are_failures() {
    let table = [
        (json!({"status": "success", "exitCode": 0}), false),
        (json!({"status": "success", "isError": false}), false),
        (json!({"status": "success", "isError": true}), true),
        (json!({"status": "failure", "exitCode": 1}), false),
        (
            json!({"status": "failure", "message": "no exit code"}),
            true,
        ),
        (json!({"status": "error", "error": "x"}), true),
        (json!({"status": "rejected", "reason": "x"}), true),
        (json!({"status": "permissionDenied"}), true),
        (json!({"status": "timeout"}), true),
        (json!({"status": "spawnError"}), true),
        (json!({"status": "aborted"}), true),
        (json!({"status": "interrupted"}), true),
        (json!({"status": "unknown"}), true),
    ];
    for (result, failed) in table {
        assert_eq!(is_failure(&result), failed, "{result}");
    }
}
