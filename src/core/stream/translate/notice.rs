//! What the translator says on its own, beside Cursor's text: that Cursor ran one of its own
//! tools although the host owns them, and what a `system` notice reports.

use serde_json::{Map, Value};

use super::Translator;
use crate::core::failure::classify::connection_dropped;
use crate::core::json;
use crate::core::stream::event::{Channel, Notice, Parts};
use crate::core::stream::part::Part;

/// Envelope fields a notice's log leaves out: they say nothing about what happened.
const ENVELOPE_FIELDS: &[&str] = &["type", "subtype", "session_id", "timestamp_ms"];
/// Where a background shell's command may be (the record's shape was never seen), searched at
/// the top level and then one object deep.
const COMMAND_FIELDS: &[&str] = &["command", "shellCommand", "shell_command", "cmd"];
/// The longest field value, and command, a log line or a notice quotes.
const QUOTED_CHARS: usize = 200;

/// How the user learns of each notice.
///
/// * `task_notification` is Cursor's own bookkeeping: logged only, never shown.
/// * `background_shell_timeout` means a command Cursor started (a dev server, a test run) did
///   not finish, which can make the answer wrong: the user is told, once per record, in the
///   reasoning channel. Not in the answer text, unlike a tool Cursor ran instead of the host's
///   (a fact about the answer itself): the answer is what the model said, it is stored as its
///   words and handed back to it on the next turn, and a notice there would read as if the
///   model had written it. The reasoning channel shows it where the agent's work is shown,
///   beside its thinking, in every host and both output formats.
const SHOWN_NOTICES: &[Notice] = &[Notice::BackgroundShellTimeout];

impl Translator {
    /// A `system` notice: logged with the fields that say what happened, never fatal, and
    /// shown when [`SHOWN_NOTICES`] says so.
    pub(super) fn notice(&mut self, notice: Notice, record: &str, emit: &mut impl FnMut(Part<'_>)) {
        let fields: Map<String, Value> = json::from_str(record).unwrap_or_default();
        tracing::info!(
            subtype = notice.subtype(),
            fields = %logged_fields(&fields),
            "cursor-agent reported a system notice"
        );
        if !SHOWN_NOTICES.contains(&notice) {
            return;
        }
        let shown = match notice {
            Notice::BackgroundShellTimeout => background_shell_timeout(&fields),
            Notice::TaskNotification => return,
        };
        self.show_in_reasoning(&shown, emit);
    }

    /// `shown` in the reasoning channel: inside the thinking under way, else in a block of its
    /// own, so Cursor's next thinking starts a block of its own too.
    fn show_in_reasoning(&mut self, shown: &str, emit: &mut impl FnMut(Part<'_>)) {
        if self.in_reasoning {
            self.emit_text(Channel::Thinking, &format!("\n\n{shown}\n\n"), emit);
        } else {
            self.emit_text(Channel::Thinking, shown, emit);
            self.end_reasoning(emit);
        }
    }

    /// Cursor ran one of its own tools although the host owns them: say so in the answer, so
    /// the user knows the host neither checked nor recorded it.
    pub(super) fn notice_own_tool(&mut self, name: &str, emit: &mut impl FnMut(Part<'_>)) {
        tracing::warn!(
            tool = name,
            "cursor-agent ran one of its own tools although OpenCode owns the tools"
        );
        let notice = format!(
            "\n\n(Cursor ran its own tool `{name}` instead of one of OpenCode's: OpenCode did \
             not ask for permission and cannot undo it.)\n\n"
        );
        self.emit_text(Channel::Text, &notice, emit);
    }
}

/// The longest text a record may have and still be only cursor-agent's report of a dropped
/// connection (`RetriableError: WritableIterable is closed`), not an answer that mentions one.
const CONNECTION_REPORT_CHARS: usize = 120;

/// The text of a record's parts, joined.
fn parts_text(parts: &Parts<'_>) -> String {
    parts
        .iter()
        .filter_map(|part| part.channel_text())
        .map(|(_, text)| text)
        .collect()
}

/// Whether an assistant record's whole text is cursor-agent's report of a dropped connection
/// (one short line), which it has been seen to send as answer text. Asked of every assistant
/// record, so a long one (a snapshot repeats all text so far) is told apart by its byte length,
/// with nothing copied: at most 4 bytes a character.
pub(super) fn is_connection_report(parts: &Parts<'_>) -> bool {
    let joined;
    let text = match parts.only() {
        Some(only) => only.channel_text().map_or("", |(_, text)| text),
        None => {
            joined = parts_text(parts);
            joined.as_str()
        }
    };
    let text = text.trim();
    text.len() <= 4 * CONNECTION_REPORT_CHARS
        && !text.contains('\n')
        && text.chars().count() <= CONNECTION_REPORT_CHARS
        && connection_dropped(text)
}

impl Translator {
    /// Text from Cursor's backend rather than the model (`is_server_notice`, or cursor-agent's
    /// report of a dropped connection): never answer text. Logged; a server notice is shown in
    /// the reasoning channel as a `system` notice is (`shown`), a connection report is only
    /// logged (the run's error tells it).
    pub(super) fn server_notice(
        &mut self,
        parts: &Parts<'_>,
        shown: bool,
        emit: &mut impl FnMut(Part<'_>),
    ) {
        let text = parts_text(parts);
        let text = text.trim();
        tracing::info!(
            text = %quoted(text),
            shown,
            "cursor-agent sent text from Cursor's servers, not the model's"
        );
        if !shown || text.is_empty() {
            return;
        }
        self.show_in_reasoning(&format!("(Cursor: {})", quoted(text)), emit);
    }
}

/// What the user is told of a background shell's timeout.
fn background_shell_timeout(fields: &Map<String, Value>) -> String {
    match find_string(fields, COMMAND_FIELDS) {
        Some(command) => format!(
            "(A shell command Cursor left running in the background timed out: `{}`.)",
            quoted(command)
        ),
        None => "(A shell command Cursor left running in the background timed out.)".to_owned(),
    }
}

/// The first non-empty string among `names`, at the top level, else one object deep.
fn find_string<'m>(fields: &'m Map<String, Value>, names: &[&str]) -> Option<&'m str> {
    let own = |map: &'m Map<String, Value>| {
        names.iter().find_map(|name| {
            map.get(*name)
                .and_then(Value::as_str)
                .filter(|s| !s.trim().is_empty())
        })
    };
    own(fields).or_else(|| fields.values().filter_map(Value::as_object).find_map(own))
}

fn quoted(text: &str) -> String {
    match text.char_indices().nth(QUOTED_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// The record's fields as `key=value` (objects one level deep as `key.inner=value`), the
/// envelope's left out, each value cut to [`QUOTED_CHARS`].
fn logged_fields(fields: &Map<String, Value>) -> String {
    let mut shown = Vec::new();
    for (key, value) in fields {
        if ENVELOPE_FIELDS.contains(&key.as_str()) {
            continue;
        }
        match value {
            Value::Object(inner) => {
                for (inner_key, inner_value) in inner {
                    shown.push(format!("{key}.{inner_key}={}", scalar(inner_value)));
                }
            }
            other => shown.push(format!("{key}={}", scalar(other))),
        }
    }
    shown.join(" ")
}

fn scalar(value: &Value) -> String {
    match value {
        Value::String(text) => format!("{:?}", quoted(text)),
        other => quoted(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap()
    }

    #[test]
    fn a_background_shell_timeout_names_its_command_wherever_it_is() {
        let table = [
            (json!({"command": "npm run dev"}), Some("npm run dev")),
            (json!({"shell": {"command": "sleep 99"}}), Some("sleep 99")),
            (json!({"cmd": "make", "command": ""}), Some("make")),
            (json!({"shellId": 3}), None),
        ];
        for (fields, command) in table {
            let shown = background_shell_timeout(&object(fields.clone()));
            match command {
                Some(command) => assert!(shown.contains(&format!("`{command}`")), "{fields}"),
                None => assert!(!shown.contains('`'), "{fields}"),
            }
        }
    }

    #[test]
    fn the_log_lists_what_happened_without_the_envelope() {
        let fields = object(json!({
            "type": "system", "subtype": "task_notification", "session_id": "s",
            "task": {"id": "t1", "status": "done"}, "message": "x".repeat(300)
        }));
        let logged = logged_fields(&fields);
        assert!(logged.contains("task.id=\"t1\""), "{logged}");
        assert!(logged.contains("task.status=\"done\""), "{logged}");
        assert!(!logged.contains("session_id"), "{logged}");
        assert!(
            logged.contains(&format!("{}…", "x".repeat(QUOTED_CHARS))),
            "{logged}"
        );
    }
}
