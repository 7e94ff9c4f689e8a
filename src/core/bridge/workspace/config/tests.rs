//! The hook run as Cursor runs it, against events as Cursor writes them (`JSON.stringify`) and
//! events it never writes.

use std::fs;
use std::path::Path;

use serde_json::{json, Value};

use super::super::tests::{read_json, temp};
use super::super::{prepare, HOOK_SCRIPT};

#[test]
fn the_hook_allows_only_the_bridge_cursors_bookkeeping_and_the_runs_attachments_and_fails_closed() {
    let root = temp("hook");
    let url = "http://127.0.0.1:1/m";
    let attachments = root.join("attachments-run");
    let ws = prepare(&root.join("c"), url, "t", None, Some(&attachments)).unwrap();
    let script = ws.workspace.join(".cursor/hooks").join(HOOK_SCRIPT);
    let data = ws.data.display().to_string();
    let saved = attachments.display().to_string();
    let rules = read_json(&ws.workspace.join(".cursor/cli.json"));
    assert!(
        rules["permissions"]["allow"]
            .as_array()
            .unwrap()
            .contains(&Value::from(format!("Read({saved}/**)"))),
        "{rules}"
    );
    let read = |path: &str| {
        format!(
            r#"{{"hook_event_name":"preToolUse","tool_name":"Read","tool_input":{{"path":"{path}"}}}}"#
        )
    };
    let mcp = |server: &str, found_url: &str| {
        format!(
            r#"{{"hook_event_name":"beforeMCPExecution","tool_name":"read","tool_input":"{{}}","mcp_server_name":"{server}","mcp_server_url":"{found_url}"}}"#
        )
    };
    let table = [
        (
            r#"{"hook_event_name":"preToolUse","tool_name":"MCP:read","tool_input":{}}"#.to_owned(),
            "allow",
        ),
        (r#"{"tool_name": "MCP:read"}"#.to_owned(), "allow"),
        (
            r#"{"tool_name":"getMcpTools","tool_input":{"pattern":"*"}}"#.to_owned(),
            "allow",
        ),
        (
            r#"{"tool_name":"Shell","tool_input":{"command":"echo \"tool_name\":\"MCP:x\""}}"#
                .to_owned(),
            "deny",
        ),
        (read("/etc/passwd"), "deny"),
        (
            read(&format!("{data}/projects/slug/agent-tools/1.txt")),
            "allow",
        ),
        (
            read(&format!(
                "{data}/projects/slug/mcps/opencode/tools/read.json"
            )),
            "allow",
        ),
        (read(&format!("{data}/projects/slug/other/1.txt")), "deny"),
        (read(&format!("{data}/projects/agent-tools/1.txt")), "deny"),
        (
            read(&format!("{data}/projects/slug/agent-tools/../../../x")),
            "deny",
        ),
        (read(&format!("{data}/mcp-approvals.json")), "deny"),
        (read(&format!("{saved}/0a1b.png")), "allow"),
        (read(&format!("{saved}/inner/0a1b.png")), "deny"),
        (read(&format!("{saved}/../c/home/.cursor/mcp.json")), "deny"),
        (read(&format!("{saved}-other/0a1b.png")), "deny"),
        (read(&format!("{saved}/")), "deny"),
        (mcp("opencode", url), "allow"),
        (mcp("opencode", "http://127.0.0.1:9/other"), "deny"),
        (mcp("planted", url), "deny"),
        (r#"{"tool_name":"Write"}"#.to_owned(), "deny"),
        ("not json".to_owned(), "deny"),
        (String::new(), "deny"),
    ];
    for (input, verdict) in table {
        assert_eq!(hook_verdict(&script, &input), verdict, "{input}");
    }
    fs::remove_dir_all(&root).unwrap();
}

/// What the hook at `script` answers to `input`, run as Cursor runs it (the event on stdin).
fn hook_verdict(script: &Path, input: &str) -> String {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // A hook that answers before reading all of a long event closes its end: not a failure here.
    let _ = stdin.write_all(input.as_bytes());
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let reply: Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    reply["permission"]
        .as_str()
        .unwrap_or("no answer")
        .to_owned()
}

/// The hook judges the event JSON.parse reads and the path the tool opens: escapes decoded, the
/// event's own top-level fields only, `.` and `..` resolved; anything it cannot read with
/// certainty is denied.
#[test]
fn the_hook_judges_what_json_parse_reads_and_the_path_the_tool_opens() {
    let root = temp("hook-json");
    let url = "http://127.0.0.1:1/m";
    let ws = prepare(&root.join("c"), url, "t", None, Some(&root.join("saved"))).unwrap();
    let script = ws.workspace.join(".cursor/hooks").join(HOOK_SCRIPT);
    let tools = format!("{}/projects/slug/agent-tools", ws.data.display());
    let read = |path: &str| format!(r#"{{"tool_name":"Read","tool_input":{{"path":"{path}"}}}}"#);
    let event = |value: Value| value.to_string();
    let big = format!(
        r#"{{"tool_name":"MCP:write","tool_input":{{"content":"{}"}}}}"#,
        r#"a\"b\\"#.repeat(400_000)
    );
    let table = [
        // A quote in the path: the tool opens /etc/passwd.
        (
            read(&format!(r#"{tools}/a\"/../../../../../../etc/passwd"#)),
            "deny",
        ),
        (
            read(&format!(
                r"{tools}/\u002e\u002e/\u002e\u002e/\u002e\u002e/\u002e\u002e/x"
            )),
            "deny",
        ),
        (read(&format!(r"{tools}/sub/../1.txt")), "allow"),
        (read(&format!(r"{tools}//./1.txt")), "allow"),
        (read(&format!(r"{tools}\/1.txt")), "allow"),
        (read(&format!(r"{tools}/a\n.txt")), "deny"),
        (read("agent-tools/1.txt"), "deny"),
        // Fields of the tool's input are not the event's.
        (
            event(
                json!({"tool_name": "Read", "tool_input": {"path": "/etc/passwd", "tool_name": "MCP:x"}}),
            ),
            "deny",
        ),
        (
            event(
                json!({"tool_name": "Read", "tool_input": {"path": "/etc", "mcp_server_name": "opencode"}}),
            ),
            "deny",
        ),
        (
            event(
                json!({"mcp_server_name": "planted", "tool_input": {"mcp_server_name": "opencode"}}),
            ),
            "deny",
        ),
        (
            event(
                json!({"mcp_server_name": "planted", "tool_input": r#"{"mcp_server_name":"opencode"}"#}),
            ),
            "deny",
        ),
        (
            event(
                json!({"mcp_server_name": "opencode", "mcp_server_url": url, "tool_input": {"mcp_server_name": "x"}}),
            ),
            "allow",
        ),
        // Not one JSON object, or a key given twice (JSON.parse keeps the last).
        (
            r#"{"tool_name":"MCP:read","tool_name":"Read","tool_input":{"path":"/etc/passwd"}}"#
                .to_owned(),
            "deny",
        ),
        (r#"{"tool_name":"MCP:read""#.to_owned(), "deny"),
        (r#"{"tool_name":"MCP:read"} {}"#.to_owned(), "deny"),
        (r#"{"tool_name":"MCP:read",}"#.to_owned(), "deny"),
        (r#"["tool_name","MCP:read"]"#.to_owned(), "deny"),
        (
            r#"{"tool_name":"MCP\u003aread","n":[1,-2.5e3,true,null,{}]}"#.to_owned(),
            "allow",
        ),
        (big, "allow"),
    ];
    for (input, verdict) in table {
        let shown: String = input.chars().take(300).collect();
        assert_eq!(hook_verdict(&script, &input), verdict, "{shown}");
    }
    fs::remove_dir_all(&root).unwrap();
}
