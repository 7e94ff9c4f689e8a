//! The content parts of an assistant message (and of a bare `text` record), and the channel
//! each feeds.

use std::borrow::Cow;
use std::fmt;

use serde::de::{SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};

/// One part of an assistant message.
#[derive(Debug, Deserialize)]
pub struct ContentPart<'a> {
    #[serde(rename = "type", borrow, default)]
    pub(super) kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) text: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) thinking: Option<Cow<'a, str>>,
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

/// The parts of an assistant message; the usual single part needs no allocation.
#[derive(Debug, Default)]
pub struct Parts<'a> {
    pub(super) first: Option<ContentPart<'a>>,
    pub(super) rest: Vec<ContentPart<'a>>,
}

impl<'a> Parts<'a> {
    pub fn iter(&self) -> impl Iterator<Item = &ContentPart<'a>> {
        self.first.iter().chain(self.rest.iter())
    }

    /// The part, when there is exactly one.
    pub fn only(&self) -> Option<&ContentPart<'a>> {
        self.first.as_ref().filter(|_| self.rest.is_empty())
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
