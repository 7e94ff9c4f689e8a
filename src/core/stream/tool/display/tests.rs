use super::*;
use crate::core::stream::tool::is_failure;

/// One Cursor call: its kind, the name `tool_name` gives it, its arguments and its result
/// (`{status, ...fields}`); then what OpenCode must get: the tool, the input, and the
/// `tool-result` result.
struct Case {
    kind: &'static str,
    name: &'static str,
    args: Value,
    result: Value,
    tool: &'static str,
    input: Value,
    shown: Value,
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            kind: "shellToolCall",
            name: "shell",
            args: json!({"command": "ls", "workingDirectory": "", "timeout": 30000, "toolCallId": "c1",
                         "simpleCommands": ["ls"], "parsingResult": {"parsingFailed": false},
                         "timeoutBehavior": "TIMEOUT_BEHAVIOR_BACKGROUND", "adminCommandDenylist": [],
                         "description": "List files"}),
            result: json!({"status": "success", "command": "ls", "exitCode": 0, "stdout": "a\n", "stderr": "",
                           "interleavedOutput": "a\n"}),
            tool: "bash",
            input: json!({"command": "ls", "description": "List files"}),
            shown: json!({"title": "ls", "output": "a\n",
                          "metadata": {"output": "a\n", "exit": 0, "description": "List files"}}),
        },
        Case {
            kind: "shellToolCall",
            name: "shell",
            args: json!({"command": "false", "workingDirectory": "/w"}),
            result: json!({"status": "failure", "command": "false", "exitCode": 1, "stdout": "",
                           "stderr": "boom\n", "aborted": false}),
            tool: "bash",
            input: json!({"command": "false", "workdir": "/w"}),
            shown: json!({"title": "false", "output": "boom\n", "metadata": {"output": "boom\n", "exit": 1}}),
        },
        Case {
            kind: "shellToolCall",
            name: "shell",
            args: json!({"command": "uname -a"}),
            result: json!({"status": "rejected", "command": "uname -a", "reason": "blocked by policy"}),
            tool: "bash",
            input: json!({"command": "uname -a"}),
            shown: json!("blocked by policy"),
        },
        Case {
            kind: "readToolCall",
            name: "read",
            args: json!({"path": "/w/a.txt", "limit": 20}),
            result: json!({"status": "success", "content": "hello\n", "totalLines": 1, "exceededLimit": false}),
            tool: "read",
            input: json!({"filePath": "/w/a.txt", "limit": 20}),
            shown: json!({"title": "/w/a.txt", "output": "hello\n", "metadata": {"truncated": false}}),
        },
        Case {
            kind: "readToolCall",
            name: "read",
            args: json!({"path": "/w/missing"}),
            result: json!({"status": "error", "error": "File not found: /w/missing"}),
            tool: "read",
            input: json!({"filePath": "/w/missing"}),
            shown: json!("File not found: /w/missing"),
        },
        Case {
            kind: "editToolCall",
            name: "edit",
            args: json!({"path": "/w/a.txt", "streamContent": "B\n"}),
            result: json!({"status": "success", "path": "/w/a.txt", "linesAdded": 1, "linesRemoved": 1,
                           "diffString": "--- a\n+++ b\n@@ -1 +1 @@\n-A\n+B", "message": "Edited /w/a.txt"}),
            tool: "edit",
            input: json!({"filePath": "/w/a.txt"}),
            shown: json!({"title": "/w/a.txt", "output": "Edited /w/a.txt",
                          "metadata": {"diagnostics": {}, "diff": "--- a\n+++ b\n@@ -1 +1 @@\n-A\n+B",
                                       "filediff": {"file": "/w/a.txt", "patch": "--- a\n+++ b\n@@ -1 +1 @@\n-A\n+B",
                                                    "additions": 1, "deletions": 1}}}),
        },
        Case {
            kind: "editToolCall",
            name: "edit",
            args: json!({"path": "/w/b.txt"}),
            result: json!({"status": "success", "path": "/w/b.txt"}),
            tool: "edit",
            input: json!({"filePath": "/w/b.txt"}),
            shown: json!({"title": "/w/b.txt", "output": "Edit applied.", "metadata": {"diagnostics": {}}}),
        },
        Case {
            kind: "writeToolCall",
            name: "write",
            args: json!({"path": "/w/n.txt", "fileText": "x\ny\n", "toolCallId": "w1"}),
            result: json!({"status": "success", "path": "/w/n.txt", "linesCreated": 2, "fileSize": 4}),
            tool: "write",
            input: json!({"filePath": "/w/n.txt", "content": "x\ny\n"}),
            shown: json!({"title": "/w/n.txt", "output": "Wrote 2 lines.", "metadata": {"diagnostics": {}}}),
        },
        Case {
            kind: "grepToolCall",
            name: "grep",
            args: json!({"pattern": "TODO", "path": "/w", "glob": "*.rs", "caseInsensitive": false}),
            result: json!({"status": "success", "pattern": "TODO", "path": "/w", "outputMode": "content",
                           "workspaceResults": {"/w": {"content": {"matches": [
                               {"file": "src/a.rs", "matches": [
                                   {"lineNumber": 3, "content": "// TODO one", "isContextLine": false},
                                   {"lineNumber": 4, "content": "context", "isContextLine": true},
                                   {"lineNumber": 9, "content": "// TODO two", "isContextLine": false}]}]}}}}),
            tool: "grep",
            input: json!({"pattern": "TODO", "path": "/w", "include": "*.rs"}),
            shown: json!({"title": "TODO", "output": "src/a.rs:\n  Line 3: // TODO one\n  Line 9: // TODO two",
                          "metadata": {"matches": 2, "truncated": false}}),
        },
        Case {
            kind: "globToolCall",
            name: "glob",
            args: json!({"targetDirectory": "/w", "globPattern": "*.md"}),
            result: json!({"status": "success", "pattern": "*.md", "path": "/w", "files": ["README.md", "docs/a.md"],
                           "totalFiles": 2, "clientTruncated": false, "ripgrepTruncated": false}),
            tool: "glob",
            input: json!({"pattern": "*.md", "path": "/w"}),
            shown: json!({"title": "*.md", "output": "README.md\ndocs/a.md",
                          "metadata": {"count": 2, "truncated": false}}),
        },
        Case {
            kind: "lsToolCall",
            name: "ls",
            args: json!({"path": "/w", "ignore": [], "toolCallId": "l1"}),
            result: json!({"status": "success", "directoryTreeRoot": {"absPath": "/w",
                "childrenDirs": [{"absPath": "/w/src", "childrenDirs": [], "childrenFiles": [{"name": "lib.rs"}]}],
                "childrenFiles": [{"name": "a.txt"}], "numFiles": 2}}),
            tool: "list",
            input: json!({"path": "/w"}),
            shown: json!({"title": "/w", "output": "/w/\n  src/\n    lib.rs\n  a.txt",
                          "metadata": {"count": 2, "truncated": false}}),
        },
        Case {
            kind: "updateTodosToolCall",
            name: "updateTodos",
            args: json!({"todos": [
                {"id": "1", "content": "Read the code", "status": "TODO_STATUS_COMPLETED", "createdAt": "1", "dependencies": []},
                {"id": "2", "content": "Fix the bug", "status": "TODO_STATUS_IN_PROGRESS"}], "merge": false}),
            result: json!({"status": "success", "todos": [
                {"id": "1", "content": "Read the code", "status": "TODO_STATUS_COMPLETED"},
                {"id": "2", "content": "Fix the bug", "status": "TODO_STATUS_IN_PROGRESS"}], "totalCount": 2}),
            tool: "todowrite",
            input: json!({"todos": [{"content": "Read the code", "status": "completed", "id": "1"},
                                    {"content": "Fix the bug", "status": "in_progress", "id": "2"}]}),
            shown: json!({"title": "1 todos",
                          "output": "[\n  {\n    \"content\": \"Read the code\",\n    \"id\": \"1\",\n    \"status\": \"completed\"\n  },\n  {\n    \"content\": \"Fix the bug\",\n    \"id\": \"2\",\n    \"status\": \"in_progress\"\n  }\n]",
                          "metadata": {"todos": [{"content": "Read the code", "status": "completed", "id": "1"},
                                                 {"content": "Fix the bug", "status": "in_progress", "id": "2"}]}}),
        },
        Case {
            kind: "webFetchToolCall",
            name: "webFetch",
            args: json!({"url": "https://example.com", "toolCallId": "f1"}),
            result: json!({"status": "success", "url": "https://example.com", "markdown": "# Example"}),
            tool: "webfetch",
            input: json!({"url": "https://example.com"}),
            shown: json!({"title": "https://example.com", "output": "# Example", "metadata": {}}),
        },
        Case {
            kind: "mcpToolCall",
            name: "search",
            args: json!({"name": "docs-search", "args": {"q": "napi"}, "toolCallId": "m1",
                         "providerIdentifier": "docs", "toolName": "search"}),
            result: json!({"status": "success", "content": [{"text": {"text": "found"}},
                           {"image": {"data": "AA==", "mimeType": "image/png"}}], "isError": false}),
            tool: "docs_search",
            input: json!({"q": "napi"}),
            shown: json!({"title": "q=napi", "output": "found\n[image image/png]", "metadata": {}}),
        },
        Case {
            kind: "mcpToolCall",
            name: "search",
            args: json!({"name": "docs-search", "args": {"query": "x"}, "toolName": "search"}),
            result: json!({"status": "success", "content": [{"text": {"text": "server down"}}], "isError": true}),
            tool: "docs_search",
            input: json!({"query": "x"}),
            shown: json!("server down"),
        },
        Case {
            kind: "semSearchToolCall",
            name: "semSearch",
            args: json!({"query": "where is auth", "targetDirectories": [], "toolCallId": "s1"}),
            result: json!({"status": "success", "results": "<results/>"}),
            tool: "semSearch",
            input: json!({"query": "where is auth", "targetDirectories": []}),
            shown: json!({"title": "where is auth", "output": "<results/>", "metadata": {}}),
        },
        Case {
            kind: "deleteToolCall",
            name: "delete",
            args: json!({"path": "/w/old.txt", "toolCallId": "d1"}),
            result: json!({"status": "error", "path": "", "error": "File not found: /w/old.txt"}),
            tool: "delete",
            input: json!({"path": "/w/old.txt"}),
            shown: json!("File not found: /w/old.txt"),
        },
        Case {
            kind: "someFutureToolCall",
            name: "someFuture",
            args: json!({"level": 3, "deep": true}),
            result: json!({"status": "success", "a": 1}),
            tool: "someFuture",
            input: json!({"level": 3, "deep": true}),
            shown: json!({"title": "deep=true, level=3", "output": "{\n  \"a\": 1\n}", "metadata": {}}),
        },
        Case {
            kind: "function",
            name: "custom_fn",
            args: json!({"x": 1}),
            result: json!({"status": "unknown"}),
            tool: "custom_fn",
            input: json!({"x": 1}),
            shown: json!("Cursor reported the call as unknown."),
        },
        Case {
            kind: "editToolCall",
            name: "edit",
            args: json!({"path": "/w/x.txt"}),
            result: json!({"status": "interrupted", "message": "The run ended."}),
            tool: "edit",
            input: json!({"filePath": "/w/x.txt"}),
            shown: json!("The run ended."),
        },
    ]
}

#[test]
fn every_kind_renders_as_opencode_shows_its_own_tool() {
    for case in cases() {
        let what = format!("{} {}", case.kind, case.result["status"]);
        let view = OpenCodeView::of(case.kind, case.name, &case.args.to_string());
        assert_eq!(view.tool, case.tool, "{what}");
        let input: Value = serde_json::from_str(&view.input_json()).unwrap();
        assert_eq!(input, case.input, "{what}");
        let failed = is_failure(&case.result);
        assert_eq!(failed, case.shown.is_string(), "{what}: failed");
        assert_eq!(view.result(&case.result, failed), case.shown, "{what}");
    }
}

#[test]
fn arguments_that_are_not_an_object_give_an_empty_input() {
    for arguments in ["", "[1]", "not json", "null"] {
        let view = OpenCodeView::of("readToolCall", "read", arguments);
        assert_eq!(view.tool, "read");
        assert_eq!(view.input_json(), "{}");
        let shown = view.result(&json!({"status": "success"}), false);
        // No path to show: the title falls back to the tool's name, never an empty line.
        assert_eq!(shown["title"], "read", "{arguments:?}");
    }
}

#[test]
fn every_row_names_a_distinct_kind() {
    for (i, row) in RENDERINGS.iter().enumerate() {
        assert!(
            RENDERINGS[i + 1..]
                .iter()
                .all(|other| other.kind != row.kind),
            "{} twice",
            row.kind
        );
        assert!(row.kind.ends_with("ToolCall"), "{}", row.kind);
    }
}
