use super::{
    is_resume_failure, is_resume_specific, list, match_row, normalise, words, RESUME_PHRASINGS,
};

/// Phrasings that must evict: the chat itself is gone or cannot be resumed.
const RESUME_SPECIFIC: &[&str] = &[
    "Chat not found",
    "CHAT NOT FOUND",
    "Error: chat 5f0c2a1e-1234-4abc-9def-0123456789ab not found",
    "Error: Chat \"5f0c2a1e-1234-4abc-9def-0123456789ab\" not found.",
    "session not found",
    "Session has expired",
    "The conversation was deleted",
    "thread no longer exists",
    "No previous chats found.",
    "Failed to resume chat",
    "could not resume session 1234abcd",
    "Unable to resume the conversation",
    "Cannot resume: chat is missing",
    "can't resume this chat",
    "can\u{2019}t resume this chat",
    "resume failed",
    "Resume error: unknown chat id",
    "resuming chat abc123 failed",
    "no such session",
    "no such chat: abc123",
    "invalid session id",
    "Invalid chat ID provided",
    "chat id is invalid",
    "session isn't found",
    "This chat cannot be resumed",
    "session could not be resumed",
    "Session expired due to inactivity",
    "session expired due to idle timeout",
    "chat was deleted under the retention policy",
    "Invalid conversation history: unexpected end of store.db",
    "the session does not exist",
    "Conversation wasn't found",
    "No active session",
    "chat with id 42abc was not found",
    "error: failed to resume\nchat not found",
    "\x1b[31msession not found\x1b[0m",
    "\x1b[1;31mError:\x1b[0m chat\x1b[0m not found",
    "\x1b]0;title\x07chat not found",
];

/// Failures that must never evict: not about the chat, or about it only through a transient
/// cause.
const TRANSIENT_OR_UNRELATED: &[&str] = &[
    "",
    "cursor-agent exited with code 1 and no output",
    "Error: Authentication required. Please run 'agent login' first, or set CURSOR_API_KEY environment variable.",
    "Not logged in",
    "Error: You've hit your usage limit",
    "Cannot use this model: gpt-9. Available models: auto, sonnet-4.6",
    "Connection lost, reconnecting to https://agentn.global.api5.cursor.sh (attempt 2)...",
    "RetriableError: [internal] self-signed certificate in certificate chain",
    "TypeError: fetch failed",
    "connect ECONNREFUSED 127.0.0.1:443",
    "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
    "killed by signal SIGKILL",
    "Request timed out",
    "Session expired due to network timeout",
    "Your session has expired, please log in again",
    "Failed to resume chat: network error",
    "could not resume session because of a connection reset",
    "chat not found: invalid token",
    "session not found; please re-authenticate",
    "resume failed; quota exceeded",
    "session not found (rate limit exceeded, 429)",
    "Chat not found due to a DNS failure",
    "Unable to resume: out of memory",
    "Error: Session ID \"8c1e0f4a-1111-2222-3333-444455556666\" is already in use.",
    "\u{26a0} Workspace Trust Required. Pass --trust, --yolo, or -f if you trust this directory",
    "auth token expired",
    "session token expired",
    "thread 'main' panicked at src/main.rs:10:5",
    "Retry attempt 3... resume failed",
    "chat completed",
    "Invalid Model: The model does not work with your current plan or api key",
    "503 Service Unavailable: could not resume chat",
    "resume aborted: SIGTERM",
    "invalid chat format",
    "Invalid chat format: expected an array",
    "session id invalid token",
    "Session ID invalid: token expired",
    "unknown session type",
    "\x1b[33minvalid session token\x1b[0m",
];

/// Codes that name a cause win over the text; `E_AGENT_EXIT` and no code go by the text.
const BY_CODE: &[(Option<&str>, &str, bool)] = &[
    (Some("E_RESUME"), "", true),
    (Some("E_RESUME"), "connection reset", true),
    (Some("E_NETWORK"), "chat not found", false),
    (Some("E_AUTH"), "session not found", false),
    (
        Some("E_AGENT_EXIT"),
        "session not found; please re-authenticate",
        false,
    ),
    (Some("E_QUOTA"), "chat not found", false),
    (Some("E_TIMEOUT"), "chat not found", false),
    (Some("E_MODEL"), "chat not found", false),
    (Some("E_AGENT_EXIT"), "chat not found", true),
    (Some("E_AGENT_EXIT"), "\x1b[31mchat not found\x1b[0m", true),
    (Some("E_AGENT_EXIT"), "segmentation fault", false),
    (None, "chat not found", true),
    (None, "fetch failed", false),
];

#[test]
fn a_known_cause_in_the_code_wins_over_the_text() {
    for (code, text, gone) in BY_CODE {
        assert_eq!(is_resume_failure(*code, text), *gone, "{code:?} {text:?}");
    }
}

#[test]
fn a_transient_cause_cancels_every_resume_phrasing() {
    const CAUSES: &[&str] = &[
        " due to network timeout",
        ": invalid token",
        " (rate limit exceeded)",
        " because you are not logged in",
        "; killed by SIGKILL",
        " - out of memory",
    ];
    let lifecycle = ["inactivity", "idle", "retention"];
    for text in RESUME_SPECIFIC
        .iter()
        .filter(|t| !lifecycle.iter().any(|w| t.contains(w)))
    {
        for cause in CAUSES {
            let combined = format!("{text}{cause}");
            assert!(!is_resume_specific(&combined), "transient: {combined:?}");
        }
    }
}

#[test]
fn table_has_at_least_forty_phrasings() {
    assert!(RESUME_SPECIFIC.len() + TRANSIENT_OR_UNRELATED.len() >= 40);
}

#[test]
fn resume_specific_phrasings_evict() {
    for text in RESUME_SPECIFIC {
        assert!(
            is_resume_specific(text),
            "should be resume-specific: {text:?}"
        );
    }
}

#[test]
fn transient_or_unrelated_phrasings_do_not_evict() {
    for text in TRANSIENT_OR_UNRELATED {
        assert!(
            !is_resume_specific(text),
            "should not be resume-specific: {text:?}"
        );
    }
}

/// Each phrasing with texts it finds on its own, from their first word, and ones it does not.
const ROWS: &[(&str, &[&str], &[&str])] = &[
    (
        "{subject} {id_word?} {id?} {link?} {gone}",
        &[
            "chat not found",
            "session 1f2e3d4c has expired",
            "thread with id 42abc was deleted",
        ],
        &["chat found", "session abc not found"],
    ),
    (
        "no {such} {subject}",
        &["no such chat", "no active session"],
        &["no chat", "no such user"],
    ),
    (
        "no {previous} {chats}",
        &["no previous chats found", "no recent sessions"],
        &["no previous messages"],
    ),
    (
        "{cannot} {resume_what}",
        &[
            "failed to resume",
            "can't continue the chat",
            "unable to load session",
        ],
        &["failed to load"],
    ),
    (
        "{resume} {the?} {subject?} {id?} {resume_outcome}",
        &[
            "resume failed",
            "resuming the chat abc123 failed",
            "resume error",
        ],
        &["resume the chat", "resuming abc failed"],
    ),
    (
        "{bad} {subject} {!validation}",
        &["invalid chat id", "unknown session"],
        &["invalid chat format", "unknown session type"],
    ),
    (
        "{subject} {id_word?} {id?} {is?} {invalid} {!validation}",
        &["chat id is invalid", "session abc123 was unknown"],
        &["session id invalid token", "chat is valid"],
    ),
    (
        "{subject} {id?} {cannot} {be_resumed}",
        &[
            "chat cannot be resumed",
            "session 1234abcd could not be loaded",
        ],
        &["chat cannot be read"],
    ),
    (
        "{corrupt} {history}",
        &["corrupted chat store", "invalid conversation history"],
        &["corrupted history"],
    ),
];

#[test]
fn each_phrasing_finds_its_own_texts_and_no_others() {
    assert_eq!(ROWS.len(), RESUME_PHRASINGS.len(), "one row per phrasing");
    for (row, finds, misses) in ROWS {
        assert!(RESUME_PHRASINGS.contains(row), "a phrasing: {row}");
        let tokens: Vec<&str> = row.split(' ').collect();
        for (text, found) in finds
            .iter()
            .map(|t| (t, true))
            .chain(misses.iter().map(|t| (t, false)))
        {
            let lowered = normalise(text);
            let words: Vec<&str> = words(&lowered).collect();
            assert_eq!(
                match_row(&words, 0, &tokens).is_some(),
                found,
                "{row} on {text:?}"
            );
        }
    }
}

#[test]
fn every_list_a_phrasing_names_exists() {
    for row in RESUME_PHRASINGS {
        for token in row.split(' ') {
            let Some(name) = token.strip_prefix('{').and_then(|t| t.strip_suffix('}')) else {
                continue;
            };
            let name = name.trim_start_matches('!').trim_end_matches('?');
            assert!(name == "id" || !list(name).is_empty(), "{row} names {name}");
        }
    }
}
