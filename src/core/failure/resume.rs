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
}

use Slot::{Optional, OptionalId, Words};

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
    ],
    // "chat id is invalid", "session abc is unknown"
    &[
        Words(SUBJECT),
        Optional(ID_WORD),
        OptionalId,
        Optional(&["is", "was"]),
        Words(&["invalid", "unknown"]),
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

/// Whether an error text says the resumed chat is gone (not a transient failure).
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

fn normalise(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\u{2018}' | '\u{2019}' | '`' => '\'',
            c => c.to_ascii_lowercase(),
        })
        .collect()
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
