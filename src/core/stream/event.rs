//! The cursor-agent stream-json events, parsed without copying where the wire allows.
//!
//! Strings borrow from the record unless they contain escapes; tool arguments and results stay
//! raw JSON text (`RawValue`) so they pass through untouched. Unknown event types and unknown
//! fields are ignored; a known type whose fields have the wrong shape is ignored as a whole.

use std::borrow::Cow;
use std::fmt;

use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

/// One parsed record.
#[derive(Debug)]
pub enum Parsed<'a> {
    /// A usable event.
    Event(Event<'a>),
    /// A JSON object that is not used: an unknown type, or a known type with a bad shape.
    /// `transport` is true for `interaction_query` and `retry`, whose arrival matters to the
    /// delta tracker even when nothing else of them does.
    Ignored { transport: bool },
    /// Not JSON, or JSON that is not an object: counted as a skipped record.
    Invalid,
}

/// An event the translator acts on.
#[derive(Debug)]
pub struct Event<'a> {
    pub session_id: Option<Cow<'a, str>>,
    pub body: EventBody<'a>,
}

#[derive(Debug)]
pub enum EventBody<'a> {
    /// `system` (init) or `user` (the prompt echo): carry nothing but the session id.
    Context,
    /// `assistant`: text and thinking parts.
    Assistant { partial: bool, parts: Parts<'a> },
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

/// One part of an assistant message.
#[derive(Debug, Deserialize)]
pub struct ContentPart<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    thinking: Option<Cow<'a, str>>,
}

/// Which channel a content part feeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channel {
    Text,
    Thinking,
}

impl<'a> ContentPart<'a> {
    /// The part's channel and text; `None` for part types that carry neither.
    pub fn channel_text(&self) -> Option<(Channel, &str)> {
        match self.kind.as_deref() {
            Some("thinking") => self.thinking.as_deref().map(|t| (Channel::Thinking, t)),
            Some("text") | None => self.text.as_deref().map(|t| (Channel::Text, t)),
            Some(_) => None,
        }
    }
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
}

#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow)]
    content: Parts<'a>,
}

/// The parts of an assistant message; the usual single part needs no allocation.
#[derive(Debug, Default)]
pub struct Parts<'a> {
    first: Option<ContentPart<'a>>,
    rest: Vec<ContentPart<'a>>,
}

impl<'a> Parts<'a> {
    pub fn iter(&self) -> impl Iterator<Item = &ContentPart<'a>> {
        self.first.iter().chain(self.rest.iter())
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Parts<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PartsVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for PartsVisitor<'a> {
            type Value = Parts<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of content parts")
            }
            fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
                let mut parts = Parts {
                    first: seq.next_element()?,
                    rest: Vec::new(),
                };
                if parts.first.is_some() {
                    while let Some(part) = seq.next_element()? {
                        parts.rest.push(part);
                    }
                }
                Ok(parts)
            }
        }
        deserializer.deserialize_seq(PartsVisitor(std::marker::PhantomData))
    }
}

/// Only the type, for records whose other fields did not fit the envelope.
#[derive(Deserialize)]
struct TypeOnly<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct ErrorObject {
    #[serde(default)]
    message: Option<String>,
}

fn is_transport(kind: &str) -> bool {
    matches!(kind, "interaction_query" | "retry")
}

/// Parse one record.
pub fn parse(line: &str) -> Parsed<'_> {
    parse_fragment(line).unwrap_or_else(|| parse_general(line))
}

/// Parse any record with serde.
fn parse_general(line: &str) -> Parsed<'_> {
    if !line.trim_start().starts_with('{') {
        return Parsed::Invalid;
    }
    match serde_json::from_str::<Envelope<'_>>(line) {
        Ok(envelope) => classify(envelope),
        Err(_) => match serde_json::from_str::<TypeOnly<'_>>(line) {
            Ok(t) => Parsed::Ignored {
                transport: t.kind.as_deref().is_some_and(is_transport),
            },
            Err(_) => {
                // An object whose `type` is not a string is still an object.
                if serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(line).is_ok()
                {
                    Parsed::Ignored { transport: false }
                } else {
                    Parsed::Invalid
                }
            }
        },
    }
}

/// The start of a text fragment exactly as cursor-agent writes it (compact, this key order).
const TEXT_FRAGMENT_HEAD: &str =
    r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"#;
const TEXT_FRAGMENT_SESSION: &str = r#"}]},"session_id":"#;
/// The start of a thinking delta exactly as cursor-agent writes it.
const THINKING_DELTA_HEAD: &str = r#"{"type":"thinking","subtype":"delta","text":"#;
const THINKING_DELTA_SESSION: &str = r#","session_id":"#;
const TIMESTAMP_KEY: &str = r#","timestamp_ms":"#;
/// Above this length a record's tail is checked before its text is scanned.
const LONG_RECORD: usize = 512;

/// Fragments (text and thinking deltas) are most of a long stream's records. When a record is
/// laid out exactly as cursor-agent lays them out, read it directly; anything else, including
/// every record this reading would not understand exactly as serde does, returns `None` and
/// goes through the general parser.
fn parse_fragment(line: &str) -> Option<Parsed<'_>> {
    let (channel, rest, session_key) = if let Some(rest) = line.strip_prefix(TEXT_FRAGMENT_HEAD) {
        (Channel::Text, rest, TEXT_FRAGMENT_SESSION)
    } else if let Some(rest) = line.strip_prefix(THINKING_DELTA_HEAD) {
        (Channel::Thinking, rest, THINKING_DELTA_SESSION)
    } else {
        return None;
    };
    // Recaps share the head but not the tail: reject a long one before scanning its text.
    if line.len() > LONG_RECORD && !ends_like_a_fragment(line, session_key) {
        return None;
    }
    let (text, rest) = json_string(rest)?;
    let (session_id, rest) = json_string(rest.strip_prefix(session_key)?)?;
    let rest = json_integer(rest.strip_prefix(TIMESTAMP_KEY)?)?;
    if rest != "}" {
        return None;
    }
    let text = text.value()?;
    let session_id = session_id.value()?;
    let body = match channel {
        Channel::Text => EventBody::Assistant {
            partial: true,
            parts: Parts {
                first: Some(ContentPart {
                    kind: Some(Cow::Borrowed("text")),
                    text: Some(text),
                    thinking: None,
                }),
                rest: Vec::new(),
            },
        },
        Channel::Thinking => EventBody::Thinking {
            partial: true,
            text: Some(text),
            completed: false,
        },
    };
    Some(Parsed::Event(Event {
        session_id: Some(session_id),
        body,
    }))
}

/// Whether `line` ends with `<session_key>"<id>","timestamp_ms":<digits>}`: a cheap test
/// from the end, so a record that is not a fragment costs little more than its tail.
fn ends_like_a_fragment(line: &str, session_key: &str) -> bool {
    let Some(body) = line.strip_suffix('}') else {
        return false;
    };
    let body = body.trim_end_matches(|c: char| c.is_ascii_digit());
    let body = body.strip_suffix('-').unwrap_or(body);
    let Some(body) = body
        .strip_suffix(TIMESTAMP_KEY)
        .and_then(|b| b.strip_suffix('"'))
    else {
        return false;
    };
    body.rfind('"')
        .is_some_and(|quote| body[..quote].ends_with(session_key))
}

/// A JSON string literal at the start of `input` (quotes included) and what follows it.
/// Escapes are only noted here: decoding waits until the whole layout matched.
struct JsonStr<'a> {
    quoted: &'a str,
    escaped: bool,
}

impl<'a> JsonStr<'a> {
    /// The string's value; `None` for escapes serde would reject.
    fn value(&self) -> Option<Cow<'a, str>> {
        if self.escaped {
            serde_json::from_str::<String>(self.quoted)
                .ok()
                .map(Cow::Owned)
        } else {
            Some(Cow::Borrowed(&self.quoted[1..self.quoted.len() - 1]))
        }
    }
}

/// Split a JSON string literal off the start of `input`. `None` when `input` does not start
/// with one or it holds a raw control character (which serde rejects).
fn json_string(input: &str) -> Option<(JsonStr<'_>, &str)> {
    let bytes = input.as_bytes();
    if bytes.first() != Some(&b'"') {
        return None;
    }
    let mut escaped = false;
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let literal = JsonStr {
                    quoted: &input[..=i],
                    escaped,
                };
                return Some((literal, &input[i + 1..]));
            }
            b'\\' => {
                escaped = true;
                i += 2;
            }
            0x00..=0x1f => return None,
            _ => i += 1,
        }
    }
    None
}

/// A JSON integer (`0`, or digits without a leading zero, optionally negative) at the start of
/// `input`; returns what follows it. Fractions and exponents are left to the general parser.
fn json_integer(input: &str) -> Option<&str> {
    let digits_from = usize::from(input.starts_with('-'));
    let digits = input[digits_from..]
        .bytes()
        .take_while(u8::is_ascii_digit)
        .count();
    let number = &input[digits_from..digits_from + digits];
    if digits == 0 || (number.starts_with('0') && digits > 1) {
        return None;
    }
    Some(&input[digits_from + digits..])
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

fn classify(e: Envelope<'_>) -> Parsed<'_> {
    let partial = is_partial(e.timestamp_ms, &e.model_call_id);
    let body = match e.kind.as_ref() {
        "system" | "user" => EventBody::Context,
        "assistant" => match e.message {
            Some(m) => EventBody::Assistant {
                partial,
                parts: m.content,
            },
            None => return Parsed::Ignored { transport: false },
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
                Some(_) => return Parsed::Ignored { transport: false },
            };
            let Some(mut call) = e.tool_call else {
                return Parsed::Ignored { transport: false };
            };
            let Some(call_id) = e.call_id.or_else(|| call.tool_call_id.take()) else {
                return Parsed::Ignored { transport: false };
            };
            if call.kind.is_none() {
                return Parsed::Ignored { transport: false };
            }
            EventBody::ToolCall {
                completed,
                call_id,
                call,
            }
        }
        "result" => {
            let is_error = e.is_error == Some(true) || e.subtype.as_deref() == Some("error");
            let error_message = if is_error {
                error_message(e.error, e.result)
            } else {
                None
            };
            EventBody::Result {
                is_error,
                usage: e.usage,
                error_message,
            }
        }
        kind if is_transport(kind) => EventBody::Transport,
        _ => return Parsed::Ignored { transport: false },
    };
    Parsed::Event(Event {
        session_id: e.session_id,
        body,
    })
}

/// `error.message`, a string `error`, or the `result` text of a failed result.
fn error_message(error: Option<&RawValue>, result: Option<&RawValue>) -> Option<String> {
    let non_empty = |s: String| (!s.trim().is_empty()).then_some(s);
    if let Some(raw) = error {
        if let Ok(s) = serde_json::from_str::<String>(raw.get()) {
            if let Some(s) = non_empty(s) {
                return Some(s);
            }
        } else if let Ok(ErrorObject { message: Some(m) }) = serde_json::from_str(raw.get()) {
            if let Some(s) = non_empty(m) {
                return Some(s);
            }
        }
    }
    result
        .and_then(|raw| serde_json::from_str::<String>(raw.get()).ok())
        .and_then(non_empty)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(line: &str) -> Event<'_> {
        match parse(line) {
            Parsed::Event(e) => e,
            other => panic!("not an event: {other:?} for {line}"),
        }
    }

    /// The fast reading of fragments and the general parser agree on every record.
    fn assert_same_reading(line: &str) -> bool {
        let general = format!("{:?}", parse_general(line));
        match parse_fragment(line) {
            Some(fast) => {
                assert_eq!(format!("{fast:?}"), general, "{line}");
                true
            }
            None => false,
        }
    }

    fn text_fragment(text_json: &str, session_json: &str, ts: &str) -> String {
        format!(
            r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"text","text":{text_json}}}]}},"session_id":{session_json},"timestamp_ms":{ts}}}"#
        )
    }

    fn thinking_fragment(text_json: &str, session_json: &str, ts: &str) -> String {
        format!(
            r#"{{"type":"thinking","subtype":"delta","text":{text_json},"session_id":{session_json},"timestamp_ms":{ts}}}"#
        )
    }

    #[test]
    fn fragments_in_cursor_layout_take_the_fast_reading() {
        for text in [
            "",
            "Checking",
            " now",
            ":\n\n",
            "\u{e9}\u{1F600}",
            "q\"b\\s\u{7f}\u{2028}",
        ] {
            let text_json = serde_json::to_string(text).unwrap();
            for ts in ["1787030681469", "0", "-5"] {
                assert!(assert_same_reading(&text_fragment(
                    &text_json, r#""s-1""#, ts
                )));
                assert!(assert_same_reading(&thinking_fragment(
                    &text_json, r#""s-1""#, ts
                )));
            }
        }
        // Long fragments take the tail check first.
        let long = serde_json::to_string(&"long \"text\"\n".repeat(100)).unwrap();
        assert!(long.len() > LONG_RECORD);
        assert!(assert_same_reading(&text_fragment(&long, r#""s-1""#, "7")));
        assert!(assert_same_reading(&thinking_fragment(
            &long, r#""s-1""#, "-7"
        )));
        // Escapes that serde_json itself would not write.
        for text_json in [r#""\u0041\/\ud83d\ude00""#, r#""tab\there""#] {
            assert!(assert_same_reading(&text_fragment(
                text_json,
                r#""s\u0031""#,
                "1"
            )));
        }
    }

    #[test]
    fn other_layouts_fall_back_to_the_general_parser() {
        let cases = [
            // Snapshot markers, other keys, other orders, whitespace.
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"a"}]},"session_id":"s","model_call_id":"m","timestamp_ms":1}"#.to_owned(),
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"a"}]},"session_id":"s"}"#.to_owned(),
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"a"}]},"session_id":"s","timestamp_ms":1,"x":2}"#.to_owned(),
            format!("{} ", text_fragment(r#""a""#, r#""s""#, "1")),
            text_fragment(r#""a""#, r#""s""#, "1.5"),
            text_fragment(r#""a""#, r#""s""#, "1e3"),
            text_fragment(r#""a""#, r#""s""#, r#""1""#),
            text_fragment(r#""a""#, "null", "1"),
            format!(
                r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"text","text":"{}"}}]}},"session_id":"s","model_call_id":"m","timestamp_ms":1}}"#,
                "x".repeat(600)
            ),
            text_fragment(&format!(r#""{}""#, "x".repeat(600)), r#""s\"q""#, "1"),
            // Invalid JSON the general parser must report.
            text_fragment("\"raw\ncontrol\"", r#""s""#, "1"),
            text_fragment(r#""bad \x escape""#, r#""s""#, "1"),
            text_fragment(r#""lone \ud800""#, r#""s""#, "1"),
            text_fragment(r#""a""#, r#""s""#, "01"),
            text_fragment(r#""a""#, r#""s""#, "-"),
            text_fragment(r#""unterminated"#, r#""s""#, "1"),
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"a"#.to_owned(),
        ];
        for line in cases {
            assert!(!assert_same_reading(&line), "fast reading accepted {line}");
        }
        assert!(matches!(
            parse(&text_fragment(r#""bad \x escape""#, r#""s""#, "1")),
            Parsed::Invalid
        ));
    }

    proptest::proptest! {
        #[test]
        fn fast_and_general_readings_agree(
            text in proptest::prelude::any::<String>(),
            session in "[a-z0-9-]{0,12}",
            ts in proptest::prelude::any::<i64>(),
            thinking in proptest::prelude::any::<bool>(),
        ) {
            let text_json = serde_json::to_string(&text).unwrap();
            let session_json = serde_json::to_string(&session).unwrap();
            let line = if thinking {
                thinking_fragment(&text_json, &session_json, &ts.to_string())
            } else {
                text_fragment(&text_json, &session_json, &ts.to_string())
            };
            proptest::prop_assert!(assert_same_reading(&line));
        }

        #[test]
        fn a_mutated_fragment_is_read_as_the_general_parser_reads_it(
            position in 0usize..200,
            replacement in proptest::prelude::any::<char>(),
            delete in proptest::prelude::any::<bool>(),
            thinking in proptest::prelude::any::<bool>(),
        ) {
            let line = if thinking {
                thinking_fragment(r#""a \"b\" \u00e9\n c""#, r#""s-1""#, "1787030681469")
            } else {
                text_fragment(r#""a \"b\" \u00e9\n c""#, r#""s-1""#, "1787030681469")
            };
            let mut chars: Vec<char> = line.chars().collect();
            let at = position % chars.len();
            if delete {
                chars.remove(at);
            } else {
                chars[at] = replacement;
            }
            let mutated: String = chars.into_iter().collect();
            assert_same_reading(&mutated);
        }
    }

    #[test]
    fn invalid_and_non_object_records_are_invalid() {
        for line in [
            "not json",
            "[1,2]",
            "42",
            "\"s\"",
            "{\"type\":",
            "null",
            "{} x",
        ] {
            assert!(matches!(parse(line), Parsed::Invalid), "{line}");
        }
    }

    #[test]
    fn unknown_types_and_untyped_objects_are_ignored_not_invalid() {
        for line in [
            r#"{"type":"connection","subtype":"reconnecting","attempt":1}"#,
            r#"{"type":"future_thing","message":"a string where assistant has an object"}"#,
            r#"{"no_type":true}"#,
            r#"{"type":7}"#,
        ] {
            assert!(
                matches!(parse(line), Parsed::Ignored { transport: false }),
                "{line}"
            );
        }
    }

    #[test]
    fn known_types_with_bad_shapes_are_ignored() {
        for line in [
            r#"{"type":"assistant","message":{"content":"flat string"}}"#,
            r#"{"type":"assistant"}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":5}]}}"#,
            r#"{"type":"tool_call","subtype":"started","call_id":"c"}"#,
            r#"{"type":"tool_call","subtype":"started","call_id":"c","tool_call":{"x":1}}"#,
            r#"{"type":"tool_call","subtype":"started","tool_call":{"shellToolCall":{}}}"#,
            r#"{"type":"tool_call","subtype":"progress","call_id":"c","tool_call":{"shellToolCall":{}}}"#,
            r#"{"type":"result","is_error":"yes"}"#,
        ] {
            assert!(
                matches!(parse(line), Parsed::Ignored { transport: false }),
                "{line}"
            );
        }
    }

    #[test]
    fn transport_events_are_recognised_even_with_odd_shapes() {
        assert!(matches!(
            event(r#"{"type":"retry","subtype":"starting","attempt":1}"#).body,
            EventBody::Transport
        ));
        assert!(matches!(
            event(r#"{"type":"interaction_query","subtype":"request","query":{}}"#).body,
            EventBody::Transport
        ));
        assert!(matches!(
            parse(r#"{"type":"retry","message":7}"#),
            Parsed::Ignored { transport: true }
        ));
    }

    #[test]
    fn partial_needs_a_numeric_timestamp_and_no_model_call_id() {
        let cases = [
            (r#""timestamp_ms":1"#, true),
            (r#""timestamp_ms":1.5"#, true),
            (r#""timestamp_ms":"1""#, false),
            (r#""timestamp_ms":null"#, false),
            (r#""timestamp_ms":1,"model_call_id":"m""#, false),
            (r#""timestamp_ms":1,"model_call_id":null"#, true),
            (r#""model_call_id":"m""#, false),
            (r#""session_id":"s""#, false),
        ];
        for (fields, expected) in cases {
            let line = format!(
                r#"{{"type":"assistant","message":{{"content":[{{"type":"text","text":"x"}}]}},{fields}}}"#
            );
            match event(&line).body {
                EventBody::Assistant { partial, .. } => assert_eq!(partial, expected, "{fields}"),
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn assistant_parts_feed_their_channels_and_unknown_parts_feed_none() {
        let e = event(
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"a\nb"},{"type":"image","data":"x"}]},"extra":{"x":[1]}}"#,
        );
        let EventBody::Assistant { parts, .. } = e.body else {
            panic!()
        };
        let got: Vec<_> = parts.iter().map(ContentPart::channel_text).collect();
        assert_eq!(
            got,
            vec![
                Some((Channel::Thinking, "hm")),
                Some((Channel::Text, "a\nb")),
                None
            ]
        );
    }

    #[test]
    fn tool_key_is_the_one_ending_in_tool_call_not_the_first() {
        let e = event(
            r#"{"type":"tool_call","call_id":"c\nd","tool_call":{"hookAdditionalContexts":[],"toolCallId":"c\nd","readToolCall":{"args":{"path":"/x"}},"startedAtMs":"1"}}"#,
        );
        let EventBody::ToolCall {
            completed,
            call_id,
            call,
        } = e.body
        else {
            panic!()
        };
        assert!(!completed);
        assert_eq!(call_id, "c\nd");
        assert_eq!(call.kind.as_deref(), Some("readToolCall"));
        assert_eq!(call.args.map(RawValue::get), Some(r#"{"path":"/x"}"#));
    }

    #[test]
    fn function_entry_and_tool_call_id_fallback() {
        let e = event(
            r#"{"type":"tool_call","subtype":"started","tool_call":{"toolCallId":"t1","function":{"name":"lookup","arguments":"{\"q\":1}"}}}"#,
        );
        let EventBody::ToolCall { call_id, call, .. } = e.body else {
            panic!()
        };
        assert_eq!(call_id, "t1");
        assert_eq!(call.kind.as_deref(), Some("function"));
        assert_eq!(call.function_name.as_deref(), Some("lookup"));
        assert_eq!(call.args.map(RawValue::get), Some(r#""{\"q\":1}""#));
    }

    #[test]
    fn function_entry_carries_its_result() {
        let e = event(
            r#"{"type":"tool_call","subtype":"completed","call_id":"f1","tool_call":{"function":{"name":"lookup","arguments":"{}","result":{"success":{"answer":42}}}}}"#,
        );
        let EventBody::ToolCall { call, .. } = e.body else {
            panic!()
        };
        assert_eq!(
            call.result.map(RawValue::get),
            Some(r#"{"success":{"answer":42}}"#)
        );
    }

    #[test]
    fn result_error_message_sources() {
        let cases = [
            (
                r#"{"type":"result","is_error":false,"result":"fine"}"#,
                false,
                None,
            ),
            (
                r#"{"type":"result","is_error":true,"error":{"message":"boom"}}"#,
                true,
                Some("boom"),
            ),
            (
                r#"{"type":"result","subtype":"error","result":"said so"}"#,
                true,
                Some("said so"),
            ),
            (
                r#"{"type":"result","is_error":true,"error":"str"}"#,
                true,
                Some("str"),
            ),
            (r#"{"type":"result","is_error":true}"#, true, None),
        ];
        for (line, want_error, want_message) in cases {
            match event(line).body {
                EventBody::Result {
                    is_error,
                    error_message,
                    ..
                } => {
                    assert_eq!(is_error, want_error, "{line}");
                    assert_eq!(error_message.as_deref(), want_message, "{line}");
                }
                other => panic!("{other:?}"),
            }
        }
    }
}
