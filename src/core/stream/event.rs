//! The cursor-agent stream-json events, parsed without copying where the wire allows.
//!
//! Strings borrow from the record unless they contain escapes; tool arguments and results stay
//! raw JSON text (`RawValue`) so they pass through untouched. Unknown fields are ignored; a
//! known type whose fields have the wrong shape is ignored as a whole; a record of an unknown
//! type (or `system` or `tool_call` subtype) is ignored and said to be unknown, so it can be
//! counted and logged.

use std::borrow::Cow;
use std::fmt;

use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

mod fragment;
mod parts;
mod system;
mod text;

pub use parts::{Channel, ContentPart, Parts};
pub use system::Notice;
use system::{agent_version, system_kind, SystemKind};
use text::text_record_parts;

/// One parsed record.
#[derive(Debug)]
pub enum Parsed<'a> {
    /// A usable event.
    Event(Event<'a>),
    /// A JSON object that is not used: an unknown type, or a known type with a bad shape.
    /// `held` is what its arrival does to a delta held as a possible flush, which matters to
    /// the delta tracker even when nothing else of the record does. `unknown` is set when the
    /// record's type, or subtype, is one the translator does not know.
    Ignored {
        held: HeldFlush,
        unknown: Option<UnknownRecord<'a>>,
    },
    /// Not JSON, or JSON that is not an object: counted as a skipped record.
    Invalid,
}

impl Parsed<'_> {
    /// An unused record whose arrival releases a held delta, as every record type but the
    /// transport ones does.
    const IGNORED: Self = Parsed::Ignored {
        held: HeldFlush::Release,
        unknown: None,
    };
}

/// A record the translator does not know, by its type and subtype: a newer cursor-agent's, or
/// a `text` record none of whose carriers has the expected shape.
#[derive(Debug)]
pub struct UnknownRecord<'a> {
    pub kind: Cow<'a, str>,
    pub subtype: Option<Cow<'a, str>>,
    /// The whole record, for a log of its keys.
    pub record: &'a str,
}

/// An event the translator acts on.
#[derive(Debug)]
pub struct Event<'a> {
    pub session_id: Option<Cow<'a, str>>,
    pub body: EventBody<'a>,
}

#[derive(Debug)]
pub enum EventBody<'a> {
    /// `system` (init) or `user` (the prompt echo): carry nothing but the session id, and for
    /// `system/init` maybe the CLI's version.
    Context { agent_version: Option<String> },
    /// `assistant`: text and thinking parts.
    Assistant { partial: bool, parts: Parts<'a> },
    /// A bare `text` record: its text as parts, reconciled like an assistant snapshot.
    Text { parts: Parts<'a> },
    /// An `assistant` or `text` record flagged `is_server_notice` (`@cursor/sdk` 1.0.32's
    /// `TextDeltaUpdate.is_server_notice`): Cursor's backend speaking, not the model.
    ServerNotice { parts: Parts<'a> },
    /// `system/task_notification` or `system/background_shell_timeout`, with the whole record
    /// (its fields are unknown, see [`Notice`]).
    Notice { notice: Notice, record: &'a str },
    /// `thinking` (`delta` or `completed`).
    Thinking {
        partial: bool,
        text: Option<Cow<'a, str>>,
        completed: bool,
    },
    /// `tool_call` started (or without subtype) / completed.
    ToolCall {
        completed: bool,
        call_id: Cow<'a, str>,
        call: ToolCallBody<'a>,
    },
    /// `result`, the last line of a run.
    Result {
        is_error: bool,
        usage: Option<&'a RawValue>,
        /// What Cursor said went wrong, when `is_error` and it said anything.
        error_message: Option<String>,
    },
    /// `interaction_query` / `retry`: transport chatter that ends a pending flush.
    Transport,
}

/// The `tool_call` object: the `*ToolCall` entry (or `function`) among its sibling keys.
#[derive(Debug, Default)]
pub struct ToolCallBody<'a> {
    /// The key that ends in `ToolCall`, or `function`.
    pub kind: Option<Cow<'a, str>>,
    pub args: Option<&'a RawValue>,
    pub result: Option<&'a RawValue>,
    /// `function.name` for a `function` entry.
    pub function_name: Option<Cow<'a, str>>,
    /// `toolCallId` beside the entry, used when the event has no `call_id`.
    pub tool_call_id: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct ToolPayload<'a> {
    #[serde(borrow, default)]
    args: Option<&'a RawValue>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct FunctionPayload<'a> {
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    /// Read like a `*ToolCall` entry's result, so a completed `function` call keeps its variant.
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
}

impl<'de: 'a, 'a> Deserialize<'de> for ToolCallBody<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct BodyVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for BodyVisitor<'a> {
            type Value = ToolCallBody<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a tool_call object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
                let mut body = ToolCallBody::default();
                let mut function: Option<FunctionPayload<'a>> = None;
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    if body.kind.is_none() && key.ends_with("ToolCall") {
                        let payload: ToolPayload<'a> = map.next_value()?;
                        body.args = payload.args;
                        body.result = payload.result;
                        body.kind = Some(key);
                    } else if key == "function" && function.is_none() {
                        function = Some(map.next_value()?);
                    } else if key == "toolCallId" {
                        body.tool_call_id = map.next_value()?;
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                if body.kind.is_none() {
                    if let Some(f) = function {
                        body.kind = Some(Cow::Borrowed("function"));
                        body.function_name = f.name;
                        body.args = f.arguments;
                        body.result = f.result;
                    }
                }
                Ok(body)
            }
        }
        deserializer.deserialize_map(BodyVisitor(std::marker::PhantomData))
    }
}

/// Every top-level field any event uses; the rest are skipped by serde.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    subtype: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    timestamp_ms: Option<&'a RawValue>,
    #[serde(default)]
    model_call_id: Option<IgnoredAny>,
    #[serde(borrow, default)]
    message: Option<Message<'a>>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    /// Raw, since only a `text` record reads it (as a string) and no other type may fail on it.
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(borrow, default)]
    call_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_call: Option<ToolCallBody<'a>>,
    #[serde(borrow, default)]
    usage: Option<&'a RawValue>,
    #[serde(default)]
    is_error: Option<bool>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
    /// Where a newer CLI would carry `TextDeltaUpdate.is_server_notice` (a guess: the wire
    /// shape was never seen), in either spelling.
    #[serde(default, alias = "isServerNotice")]
    is_server_notice: Option<bool>,
}

#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow)]
    content: Parts<'a>,
}

/// Only the type, for records whose other fields did not fit the envelope.
#[derive(Deserialize)]
struct TypeOnly<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    /// Raw, so that a subtype of another type does not hide the type.
    #[serde(borrow, default)]
    subtype: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct ErrorObject {
    #[serde(default)]
    message: Option<String>,
}

/// What a record's arrival does to a delta held as a possible interaction/retry flush.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeldFlush {
    /// The held delta was real text: emit it (every record not in [`HELD_FLUSH_BY_TYPE`]).
    Release,
    /// The held delta was Cursor's flush before this transport record: drop it.
    Drop,
    /// The record says nothing about the held delta (`connection`: Cursor reconnecting, which
    /// can come between a flush and its `retry`): keep it held for the next record.
    Keep,
}

/// Record types known and deliberately not used (besides those the translator acts on).
const KNOWN_UNUSED: &[&str] = &["connection"];

/// Record types the translator acts on (the transport ones aside).
const USED_TYPES: &[&str] = &[
    "system",
    "user",
    "assistant",
    "text",
    "thinking",
    "tool_call",
    "result",
];

/// Whether a record of type `kind` is one the translator knows, used or not.
fn is_known_type(kind: &str) -> bool {
    USED_TYPES.contains(&kind) || KNOWN_UNUSED.contains(&kind) || is_transport(kind)
}

/// Record types that decide a held delta otherwise than by releasing it.
const HELD_FLUSH_BY_TYPE: &[(&str, HeldFlush)] = &[
    ("interaction_query", HeldFlush::Drop),
    ("retry", HeldFlush::Drop),
    ("connection", HeldFlush::Keep),
];

/// What a record of type `kind` does to a held delta.
pub fn held_flush_effect(kind: &str) -> HeldFlush {
    HELD_FLUSH_BY_TYPE
        .iter()
        .find(|(name, _)| *name == kind)
        .map_or(HeldFlush::Release, |(_, effect)| *effect)
}

fn is_transport(kind: &str) -> bool {
    held_flush_effect(kind) == HeldFlush::Drop
}

/// Parse one record.
pub fn parse(line: &str) -> Parsed<'_> {
    parse_fragment(line).unwrap_or_else(|| parse_general(line))
}

/// A text delta, text snapshot or thinking delta laid out exactly as cursor-agent writes them,
/// read without serde (and so without recursion: its nesting is the layout's, a few levels);
/// `None` for any other record, which [`parse_general`] reads.
pub fn parse_fragment(line: &str) -> Option<Parsed<'_>> {
    fragment::parse_fragment(line)
}

/// Parse any record with serde.
pub fn parse_general(line: &str) -> Parsed<'_> {
    if !line.trim_start().starts_with('{') {
        return Parsed::Invalid;
    }
    match serde_json::from_str::<Envelope<'_>>(line) {
        Ok(envelope) => classify(envelope, line),
        Err(_) => match serde_json::from_str::<TypeOnly<'_>>(line) {
            Ok(t) => {
                let held = t
                    .kind
                    .as_deref()
                    .map_or(HeldFlush::Release, held_flush_effect);
                // A `text` record whose carriers have other shapes is as unknown as a new type.
                let unknown = t
                    .kind
                    .filter(|k| k == "text" || !is_known_type(k))
                    .map(|kind| UnknownRecord {
                        kind,
                        subtype: t
                            .subtype
                            .and_then(|raw| serde_json::from_str::<String>(raw.get()).ok())
                            .map(Cow::Owned),
                        record: line,
                    });
                Parsed::Ignored { held, unknown }
            }
            Err(_) => {
                // An object whose `type` is not a string is still an object.
                if crate::core::json::from_str::<serde_json::Map<String, serde_json::Value>>(line)
                    .is_ok()
                {
                    Parsed::IGNORED
                } else {
                    Parsed::Invalid
                }
            }
        },
    }
}

/// Partial delta: `timestamp_ms` is a number and `model_call_id` is absent.
fn is_partial(timestamp_ms: Option<&RawValue>, model_call_id: &Option<IgnoredAny>) -> bool {
    let numeric = timestamp_ms.is_some_and(|raw| {
        raw.get()
            .as_bytes()
            .first()
            .is_some_and(|b| *b == b'-' || b.is_ascii_digit())
    });
    numeric && model_call_id.is_none()
}

fn classify<'a>(mut e: Envelope<'a>, line: &'a str) -> Parsed<'a> {
    let partial = is_partial(e.timestamp_ms, &e.model_call_id);
    let unknown = |e: Envelope<'a>| Parsed::Ignored {
        held: held_flush_effect(&e.kind),
        unknown: Some(UnknownRecord {
            kind: e.kind,
            subtype: e.subtype,
            record: line,
        }),
    };
    let body = match e.kind.as_ref() {
        "system" => match system_kind(e.subtype.as_deref()) {
            Some(SystemKind::Init) => EventBody::Context {
                agent_version: agent_version(line),
            },
            Some(SystemKind::Notice(notice)) => EventBody::Notice {
                notice,
                record: line,
            },
            None => return unknown(e),
        },
        "user" => EventBody::Context {
            agent_version: None,
        },
        "assistant" => match e.message {
            Some(m) if e.is_server_notice == Some(true) => {
                EventBody::ServerNotice { parts: m.content }
            }
            Some(m) => EventBody::Assistant {
                partial,
                parts: m.content,
            },
            None => return Parsed::IGNORED,
        },
        "text" => match text_record_parts(e.text.take(), e.content.take(), e.message.take()) {
            Some(parts) if e.is_server_notice == Some(true) => EventBody::ServerNotice { parts },
            Some(parts) => EventBody::Text { parts },
            None => return unknown(e),
        },
        "thinking" => EventBody::Thinking {
            partial,
            text: e.text,
            completed: e.subtype.as_deref() == Some("completed"),
        },
        "tool_call" => {
            let completed = match e.subtype.as_deref() {
                None | Some("started") => false,
                Some("completed") => true,
                Some(_) => return unknown(e),
            };
            match tool_call_body(completed, e.tool_call, e.call_id) {
                Some(body) => body,
                None => return Parsed::IGNORED,
            }
        }
        "result" => {
            let is_error = e.is_error == Some(true) || e.subtype.as_deref() == Some("error");
            EventBody::Result {
                is_error,
                usage: e.usage,
                error_message: is_error.then(|| error_message(e.error, e.result)).flatten(),
            }
        }
        kind if is_transport(kind) => EventBody::Transport,
        other if KNOWN_UNUSED.contains(&other) => {
            return Parsed::Ignored {
                held: held_flush_effect(other),
                unknown: None,
            }
        }
        _ => return unknown(e),
    };
    Parsed::Event(Event {
        session_id: e.session_id,
        body,
    })
}

/// A `tool_call` record's event; `None` for one without a call, its id or its kind.
fn tool_call_body<'a>(
    completed: bool,
    call: Option<ToolCallBody<'a>>,
    call_id: Option<Cow<'a, str>>,
) -> Option<EventBody<'a>> {
    let mut call = call?;
    let call_id = call_id.or_else(|| call.tool_call_id.take())?;
    call.kind.as_ref()?;
    Some(EventBody::ToolCall {
        completed,
        call_id,
        call,
    })
}

/// `error.message`, a string `error`, or the `result` text of a failed result.
fn error_message(error: Option<&RawValue>, result: Option<&RawValue>) -> Option<String> {
    let non_empty = |s: String| (!s.trim().is_empty()).then_some(s);
    let string = |raw: &RawValue| serde_json::from_str::<String>(raw.get()).ok();
    let object = |raw: &RawValue| serde_json::from_str::<ErrorObject>(raw.get()).ok()?.message;
    let said = error.and_then(|raw| string(raw).or_else(|| object(raw)));
    said.and_then(non_empty)
        .or_else(|| result.and_then(string).and_then(non_empty))
}

#[cfg(test)]
mod tests;
