//! Tools offered to the model, in the OpenAI and the AI SDK V3 shape.

use serde_json::Value;

use super::fields::{as_object, parse_each, required_str, str_field, within};
use crate::core::error::CoreError;

/// A tool offered to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDefinition<'a> {
    pub name: &'a str,
    pub description: Option<&'a str>,
    /// The JSON schema of the arguments (`parameters` / `inputSchema`).
    pub parameters: Option<&'a Value>,
    /// A provider-defined tool (V3 `type: 'provider'`): it counts by name only.
    pub provider_defined: bool,
    /// What the host says the tool does to its environment, as MCP's annotations
    /// (`readOnlyHint`, ...): the host knows its tools, the bridge declares what it is told.
    pub annotations: Option<&'a Value>,
}

/// Parses tool definitions in the OpenAI and the AI SDK V3 shape.
pub fn parse_tools(items: &[Value]) -> Result<Vec<ToolDefinition<'_>>, CoreError> {
    parse_each("tools", items, parse_tool)
}

fn parse_tool(item: &Value) -> Result<ToolDefinition<'_>, CoreError> {
    let object = as_object(item, "a tool")?;
    let annotations = match object.get("annotations") {
        None | Some(Value::Null) => None,
        Some(found @ Value::Object(_)) => Some(found),
        Some(_) => return Err(CoreError::invalid_arg("`annotations` must be an object")),
    };
    if let Some(function) = object.get("function").and_then(Value::as_object) {
        return Ok(ToolDefinition {
            name: required_str(function, "name").map_err(|e| within("function", &e))?,
            description: str_field(function, "description"),
            parameters: function.get("parameters").filter(|v| !v.is_null()),
            provider_defined: false,
            annotations,
        });
    }
    let provider_defined = matches!(
        str_field(object, "type"),
        Some("provider" | "provider-defined")
    );
    Ok(ToolDefinition {
        name: required_str(object, "name")?,
        description: if provider_defined {
            None
        } else {
            str_field(object, "description")
        },
        parameters: if provider_defined {
            None
        } else {
            object
                .get("inputSchema")
                .or_else(|| object.get("parameters"))
                .filter(|v| !v.is_null())
        },
        provider_defined,
        annotations,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::core::prompt::conversation_of;

    #[test]
    fn tool_definitions_in_both_shapes() {
        let request = json!({"messages": [], "tools": [
            {"type": "function", "function": {"name": "read", "description": "Read a file", "parameters": {"type": "object"}}},
            {"type": "function", "name": "bash", "description": "Run", "inputSchema": {"type": "object"}},
            {"type": "provider", "id": "openai.web_search", "name": "web_search", "args": {}},
        ]});
        let c = conversation_of(&request);
        let names: Vec<_> = c
            .tools
            .iter()
            .map(|t| (t.name, t.description, t.provider_defined))
            .collect();
        assert_eq!(
            names,
            vec![
                ("read", Some("Read a file"), false),
                ("bash", Some("Run"), false),
                ("web_search", None, true)
            ]
        );
        assert!(c.tools[0].parameters.is_some() && c.tools[1].parameters.is_some());
    }
}
