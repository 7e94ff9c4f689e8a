//! Cursor's reports that the host's tools make unnecessary to show: its calls to the tool
//! bridge (the host shows the calls it runs) and its reads of its own bookkeeping folders
//! (tool definitions and results too big to inline, which Cursor asks the model to Read).
//! A refusal of a call to the bridge is a configuration or team-policy matter, and the user is
//! told its likely cause and fix.

use std::path::{Component, Path};

use serde_json::{Map, Value};

use super::{BridgedStart, Translator};
use crate::core::json;
use crate::core::stream::event::{Channel, ToolCallBody};
use crate::core::stream::part::Part;
use crate::core::stream::tool::{mcp_name, mcp_server, tool_refusal, tool_result, RefusedCall};

/// The folders of `<CURSOR_DATA_DIR>/projects/<project>/` Cursor keeps its bookkeeping in.
const BOOKKEEPING_FOLDERS: &[&str] = &["agent-tools", "mcps"];
/// Cursor's own read tools, by kind, and the argument naming the file.
const BOOKKEEPING_READS: &[(&str, &str)] = &[("readToolCall", "path")];

impl Translator {
    /// Whether this event reports a call to the host's MCP server (handed over by the runner,
    /// so not shown from Cursor's side). A start still ends the text segment before it.
    pub(super) fn is_bridged(
        &mut self,
        call_id: &str,
        completed: bool,
        call: &ToolCallBody<'_>,
        emit: &mut impl FnMut(Part<'_>),
    ) -> bool {
        let known = self.bridged_calls.iter().any(|id| id == call_id);
        if !known {
            let Some(host) = self.host_server.as_deref() else {
                return false;
            };
            if mcp_server(call).as_deref() != Some(host) {
                return false;
            }
            self.tracker.reset();
            self.in_reasoning = false;
            self.bridged_calls.push(call_id.to_owned());
            if !completed {
                if let Some(start) = bridged_start(call_id, call) {
                    self.bridged_starts.push(start);
                }
            }
        }
        if completed {
            self.bridged_calls.retain(|id| id != call_id);
            if let Some(refused) = tool_refusal(&tool_result(call.result)) {
                self.notice_bridge_refused(call, &refused, emit);
            }
        }
        true
    }

    /// The starts of calls to the host's server reported since the last take.
    pub fn take_bridged_starts(&mut self) -> Vec<BridgedStart> {
        std::mem::take(&mut self.bridged_starts)
    }

    /// Whether this event reports a read that is the run's own business, not the user's: Cursor
    /// reading its own bookkeeping while the host runs the tools (what Cursor itself wrote for
    /// the model, neither the host's business nor Cursor running a tool in the host's place), or
    /// the model opening an attachment the run saved for it (in either tool mode: the user
    /// attached it, and no tool of theirs ran).
    pub(super) fn is_bookkeeping(&mut self, call_id: &str, call: &ToolCallBody<'_>) -> bool {
        if let Some(at) = self.bookkeeping_reads.iter().position(|id| id == call_id) {
            self.bookkeeping_reads.remove(at);
            return true;
        }
        if self.cursor_data_dir.is_none() && self.attachments_dir.is_none() {
            return false;
        }
        let Some(path) = read_path(call) else {
            return false;
        };
        let path = Path::new(&path);
        let bookkeeping = self
            .cursor_data_dir
            .as_deref()
            .is_some_and(|data_dir| is_bookkeeping_path(data_dir, path));
        let attachment = self
            .attachments_dir
            .as_deref()
            .is_some_and(|folder| is_attachment_path(folder, path));
        if !bookkeeping && !attachment {
            return false;
        }
        tracing::debug!(path = %path.display(), attachment, "a read of the run's own files");
        self.tracker.reset();
        self.in_reasoning = false;
        if call.result.is_none() {
            self.bookkeeping_reads.push(call_id.to_owned());
        }
        true
    }

    /// Cursor refused a call to the tool bridge: not the tool's failure but a configuration that
    /// lets no bridge call through, so every later call fails too. The user is told, with the fix.
    fn notice_bridge_refused(
        &mut self,
        call: &ToolCallBody<'_>,
        refused: &RefusedCall,
        emit: &mut impl FnMut(Part<'_>),
    ) {
        let tool = call
            .args
            .and_then(|raw| mcp_name(raw).tool)
            .unwrap_or_default();
        tracing::error!(
            tool,
            variant = refused.refusal.variant,
            reason = %refused.reason,
            "Cursor refused a call to the tool bridge: a team's MCP tool controls, or its \
             configuration (the allow rule in .cursor/cli.json, the hooks), do not let the \
             bridge's calls through"
        );
        // Tool mode `opencode` allows every call to the bridge (`Mcp(<server>:*)`, the hook):
        // what still refuses one is most likely a team's MCP tool controls, which since
        // @cursor/sdk 1.0.32 override a user's allow rules.
        let notice = format!(
            "\n\n(Cursor refused the call to OpenCode's tool `{tool}` ({}: {}). The tool mode \
             `opencode` allows every call to OpenCode's tools, so the likely cause is your Cursor \
             team's MCP tool controls, which override a user's allow rules: ask your team admin \
             to allow the MCP server `opencode`, or its read-only tools. It is not the tool's \
             failure: run `npx opencode-cursor-native doctor --live` and report its output; \
             meanwhile set CURSOR_ACP_TOOL_MODE=cursor.)\n\n",
            refused.refusal.variant, refused.reason
        );
        self.refused_bridge_calls += 1;
        self.emit_text(Channel::Text, &notice, emit);
    }
}

/// The model's id, tool and arguments of a started call to the host's server.
fn bridged_start(call_id: &str, call: &ToolCallBody<'_>) -> Option<BridgedStart> {
    let raw = call.args?;
    let tool = mcp_name(raw).tool?;
    let object: Map<String, Value> = json::from_str(raw.get()).ok()?;
    let args = object
        .get("args")
        .cloned()
        .unwrap_or_else(|| Value::Object(Map::new()));
    Some(BridgedStart {
        call_id: call_id.to_owned(),
        tool,
        args,
    })
}

/// The file a call of one of Cursor's read tools reads.
fn read_path(call: &ToolCallBody<'_>) -> Option<String> {
    let kind = call.kind.as_deref()?;
    let (_, field) = BOOKKEEPING_READS.iter().find(|(read, _)| *read == kind)?;
    let args: Map<String, Value> = json::from_str(call.args?.get()).ok()?;
    args.get(*field)?.as_str().map(str::to_owned)
}

/// Whether `path` is a file directly in the attachments folder `folder`, with no detour.
fn is_attachment_path(folder: &Path, path: &Path) -> bool {
    let Ok(inside) = path.strip_prefix(folder) else {
        return false;
    };
    let mut parts = inside.components();
    matches!(
        (parts.next(), parts.next()),
        (Some(Component::Normal(_)), None)
    )
}

/// Whether `path` is exactly under `<data_dir>/projects/<project>/{agent-tools,mcps}/`, with no
/// `..` or other detour that could lead out of it.
fn is_bookkeeping_path(data_dir: &Path, path: &Path) -> bool {
    let Ok(inside) = path.strip_prefix(data_dir) else {
        return false;
    };
    let parts: Option<Vec<&str>> = inside
        .components()
        .map(|part| match part {
            Component::Normal(name) => name.to_str(),
            _ => None,
        })
        .collect();
    matches!(
        parts.as_deref(),
        Some(["projects", _project, folder, _file, ..]) if BOOKKEEPING_FOLDERS.contains(folder)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_cursors_bookkeeping_folders_count() {
        let data = Path::new("/p/cursor-data");
        let table = [
            ("/p/cursor-data/projects/ws/agent-tools/1.txt", true),
            (
                "/p/cursor-data/projects/ws/mcps/opencode/tools/read.json",
                true,
            ),
            ("/p/cursor-data/projects/ws/agent-tools", false),
            ("/p/cursor-data/projects/ws/other/1.txt", false),
            ("/p/cursor-data/chats/ws/agent-tools/1.txt", false),
            (
                "/p/cursor-data/projects/ws/agent-tools/../../../../etc/passwd",
                false,
            ),
            ("/p/cursor-data/projects/ws/./agent-tools/1.txt", true),
            ("/p/elsewhere/projects/ws/agent-tools/1.txt", false),
            ("projects/ws/agent-tools/1.txt", false),
            ("/home/me/project/agent-tools/1.txt", false),
        ];
        for (path, expected) in table {
            assert_eq!(
                is_bookkeeping_path(data, Path::new(path)),
                expected,
                "{path}"
            );
        }
    }
}
