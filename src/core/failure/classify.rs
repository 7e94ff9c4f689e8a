//! Failure classification: what went wrong with a cursor-agent run, from its stderr, exit
//! status and in-stream error, as a stable code and a message that says what to do.
//!
//! The patterns are a table, matched case-insensitively on the text with ANSI escapes removed,
//! first row first. Patterns are whole phrases: a bare "auth" would also match "author" or
//! "OAuth".

use super::reset::{quota_reset, reset_day};
use crate::core::error::{CoreError, ErrorCode};

/// What a row of the table concludes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Auth,
    Quota,
    /// Cursor (or its model provider) has no capacity now: neither the login nor the plan's
    /// usage limit.
    Capacity,
    Model,
    /// `--force` refused: a team admin disabled "Run Everything".
    ForceDisabled,
    UntrustedWorkspace,
    RejectedOption,
    /// Cursor's servers answered, with a failure on their side (HTTP 5xx, overloaded).
    ServerTrouble,
    /// The connection to Cursor's servers dropped mid-run (cursor-agent's own reconnection
    /// gave up): the answer was cut off, not refused.
    ConnectionDropped,
    Network,
}

/// What cursor-agent prints when its connection to Cursor's servers dropped and its own
/// reconnection gave up (`RetriableError: WritableIterable is closed`, and the variants
/// `ReadableIterable is closed`, `Error: T: WritableIterable is closed`); it exits 1 with no
/// `result` record.
const CONNECTION_DROPPED: &str = "writableiterable is closed|readableiterable is closed";

/// Whether `text` (stderr, or an assistant text) is cursor-agent's report of a dropped
/// connection: a run that printed it was cut off, and may be run once more when nothing of it
/// reached the user.
pub fn connection_dropped(text: &str) -> bool {
    // Asked of every short assistant text: compared in place, nothing copied, and a window is
    // compared only where its first letter matches.
    CONNECTION_DROPPED.split('|').any(|pattern| {
        let first = pattern.as_bytes()[0];
        text.as_bytes().windows(pattern.len()).any(|window| {
            window[0].to_ascii_lowercase() == first
                && window.eq_ignore_ascii_case(pattern.as_bytes())
        })
    })
}

/// First matching row wins; each row's patterns are lower case and `|` apart, as the resume
/// phrasings' lists are. Status codes are matched with the word that names them ("http 500",
/// "502 bad gateway"), never as bare numbers, which also occur in ids, sizes and durations.
const RULES: &[(Kind, &str)] = &[
    (
        Kind::Auth,
        "authentication required|authentication failed|not authenticated|not logged in\
         |unauthenticated|unauthorized|invalid api key|api key is invalid|re-authenticate\
         |reauthenticate|please log in|log in again",
    ),
    (
        Kind::Quota,
        "usage limit|free requests limit|spendlimithit: true|rate limit|rate-limit|ratelimit\
         |too many requests|http 429|status 429|quota exceeded|insufficient_quota",
    ),
    // Before `Model` ("model channel not available" names a model) and `ServerTrouble`
    // ("[unavailable]"); after `Quota`, so that a usage limit worded with `resource_exhausted`
    // stays a usage limit.
    (
        Kind::Capacity,
        "model channel not available|resource_exhausted|resource exhausted",
    ),
    (
        Kind::Model,
        "cannot use this model|invalid model|model not found|unknown model|model is not available\
         |model not available|model unavailable|unsupported model",
    ),
    (
        Kind::ForceDisabled,
        "disabled run everything|disabled \"run everything\"|run everything is disabled\
         |run everything has been disabled|run everything was disabled\
         |\"run everything\" is disabled|\"run everything\" has been disabled",
    ),
    (
        Kind::UntrustedWorkspace,
        "workspace trust required|pass --trust",
    ),
    (Kind::RejectedOption, "[invalid_argument]"),
    (
        Kind::ServerTrouble,
        "internal server error|server error|internal error|http 50|status 50|status code 50\
         |bad gateway|service unavailable|gateway timeout|overloaded|unavailable|try again later",
    ),
    (Kind::ConnectionDropped, CONNECTION_DROPPED),
    (
        Kind::Network,
        "retriableerror|connection lost|connection reset|connection refused|connection closed\
         |econnrefused|econnreset|enotfound|etimedout|eai_again|epipe|getaddrinfo|fetch failed\
         |failed to fetch|network error|socket hang up|certificate|timed out|timeout",
    ),
];

/// How many trailing stderr lines an unclassified failure quotes.
const QUOTED_LINES: usize = 8;
/// How many characters of one stderr line a message quotes.
pub const QUOTED_LINE_CHARS: usize = 400;
/// How many available models an `E_MODEL` message lists before "and N more".
const LISTED_MODELS: usize = 40;

/// Remove ANSI escape sequences (colours, cursor movement) that cursor-agent writes to a tty.
pub fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.peek() {
            Some('[') => {
                chars.next();
                // Parameters and intermediates, then one final byte in @..~.
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            Some(']') => {
                // OSC: up to BEL or ESC \.
                chars.next();
                while let Some(c) = chars.next() {
                    if c == '\u{7}' {
                        break;
                    }
                    if c == '\u{1b}' && chars.peek() == Some(&'\\') {
                        chars.next();
                        break;
                    }
                }
            }
            Some(_) => {
                chars.next();
            }
            None => {}
        }
    }
    out
}

fn matching_rule(text: &str) -> Option<Kind> {
    let lower = text.to_ascii_lowercase();
    RULES
        .iter()
        .find(|(_, patterns)| patterns.split('|').any(|p| lower.contains(p)))
        .map(|(kind, _)| *kind)
}

/// The last `lines` non-blank lines of `text`, ANSI removed, each clipped to
/// [`QUOTED_LINE_CHARS`] characters, joined by `separator`: what a message quotes of Cursor's
/// own output.
pub fn quoted_tail(text: &str, lines: usize, separator: &str) -> String {
    let clean = strip_ansi(text);
    let kept: Vec<&str> = clean
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .collect();
    let tail: Vec<&str> = kept[kept.len().saturating_sub(lines)..]
        .iter()
        .map(|l| clip(l))
        .collect();
    tail.join(separator)
}

/// The last lines of stderr an unclassified failure quotes, one per line.
pub fn last_lines(stderr: &str) -> String {
    quoted_tail(stderr, QUOTED_LINES, "\n")
}

/// At most [`QUOTED_LINE_CHARS`] characters of one quoted line.
fn clip(line: &str) -> &str {
    match line.char_indices().nth(QUOTED_LINE_CHARS) {
        Some((end, _)) => &line[..end],
        None => line,
    }
}

/// `Cannot use this model: X. Available models: a, b` -> (X, [a, b]).
fn model_details(text: &str) -> (Option<String>, Vec<String>) {
    let lower = text.to_ascii_lowercase();
    let model = lower.find("cannot use this model:").map(|at| {
        let rest = &text[at + "cannot use this model:".len()..];
        let rest = rest.lines().next().unwrap_or("");
        let end = rest
            .to_ascii_lowercase()
            .find(". available models")
            .unwrap_or(rest.len());
        rest[..end].trim().to_owned()
    });
    let available = lower
        .find("available models:")
        .map(|at| {
            let rest = &text[at + "available models:".len()..];
            rest.lines()
                .next()
                .unwrap_or("")
                .split(',')
                .map(|m| m.trim().trim_end_matches('.').to_owned())
                .filter(|m| !m.is_empty())
                .collect()
        })
        .unwrap_or_default();
    (model.filter(|m| !m.is_empty()), available)
}

fn model_message(text: &str) -> String {
    let (model, available) = model_details(text);
    let mut message = match model {
        Some(m) => format!("Cursor cannot use the model '{m}'."),
        None => "Cursor rejected the model.".to_owned(),
    };
    if available.is_empty() {
        message.push_str(
            " Run `cursor-agent models` to list the models your account can use, \
             and pick one as cursor-acp/<id>.",
        );
    } else {
        let shown = available.len().min(LISTED_MODELS);
        message.push_str(" Models your account can use: ");
        message.push_str(&available[..shown].join(", "));
        if available.len() > shown {
            message.push_str(&format!(" and {} more", available.len() - shown));
        }
        message.push_str(". Pick one as cursor-acp/<id> (`cursor-agent models` lists them all).");
    }
    message
}

/// The package's explanation of a classified failure: what happened and what to do. Cursor's
/// own words travel apart ([`CoreError::with_agent_output`]).
fn explanation(kind: Kind, text: &str, answered: bool) -> CoreError {
    let (code, message) = match kind {
        // The native API's wording; each front end words the way to log in for its users.
        Kind::Auth => (
            ErrorCode::Auth,
            "cursor-agent is not logged in. Run `cursor-agent login`, or give cursor-agent \
             CURSOR_API_KEY in its environment.",
        ),
        Kind::Quota => return quota_error(text, answered),
        Kind::Capacity => (
            ErrorCode::Network,
            "Cursor has no capacity for this model at the moment (Cursor or the model's provider \
             turned the request away). This is neither the login nor the plan's usage limit. \
             Pick another Cursor model, or send the message again in a few minutes.",
        ),
        Kind::Model => return CoreError::new(ErrorCode::Model, model_message(text)),
        Kind::ForceDisabled => (
            ErrorCode::AgentExit,
            "cursor-agent refused --force because a team admin disabled \"Run Everything\" for \
             this account. Set CURSOR_ACP_FORCE=false so that cursor-agent runs without --force \
             (it then refuses what the team's rules do not allow).",
        ),
        Kind::UntrustedWorkspace => (
            ErrorCode::AgentExit,
            "cursor-agent refused to run because the workspace is not trusted. Set \
             CURSOR_ACP_FORCE=true (passes --force), or run `cursor-agent` once in the \
             workspace and trust it.",
        ),
        Kind::RejectedOption => (
            ErrorCode::AgentExit,
            "Cursor's servers rejected the request. Remove the option they name from the extra \
             arguments.",
        ),
        Kind::ServerTrouble => (
            ErrorCode::Network,
            "Cursor's servers failed to answer (a fault on Cursor's side, after its own \
             retries). Send the message again in a few minutes; status.cursor.com shows \
             outages.",
        ),
        Kind::ConnectionDropped if answered => (
            ErrorCode::Network,
            "The connection to Cursor's servers dropped in the middle of the answer, so the \
             answer was cut off here; what arrived stays. Send the message again to go on.",
        ),
        Kind::ConnectionDropped => (
            ErrorCode::Network,
            "The connection to Cursor's servers dropped before any answer text arrived (what \
             did arrive stays). Send the message again.",
        ),
        Kind::Network => (
            ErrorCode::Network,
            "cursor-agent could not reach Cursor's servers, after its own retries. Check the \
             internet connection and any proxy; a self-signed certificate in the chain means a \
             proxy intercepts TLS (give cursor-agent the proxy's CA with NODE_EXTRA_CA_CERTS).",
        ),
    };
    CoreError::new(code, message)
}

/// `E_QUOTA`, with when the limit resets when Cursor says it.
fn quota_error(text: &str, answered: bool) -> CoreError {
    let when = quota_reset(text);
    let resets = when
        .as_deref()
        .map(|when| format!(" It resets {when}."))
        .unwrap_or_default();
    let resets_at = when.as_deref().and_then(reset_day);
    // "Stops here" only where an answer had begun: otherwise there was none to stop.
    let reached = if answered {
        "Cursor's usage limit for this account is reached, so the answer stops here."
    } else {
        "Cursor's usage limit for this account is reached; no answer was started."
    };
    CoreError::new(
        ErrorCode::Quota,
        format!(
            "{reached}{resets} Switch to another Cursor model, raise the spend limit in \
             Cursor's dashboard, or wait until the limit resets."
        ),
    )
    .with_reset(resets_at)
}

/// Classify a failed run. `result_error` is what an `is_error` result said (empty when it
/// said nothing); `saw_result` whether any result arrived; `answered` whether any answer was
/// already delivered. The error's message is the package's explanation; what cursor-agent
/// printed is its `agent_output`.
pub fn classify_failure(
    stderr: &str,
    exit_code: Option<i32>,
    signal: Option<&str>,
    result_error: Option<&str>,
    saw_result: bool,
    answered: bool,
) -> CoreError {
    let stderr = strip_ansi(stderr);
    let result_error = result_error.map(str::trim);
    let text = match result_error {
        Some(e) => format!("{e}\n{stderr}"),
        None => stderr.clone(),
    };
    let tail = last_lines(&stderr);
    let said = [result_error.map(clip).unwrap_or_default(), tail.as_str()]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    if let Some(kind) = matching_rule(&text) {
        return explanation(kind, &text, answered).with_agent_output(said);
    }
    let status = match (exit_code, signal) {
        (_, Some(sig)) => format!("cursor-agent was stopped by signal {sig}"),
        (Some(code), None) if code != 0 => format!("cursor-agent exited with code {code}"),
        _ if result_error.is_some() => "Cursor reported an error".to_owned(),
        _ if !saw_result => "cursor-agent ended without a result".to_owned(),
        _ => "cursor-agent failed".to_owned(),
    };
    let message = if said.is_empty() {
        format!("{status}, and printed nothing about why.")
    } else {
        format!("{status}.")
    };
    CoreError::new(ErrorCode::AgentExit, message).with_agent_output(said)
}

#[cfg(test)]
mod tests;
