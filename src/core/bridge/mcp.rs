//! The MCP side of the bridge: `tools/list` gives the host's tools as the host described them
//! (no `outputSchema`: Cursor's client would then require `structuredContent`, which it drops),
//! with the MCP annotations the host declared, plus the bridge's own wait and paging tools;
//! `tools/call` checks the arguments and holds the call until the host answers or the deadline
//! comes ([`super::parked`]).

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;

use super::held::{Answer, AnswerContent, HeldCalls};
use super::parked::{still_running, Parked, Waited, MORE_TOOL, WAIT_TOOL};
use super::result::shape;
use super::schema::ArgumentCheck;
use super::HostTool;

/// The tools, as MCP lists them, with their argument checks.
#[derive(Debug)]
pub struct Catalog {
    tools: Vec<(Tool, ArgumentCheck)>,
}

impl Catalog {
    pub fn new(tools: Vec<HostTool>) -> Self {
        let tools = tools
            .into_iter()
            .filter(|tool| !OWN_TOOLS.iter().any(|own| own.0 == tool.name))
            .chain(
                OWN_TOOLS
                    .iter()
                    .map(|(name, description, schema)| HostTool {
                        name: (*name).to_owned(),
                        description: Some((*description).to_owned()),
                        input_schema: serde_json::from_str(schema).unwrap_or_default(),
                        annotations: Some(own_annotations()),
                    }),
            )
            .map(|tool| {
                let check = ArgumentCheck::new(&tool.input_schema);
                let listed = Tool::new(
                    Cow::Owned(tool.name),
                    Cow::Owned(tool.description.unwrap_or_default()),
                    Arc::new(tool.input_schema),
                );
                let listed = match tool.annotations {
                    Some(annotations) => listed.annotate(annotations),
                    None => listed,
                };
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

/// The bridge's own tools (name, description, input schema), served here and never handed to
/// the host; a host tool of the same name gives way.
const OWN_TOOLS: &[(&str, &str, &str)] = &[
    (
        WAIT_TOOL,
        "Wait for the result of an OpenCode tool call that answered \"still running\" (give its \
job number). Returns the result, or says the job is still running: then call this again.",
        r#"{"type":"object","properties":{"job":{"type":"integer","minimum":1}},"required":["job"],"additionalProperties":false}"#,
    ),
    (
        MORE_TOOL,
        "Get the next part of a tool result that was too long for one answer (give the page \
number its last line names).",
        r#"{"type":"object","properties":{"page":{"type":"integer","minimum":1}},"required":["page"],"additionalProperties":false}"#,
    ),
];

/// The hints of the bridge's own tools: both only read what the bridge holds, locally.
fn own_annotations() -> ToolAnnotations {
    ToolAnnotations::new().read_only(true).open_world(false)
}

/// One MCP session's handler (rmcp makes one per session; all share the run's calls).
#[derive(Debug, Clone)]
pub struct BridgeServer {
    pub catalog: Arc<Catalog>,
    pub calls: Arc<HeldCalls>,
    pub parked: Arc<Parked>,
}

fn number(arguments: &Value, key: &str) -> u64 {
    arguments.get(key).and_then(Value::as_u64).unwrap_or(0)
}

impl BridgeServer {
    /// `answer` of tool `tool`, cut to what Cursor takes whole.
    fn deliver(&self, tool: &str, answer: Answer) -> CallToolResult {
        let is_error = answer.is_error;
        let mut page = None;
        let shaped = shape(answer, tool, MORE_TOOL, || {
            *page.insert(self.parked.next_page())
        });
        if let (Some(page), Some(rest)) = (page, shaped.rest) {
            self.parked.put_page(page, rest);
        }
        result_of(Answer {
            content: shaped.content,
            is_error,
        })
    }

    /// What a wait for the host's answer gives Cursor: the result, or "still running".
    fn waited(&self, tool: &str, waited: Waited) -> CallToolResult {
        match waited {
            Waited::Answered(answer) => self.deliver(tool, answer),
            Waited::StillRunning(job) | Waited::Cancelled(job) => result_of(Answer::text(
                still_running(tool, job, self.parked.deadline()),
            )),
        }
    }

    async fn own_tool(
        &self,
        name: &str,
        arguments: &Value,
        context: &RequestContext<RoleServer>,
    ) -> CallToolResult {
        if name == WAIT_TOOL {
            let (waited, tool) = self
                .parked
                .wait(number(arguments, "job"), context.ct.cancelled())
                .await;
            return self.waited(&tool, waited);
        }
        let page = number(arguments, "page");
        let answer = match self.parked.take_page(page) {
            Some(text) => Answer::text(text),
            None => Answer::error(format!(
                "There is no page {page}: it was given already, or it never existed."
            )),
        };
        self.deliver(MORE_TOOL, answer)
    }
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
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.as_ref();
        let refuse = |message: String| Ok(self.deliver(name, Answer::error(message)).into());
        let Some(check) = self.catalog.find(name) else {
            return refuse(format!(
                "There is no tool named {name:?}; use one of the tools this server lists."
            ));
        };
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        if let Err(reasons) = check.check(&arguments) {
            tracing::debug!(tool = name, %reasons, "tool call refused by its schema");
            return refuse(format!(
                "The arguments do not match the schema of {name}:\n{reasons}"
            ));
        }
        if OWN_TOOLS.iter().any(|own| own.0 == name) {
            return Ok(self.own_tool(name, &arguments, &context).await.into());
        }
        let held = self.calls.hold(name, arguments.to_string());
        let waited = self
            .parked
            .answer_within(held.job, name, held.answer, context.ct.cancelled())
            .await;
        if let Waited::Cancelled(job) = waited {
            // Not handed over yet: the host never sees it. Else its result stays parked for a
            // wait call (the host runs it once, whatever Cursor does).
            if self.calls.withdraw(job) {
                self.parked.forget(job);
            }
        }
        Ok(self.waited(name, waited).into())
    }
}
