//! Flattening a conversation into the one plain-text prompt cursor-agent reads on stdin.
//!
//! Every builder appends to one `String` in a single pass, so the cost is linear in the size of
//! what it renders.
//!
//! The transcript's delimiters are labels at the start of a line (`USER:`, `ASSISTANT:`,
//! `TOOL_RESULT (`, ...). Caller text can never forge one: every caller-provided string goes
//! through [`push_content`], which puts a backslash before any of its lines that starts like a
//! label (after optional blanks and backslashes, in any case), so only the writer's own labels
//! start a line bare. The escaping is a pure function of the text, so the same request always
//! renders the same prompt. Reasoning from earlier turns is left out on purpose (it is the model's
//! scratch work, not conversation); images and files are never left out silently: each one is
//! either carried as a URL or path Cursor can open (bytes a run saved for Cursor's Read tool),
//! or named as omitted with its type, size and why.
//! Tool call ids are written by the one id rule ([`host_call_id`]): Cursor's own ids hold a line
//! break, which would split the call's line, and the rule leaves only `[A-Za-z0-9_-]`, so an id
//! needs no escaping. Calls and results are still paired by the ids as the caller sent them.

use std::collections::HashMap;

use super::conversation::Conversation;
use super::media::{Media, MediaSource};
use super::message::{Message, Part, Role, ToolCall, ToolOutput, ToolResult};
use super::tools::ToolDefinition;
use crate::core::call_id::host_call_id;

/// Appended when the prompt ends with tool results, so the model continues the same turn.
pub const CONTINUATION: &str =
    "The above tool calls have been executed. Continue your response based on these results.";

/// What opens a block of the transcript; caller text starting a line like one is escaped.
const RESERVED_LABELS: &[&str] = &[
    "SYSTEM:",
    "USER:",
    "ASSISTANT:",
    "TOOL:",
    "TOOL_RESULT",
    "AVAILABLE TOOLS:",
];

/// Characters a reader may take as the end of a line.
fn is_line_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r' | '\u{0b}' | '\u{0c}' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

fn starts_like_a_label(line: &str) -> bool {
    let rest = line.trim_start_matches([' ', '\t', '\\']);
    RESERVED_LABELS.iter().any(|label| {
        rest.get(..label.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(label))
    })
}

/// Appends caller text, escaping each of its lines that would read as a label: a line that
/// starts the text counts when `out` itself ends a line.
fn push_content(out: &mut String, text: &str) {
    let mut line_start = out.is_empty() || out.ends_with(is_line_break);
    let mut rest = text;
    loop {
        let end = rest.find(is_line_break).unwrap_or(rest.len());
        if line_start && starts_like_a_label(&rest[..end]) {
            out.push('\\');
        }
        let Some(c) = rest[end..].chars().next() else {
            out.push_str(rest);
            return;
        };
        let next = end + c.len_utf8();
        out.push_str(&rest[..next]);
        rest = &rest[next..];
        line_start = true;
    }
}

/// The whole conversation as one prompt: system prompt, tool definitions (only with
/// `tools_in_prompt`), then the transcript with role labels, tool calls and tool results.
pub fn build_full_prompt(conversation: &Conversation<'_>, tools_in_prompt: bool) -> String {
    let mut writer = Writer::with_capacity(estimate_len(conversation, tools_in_prompt));
    let mut names: HashMap<&str, &str> = HashMap::new();
    let mut tools_written = !tools_in_prompt || conversation.tools.is_empty();
    for message in &conversation.messages {
        if !tools_written && message.role != Role::System {
            writer.tools(&conversation.tools);
            tools_written = true;
        }
        match message.role {
            Role::System | Role::User => writer.plain_message(message),
            Role::Assistant => {
                for part in &message.parts {
                    if let Part::ToolCall(call) = part {
                        names.insert(call.id, call.name);
                    }
                }
                writer.assistant(&message.parts, &names);
            }
            Role::Tool => writer.tool_message(message, &names),
        }
    }
    if !tools_written {
        writer.tools(&conversation.tools);
    }
    if conversation
        .messages
        .last()
        .is_some_and(|m| m.role == Role::Tool)
    {
        writer.block();
        writer.out.push_str(CONTINUATION);
    }
    writer.out
}

/// Only what is new since the last turn Cursor holds, or `None` when that cannot be proven safe:
/// * the request ends with a user message made only of text: that text, trimmed, no label;
/// * the request ends with tool results that all answer calls of the assistant message right
///   before them: those calls, the results and the continuation line.
pub fn build_incremental_prompt(conversation: &Conversation<'_>) -> Option<String> {
    let messages = &conversation.messages;
    let last = messages.last()?;
    match last.role {
        Role::User if last.is_text_only() => {
            let text = last.joined_text()?;
            let text = text.trim();
            (!text.is_empty()).then(|| text.to_owned())
        }
        // Attachments saved for this run (or refused with a reason) are named in full; any
        // other medium would need the whole transcript's context.
        Role::User if last.parts.iter().all(is_text_or_placed) => {
            let mut writer = Writer::with_capacity(256);
            let parts = last
                .parts
                .iter()
                .filter(|part| !matches!(part, Part::Text(text) if text.trim().is_empty()));
            writer.joined("", parts, Writer::content_part);
            Some(writer.out)
        }
        Role::User => None,
        Role::Tool => incremental_tool_results(messages),
        Role::System | Role::Assistant => None,
    }
}

fn is_text_or_placed(part: &Part<'_>) -> bool {
    match part {
        Part::Text(_) => true,
        Part::Media(media) => matches!(
            media.source,
            MediaSource::Saved { .. } | MediaSource::Refused { .. }
        ),
        _ => false,
    }
}

fn incremental_tool_results(messages: &[Message<'_>]) -> Option<String> {
    let start = messages.iter().rposition(|m| m.role != Role::Tool)? + 1;
    let assistant = &messages[start - 1];
    if assistant.role != Role::Assistant {
        return None;
    }
    let calls: Vec<&ToolCall<'_>> = assistant
        .parts
        .iter()
        .filter_map(|p| match p {
            Part::ToolCall(call) => Some(call),
            _ => None,
        })
        .collect();
    let mut results: Vec<&ToolResult<'_>> = Vec::new();
    for message in &messages[start..] {
        for part in &message.parts {
            match part {
                Part::ToolResult(result) if calls.iter().any(|c| c.id == result.call_id) => {
                    results.push(result)
                }
                _ => return None,
            }
        }
    }
    if results.is_empty() {
        return None;
    }
    let answered: Vec<&ToolCall<'_>> = calls
        .into_iter()
        .filter(|c| results.iter().any(|r| r.call_id == c.id))
        .collect();
    let names: HashMap<&str, &str> = answered.iter().map(|c| (c.id, c.name)).collect();
    let mut writer = Writer::with_capacity(256);
    writer.assistant_calls(&answered);
    for result in results {
        writer.block();
        writer.tool_result(result, &names);
    }
    writer.block();
    writer.out.push_str(CONTINUATION);
    Some(writer.out)
}

fn estimate_len(conversation: &Conversation<'_>, tools_in_prompt: bool) -> usize {
    let mut len = 64;
    for message in &conversation.messages {
        len += 16;
        for part in &message.parts {
            len += match part {
                Part::Text(t) => t.len(),
                Part::ToolCall(c) => c.arguments.len() + c.id.len() + c.name.len() + 40,
                Part::ToolResult(ToolResult {
                    output: ToolOutput::Text(t),
                    ..
                }) => t.len() + 48,
                _ => 64,
            };
        }
    }
    if tools_in_prompt {
        for tool in &conversation.tools {
            len += tool.name.len() + tool.description.map_or(0, str::len) + 256;
        }
    }
    len
}

/// One growing prompt; blocks are separated by a blank line.
struct Writer {
    out: String,
}

impl Writer {
    fn with_capacity(capacity: usize) -> Self {
        Self {
            out: String::with_capacity(capacity),
        }
    }

    fn block(&mut self) {
        if !self.out.is_empty() {
            self.out.push_str("\n\n");
        }
    }

    fn label(&mut self, role: Role) {
        self.block();
        self.out.push_str(role.label());
        self.out.push(':');
    }

    /// System and user messages: text and media, one part per line.
    fn plain_message(&mut self, message: &Message<'_>) {
        if message.parts.is_empty() {
            return;
        }
        self.label(message.role);
        self.joined(" ", &message.parts, Self::content_part);
    }

    /// Writes each part with `write`, `first` before the first one that renders and a line
    /// break before each later one; `write` returns false when its part renders as nothing.
    fn joined<'p, 'a: 'p>(
        &mut self,
        first: &str,
        parts: impl IntoIterator<Item = &'p Part<'a>>,
        mut write: impl FnMut(&mut Self, &'p Part<'a>) -> bool,
    ) {
        let mut separator = first;
        for part in parts {
            let before = self.out.len();
            self.out.push_str(separator);
            if write(self, part) {
                separator = "\n";
            } else {
                self.out.truncate(before);
            }
        }
    }

    /// Writes one text/media/unsupported part; false when the part renders as nothing here.
    fn content_part(&mut self, part: &Part<'_>) -> bool {
        match part {
            Part::Text(text) => push_content(&mut self.out, text),
            Part::Media(media) => self.media(media),
            Part::Unsupported(kind) => {
                self.out.push('[');
                push_content(&mut self.out, kind);
                self.out
                    .push_str(" part omitted: cursor-agent cannot receive it]");
            }
            Part::Reasoning(_) | Part::ToolCall(_) | Part::ToolResult(_) => return false,
        }
        true
    }

    fn media(&mut self, media: &Media<'_>) {
        let out = &mut self.out;
        out.push_str("[attached ");
        out.push_str(media.kind.label());
        if let Some(name) = media.filename {
            out.push_str(" \"");
            push_content(out, name);
            out.push('"');
        }
        let details =
            |out: &mut String, bytes, size| media_details(out, media.media_type, bytes, size);
        match &media.source {
            MediaSource::Url(location) => {
                details(out, None, None);
                out.push_str(": ");
                push_content(out, location);
            }
            MediaSource::Path(path) => {
                details(out, None, None);
                out.push_str(": ");
                push_content(out, path);
            }
            MediaSource::Inline { bytes, .. } => {
                details(out, Some(*bytes), None);
                out.push_str(" omitted: inline data cannot be passed to cursor-agent");
            }
            MediaSource::FileId(id) => {
                details(out, None, None);
                out.push_str(" omitted: provider file id ");
                push_content(out, id);
                out.push_str(" cannot be read by cursor-agent");
            }
            MediaSource::Saved {
                path,
                bytes,
                dimensions,
                earlier,
            } => {
                details(out, Some(*bytes), *dimensions);
                out.push_str(", saved for you at ");
                push_content(out, path);
                out.push_str(if *earlier {
                    ": it belongs to an earlier message; open it with your Read tool only if you need to see it again"
                } else {
                    ": open that file with your Read tool to see it"
                });
            }
            MediaSource::Refused { bytes, reason } => {
                details(out, *bytes, None);
                out.push_str(" not sent: ");
                push_content(out, reason);
                out.push_str(". Tell the user it did not reach you, and why");
            }
            MediaSource::Earlier { bytes } => {
                details(out, *bytes, None);
                out.push_str(" of an earlier message, not sent again");
            }
        }
        out.push(']');
    }

    /// Assistant text, then its tool calls, and the results of tools the provider ran itself.
    fn assistant(&mut self, parts: &[Part<'_>], names: &HashMap<&str, &str>) {
        let renders = parts.iter().any(|p| match p {
            Part::Text(t) => !t.is_empty(),
            Part::Reasoning(_) => false,
            _ => true,
        });
        if !renders {
            return;
        }
        self.label(Role::Assistant);
        let non_empty = parts
            .iter()
            .filter(|part| !matches!(part, Part::Text(text) if text.is_empty()));
        self.joined(" ", non_empty, |writer, part| match part {
            Part::ToolCall(call) => {
                write_tool_call(&mut writer.out, call);
                true
            }
            Part::ToolResult(result) => {
                writer.tool_result(result, names);
                true
            }
            other => writer.content_part(other),
        });
    }

    /// An assistant block holding only the given tool calls.
    fn assistant_calls(&mut self, calls: &[&ToolCall<'_>]) {
        self.label(Role::Assistant);
        for (index, call) in calls.iter().enumerate() {
            self.out.push(if index == 0 { ' ' } else { '\n' });
            write_tool_call(&mut self.out, call);
        }
    }

    fn tool_message(&mut self, message: &Message<'_>, names: &HashMap<&str, &str>) {
        for part in &message.parts {
            let before = self.out.len();
            self.block();
            if let Part::ToolResult(result) = part {
                self.tool_result(result, names);
            } else if !self.content_part(part) {
                self.out.truncate(before);
            }
        }
    }

    fn tool_result(&mut self, result: &ToolResult<'_>, names: &HashMap<&str, &str>) {
        self.out.push_str("TOOL_RESULT (");
        if let Some(name) = result.name.or_else(|| names.get(result.call_id).copied()) {
            self.out.push_str("name: ");
            push_content(&mut self.out, name);
            self.out.push_str(", ");
        }
        self.out.push_str("call_id: ");
        self.out.push_str(&host_call_id(result.call_id));
        if result.is_error {
            self.out.push_str(", error");
        }
        self.out.push_str("): ");
        match &result.output {
            ToolOutput::Text(text) => push_content(&mut self.out, text),
            ToolOutput::Json(value) => push_content(&mut self.out, &value.to_string()),
            ToolOutput::Denied(reason) => {
                self.out.push_str("[not executed");
                if let Some(reason) = reason {
                    self.out.push_str(": ");
                    push_content(&mut self.out, reason);
                }
                self.out.push(']');
            }
            ToolOutput::Parts(parts) => self.joined("", parts, Self::content_part),
        }
    }

    fn tools(&mut self, tools: &[ToolDefinition<'_>]) {
        self.block();
        self.out.push_str("AVAILABLE TOOLS:");
        for tool in tools {
            self.out.push_str("\n- ");
            push_content(&mut self.out, tool.name);
            if tool.provider_defined {
                self.out.push_str(" (provider-defined)");
            }
            if let Some(description) = tool.description {
                self.out.push_str(": ");
                push_content(&mut self.out, description);
            }
            if let Some(parameters) = tool.parameters {
                self.out.push_str("\n  Parameters: ");
                push_content(&mut self.out, &parameters.to_string());
            }
        }
    }
}

fn write_tool_call(out: &mut String, call: &ToolCall<'_>) {
    out.push_str("tool_call(id: ");
    out.push_str(&host_call_id(call.id));
    out.push_str(", name: ");
    push_content(out, call.name);
    out.push_str(", args: ");
    push_content(out, &call.arguments);
    out.push(')');
}

/// ` (<media type>, <n> bytes, <w>x<h> px)`, of what is known; nothing when nothing is.
fn media_details(
    out: &mut String,
    media_type: Option<&str>,
    bytes: Option<usize>,
    size: Option<(u32, u32)>,
) {
    let mut open = false;
    let mut next = |out: &mut String| {
        out.push_str(if open { ", " } else { " (" });
        open = true;
    };
    if let Some(media_type) = media_type {
        next(out);
        push_content(out, media_type);
    }
    if let Some(bytes) = bytes {
        next(out);
        out.push_str(&bytes.to_string());
        out.push_str(" bytes");
    }
    if let Some((width, height)) = size {
        next(out);
        out.push_str(&format!("{width}x{height} px"));
    }
    if open {
        out.push(')');
    }
}

#[cfg(test)]
mod tests;
