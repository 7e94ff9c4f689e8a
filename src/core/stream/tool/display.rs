//! How OpenCode shows Cursor's tool calls in the AI SDK output.
//!
//! OpenCode renders a tool part by its tool name, and each renderer reads fixed fields:
//! `state.input.filePath` (read, edit, write), `state.input.command` and
//! `state.metadata.output` / `exit` (bash), `state.input.pattern` and `state.metadata.count` /
//! `matches` (glob, grep), `state.metadata.diff` (edit), `state.input.todos` (todowrite),
//! `state.input.url` (webfetch). A tool it has no renderer for is shown with its name, its
//! scalar arguments and `state.title`. For a provider-executed `tool-result`, OpenCode stores a
//! `result` of the shape `{title, output, metadata}` as exactly those fields, and the result of a
//! failed call (`isError`) as the error text.
//!
//! So each Cursor tool kind has one row in [`RENDERINGS`]: the OpenCode tool whose renderer
//! fits, the arguments that renderer reads (renamed to OpenCode's names; the others are left
//! out), and how Cursor's result becomes `title`, `output` and `metadata`.

use serde_json::{json, Map, Value};

/// How a Cursor result becomes OpenCode's `output` and `metadata`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Shell,
    Read,
    Edit,
    Write,
    Grep,
    Glob,
    List,
    Todos,
    WebFetch,
    Mcp,
    Generic,
}

/// Where the part's title comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Title {
    /// An argument, in OpenCode's name.
    Arg(&'static str),
    /// `<n> todos`, counting the ones not completed (as OpenCode's `todowrite` does).
    OpenTodos,
    /// The first descriptive argument present, else the arguments as `name=value` pairs.
    Summary,
}

/// What one Cursor tool kind looks like in OpenCode.
#[derive(Debug)]
struct Rendering {
    /// Cursor's `*ToolCall` key (or `function`).
    kind: &'static str,
    /// OpenCode's tool; `None` keeps the call's own name, for tools OpenCode has no renderer of.
    tool: Option<&'static str>,
    /// Cursor argument -> OpenCode argument, in display order; `None` keeps every argument but
    /// Cursor's bookkeeping ([`BOOKKEEPING_ARGS`]).
    args: Option<&'static [(&'static str, &'static str)]>,
    title: Title,
    shape: Shape,
}

const fn row(
    kind: &'static str,
    tool: &'static str,
    args: &'static [(&'static str, &'static str)],
    title: Title,
    shape: Shape,
) -> Rendering {
    Rendering {
        kind,
        tool: Some(tool),
        args: Some(args),
        title,
        shape,
    }
}

/// Every Cursor tool kind of the protocol reference that OpenCode has a renderer for, or that
/// needs its own result shaping.
const RENDERINGS: &[Rendering] = &[
    row(
        "shellToolCall",
        "bash",
        &[
            ("command", "command"),
            ("workingDirectory", "workdir"),
            ("description", "description"),
        ],
        Title::Arg("command"),
        Shape::Shell,
    ),
    row(
        "readToolCall",
        "read",
        &[
            ("path", "filePath"),
            ("offset", "offset"),
            ("limit", "limit"),
        ],
        Title::Arg("filePath"),
        Shape::Read,
    ),
    row(
        "editToolCall",
        "edit",
        &[("path", "filePath")],
        Title::Arg("filePath"),
        Shape::Edit,
    ),
    row(
        "writeToolCall",
        "write",
        &[("path", "filePath"), ("fileText", "content")],
        Title::Arg("filePath"),
        Shape::Write,
    ),
    row(
        "grepToolCall",
        "grep",
        &[
            ("pattern", "pattern"),
            ("path", "path"),
            ("glob", "include"),
        ],
        Title::Arg("pattern"),
        Shape::Grep,
    ),
    row(
        "globToolCall",
        "glob",
        &[("globPattern", "pattern"), ("targetDirectory", "path")],
        Title::Arg("pattern"),
        Shape::Glob,
    ),
    row(
        "lsToolCall",
        "list",
        &[("path", "path")],
        Title::Arg("path"),
        Shape::List,
    ),
    row(
        "updateTodosToolCall",
        "todowrite",
        &[("todos", "todos")],
        Title::OpenTodos,
        Shape::Todos,
    ),
    row(
        "todoToolCall",
        "todowrite",
        &[("todos", "todos")],
        Title::OpenTodos,
        Shape::Todos,
    ),
    row(
        "webFetchToolCall",
        "webfetch",
        &[("url", "url")],
        Title::Arg("url"),
        Shape::WebFetch,
    ),
    row(
        "deleteToolCall",
        "delete",
        &[("path", "path")],
        Title::Arg("path"),
        Shape::Generic,
    ),
    Rendering {
        kind: "mcpToolCall",
        tool: None,
        args: None,
        title: Title::Summary,
        shape: Shape::Mcp,
    },
];

/// Any other kind: its own name, its arguments, a summary title.
const GENERIC: Rendering = Rendering {
    kind: "",
    tool: None,
    args: None,
    title: Title::Summary,
    shape: Shape::Generic,
};

/// Arguments Cursor adds for its own bookkeeping, left out of a generic call's input.
const BOOKKEEPING_ARGS: &[&str] = &["toolCallId", "conversationId", "requestId"];

/// Arguments that describe a call best, in order (OpenCode's generic renderer picks the same).
const DESCRIPTIVE_ARGS: &[&str] = &[
    "description",
    "query",
    "url",
    "filePath",
    "path",
    "pattern",
    "command",
    "name",
];

/// Result fields that hold a generic tool's readable output, in order.
const OUTPUT_FIELDS: &[&str] = &[
    "output", "content", "markdown", "results", "message", "text", "stdout",
];

/// Cursor's todo statuses and OpenCode's.
const TODO_STATUSES: &[(&str, &str)] = &[
    ("TODO_STATUS_PENDING", "pending"),
    ("TODO_STATUS_IN_PROGRESS", "in_progress"),
    ("TODO_STATUS_COMPLETED", "completed"),
    ("TODO_STATUS_CANCELLED", "cancelled"),
];

/// A Cursor tool call as OpenCode shows it: the tool name and the input of the `tool-call`
/// part, and the shaping of its `tool-result`.
#[derive(Debug)]
pub struct OpenCodeView {
    /// OpenCode's tool name.
    pub tool: String,
    /// The input in OpenCode's argument names.
    pub input: Map<String, Value>,
    rendering: &'static Rendering,
}

impl OpenCodeView {
    /// The view of a call of Cursor's `kind` (its `*ToolCall` key), shown as `name` so far
    /// (`tool_name`), with Cursor's arguments as JSON text.
    pub fn of(kind: &str, name: &str, arguments: &str) -> Self {
        let rendering = RENDERINGS
            .iter()
            .find(|r| r.kind == kind)
            .unwrap_or(&GENERIC);
        let args = match serde_json::from_str::<Value>(arguments) {
            Ok(Value::Object(args)) => args,
            _ => Map::new(),
        };
        let (tool, input) = match rendering.shape {
            Shape::Mcp => mcp_call(name, &args),
            _ => (
                rendering.tool.unwrap_or(name).to_owned(),
                renamed(rendering, args),
            ),
        };
        Self {
            tool,
            input,
            rendering,
        }
    }

    /// The input as JSON text (the `tool-call` part's `input`).
    pub fn input_json(&self) -> String {
        Value::Object(self.input.clone()).to_string()
    }

    /// The `tool-result` part's `result`: `{title, output, metadata}`, or for a failed call the
    /// reason as text. `result` is `{status, ...the variant's fields}`.
    pub fn result(&self, result: &Value, is_error: bool) -> Value {
        let fields = result.as_object().cloned().unwrap_or_default();
        if is_error {
            return Value::String(failure_text(&fields));
        }
        let (output, metadata) = self.shape(&fields);
        json!({ "title": self.title(), "output": output, "metadata": metadata })
    }

    fn title(&self) -> String {
        let title = match self.rendering.title {
            Title::Arg(arg) => self.input.get(arg).and_then(scalar_text),
            Title::OpenTodos => {
                let open = todo_list(self.input.get("todos"))
                    .iter()
                    .filter(|t| t["status"] != "completed")
                    .count();
                Some(format!("{open} todos"))
            }
            Title::Summary => summary(&self.input),
        };
        title
            .filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| self.tool.clone())
    }

    fn shape(&self, result: &Map<String, Value>) -> (String, Value) {
        let text = |field: &str| result.get(field).and_then(Value::as_str).unwrap_or("");
        match self.rendering.shape {
            Shape::Shell => {
                let output = match text("interleavedOutput") {
                    "" => [text("stdout"), text("stderr")].concat(),
                    interleaved => interleaved.to_owned(),
                };
                let mut metadata = json!({ "output": output, "exit": result.get("exitCode").cloned().unwrap_or(Value::Null) });
                if let Some(description) = self.input.get("description") {
                    metadata["description"] = description.clone();
                }
                (output, metadata)
            }
            Shape::Read => (
                text("content").to_owned(),
                json!({ "truncated": result.get("exceededLimit").and_then(Value::as_bool).unwrap_or(false) }),
            ),
            Shape::Edit => {
                let mut metadata = json!({ "diagnostics": {} });
                let diff = text("diffString");
                if !diff.is_empty() {
                    metadata["diff"] = diff.into();
                    metadata["filediff"] = json!({
                        "file": result.get("path").or_else(|| self.input.get("filePath")).cloned().unwrap_or(Value::Null),
                        "patch": diff,
                        "additions": result.get("linesAdded").cloned().unwrap_or(0.into()),
                        "deletions": result.get("linesRemoved").cloned().unwrap_or(0.into()),
                    });
                }
                let output = match text("message") {
                    "" => "Edit applied.".to_owned(),
                    message => message.to_owned(),
                };
                (output, metadata)
            }
            Shape::Write => {
                let lines = result.get("linesCreated").and_then(Value::as_u64);
                let output = match lines {
                    Some(lines) => format!("Wrote {lines} lines."),
                    None => "Wrote the file.".to_owned(),
                };
                (output, json!({ "diagnostics": {} }))
            }
            Shape::Grep => {
                let (output, matches) = grep_output(result);
                (output, json!({ "matches": matches, "truncated": false }))
            }
            Shape::Glob => {
                let files: Vec<String> = result
                    .get("files")
                    .and_then(Value::as_array)
                    .map(|files| files.iter().filter_map(file_name).collect())
                    .unwrap_or_default();
                let count = result
                    .get("totalFiles")
                    .and_then(Value::as_u64)
                    .unwrap_or(files.len() as u64);
                let truncated = ["clientTruncated", "ripgrepTruncated"]
                    .iter()
                    .any(|f| result.get(*f).and_then(Value::as_bool) == Some(true));
                let output = if files.is_empty() {
                    "No files found".to_owned()
                } else {
                    files.join("\n")
                };
                (output, json!({ "count": count, "truncated": truncated }))
            }
            Shape::List => {
                let mut output = String::new();
                if let Some(root) = result.get("directoryTreeRoot") {
                    tree_lines(root, 0, &mut output);
                }
                let count = result
                    .get("directoryTreeRoot")
                    .and_then(|r| r.get("numFiles"))
                    .cloned()
                    .unwrap_or(Value::Null);
                (
                    output.trim_end().to_owned(),
                    json!({ "count": count, "truncated": false }),
                )
            }
            Shape::Todos => {
                let todos = match todo_list(result.get("todos")) {
                    done if !done.is_empty() => done,
                    _ => todo_list(self.input.get("todos")),
                };
                let output = serde_json::to_string_pretty(&todos).unwrap_or_default();
                (output, json!({ "todos": todos }))
            }
            Shape::WebFetch => (text("markdown").to_owned(), json!({})),
            Shape::Mcp => (mcp_output(result), json!({})),
            Shape::Generic => (generic_output(result), json!({})),
        }
    }
}

/// Cursor's arguments renamed by the row's table, or all but the bookkeeping ones. Empty strings
/// are left out: Cursor sends `workingDirectory: ""` for "the workspace".
fn renamed(rendering: &Rendering, mut args: Map<String, Value>) -> Map<String, Value> {
    let keep = |v: &Value| !matches!(v, Value::Null) && v.as_str() != Some("");
    let mut input = Map::new();
    match rendering.args {
        Some(table) => {
            for (from, to) in table {
                if let Some(value) = args.remove(*from).filter(keep) {
                    input.insert((*to).to_owned(), value);
                }
            }
        }
        None => {
            for (key, value) in args {
                if !BOOKKEEPING_ARGS.contains(&key.as_str()) && keep(&value) {
                    input.insert(key, value);
                }
            }
        }
    }
    if rendering.shape == Shape::Todos {
        if let Some(todos) = input.get("todos") {
            let todos = Value::Array(todo_list(Some(todos)));
            input.insert("todos".to_owned(), todos);
        }
    }
    input
}

/// An MCP call as OpenCode names its own MCP tools (`<server>_<tool>`), with the tool's own
/// arguments as its input.
fn mcp_call(name: &str, args: &Map<String, Value>) -> (String, Map<String, Value>) {
    let field = |f: &str| {
        args.get(f)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    let tool = field("toolName").unwrap_or(name);
    let server = field("providerIdentifier")
        .or_else(|| field("name").and_then(|n| n.strip_suffix(tool)?.strip_suffix('-')));
    let tool_name = match server {
        Some(server) => format!("{server}_{tool}"),
        None => tool.to_owned(),
    };
    let input = match args.get("args") {
        Some(Value::Object(inner)) => inner.clone(),
        _ => Map::new(),
    };
    (tool_name, input)
}

/// OpenCode's todo shape (`content`, `status`, `id`) from Cursor's.
fn todo_list(todos: Option<&Value>) -> Vec<Value> {
    let Some(Value::Array(todos)) = todos else {
        return Vec::new();
    };
    todos
        .iter()
        .filter_map(|todo| {
            let content = todo.get("content")?.as_str()?;
            let status = todo.get("status").and_then(Value::as_str).unwrap_or("");
            let status = TODO_STATUSES
                .iter()
                .find(|(cursor, _)| *cursor == status)
                .map_or(status, |(_, opencode)| opencode);
            let mut entry = json!({ "content": content, "status": status });
            if let Some(id) = todo.get("id") {
                entry["id"] = id.clone();
            }
            Some(entry)
        })
        .collect()
}

fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The first descriptive argument, else every scalar argument as `name=value`.
fn summary(input: &Map<String, Value>) -> Option<String> {
    let descriptive = DESCRIPTIVE_ARGS
        .iter()
        .find_map(|arg| input.get(*arg).and_then(scalar_text))
        .filter(|s| !s.trim().is_empty());
    descriptive.or_else(|| {
        let pairs: Vec<String> = input
            .iter()
            .filter_map(|(k, v)| Some(format!("{k}={}", scalar_text(v)?)))
            .collect();
        (!pairs.is_empty()).then(|| pairs.join(", "))
    })
}

/// Why a call failed, in Cursor's words: its `reason`, `error` or `message`, else its variant
/// and fields.
fn failure_text(result: &Map<String, Value>) -> String {
    for field in ["reason", "error", "message"] {
        if let Some(text) = result.get(field).and_then(Value::as_str) {
            if !text.trim().is_empty() {
                return text.to_owned();
            }
        }
    }
    if let Some(Value::Array(content)) = result.get("content") {
        let text = content_text(content);
        if !text.is_empty() {
            return text;
        }
    }
    let status = result
        .get("status")
        .and_then(Value::as_str)
        .unwrap_or("unknown");
    let mut rest = result.clone();
    rest.remove("status");
    if rest.is_empty() {
        format!("Cursor reported the call as {status}.")
    } else {
        format!(
            "Cursor reported the call as {status}: {}",
            Value::Object(rest)
        )
    }
}

/// MCP content as text: each text entry, and a line per image.
fn content_text(content: &[Value]) -> String {
    content
        .iter()
        .filter_map(|entry| {
            if let Some(text) = entry.pointer("/text/text").and_then(Value::as_str) {
                return Some(text.to_owned());
            }
            if let Some(text) = entry.get("text").and_then(Value::as_str) {
                return Some(text.to_owned());
            }
            let mime = entry.pointer("/image/mimeType").and_then(Value::as_str)?;
            Some(format!("[image {mime}]"))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn mcp_output(result: &Map<String, Value>) -> String {
    match result.get("content") {
        Some(Value::Array(content)) => content_text(content),
        _ => generic_output(result),
    }
}

/// A readable output field, else the result's fields as JSON.
fn generic_output(result: &Map<String, Value>) -> String {
    for field in OUTPUT_FIELDS {
        if let Some(text) = result.get(*field).and_then(Value::as_str) {
            return text.to_owned();
        }
    }
    let mut rest = result.clone();
    rest.remove("status");
    if rest.is_empty() {
        return String::new();
    }
    let rest = Value::Object(rest);
    let compact = rest.to_string();
    // Indentation grows with depth on every line, so a deep result would print quadratically
    // large; past a readable depth the compact text is shown instead.
    if crate::core::json::depth_bound(&compact) > PRETTY_MAX_DEPTH {
        return compact;
    }
    serde_json::to_string_pretty(&rest).unwrap_or(compact)
}

/// The deepest result still shown indented.
const PRETTY_MAX_DEPTH: usize = 16;

/// Grep matches as OpenCode lists them (`<file>:` then `  Line <n>: <text>`), and their count.
fn grep_output(result: &Map<String, Value>) -> (String, u64) {
    let mut lines = Vec::new();
    let mut count = 0;
    let roots = result.get("workspaceResults").and_then(Value::as_object);
    for root in roots.into_iter().flat_map(|r| r.values()) {
        let files = root
            .pointer("/content/matches")
            .and_then(Value::as_array)
            .into_iter()
            .flatten();
        for file in files {
            let name = file.get("file").and_then(Value::as_str).unwrap_or("");
            lines.push(format!("{name}:"));
            let matches = file.get("matches").and_then(Value::as_array);
            for hit in matches.into_iter().flatten() {
                if hit.get("isContextLine").and_then(Value::as_bool) == Some(true) {
                    continue;
                }
                count += 1;
                let line = hit
                    .get("lineNumber")
                    .and_then(scalar_text)
                    .unwrap_or_default();
                let text = hit.get("content").and_then(Value::as_str).unwrap_or("");
                lines.push(format!("  Line {line}: {text}"));
            }
        }
        let names = root
            .pointer("/files/files")
            .and_then(Value::as_array)
            .into_iter()
            .flatten();
        for name in names.filter_map(file_name) {
            count += 1;
            lines.push(name);
        }
    }
    if lines.is_empty() {
        return ("No matches found".to_owned(), 0);
    }
    (lines.join("\n"), count)
}

/// A file entry: a path string, or an object naming it.
fn file_name(entry: &Value) -> Option<String> {
    match entry {
        Value::String(s) => Some(s.clone()),
        Value::Object(o) => ["path", "relPath", "file", "name"]
            .iter()
            .find_map(|k| o.get(*k)?.as_str().map(str::to_owned)),
        _ => None,
    }
}

/// One line per directory (`name/`) and file, indented by depth.
fn tree_lines(node: &Value, depth: usize, out: &mut String) {
    let indent = "  ".repeat(depth);
    let name = node
        .get("absPath")
        .or_else(|| node.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let name = if depth == 0 {
        name
    } else {
        name.rsplit('/').next().unwrap_or(name)
    };
    out.push_str(&format!("{indent}{}/\n", name.trim_end_matches('/')));
    let dirs = node.get("childrenDirs").and_then(Value::as_array);
    for dir in dirs.into_iter().flatten() {
        tree_lines(dir, depth + 1, out);
    }
    let files = node.get("childrenFiles").and_then(Value::as_array);
    for file in files.into_iter().flatten().filter_map(file_name) {
        out.push_str(&format!("{indent}  {file}\n"));
    }
}

#[cfg(test)]
mod tests;
