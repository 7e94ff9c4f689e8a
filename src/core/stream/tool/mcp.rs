//! An `mcpToolCall`'s server and tool, and the arguments shown for it.
//!
//! Cursor names an MCP tool `<server>-<tool>` (captured with `providerIdentifier`) or
//! `<server>:<tool>` (with `serverIdentifier`); 2026.10 and later also carries `toolName`,
//! `providerIdentifier`, `serverIdentifier` and two approval flags beside the call's own
//! `args`. The explicit fields win; the name is split only where they are missing, and only
//! where the split is certain (a server name may itself contain `-`).

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::core::json;

/// Fields that name the server, in order of preference.
const SERVER_FIELDS: &[&str] = &["providerIdentifier", "serverIdentifier"];
/// The field that names the tool.
const TOOL_FIELD: &str = "toolName";
/// What separates server and tool in `name`.
const SEPARATORS: [char; 2] = ['-', ':'];
/// Cursor's approval bookkeeping beside the call's arguments: not part of what the model asked
/// for, so not shown with its arguments.
pub const MCP_APPROVAL_FLAGS: &[&str] = &["skipApproval", "smartModeApprovalOnly"];

/// An MCP call's server and tool, as far as its arguments tell.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct McpName {
    pub server: Option<String>,
    pub tool: Option<String>,
}

/// The server and tool of an `mcpToolCall` with arguments `raw`.
pub fn mcp_name(raw: &RawValue) -> McpName {
    let Ok(object) = json::from_str::<Map<String, Value>>(raw.get()) else {
        return McpName::default();
    };
    let field = |key: &str| {
        object
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    let name = field("name");
    let explicit_server = SERVER_FIELDS.iter().find_map(|key| field(key));
    let explicit_tool = field(TOOL_FIELD);
    // The name without a known server: certain whichever separator it uses.
    let after_server = |server: &str| {
        name?
            .strip_prefix(server)?
            .strip_prefix(SEPARATORS)
            .filter(|tool| !tool.is_empty())
    };
    // The name without a known tool.
    let before_tool = |tool: &str| {
        name?
            .strip_suffix(tool)?
            .strip_suffix(SEPARATORS)
            .filter(|server| !server.is_empty())
    };
    // `srv:tool` is certain without either; `srv-tool` is not (`my-srv-tool`).
    let colon_split = name
        .and_then(|n| n.split_once(':'))
        .filter(|(s, t)| !s.is_empty() && !t.is_empty());
    let server = explicit_server
        .or_else(|| explicit_tool.and_then(before_tool))
        .or_else(|| colon_split.map(|(server, _)| server));
    let tool = explicit_tool
        .or_else(|| explicit_server.and_then(after_server))
        .or_else(|| colon_split.map(|(_, tool)| tool));
    McpName {
        server: server.map(str::to_owned),
        tool: tool.map(str::to_owned),
    }
}

/// The arguments as shown: `raw` without [`MCP_APPROVAL_FLAGS`], every other entry kept byte
/// for byte and in order. `None` when there is nothing to take out (then `raw` is shown).
pub fn shown_mcp_args(raw: &RawValue) -> Option<String> {
    let text = raw.get();
    if !MCP_APPROVAL_FLAGS.iter().any(|flag| text.contains(flag)) {
        return None;
    }
    let entries: Vec<(String, &RawValue)> =
        json::from_str::<super::OrderedRawEntries<'_>>(text).ok()?.0;
    if !entries
        .iter()
        .any(|(key, _)| MCP_APPROVAL_FLAGS.contains(&key.as_str()))
    {
        return None;
    }
    let kept: Vec<String> = entries
        .iter()
        .filter(|(key, _)| !MCP_APPROVAL_FLAGS.contains(&key.as_str()))
        .map(|(key, value)| format!("{}:{}", Value::from(key.as_str()), value.get()))
        .collect();
    Some(format!("{{{}}}", kept.join(",")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).unwrap()
    }

    #[test]
    fn server_and_tool_prefer_the_explicit_fields_then_a_certain_split() {
        let name = |server: Option<&str>, tool: Option<&str>| McpName {
            server: server.map(str::to_owned),
            tool: tool.map(str::to_owned),
        };
        let table = [
            // 2026.10: every field explicit.
            (
                r#"{"name":"docs-search","providerIdentifier":"docs","toolName":"search","serverIdentifier":"docs"}"#,
                name(Some("docs"), Some("search")),
            ),
            // The explicit fields win over the name.
            (
                r#"{"name":"a:b","serverIdentifier":"srv","toolName":"tool"}"#,
                name(Some("srv"), Some("tool")),
            ),
            // A server alone: the tool is the rest of the name, either separator.
            (
                r#"{"name":"my-docs-search","serverIdentifier":"my-docs"}"#,
                name(Some("my-docs"), Some("search")),
            ),
            (
                r#"{"name":"docs:search","providerIdentifier":"docs"}"#,
                name(Some("docs"), Some("search")),
            ),
            // A tool alone: the server is the rest of the name.
            (
                r#"{"name":"my-docs-search","toolName":"search"}"#,
                name(Some("my-docs"), Some("search")),
            ),
            // Neither: `srv:tool` splits, `srv-tool` does not.
            (
                r#"{"name":"docs:search"}"#,
                name(Some("docs"), Some("search")),
            ),
            (r#"{"name":"docs-search"}"#, name(None, None)),
            (r#"{"name":":search"}"#, name(None, None)),
            // Empty fields are missing ones.
            (
                r#"{"providerIdentifier":"","serverIdentifier":"","name":"x-search","toolName":"search"}"#,
                name(Some("x"), Some("search")),
            ),
            (
                r#"{"name":"search","toolName":"search"}"#,
                name(None, Some("search")),
            ),
            ("[]", name(None, None)),
        ];
        for (args, expected) in table {
            assert_eq!(mcp_name(&raw(args)), expected, "{args}");
        }
    }

    #[test]
    fn approval_flags_are_not_shown_and_the_rest_is_kept_as_sent() {
        let table = [
            (
                r#"{"name":"d-s","args":{"q":"b","a":1},"skipApproval":false,"toolName":"s","smartModeApprovalOnly":true}"#,
                Some(r#"{"name":"d-s","args":{"q":"b","a":1},"toolName":"s"}"#),
            ),
            (r#"{"name":"d-s","args":{"skipApproval":true}}"#, None),
            (r#"{"name":"d-s"}"#, None),
        ];
        for (args, shown) in table {
            assert_eq!(shown_mcp_args(&raw(args)).as_deref(), shown, "{args}");
        }
    }
}
