//! Reading Cursor's tool calls: the display name, the arguments and the result of a
//! `tool_call` event, each from a table of the shapes Cursor uses.

use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::core::json;
use crate::core::stream::event::ToolCallBody;
pub use mcp::{mcp_name, McpName, MCP_APPROVAL_FLAGS};
pub use refusal::{tool_refusal, RefusedCall, ToolRefusal, REFUSAL_REASON_PATHS, TOOL_REFUSALS};

mod mcp;
mod refusal;

/// Arguments reported for a call whose event carried none.
const NO_ARGUMENTS: &str = "{}";

/// Where a tool's display name comes from, for the tool kinds that do not use their key.
enum NameSource {
    /// The tool of an MCP call (see [`mcp_name`]).
    McpTool,
    /// `function.name`.
    FunctionName,
}

/// Tool kinds whose name is not simply their key without `ToolCall`.
const NAME_SOURCES: &[(&str, NameSource)] = &[
    ("mcpToolCall", NameSource::McpTool),
    ("function", NameSource::FunctionName),
];

/// The tool's display name: the `*ToolCall` key without the suffix, first letter lowered
/// (`shellToolCall` -> `shell`), unless the table of name sources names a better one that is present.
pub fn tool_name(call: &ToolCallBody<'_>) -> String {
    let key = call.kind.as_deref().unwrap_or("tool");
    for (kind, source) in NAME_SOURCES {
        if *kind != key {
            continue;
        }
        let found = match source {
            NameSource::McpTool => call.args.and_then(|raw| mcp_name(raw).tool),
            NameSource::FunctionName => call.function_name.as_deref().map(str::to_owned),
        };
        if let Some(name) = found.filter(|n| !n.is_empty()) {
            return name;
        }
    }
    let stem = key.strip_suffix("ToolCall").unwrap_or(key);
    let stem = if stem.is_empty() { key } else { stem };
    let mut chars = stem.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The MCP server an `mcpToolCall` goes to (see [`mcp_name`]); `None` for any other kind of
/// call.
pub fn mcp_server(call: &ToolCallBody<'_>) -> Option<String> {
    if call.kind.as_deref() != Some("mcpToolCall") {
        return None;
    }
    mcp_name(call.args?).server
}

/// The call's arguments as JSON text: the raw text Cursor sent (an MCP call's without Cursor's
/// approval flags), or for a `function` entry the JSON held in its `arguments` string.
pub fn tool_input(call: &ToolCallBody<'_>) -> String {
    let Some(raw) = call.args else {
        return NO_ARGUMENTS.to_owned();
    };
    if call.kind.as_deref() == Some("mcpToolCall") {
        if let Some(shown) = mcp::shown_mcp_args(raw) {
            return shown;
        }
    }
    if call.kind.as_deref() == Some("function") {
        if let Ok(text) = serde_json::from_str::<String>(raw.get()) {
            return if text.trim().is_empty() {
                NO_ARGUMENTS.to_owned()
            } else {
                text
            };
        }
    }
    raw.get().to_owned()
}

/// The entries of a JSON object in wire order (`serde_json::Map` would sort them).
struct OrderedEntries<V = Value>(Vec<(String, V)>);

/// The entries of a JSON object in wire order, each value its raw text.
type OrderedRawEntries<'a> = OrderedEntries<&'a RawValue>;

impl<'de, V: Deserialize<'de>> Deserialize<'de> for OrderedEntries<V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntriesVisitor<V>(std::marker::PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for EntriesVisitor<V> {
            type Value = OrderedEntries<V>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry::<String, V>()? {
                    entries.push(entry);
                }
                Ok(OrderedEntries(entries))
            }
        }
        deserializer.deserialize_map(EntriesVisitor(std::marker::PhantomData))
    }
}

/// Result variants of Cursor's protobuf oneof, preferred over sibling keys.
const RESULT_VARIANTS: &[&str] = &[
    "success",
    "failure",
    "error",
    "rejected",
    "permissionDenied",
    "timeout",
    "spawnError",
    "aborted",
];

/// Whether a result (from [`tool_result`]) means the call did not do its work. A `failure` that
/// carries an `exitCode` is a command that ran and exited non-zero: a result, as OpenCode's own
/// `bash` reports one. A `success` flagged `isError` is an MCP tool's own failure.
pub fn is_failure(result: &Value) -> bool {
    match result.get("status").and_then(Value::as_str) {
        Some("success") => result.get("isError").and_then(Value::as_bool) == Some(true),
        Some("failure") => result.get("exitCode").is_none_or(|code| !code.is_number()),
        _ => true,
    }
}

/// Explanation put in place of the empty `reason` Cursor gives for a rejected call.
pub const REJECTED_REASON: &str = "Cursor did not run this tool: cursor-agent's permission policy \
rejected it without giving a reason. Headless shell commands are rejected unless cursor-agent \
runs with --force (set CURSOR_ACP_FORCE=true, the default, to allow them).";

/// Result of a call still open when the stream ended.
pub const INTERRUPTED_MESSAGE: &str =
    "The run ended before Cursor reported this tool call's result.";

/// `{status: <variant key>, ...the variant's fields}` from a completed event's `result`. A field
/// nested [`json::SHALLOW_DEPTH`] levels deep or more is kept as its compact JSON text, so that
/// whoever holds the result later (a runner's thread, the host's binding) can clone, print and
/// drop it on an ordinary stack; this runs where the record's depth was provided for.
pub fn tool_result(raw: Option<&RawValue>) -> Value {
    let entries = raw
        .and_then(|r| json::from_str::<OrderedEntries>(r.get()).ok())
        .map(|e| e.0)
        .unwrap_or_default();
    let deep = raw.is_some_and(|r| json::depth_bound(r.get()) > json::SHALLOW_DEPTH);
    let kept = |value: &Value| {
        if deep && json::value_depth(value) >= json::SHALLOW_DEPTH {
            Value::String(value.to_string())
        } else {
            value.clone()
        }
    };
    let variant = RESULT_VARIANTS
        .iter()
        .find_map(|v| entries.iter().find(|(k, _)| k == v))
        .or_else(|| entries.iter().find(|(_, v)| v.is_object()));
    let mut result = Map::new();
    let Some((status, fields)) = variant else {
        result.insert("status".into(), "unknown".into());
        return Value::Object(result);
    };
    result.insert("status".into(), status.clone().into());
    match fields {
        Value::Object(fields) => {
            for (k, v) in fields {
                if k != "status" {
                    result.insert(k.clone(), kept(v));
                }
            }
        }
        other => {
            result.insert(status.clone(), kept(other));
        }
    }
    let mut result = Value::Object(result);
    // A refused call always says why: Cursor's words wherever it put them, else what the
    // refusal means.
    let stated = result
        .get("reason")
        .and_then(Value::as_str)
        .is_some_and(|r| !r.trim().is_empty());
    if let Some(refused) = tool_refusal(&result).filter(|_| !stated) {
        result["reason"] = refused.reason.into();
    }
    result
}

#[cfg(test)]
mod tests;
