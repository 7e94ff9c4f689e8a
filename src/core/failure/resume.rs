//! Telling "the resumed chat is gone" apart from transient failures, from error text alone.
//!
//! One table of phrasings says the chat/session cannot be resumed. A match is cancelled when the
//! text also names a transient cause (auth, network, quota, memory, signals, ...): those failures
//! must never discard a valid entry. An explicit session-lifecycle cause after the match
//! ("... due to inactivity") wins over a transient word.
//!
//! Text is compared as lower-case words (letters, digits, `'`, `-`, `_`), so punctuation, quotes
//! and case never matter.

/// One position of a phrasing.
#[derive(Clone, Copy)]
enum Slot {
    /// One of these word sequences must follow.
    Words(&'static [&'static str]),
    /// One of these word sequences may follow.
    Optional(&'static [&'static str]),
    /// An id may follow (a word with a digit, or a long word such as a UUID or hex id).
    OptionalId,
    /// The match fails when the next word is one of these: "invalid chat format" is about a
    /// malformed request, not about the chat.
    NotBefore(&'static [&'static str]),
}

use Slot::{NotBefore, Optional, OptionalId, Words};

const SUBJECT: &[&str] = &["session", "chat", "conversation", "thread"];
const ID_WORD: &[&str] = &["id", "with id"];
const LINK: &[&str] = &[
    "has been",
    "had been",
    "has",
    "is",
    "was",
    "is already",
    "was already",
    "already",
];
const GONE: &[&str] = &[
    "not found",
    "expired",
    "deleted",
    "missing",
    "gone",
    "no longer exists",
    "no longer available",
    "does not exist",
    "doesn't exist",
    "did not exist",
    "isn't found",
    "wasn't found",
    "could not be found",
    "couldn't be found",
    "cannot be found",
    "can not be found",
    "can't be found",
    "purged",
    "archived",
];
const CANNOT: &[&str] = &[
    "failed to",
    "could not",
    "couldn't",
    "unable to",
    "cannot",
    "can not",
    "can't",
    "not able to",
];
const RESUME_OUTCOME: &[&str] = &["failed", "error", "invalid", "aborted", "rejected"];
const THE: &[&str] = &["the", "this", "that", "previous", "your"];
/// Words after "invalid chat" / "session id invalid" that make it a validation or auth failure.
const VALIDATION: &[&str] = &[
    "format",
    "token",
    "request",
    "payload",
    "schema",
    "json",
    "argument",
    "arguments",
    "parameter",
    "parameters",
    "input",
    "message",
    "messages",
    "type",
    "name",
    "field",
    "option",
    "options",
    "value",
    "character",
    "characters",
    "length",
    "syntax",
    "encoding",
    "header",
    "signature",
    "key",
    "scope",
    "permission",
    "permissions",
];

/// Phrasings that say the chat cannot be resumed.
const RESUME_PHRASINGS: &[&[Slot]] = &[
    // "chat not found", "session 1f2e... has expired", "conversation was deleted"
    &[
        Words(SUBJECT),
        Optional(ID_WORD),
        OptionalId,
        Optional(LINK),
        Words(GONE),
    ],
    // "no such chat", "no active session"
    &[
        Words(&["no such", "no active", "no matching", "no existing"]),
        Words(SUBJECT),
    ],
    // "no previous chats found" (`cursor-agent --resume -N` with no history)
    &[
        Words(&["no previous", "no prior", "no recent"]),
        Words(&["chats", "chat", "sessions", "session", "conversations"]),
    ],
    // "failed to resume chat", "cannot resume"
    &[
        Words(CANNOT),
        Words(&[
            "resume",
            "be resumed",
            "continue the chat",
            "continue chat",
            "load chat",
            "load session",
        ]),
    ],
    // "resume failed", "resume error"
    &[
        Words(&["resume", "resuming"]),
        Optional(THE),
        Optional(SUBJECT),
        OptionalId,
        Words(RESUME_OUTCOME),
    ],
    // "invalid chat id", "unknown session"
    &[
        Words(&["invalid", "unknown", "bad", "malformed"]),
        Words(SUBJECT),
        NotBefore(VALIDATION),
    ],
    // "chat id is invalid", "session abc is unknown"
    &[
        Words(SUBJECT),
        Optional(ID_WORD),
        OptionalId,
        Optional(&["is", "was"]),
        Words(&["invalid", "unknown"]),
        NotBefore(VALIDATION),
    ],
    // "this chat cannot be resumed"
    &[
        Words(SUBJECT),
        OptionalId,
        Words(CANNOT),
        Words(&["be resumed", "resume", "be loaded"]),
    ],
    // "invalid conversation history" (a broken chat store)
    &[
        Words(&["invalid", "corrupt", "corrupted"]),
        Words(&["conversation history", "chat history", "chat store"]),
    ],
];

/// Words that make a failure transient however the chat is mentioned.
const TRANSIENT: &[&str] = &[
    // auth
    "auth",
    "authentication",
    "authenticate",
    "authenticated",
    "unauthenticated",
    "unauthorized",
    "re-auth",
    "reauth",
    "reauthenticate",
    "re-authenticate",
    "login",
    "log in",
    "logged in",
    "sign in",
    "signed in",
    "token",
    "credential",
    "credentials",
    "password",
    "secret",
    "api key",
    "api-key",
    "apikey",
    "forbidden",
    "403",
    "401",
    // network
    "network",
    "connection",
    "connect",
    "reconnecting",
    "internet",
    "offline",
    "dns",
    "socket",
    "tls",
    "ssl",
    "certificate",
    "econnrefused",
    "econnreset",
    "etimedout",
    "enotfound",
    "eai_again",
    "ehostunreach",
    "enetunreach",
    "epipe",
    "fetch failed",
    "timeout",
    "timed out",
    "time out",
    "retry",
    "retrying",
    "retriableerror",
    "unavailable",
    "overloaded",
    "bad gateway",
    "502",
    "503",
    "504",
    // quota
    "quota",
    "usage limit",
    "rate limit",
    "rate limited",
    "rate-limited",
    "too many requests",
    "429",
    "resource exhausted",
    "resource_exhausted",
    "spend limit",
    // memory and signals
    "out of memory",
    "oom",
    "enomem",
    "allocation failed",
    "killed",
    "signal",
    "sigkill",
    "sigterm",
    "sigint",
    "sighup",
    "sigsegv",
    "sigabrt",
    "aborted by user",
    "cancelled",
    "canceled",
];

/// Causes that belong to the chat itself; after a match they win over a transient word
/// ("session expired due to idle timeout").
const SESSION_CAUSES: &[&str] = &[
    "inactivity",
    "inactive",
    "idle",
    "retention",
    "archived",
    "purged",
    "policy",
    "too old",
];

/// What a failure's stable code alone says about the resumed chat: `Some(true)` it is gone,
/// `Some(false)` it is not (the failure has another, known cause, whatever the text mentions),
/// absent: the code tells nothing and the text decides.
const CODE_VERDICTS: &[(&str, bool)] = &[
    ("E_RESUME", true),
    ("E_AUTH", false),
    ("E_QUOTA", false),
    ("E_NETWORK", false),
    ("E_TIMEOUT", false),
    ("E_MODEL", false),
];

/// Whether a failure with `code` (when the caller has one) and `text` says the resumed chat is
/// gone. A code that names a cause wins over the text; `E_AGENT_EXIT`, other codes and no code
/// go by the text.
pub fn is_resume_failure(code: Option<&str>, text: &str) -> bool {
    let by_code = code.and_then(|code| {
        CODE_VERDICTS
            .iter()
            .find(|(known, _)| *known == code)
            .map(|(_, gone)| *gone)
    });
    by_code.unwrap_or_else(|| is_resume_specific(text))
}

/// Whether an error text says the resumed chat is gone (not a transient failure). Terminal
/// colour codes (`\x1b[31m...\x1b[0m`) are ignored.
pub fn is_resume_specific(text: &str) -> bool {
    let lowered = normalise(text);
    let words: Vec<&str> = words(&lowered).collect();
    let Some(end) = first_match_end(&words) else {
        return false;
    };
    if contains_any(&words[end..], SESSION_CAUSES) {
        return true;
    }
    !contains_any(&words, TRANSIENT)
}

/// Lower-cased, with typographic quotes made plain and ANSI escape sequences replaced by a
/// space (a colour code between two words must not join them).
fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => {
                skip_escape(&mut chars);
                out.push(' ');
            }
            '\u{2018}' | '\u{2019}' | '`' => out.push('\''),
            c => out.push(c.to_ascii_lowercase()),
        }
    }
    out
}

/// Skips the rest of an escape sequence after ESC: a CSI (`[`, parameters, one final byte in
/// `@`..=`~`) or a two-character escape.
fn skip_escape(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    if chars.next_if_eq(&'[').is_none() {
        chars.next();
        return;
    }
    for c in chars.by_ref() {
        if ('@'..='~').contains(&c) {
            return;
        }
    }
}

fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || matches!(c, '\'' | '-' | '_')))
        .map(|w| w.trim_matches(|c| matches!(c, '\'' | '-' | '_')))
        .filter(|w| !w.is_empty())
}

fn first_match_end(words: &[&str]) -> Option<usize> {
    (0..words.len()).find_map(|start| {
        RESUME_PHRASINGS
            .iter()
            .find_map(|slots| match_slots(words, start, slots))
    })
}

/// The end of a match of `slots` at `at`, trying optional slots both ways.
fn match_slots(words: &[&str], at: usize, slots: &[Slot]) -> Option<usize> {
    let Some((slot, rest)) = slots.split_first() else {
        return Some(at);
    };
    match *slot {
        Words(alternatives) => alternatives.iter().find_map(|alt| {
            match_phrase(words, at, alt).and_then(|next| match_slots(words, next, rest))
        }),
        Optional(alternatives) => alternatives
            .iter()
            .find_map(|alt| {
                match_phrase(words, at, alt).and_then(|next| match_slots(words, next, rest))
            })
            .or_else(|| match_slots(words, at, rest)),
        OptionalId => words
            .get(at)
            .filter(|w| looks_like_id(w))
            .and_then(|_| match_slots(words, at + 1, rest))
            .or_else(|| match_slots(words, at, rest)),
        NotBefore(excluded) => match words.get(at) {
            Some(next) if excluded.contains(next) => None,
            _ => match_slots(words, at, rest),
        },
    }
}

fn match_phrase(words: &[&str], at: usize, phrase: &str) -> Option<usize> {
    let mut index = at;
    for expected in phrase.split(' ') {
        if words.get(index) != Some(&expected) {
            return None;
        }
        index += 1;
    }
    Some(index)
}

fn looks_like_id(word: &str) -> bool {
    word.len() >= 12 || (word.len() >= 3 && word.bytes().any(|b| b.is_ascii_digit()))
}

fn contains_any(words: &[&str], phrases: &[&str]) -> bool {
    (0..words.len()).any(|at| phrases.iter().any(|p| match_phrase(words, at, p).is_some()))
}

#[cfg(test)]
mod tests;
