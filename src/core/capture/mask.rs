//! What a capture must not keep: the prompt that cursor-agent echoes in its `user` record
//! (unless the user asked for it), and the value of any secret the child was given. Everything
//! else of stdout stays byte for byte.

use std::borrow::Cow;

use memchr::memmem;
use serde_json::Value;

use crate::core::secrets::Secrets;

/// What replaces the text of the `user` record's `text` fields.
pub const PROMPT_MASK: &str = "[prompt masked]";

pub use crate::core::secrets::{is_secret_name, MIN_SECRET_LEN};

/// Masks one run's prompt echo and secrets.
#[derive(Debug, Clone, Default)]
pub struct Masker {
    mask_prompt: bool,
    secrets: Secrets,
}

impl Masker {
    /// `mask_prompt`: replace the `user` record's text.
    pub fn new(mask_prompt: bool) -> Self {
        Self {
            mask_prompt,
            ..Self::default()
        }
    }

    /// Mask every occurrence of `value` as `[masked NAME]`; a value shorter than
    /// [`MIN_SECRET_LEN`] (or one already known) is ignored.
    pub fn add_secret(&mut self, name: &str, value: &str) {
        self.secrets.add(name, value);
    }

    /// The secrets' names, in the order they were added.
    pub fn secret_names(&self) -> &[String] {
        self.secrets.names()
    }

    pub fn masks_prompt(&self) -> bool {
        self.mask_prompt
    }

    /// Complete stdout records (each ending in LF, except perhaps the last), masked.
    pub fn records<'b>(&self, bytes: &'b [u8]) -> Cow<'b, [u8]> {
        if !(self.mask_prompt && contains(bytes, b"\"user\"")) {
            return self.secrets_in(bytes);
        }
        let mut out = Vec::with_capacity(bytes.len());
        for record in bytes.split_inclusive(|&b| b == b'\n') {
            out.extend_from_slice(&self.prompt_echo(record));
        }
        Cow::Owned(self.secrets_in(&out).into_owned())
    }

    /// Any text (stderr, an argument), masked of secrets, a piece cut at either end too.
    pub fn text(&self, text: &str) -> String {
        self.secrets.text(text).into_owned()
    }

    fn secrets_in<'b>(&self, bytes: &'b [u8]) -> Cow<'b, [u8]> {
        self.secrets.bytes(bytes)
    }

    /// Every string in `value` masked of secrets.
    pub fn value(&self, value: &mut Value) {
        if self.secrets.is_empty() {
            return;
        }
        match value {
            Value::String(text) => {
                if let Cow::Owned(masked) = self.secrets_in(text.as_bytes()) {
                    *text = String::from_utf8_lossy(&masked).into_owned();
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| self.value(item)),
            Value::Object(map) => map.values_mut().for_each(|item| self.value(item)),
            _ => {}
        }
    }

    /// One record with the string value of every `text` key replaced, when it is a `user`
    /// record; otherwise as it is. Only those string literals change.
    fn prompt_echo<'r>(&self, record: &'r [u8]) -> Cow<'r, [u8]> {
        if !contains(record, b"\"user\"") || !is_user_record(record) {
            return Cow::Borrowed(record);
        }
        let mut out = Vec::with_capacity(record.len());
        let (mut at, mut after_colon, mut key_is_text) = (0, false, false);
        while at < record.len() {
            let byte = record[at];
            if byte != b'"' {
                if byte == b':' {
                    after_colon = true;
                } else if !byte.is_ascii_whitespace() {
                    after_colon = false;
                }
                out.push(byte);
                at += 1;
                continue;
            }
            let Some(end) = string_end(record, at) else {
                out.extend_from_slice(&record[at..]);
                break;
            };
            let literal = &record[at..=end];
            if after_colon && key_is_text {
                out.push(b'"');
                out.extend_from_slice(PROMPT_MASK.as_bytes());
                out.push(b'"');
            } else {
                out.extend_from_slice(literal);
            }
            let next = record[end + 1..].iter().find(|b| !b.is_ascii_whitespace());
            if next == Some(&b':') {
                key_is_text = literal == b"\"text\"";
            }
            after_colon = false;
            at = end + 1;
        }
        Cow::Owned(out)
    }
}

/// Whether the record is a JSON object whose `type` is `user`.
fn is_user_record(record: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Typed<'a> {
        #[serde(rename = "type", borrow, default)]
        kind: Option<Cow<'a, str>>,
    }
    let record = record.strip_suffix(b"\n").unwrap_or(record);
    serde_json::from_slice::<Typed<'_>>(record).is_ok_and(|t| t.kind.as_deref() == Some("user"))
}

/// The index of the quote that closes the string literal opening at `start`.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut at = start + 1;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 2,
            b'"' => return Some(at),
            _ => at += 1,
        }
    }
    None
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    memmem::find(haystack, needle).is_some()
}

#[cfg(test)]
mod tests;
