//! The one masking step for secrets: captures, the log file and error messages all pass their
//! text through a [`Secrets`] set, so a key cursor-agent prints is replaced the same way
//! wherever it would be written.
//!
//! A secret is the value of a variable whose name marks it (`*API_KEY*`, `*TOKEN*`, ...) or a
//! value the package made (the tool bridge's token). Every whole occurrence is replaced by
//! `[masked NAME]`, in its plain form and as it reads inside a JSON string. Text that was cut
//! (the kept tail of stderr, a clipped line) may begin with the end of a secret or end with its
//! start: [`Secrets::text`] masks such a piece too, once it is at least [`MIN_PIECE_LEN`]
//! characters (or the whole secret, when that is shorter).
//!
//! A run masks what cursor-agent prints with the secrets it handed that child; every such
//! secret is also remembered process-wide ([`remember`], the newest [`KNOWN_LIMIT`]), since the
//! log file is written from anywhere in the process ([`mask_known`]).

use std::borrow::Cow;
use std::sync::{PoisonError, RwLock};

use memchr::memmem::Finder;

/// Values shorter than this are not treated as secrets: masking them would mask ordinary text.
pub const MIN_SECRET_LEN: usize = 8;

/// The shortest piece of a secret cut at the edge of a text that is masked.
pub const MIN_PIECE_LEN: usize = 8;

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

impl Secret {
    fn value(&self) -> &[u8] {
        self.forms[0].needle()
    }
}

/// A set of secrets and the masking of text with them.
#[derive(Debug, Clone, Default)]
pub struct Secrets {
    secrets: Vec<Secret>,
    names: Vec<String>,
}

impl Secrets {
    /// Mask every occurrence of `value` as `[masked NAME]`; a value shorter than
    /// [`MIN_SECRET_LEN`] (or one already known) is ignored.
    pub fn add(&mut self, name: &str, value: &str) {
        if value.len() < MIN_SECRET_LEN
            || self.secrets.iter().any(|s| s.value() == value.as_bytes())
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

    /// Every variable of `vars` whose name marks a secret.
    pub fn add_vars<'v>(&mut self, vars: impl IntoIterator<Item = (&'v str, &'v str)>) {
        for (name, value) in vars {
            if is_secret_name(name) {
                self.add(name, value);
            }
        }
    }

    /// Every secret of `other` this set does not hold yet, under its own name.
    pub fn merge(&mut self, other: &Secrets) {
        for secret in &other.secrets {
            if !self.secrets.iter().any(|s| s.value() == secret.value()) {
                self.secrets.push(secret.clone());
            }
        }
        for name in &other.names {
            if !self.names.contains(name) {
                self.names.push(name.clone());
            }
        }
    }

    /// Forget all but the `limit` newest secrets.
    pub fn keep_newest(&mut self, limit: usize) {
        let excess = self.secrets.len().saturating_sub(limit);
        self.secrets.drain(..excess);
    }

    /// The secrets' names, in the order they were added.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    pub fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }

    /// Every whole occurrence of a secret replaced.
    pub fn bytes<'b>(&self, bytes: &'b [u8]) -> Cow<'b, [u8]> {
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

    /// Text that may have been cut: every whole occurrence replaced, and a piece of a secret
    /// at its start (the secret's end) or at its end (the secret's start) too.
    pub fn text<'t>(&self, text: &'t str) -> Cow<'t, str> {
        if self.secrets.is_empty() {
            return Cow::Borrowed(text);
        }
        let whole = self.bytes(text.as_bytes());
        let mut out: &[u8] = &whole;
        let mut head: &[u8] = b"";
        let mut tail: &[u8] = b"";
        for secret in &self.secrets {
            let value = secret.value();
            if head.is_empty() {
                if let Some(len) = cut_end_at_start(out, value) {
                    out = &out[len..];
                    head = &secret.replacement;
                }
            }
            if tail.is_empty() {
                if let Some(len) = cut_start_at_end(out, value) {
                    out = &out[..out.len() - len];
                    tail = &secret.replacement;
                }
            }
        }
        if head.is_empty() && tail.is_empty() && matches!(whole, Cow::Borrowed(_)) {
            return Cow::Borrowed(text);
        }
        let joined = [head, out, tail].concat();
        Cow::Owned(String::from_utf8_lossy(&joined).into_owned())
    }
}

/// The shortest piece of `value` that counts as a cut secret.
fn min_piece(value: &[u8]) -> usize {
    MIN_PIECE_LEN.min(value.len())
}

/// The length of the longest proper end of `value` that `text` begins with, when long enough.
fn cut_end_at_start(text: &[u8], value: &[u8]) -> Option<usize> {
    let longest = text.len().min(value.len().saturating_sub(1));
    (min_piece(value)..=longest)
        .rev()
        .find(|&len| text.starts_with(&value[value.len() - len..]))
}

/// The length of the longest proper start of `value` that `text` ends with, when long enough.
fn cut_start_at_end(text: &[u8], value: &[u8]) -> Option<usize> {
    let longest = text.len().min(value.len().saturating_sub(1));
    (min_piece(value)..=longest)
        .rev()
        .find(|&len| text.ends_with(&value[..len]))
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

/// How many secrets the process remembers for the log: a long-lived host runs many children,
/// most with the same environment; the oldest distinct ones are forgotten first.
pub const KNOWN_LIMIT: usize = 64;

/// The secrets the package has handed children (or made) in this process, newest last.
static KNOWN: RwLock<Option<Secrets>> = RwLock::new(None);

/// Remember `secrets` (a run's) for [`mask_known`].
pub fn remember(secrets: &Secrets) {
    let mut known = KNOWN.write().unwrap_or_else(PoisonError::into_inner);
    let known = known.get_or_insert_with(Secrets::default);
    known.merge(secrets);
    known.keep_newest(KNOWN_LIMIT);
}

/// `text` masked with every remembered secret (see [`Secrets::text`]).
pub fn mask_known(text: &str) -> Cow<'_, str> {
    let known = KNOWN.read().unwrap_or_else(PoisonError::into_inner);
    match known.as_ref() {
        Some(secrets) => secrets.text(text),
        None => Cow::Borrowed(text),
    }
}

#[cfg(test)]
mod tests;
