//! Failure classification: what went wrong with a cursor-agent run, from its stderr, exit
//! status and in-stream error, as a stable code and a message that says what to do.
//!
//! The patterns are a table, matched case-insensitively on the text with ANSI escapes removed,
//! first row first. Patterns are whole phrases: a bare "auth" would also match "author" or
//! "OAuth".

use crate::core::error::CoreError;

/// What a row of the table concludes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Auth,
    Quota,
    Model,
    UntrustedWorkspace,
    RejectedOption,
    Network,
}

/// First matching row wins; each pattern is lower case.
const RULES: &[(Kind, &[&str])] = &[
    (
        Kind::Auth,
        &[
            "authentication required",
            "not logged in",
            "unauthenticated",
            "unauthorized",
            "invalid api key",
            "api key is invalid",
        ],
    ),
    (
        Kind::Quota,
        &[
            "usage limit",
            "free requests limit",
            "spendlimithit: true",
            "resource_exhausted",
            "rate limit",
        ],
    ),
    (
        Kind::Model,
        &[
            "cannot use this model",
            "invalid model",
            "model not found",
            "unknown model",
        ],
    ),
    (
        Kind::UntrustedWorkspace,
        &["workspace trust required", "pass --trust"],
    ),
    (Kind::RejectedOption, &["[invalid_argument]"]),
    (
        Kind::Network,
        &[
            "retriableerror",
            "connection lost",
            "econnrefused",
            "econnreset",
            "enotfound",
            "etimedout",
            "eai_again",
            "getaddrinfo",
            "fetch failed",
            "network error",
            "socket hang up",
            "certificate",
        ],
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

fn matching_rule(text: &str) -> Option<(Kind, &str)> {
    let lower = text.to_ascii_lowercase();
    RULES.iter().find_map(|(kind, patterns)| {
        patterns.iter().find_map(|p| {
            let at = lower.find(p)?;
            Some((*kind, clip(line_at(text, &lower, at))))
        })
    })
}

/// The line of `text` that holds byte `at` (`lower` is its ASCII-lower-cased copy, so byte
/// offsets agree).
fn line_at<'t>(text: &'t str, lower: &str, at: usize) -> &'t str {
    let line_index = lower[..at].matches('\n').count();
    text.lines().nth(line_index).unwrap_or("").trim()
}

/// Whether stderr says the usage limit was hit.
pub fn is_quota(stderr: &str) -> bool {
    matching_rule(&strip_ansi(stderr)).is_some_and(|(kind, _)| kind == Kind::Quota)
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

fn model_message(text: &str, line: &str) -> String {
    let (model, available) = model_details(text);
    let mut message = match model {
        Some(m) => format!("Cursor cannot use the model '{m}'."),
        None => format!("Cursor rejected the model: {line}"),
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

/// Classify a failed run. `result_error` is what an `is_error` result said (empty when it
/// said nothing); `saw_result` whether any result arrived.
pub fn classify_failure(
    stderr: &str,
    exit_code: Option<i32>,
    signal: Option<&str>,
    result_error: Option<&str>,
    saw_result: bool,
) -> CoreError {
    let stderr = strip_ansi(stderr);
    let text = match result_error {
        Some(e) => format!("{e}\n{stderr}"),
        None => stderr.clone(),
    };
    if let Some((kind, line)) = matching_rule(&text) {
        return match kind {
            Kind::Auth => CoreError::Auth(format!(
                "cursor-agent is not logged in. Run `cursor-agent login`, or set \
                 CURSOR_API_KEY in the environment OpenCode runs in. cursor-agent said: {line}"
            )),
            Kind::Quota => CoreError::Quota(format!(
                "Cursor's usage limit is reached. Pick another model (e.g. cursor-acp/auto), \
                 raise the spend limit in Cursor's dashboard, or wait until the limit resets. \
                 cursor-agent said: {line}"
            )),
            Kind::Model => CoreError::Model(model_message(&text, line)),
            Kind::UntrustedWorkspace => CoreError::AgentExit(
                "cursor-agent refused to run because the workspace is not trusted. \
                 Set CURSOR_ACP_FORCE=true (passes --force), or run `cursor-agent` once \
                 in the workspace and trust it."
                    .to_owned(),
            ),
            Kind::RejectedOption => CoreError::AgentExit(format!(
                "Cursor's servers rejected the request. Remove the option it names from the \
                 extra arguments. cursor-agent said: {line}"
            )),
            Kind::Network => CoreError::Network(format!(
                "cursor-agent could not reach Cursor's servers after retrying. Check the \
                 network connection and any proxy; a self-signed certificate in the chain \
                 means a proxy intercepts TLS (give cursor-agent the proxy's CA with \
                 NODE_EXTRA_CA_CERTS). cursor-agent said: {line}"
            )),
        };
    }
    let status = match (exit_code, signal) {
        (_, Some(sig)) => format!("cursor-agent was stopped by signal {sig}"),
        (Some(code), None) if code != 0 => format!("cursor-agent exited with code {code}"),
        _ if result_error.is_some() => "Cursor reported an error".to_owned(),
        _ if !saw_result => "cursor-agent ended without a result".to_owned(),
        _ => "cursor-agent failed".to_owned(),
    };
    let mut message = status;
    if let Some(e) = result_error.map(str::trim).filter(|e| !e.is_empty()) {
        message.push_str(": ");
        message.push_str(clip(e));
    }
    let tail = last_lines(&stderr);
    if tail.is_empty() {
        message.push_str(" (no output on stderr).");
    } else {
        message.push_str(". stderr:\n");
        message.push_str(&tail);
    }
    CoreError::AgentExit(message)
}

#[cfg(test)]
mod tests;
