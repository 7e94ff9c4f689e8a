//! Telling "the resumed chat is gone" apart from transient failures, from error text alone.
//!
//! One table of phrasings (rows of words and named word lists, read by one matcher) says the
//! chat/session cannot be resumed. A match is cancelled when the
//! text also names a transient cause (auth, network, quota, memory, signals, ...): those failures
//! must never discard a valid entry. An explicit session-lifecycle cause after the match
//! ("... due to inactivity") wins over a transient word.
//!
//! Text is compared as lower-case words (letters, digits, `'`, `-`, `_`), so punctuation, quotes
//! and case never matter.

/// Phrasings that say the chat cannot be resumed, one a row: the words to find in order, where
/// a plain word is itself, `{list}` one of the phrases [`LISTS`] names `list`, `{list?}` one of
/// them or nothing, `{id?}` an id or nothing (a word with a digit, or a long word such as a UUID
/// or hex id), and `{!list}` fails the match when one of `list`'s phrases comes next.
const RESUME_PHRASINGS: &[&str] = &[
    // "chat not found", "session 1f2e... has expired", "conversation was deleted"
    "{subject} {id_word?} {id?} {link?} {gone}",
    // "no such chat", "no active session"
    "no {such} {subject}",
    // "no previous chats found" (`cursor-agent --resume -N` with no history)
    "no {previous} {chats}",
    // "failed to resume chat", "cannot resume"
    "{cannot} {resume_what}",
    // "resume failed", "resume error"
    "{resume} {the?} {subject?} {id?} {resume_outcome}",
    // "invalid chat id", "unknown session"; "invalid chat format" is about a malformed request
    "{bad} {subject} {!validation}",
    // "chat id is invalid", "session abc is unknown"
    "{subject} {id_word?} {id?} {is?} {invalid} {!validation}",
    // "this chat cannot be resumed"
    "{subject} {id?} {cannot} {be_resumed}",
    // "invalid conversation history" (a broken chat store)
    "{corrupt} {history}",
];

/// The phrase lists the phrasings name, each phrase words apart by a space, phrases by `|`;
/// the first that fits is taken.
const LISTS: &[(&str, &str)] = &[
    ("subject", "session|chat|conversation|thread"),
    ("id_word", "id|with id"),
    (
        "link",
        "has been|had been|has|is|was|is already|was already|already",
    ),
    (
        "gone",
        "not found|expired|deleted|missing|gone|no longer exists|no longer available\
         |does not exist|doesn't exist|did not exist|isn't found|wasn't found|could not be found\
         |couldn't be found|cannot be found|can not be found|can't be found|purged|archived",
    ),
    ("such", "such|active|matching|existing"),
    ("previous", "previous|prior|recent"),
    ("chats", "chats|chat|sessions|session|conversations"),
    (
        "cannot",
        "failed to|could not|couldn't|unable to|cannot|can not|can't|not able to",
    ),
    (
        "resume_what",
        "resume|be resumed|continue the chat|continue chat|load chat|load session",
    ),
    ("resume", "resume|resuming"),
    ("the", "the|this|that|previous|your"),
    ("resume_outcome", "failed|error|invalid|aborted|rejected"),
    ("bad", "invalid|unknown|bad|malformed"),
    ("is", "is|was"),
    ("invalid", "invalid|unknown"),
    ("be_resumed", "be resumed|resume|be loaded"),
    ("corrupt", "invalid|corrupt|corrupted"),
    ("history", "conversation history|chat history|chat store"),
    // Words after "invalid chat" / "session id invalid" that make it a validation or auth
    // failure.
    (
        "validation",
        "format|token|request|payload|schema|json|argument|arguments|parameter|parameters|input\
         |message|messages|type|name|field|option|options|value|character|characters|length\
         |syntax|encoding|header|signature|key|scope|permission|permissions",
    ),
];

/// Words that make a failure transient however the chat is mentioned.
const TRANSIENT: &[&str] = &[
    // auth
    "auth|authentication|authenticate|authenticated|unauthenticated|unauthorized|re-auth|reauth\
     |reauthenticate|re-authenticate|login|log in|logged in|sign in|signed in|token|credential\
     |credentials|password|secret|api key|api-key|apikey|forbidden|403|401",
    // network
    "network|connection|connect|reconnecting|internet|offline|dns|socket|tls|ssl|certificate\
     |econnrefused|econnreset|etimedout|enotfound|eai_again|ehostunreach|enetunreach|epipe\
     |fetch failed|timeout|timed out|time out|retry|retrying|retriableerror|unavailable\
     |overloaded|bad gateway|502|503|504",
    // quota
    "quota|usage limit|rate limit|rate limited|rate-limited|too many requests|429\
     |resource exhausted|resource_exhausted|spend limit",
    // memory and signals
    "out of memory|oom|enomem|allocation failed|killed|signal|sigkill|sigterm|sigint|sighup\
     |sigsegv|sigabrt|aborted by user|cancelled|canceled",
];

/// Causes that belong to the chat itself; after a match they win over a transient word
/// ("session expired due to idle timeout").
const SESSION_CAUSES: &str = "inactivity|inactive|idle|retention|archived|purged|policy|too old";

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
    !TRANSIENT.iter().any(|cause| contains_any(&words, cause))
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

/// Where the first phrasing found in `words` ends.
fn first_match_end(words: &[&str]) -> Option<usize> {
    let rows: Vec<Vec<&str>> = RESUME_PHRASINGS
        .iter()
        .map(|row| row.split(' ').collect())
        .collect();
    (0..words.len()).find_map(|at| rows.iter().find_map(|row| match_row(words, at, row)))
}

/// The end of a match of a phrasing's `tokens` at `at`, trying an optional one both ways.
fn match_row(words: &[&str], at: usize, tokens: &[&str]) -> Option<usize> {
    let Some((token, rest)) = tokens.split_first() else {
        return Some(at);
    };
    let then = |next| match_row(words, next, rest);
    let Some(name) = token.strip_prefix('{').and_then(|t| t.strip_suffix('}')) else {
        return match_phrase(words, at, token).and_then(then);
    };
    if let Some(excluded) = name.strip_prefix('!') {
        return match phrase_at(words, at, list(excluded)) {
            Some(_) => None,
            None => then(at),
        };
    }
    let (name, optional) = match name.strip_suffix('?') {
        Some(name) => (name, true),
        None => (name, false),
    };
    let found = if name == "id" {
        words
            .get(at)
            .filter(|word| looks_like_id(word))
            .and_then(|_| then(at + 1))
    } else {
        list(name)
            .split('|')
            .find_map(|phrase| match_phrase(words, at, phrase).and_then(then))
    };
    found.or_else(|| optional.then(|| then(at)).flatten())
}

/// The phrase list a phrasing names (a test checks every name is in [`LISTS`]).
fn list(name: &str) -> &'static str {
    LISTS
        .iter()
        .find(|(known, _)| *known == name)
        .map_or("", |(_, phrases)| phrases)
}

/// Where the first of `phrases` (`|` apart) that starts at `at` ends.
fn phrase_at(words: &[&str], at: usize, phrases: &str) -> Option<usize> {
    phrases.split('|').find_map(|p| match_phrase(words, at, p))
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

fn contains_any(words: &[&str], phrases: &str) -> bool {
    (0..words.len()).any(|at| phrase_at(words, at, phrases).is_some())
}

#[cfg(test)]
mod tests;
