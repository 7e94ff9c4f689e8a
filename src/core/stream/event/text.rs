//! The bare `text` record of cursor-agent 2026.09 and later (found in its bundle, never
//! captured): its text is read from whichever carrier it has, and then reconciled like an
//! assistant snapshot, so it is neither lost when it is the only carrier of the answer nor
//! shown twice when it repeats what deltas already showed.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::{ContentPart, Message, Parts};

/// Where a `text` record's text may be, in order of preference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Carrier {
    /// `text`: a string.
    Text,
    /// `content`: a string.
    Content,
    /// `message.content[]`: content parts, as in an `assistant` record.
    MessageContent,
}

const CARRIERS: &[Carrier] = &[Carrier::Text, Carrier::Content, Carrier::MessageContent];

/// A string JSON value, borrowed when it has no escapes.
fn json_string(raw: &RawValue) -> Option<Cow<'_, str>> {
    if let Ok(text) = <&str>::deserialize(raw) {
        return Some(Cow::Borrowed(text));
    }
    String::deserialize(raw).ok().map(Cow::Owned)
}

/// The parts of a `text` record: its one string as a text part, or its message's parts.
/// `None` when no carrier has the shape it should (the record is then an unknown one).
pub(super) fn text_record_parts<'a>(
    text: Option<Cow<'a, str>>,
    content: Option<&'a RawValue>,
    message: Option<Message<'a>>,
) -> Option<Parts<'a>> {
    let mut text = text;
    let mut message = message;
    CARRIERS.iter().find_map(|carrier| match carrier {
        Carrier::Text => text.take().map(Parts::single_text),
        Carrier::Content => content.and_then(json_string).map(Parts::single_text),
        Carrier::MessageContent => message.take().map(|m| m.content),
    })
}

impl<'a> Parts<'a> {
    fn single_text(text: Cow<'a, str>) -> Self {
        Parts {
            first: Some(ContentPart {
                kind: Some(Cow::Borrowed("text")),
                text: Some(text),
                thinking: None,
            }),
            rest: Vec::new(),
        }
    }
}
