//! What a capture must not keep: the prompt that cursor-agent echoes in its `user` record
//! (unless the user asked for it), and the value of any secret the child was given. Everything
//! else of stdout stays byte for byte.

use std::borrow::Cow;

use memchr::memmem::{self, Finder};
use serde_json::Value;

/// What replaces the text of the `user` record's `text` fields.
pub const PROMPT_MASK: &str = "[prompt masked]";

/// Values shorter than this are not treated as secrets: masking them would mask ordinary text.
pub const MIN_SECRET_LEN: usize = 8;

/// How a variable name marks its value as a secret (names compared in upper case).
#[derive(Debug, Clone, Copy)]
enum NamePattern {
    Contains(&'static str),
    EndsWith(&'static str),
}

/// The variables whose values are secrets.
const SECRET_NAMES: &[NamePattern] = &[
    NamePattern::Contains("API_KEY"),
    NamePattern::Contains("TOKEN"),
    NamePattern::Contains("SECRET"),
    NamePattern::Contains("PASSWORD"),
    NamePattern::Contains("PASSWD"),
    NamePattern::Contains("CREDENTIAL"),
    NamePattern::EndsWith("_KEY"),
];

/// Whether the variable `name` holds a secret.
pub fn is_secret_name(name: &str) -> bool {
    let name = name.to_ascii_uppercase();
    SECRET_NAMES.iter().any(|pattern| match pattern {
        NamePattern::Contains(part) => name.contains(part),
        NamePattern::EndsWith(end) => name.ends_with(end),
    })
}

#[derive(Debug, Clone)]
struct Secret {
    /// Each form of the value that is replaced: as it is, and as it reads inside a JSON string.
    /// Searchers, not byte strings: every byte of stdout and of every output is searched.
    forms: Vec<Finder<'static>>,
    replacement: Vec<u8>,
}

/// Masks one run's prompt echo and secrets.
#[derive(Debug, Clone, Default)]
pub struct Masker {
    mask_prompt: bool,
    secrets: Vec<Secret>,
    names: Vec<String>,
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
        if value.len() < MIN_SECRET_LEN
            || self
                .secrets
                .iter()
                .any(|s| s.forms[0].needle() == value.as_bytes())
        {
            return;
        }
        let mut forms = vec![Finder::new(value).into_owned()];
        let quoted = serde_json::to_string(value).unwrap_or_default();
        let escaped = quoted
            .get(1..quoted.len().saturating_sub(1))
            .unwrap_or_default();
        if escaped != value {
            forms.push(Finder::new(escaped).into_owned());
        }
        self.secrets.push(Secret {
            forms,
            replacement: format!("[masked {name}]").into_bytes(),
        });
        if !self.names.iter().any(|n| n == name) {
            self.names.push(name.to_owned());
        }
    }

    /// The secrets' names, in the order they were added.
    pub fn secret_names(&self) -> &[String] {
        &self.names
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

    /// Any text (stderr, an argument), masked of secrets.
    pub fn text(&self, text: &str) -> String {
        String::from_utf8_lossy(&self.secrets_in(text.as_bytes())).into_owned()
    }

    fn secrets_in<'b>(&self, bytes: &'b [u8]) -> Cow<'b, [u8]> {
        let mut masked = Cow::Borrowed(bytes);
        for secret in &self.secrets {
            for form in &secret.forms {
                if let Some(replaced) = replace_all(&masked, form, &secret.replacement) {
                    masked = Cow::Owned(replaced);
                }
            }
        }
        masked
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

/// `bytes` with every (non-overlapping, leftmost first) `from` replaced by `to`; `None` when
/// there is none.
fn replace_all(bytes: &[u8], from: &Finder<'_>, to: &[u8]) -> Option<Vec<u8>> {
    let mut found = from.find_iter(bytes).peekable();
    found.peek()?;
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    for start in found {
        out.extend_from_slice(&bytes[at..start]);
        out.extend_from_slice(to);
        at = start + from.needle().len();
    }
    out.extend_from_slice(&bytes[at..]);
    Some(out)
}

#[cfg(test)]
mod tests;
