//! The MCP side of the bridge: `tools/list` gives the host's tools as the host described them,
//! `tools/call` checks the arguments and holds the call until the host answers.

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;

use super::held::{Answer, AnswerContent, HeldCalls};
use super::schema::ArgumentCheck;
use super::{HostTool, RUN_ENDED};

/// The tools, as MCP lists them, with their argument checks.
#[derive(Debug)]
pub struct Catalog {
    tools: Vec<(Tool, ArgumentCheck)>,
}

impl Catalog {
    pub fn new(tools: Vec<HostTool>) -> Self {
        let tools = tools
            .into_iter()
            .map(|tool| {
                let check = ArgumentCheck::new(&tool.input_schema);
                let listed = Tool::new(
                    Cow::Owned(tool.name),
                    Cow::Owned(tool.description.unwrap_or_default()),
                    Arc::new(tool.input_schema),
                );
                (listed, check)
            })
            .collect();
        Self { tools }
    }

    fn find(&self, name: &str) -> Option<&ArgumentCheck> {
        self.tools
            .iter()
            .find(|(tool, _)| tool.name == name)
            .map(|(_, check)| check)
    }
}

/// One MCP session's handler (rmcp makes one per session; all share the run's calls).
#[derive(Debug, Clone)]
pub struct BridgeServer {
    pub catalog: Arc<Catalog>,
    pub calls: Arc<HeldCalls>,
}

fn result_of(answer: Answer) -> CallToolResult {
    let content: Vec<ContentBlock> = answer
        .content
        .into_iter()
        .map(|piece| match piece {
            AnswerContent::Text(text) => ContentBlock::text(text),
            AnswerContent::Image { data, mime_type } => ContentBlock::image(data, mime_type),
        })
        .collect();
    if answer.is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    }
}

impl ServerHandler for BridgeServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            self.catalog
                .tools
                .iter()
                .map(|(tool, _)| tool.clone())
                .collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.as_ref();
        let Some(check) = self.catalog.find(name) else {
            return Ok(result_of(Answer::error(format!(
                "There is no tool named {name:?}; use one of the tools this server lists."
            )))
            .into());
        };
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        if let Err(reasons) = check.check(&arguments) {
            tracing::debug!(tool = name, %reasons, "tool call refused by its schema");
            return Ok(result_of(Answer::error(format!(
                "The arguments do not match the schema of {name}:\n{reasons}"
            )))
            .into());
        }
        let answer = self.calls.hold(name, arguments.to_string());
        let answer = answer.await.unwrap_or_else(|_| Answer::error(RUN_ENDED));
        Ok(result_of(answer).into())
    }
}
