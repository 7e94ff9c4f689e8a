//! The fast reading of text and thinking fragments, most of a long stream's records: text deltas,
//! thinking deltas, and text snapshots (which repeat the answer so far, so are long).
//!
//! A fragment laid out exactly as cursor-agent lays it out is read directly; anything else,
//! including every record this reading would not understand exactly as serde does, is left to
//! the general parser.

use std::borrow::Cow;
use std::sync::LazyLock;

use memchr::memmem;

use super::{ContentPart, Event, EventBody, Parsed, Parts};

/// The start of a text fragment exactly as cursor-agent writes it (compact, this key order).
const TEXT_FRAGMENT_HEAD: &str =
    r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"#;
const TEXT_FRAGMENT_SESSION: &str = r#"}]},"session_id":"#;
/// The start of a thinking delta exactly as cursor-agent writes it.
const THINKING_DELTA_HEAD: &str = r#"{"type":"thinking","subtype":"delta","text":"#;
const THINKING_DELTA_SESSION: &str = r#","session_id":"#;
const TIMESTAMP_KEY: &str = r#","timestamp_ms":"#;
/// Between a text snapshot's session id and its timestamp, when it names its model call.
const MODEL_CALL_KEY: &str = r#","model_call_id":"#;
/// Above this length a record's tail is checked before its text is scanned.
pub(super) const LONG_RECORD: usize = 512;

/// Fragments (text and thinking deltas) are most of a long stream's records. When a record is
/// laid out exactly as cursor-agent lays them out, read it directly; anything else, including
/// every record this reading would not understand exactly as serde does, returns `None` and
/// goes through the general parser.
pub(super) fn parse_fragment(line: &str) -> Option<Parsed<'_>> {
    if let Some(rest) = line.strip_prefix(TEXT_FRAGMENT_HEAD) {
        return text_fragment(rest);
    }
    let rest = line.strip_prefix(THINKING_DELTA_HEAD)?;
    // Recaps share the head but not the tail: reject a long one before scanning its text.
    if line.len() > LONG_RECORD && !ends_like_a_fragment(line, THINKING_DELTA_SESSION) {
        return None;
    }
    let (text, rest) = json_string(rest)?;
    let (session_id, rest) = json_string(rest.strip_prefix(THINKING_DELTA_SESSION)?)?;
    let rest = json_integer(rest.strip_prefix(TIMESTAMP_KEY)?)?;
    if rest != "}" {
        return None;
    }
    Some(Parsed::Event(Event {
        session_id: Some(session_id.value()?),
        body: EventBody::Thinking {
            partial: true,
            text: Some(text.value()?),
            completed: false,
        },
    }))
}

/// An `assistant` record after its head: its one text part, then the session id, then one of
/// the tails cursor-agent writes: `,"timestamp_ms":N}` (a delta), `}` or
/// `,"model_call_id":"…"` with or without the timestamp (a snapshot). The text is found from
/// the end (a raw `"` cannot stand inside a JSON string, so the last `"}]},"session_id":` ends
/// it) and then checked to be exactly one string, so a snapshot's long text is scanned once,
/// by the vectorised search.
fn text_fragment(rest: &str) -> Option<Parsed<'_>> {
    static SESSION_FROM_THE_END: LazyLock<memmem::FinderRev<'static>> =
        LazyLock::new(|| memmem::FinderRev::new(TEXT_FRAGMENT_SESSION));
    let end = SESSION_FROM_THE_END.rfind(rest)?;
    let text = whole_json_string(&rest[..end])?;
    let (session_id, tail) = json_string(&rest[end + TEXT_FRAGMENT_SESSION.len()..])?;
    let (model_call, tail) = match tail.strip_prefix(MODEL_CALL_KEY) {
        Some(after) => (true, json_string(after)?.1),
        None => (false, tail),
    };
    let timestamp = match tail.strip_prefix(TIMESTAMP_KEY) {
        Some(after) => (json_integer(after)? == "}").then_some(true)?,
        None => (tail == "}").then_some(false)?,
    };
    Some(Parsed::Event(Event {
        session_id: Some(session_id.value()?),
        body: EventBody::Assistant {
            // A delta: a numeric timestamp and no model call (as `is_partial` decides).
            partial: timestamp && !model_call,
            parts: Parts {
                first: Some(ContentPart {
                    kind: Some(Cow::Borrowed("text")),
                    text: Some(text.value()?),
                    thinking: None,
                }),
                rest: Vec::new(),
            },
        },
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
        let inner = &self.quoted[1..self.quoted.len() - 1];
        if !self.escaped {
            return Some(Cow::Borrowed(inner));
        }
        match unescape_simple(inner) {
            Some(text) => Some(Cow::Owned(text)),
            // `\u` escapes (surrogate pairs, lone surrogates) and anything odd: serde decides.
            None => serde_json::from_str::<String>(self.quoted)
                .ok()
                .map(Cow::Owned),
        }
    }
}

/// `literal` when it is exactly one JSON string literal (quotes included): found by jumping
/// from one `"` or `\\` to the next, with the raw control characters serde rejects ruled out in
/// one pass over the whole.
fn whole_json_string(literal: &str) -> Option<JsonStr<'_>> {
    let bytes = literal.as_bytes();
    if bytes.len() < 2 || bytes[0] != b'"' || has_control_character(bytes) {
        return None;
    }
    let inner = &bytes[1..];
    let mut escaped = false;
    let mut at = 0;
    while let Some(found) = memchr::memchr2(b'"', b'\\', &inner[at..]) {
        let i = at + found;
        if inner[i] == b'"' {
            return (i + 1 == inner.len()).then_some(JsonStr {
                quoted: literal,
                escaped,
            });
        }
        escaped = true;
        at = i + 2;
        if at > inner.len() {
            return None;
        }
    }
    None
}

/// The value of a JSON string's contents whose escapes are all one-character ones (`\n`,
/// `\"`, ...): the text between them copied a run at a time. `None` at a `\u` escape or one
/// JSON does not have, which the caller leaves to serde.
fn unescape_simple(inner: &str) -> Option<String> {
    let bytes = inner.as_bytes();
    let mut out = String::with_capacity(inner.len());
    let mut from = 0;
    while let Some(found) = memchr::memchr(b'\\', &bytes[from..]) {
        let at = from + found;
        // Runs end at an ASCII backslash, so they are whole characters.
        out.push_str(&inner[from..at]);
        out.push(match bytes.get(at + 1)? {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            _ => return None,
        });
        from = at + 2;
    }
    out.push_str(&inner[from..]);
    Some(out)
}

/// Whether `bytes` hold a raw control character (below 0x20), 64 bytes a step: a branch-free
/// pass over each block compiles to vector instructions, where a plain `any` checks a byte a
/// step.
fn has_control_character(bytes: &[u8]) -> bool {
    bytes
        .chunks(64)
        .any(|block| block.iter().fold(false, |found, &b| found | (b < 0x20)))
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

#[cfg(test)]
mod tests;
