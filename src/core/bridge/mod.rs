//! The tool bridge: the host's own tools (OpenCode's `read`, `edit`, `bash`, ...) served to
//! cursor-agent by a loopback MCP server, so that the host, not Cursor, runs each call.
//!
//! A `tools/call` is held open ([`held`]) until the host has run the tool and answered, or
//! until the deadline that keeps it under Cursor's 60 s limit ([`parked`]); the runner hands
//! the held calls of one model step to the host together and keeps cursor-agent alive
//! meanwhile. [`result`] shapes each answer so that Cursor passes all of it to the model. [`workspace`] writes the private folder that points cursor-agent at the
//! server and keeps Cursor's own tools out.

use std::sync::Arc;

use rmcp::model::ToolAnnotations;
use serde_json::{Map, Value};
use tokio::sync::watch;

mod connections;
pub mod held;
mod http;
mod mcp;
pub mod parked;
pub mod result;
pub mod schema;
pub mod workspace;

pub use crate::core::call_id::host_call_id;
pub use held::{Answer, AnswerContent, HeldCalls, HostCall};

use crate::core::error::{CoreError, ErrorCode};
use crate::core::prompt::tools::parse_tools;
use parked::Parked;

/// The name cursor-agent knows the bridge's server by (`.cursor/mcp.json`), and the prefix of
/// its tools in Cursor's stream (`opencode-read`) and hooks (`MCP:...`).
pub const SERVER_NAME: &str = "opencode";

/// One of the host's tools, exactly as the host described it.
#[derive(Debug, Clone, PartialEq)]
pub struct HostTool {
    pub name: String,
    pub description: Option<String>,
    /// The JSON schema of the arguments (an object schema).
    pub input_schema: Map<String, Value>,
    /// MCP's hints of what it does, as the host declared them; a tool without them is read as
    /// "may change anything, may reach anywhere". Cursor's client (since `@cursor/sdk` 1.0.32)
    /// sends them to Cursor's backend, where a team's MCP tool policy in `reads` mode admits a
    /// tool by its `readOnlyHint`.
    pub annotations: Option<ToolAnnotations>,
}

impl HostTool {
    /// The host's tool definitions (AI SDK V3 or OpenAI shape, as prompt building reads them),
    /// without provider-defined tools, which have no schema and run at the provider. A tool
    /// without an object schema accepts any object.
    pub fn from_definitions(items: &[Value]) -> Result<Vec<Self>, CoreError> {
        let tools = parse_tools(items)?
            .into_iter()
            .filter(|tool| !tool.provider_defined);
        tools
            .map(|tool| {
                let annotations = tool
                    .annotations
                    .map(|hints| serde_json::from_value(hints.clone()))
                    .transpose()
                    .map_err(|error| {
                        CoreError::invalid_arg(format!(
                            "the annotations of `{}`: {error}",
                            tool.name
                        ))
                    })?;
                let object = Map::from_iter([("type".to_owned(), Value::from("object"))]);
                Ok(Self {
                    name: tool.name.to_owned(),
                    description: tool.description.map(str::to_owned),
                    input_schema: tool
                        .parameters
                        .and_then(Value::as_object)
                        .cloned()
                        .unwrap_or(object),
                    annotations,
                })
            })
            .collect()
    }
}

/// A running bridge: an MCP server on `127.0.0.1`, reachable only with its token. Dropping it
/// stops the server and answers every call still held with an error.
#[derive(Debug)]
pub struct ToolBridge {
    url: String,
    token: String,
    calls: Arc<HeldCalls>,
    parked: Arc<Parked>,
    /// Set to true on drop: the accept loop and every connection end.
    stop: watch::Sender<bool>,
}

impl ToolBridge {
    /// Start serving `tools` on a random loopback port, on a random path, behind a random
    /// bearer token. Must be called inside a Tokio runtime.
    pub async fn start(tools: Vec<HostTool>) -> Result<Self, CoreError> {
        let calls = Arc::new(HeldCalls::new());
        let parked = Arc::new(Parked::default());
        let token = format!(
            "{}{}",
            uuid::Uuid::new_v4().simple(),
            uuid::Uuid::new_v4().simple()
        );
        let path = format!("/mcp/{}", uuid::Uuid::new_v4().simple());
        let catalog = Arc::new(mcp::Catalog::new(tools));
        let (stop, stopped) = watch::channel(false);
        let port = http::serve(
            http::Endpoint {
                path: path.clone(),
                token: token.clone(),
            },
            catalog,
            Arc::clone(&calls),
            Arc::clone(&parked),
            stopped,
            connections::LIMITS,
        )
        .await
        .map_err(|error| {
            CoreError::new(
                ErrorCode::AgentExit,
                format!(
                    "The tool bridge could not listen on 127.0.0.1 ({error}); OpenCode's tools \
                 cannot be offered to Cursor."
                ),
            )
        })?;
        Ok(Self {
            url: format!("http://127.0.0.1:{port}{path}"),
            token,
            calls,
            parked,
            stop,
        })
    }

    /// The server's URL, path included.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The bearer token every request must carry.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// How long a call is held before it is answered "still running" (default
    /// [`parked::DEFAULT_DEADLINE`]; Cursor gives up at 60 s).
    pub fn set_deadline(&self, deadline: std::time::Duration) {
        self.parked.set_deadline(deadline);
    }

    /// The calls cursor-agent made and the host has not answered yet.
    pub fn calls(&self) -> &Arc<HeldCalls> {
        &self.calls
    }
}

/// The answer to a call still held when its run ends.
pub const RUN_ENDED: &str = "The run ended before OpenCode answered this tool call.";

/// How long the server stays up after the run ends, so the answers to calls that were still
/// held reach cursor-agent before the connections close.
const ANSWERS_FLUSH: std::time::Duration = std::time::Duration::from_millis(200);

impl ToolBridge {
    /// Answer every call still held with [`RUN_ENDED`] (and refuse new ones); returns how many
    /// were held.
    pub fn end_calls(&self) -> usize {
        self.calls.close(RUN_ENDED)
    }
}

impl Drop for ToolBridge {
    fn drop(&mut self) {
        self.end_calls();
        let stop = self.stop.clone();
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(async move {
                    tokio::time::sleep(ANSWERS_FLUSH).await;
                    stop.send_replace(true);
                });
            }
            Err(_) => {
                stop.send_replace(true);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn host_tools_from_both_shapes_without_provider_tools() {
        let items = [
            json!({"type": "function", "name": "read", "description": "Read a file", "inputSchema": {"type": "object", "required": ["filePath"]}}),
            json!({"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}),
            json!({"type": "function", "name": "noschema"}),
            json!({"type": "provider", "id": "openai.web_search", "name": "web_search", "args": {}}),
        ];
        let tools = HostTool::from_definitions(&items).unwrap();
        let names: Vec<_> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["read", "bash", "noschema"]);
        assert_eq!(tools[0].description.as_deref(), Some("Read a file"));
        assert_eq!(tools[0].input_schema["required"], json!(["filePath"]));
        assert_eq!(
            Value::Object(tools[2].input_schema.clone()),
            json!({"type": "object"})
        );
        assert!(HostTool::from_definitions(&[json!({"type": "function"})]).is_err());
    }
}
