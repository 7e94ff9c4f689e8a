//! The one error contract: every failure the package reports carries a stable code, the
//! package's explanation, and apart from it what cursor-agent itself said.

use crate::core::wire::{wire_struct, WireType};

/// Calls `$declare!` with the one list of error codes: each code's variant name, its text as JS
/// sees it, and its documentation (as `#[doc = "..."]`: a doc comment passed through a macro
/// becomes a raw string, which napi's TypeScript generator would print with its `r"`).
/// [`ErrorCode`] is declared from it here; the Node binding declares its TypeScript enum from
/// the same list, so a code added here reaches `index.d.ts` with no second list to keep in step.
#[macro_export]
macro_rules! with_error_codes {
    ($declare:ident) => {
        $declare! {
            #[doc = " The cursor-agent binary cannot be found or started; the message lists where it"]
            #[doc = " looked and how to install it."]
            AgentNotFound = "E_AGENT_NOT_FOUND",
            #[doc = " Not logged in or invalid key: run `cursor-agent login` or set `CURSOR_API_KEY`."]
            Auth = "E_AUTH",
            #[doc = " Cursor's usage limit was reached, before or during the answer (what arrived stays,"]
            #[doc = " and the message says the answer was cut off and, when Cursor says, when the limit"]
            #[doc = " resets; `resetsAt` holds that date)."]
            Quota = "E_QUOTA",
            #[doc = " Unknown or unavailable model; the message lists what the account can use."]
            Model = "E_MODEL",
            #[doc = " The resumed chat is gone or was silently replaced: evict it and rerun as a fresh"]
            #[doc = " chat."]
            Resume = "E_RESUME",
            #[doc = " Cursor's servers could not be reached, or failed to answer (HTTP 5xx,"]
            #[doc = " overloaded), after Cursor's own retries; the connection dropped mid-run (what"]
            #[doc = " arrived stays); or Cursor had no capacity for the model (not the login, not the"]
            #[doc = " usage limit)."]
            Network = "E_NETWORK",
            #[doc = " The idle or the overall timeout was hit."]
            Timeout = "E_TIMEOUT",
            #[doc = " The JS output callback threw."]
            Callback = "E_CALLBACK",
            #[doc = " Any other failure of the agent process; `agentOutput` holds the last lines of"]
            #[doc = " stderr."]
            AgentExit = "E_AGENT_EXIT",
            #[doc = " Bad options or arguments from the caller, or a call the object's state does not"]
            #[doc = " allow."]
            InvalidArg = "E_INVALID_ARG",
        }
    };
}

macro_rules! declare_error_code {
    ($($(#[doc = $doc:literal])* $variant:ident = $text:literal,)*) => {
        /// The stable codes (`err.code` in JS).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            $($(#[doc = $doc])* $variant,)*
        }

        impl ErrorCode {
            /// Every code, in declaration order.
            pub const ALL: &[Self] = &[$(Self::$variant),*];

            /// The code as JS sees it, e.g. `E_AUTH`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $text,)*
                }
            }
        }
    };
}

with_error_codes!(declare_error_code);

impl ErrorCode {
    /// The code of its JS text (`E_AUTH`), if it is one.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|code| code.as_str() == text)
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Written as its text (`"E_AUTH"`).
impl serde::Serialize for ErrorCode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl WireType for ErrorCode {
    #[cfg(test)]
    fn typescript(_: usize) -> String {
        "`${ErrorCode}`".into()
    }
}

/// Lets a test or a caller compare with the code's text (`code == "E_AUTH"`).
impl PartialEq<&str> for ErrorCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// A failure: its stable code, the package's explanation (what happened and what to do), what
/// cursor-agent itself printed about it, kept apart so that a front end decides whether and
/// where to quote it (OpenCode, for one, retries any error whose message reads like a transient
/// one), and the facts a front end acts on as data rather than by reading the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoreError {
    code: ErrorCode,
    message: String,
    agent_output: Option<String>,
    resets_at: Option<i64>,
}

impl std::error::Error for CoreError {}

wire_struct! {
    /// A failure with a stable code (one of `ErrorCode`): what a run's result, its last step and
    /// an `error` part carry.
    pub struct RunError<'a> as named (derive(serde::Serialize)) {
        code "code": ErrorCode,
        /// What happened and what to do, in the package's words. It holds no millisecond counts
        /// and no text of Cursor's, which some hosts would read as a transient failure and
        /// retry.
        message "message": &'a str,
        /// What cursor-agent itself printed about the failure (its error result, then its last
        /// stderr lines), verbatim with ANSI removed; absent when it printed nothing.
        agent_output "agentOutput": Option<&'a str>,
        /// `E_QUOTA` only: when the usage limit resets, as the date Cursor named: epoch
        /// milliseconds of that day's midnight UTC. Absent when Cursor named no date.
        resets_at "resetsAt": Option<i64>,
    }
}

/// Written as a [`RunError`].
impl serde::Serialize for CoreError {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        RunError {
            code: self.code,
            message: &self.message,
            agent_output: self.agent_output.as_deref(),
            resets_at: self.resets_at,
        }
        .serialize(serializer)
    }
}

impl WireType for CoreError {
    #[cfg(test)]
    fn typescript(_: usize) -> String {
        "RunError".into()
    }
}

/// The explanation, then Cursor's words when there are any.
impl std::fmt::Display for CoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)?;
        match &self.agent_output {
            Some(said) => write!(f, " cursor-agent said: {said}"),
            None => Ok(()),
        }
    }
}

impl CoreError {
    /// The error of `code` with the package's explanation `message`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            agent_output: None,
            resets_at: None,
        }
    }

    /// A bad argument from the caller; `message` names what was wrong.
    pub fn invalid_arg(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidArg, message)
    }

    /// The stable code.
    pub fn code(&self) -> ErrorCode {
        self.code
    }

    /// The package's explanation: what happened and what to do, without Cursor's own words
    /// (those are in [`Self::agent_output`]; `Display` joins both).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// What cursor-agent itself printed about the failure, verbatim (ANSI removed).
    pub fn agent_output(&self) -> Option<&str> {
        self.agent_output.as_deref()
    }

    /// When a usage limit resets, as Cursor named it: epoch milliseconds of that day's midnight
    /// UTC.
    pub fn resets_at(&self) -> Option<i64> {
        self.resets_at
    }

    /// `self` with what cursor-agent printed about it (replacing what it had); blank output
    /// adds nothing.
    pub fn with_agent_output(mut self, agent_output: impl Into<String>) -> Self {
        let agent_output = agent_output.into();
        if !agent_output.trim().is_empty() {
            self.agent_output = Some(agent_output);
        }
        self
    }

    /// `self` with `note`, when there is one, added to the package's explanation (Cursor's
    /// words stay apart).
    pub fn with_note(mut self, note: Option<&str>) -> Self {
        if let Some(note) = note {
            self.message = format!("{} {note}", self.message);
        }
        self
    }

    /// `self` with its explanation and Cursor's words passed through `mask` (secrets removed).
    pub fn map_text(mut self, mask: impl Fn(&str) -> String) -> Self {
        self.message = mask(&self.message);
        self.agent_output = self.agent_output.as_deref().map(mask);
        self
    }

    /// `self` with the time its usage limit resets (see [`Self::resets_at`]).
    pub fn with_reset(mut self, resets_at: Option<i64>) -> Self {
        self.resets_at = resets_at;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::{CoreError, ErrorCode};

    #[test]
    fn every_code_is_distinct_stable_and_parses_back() {
        let texts: std::collections::HashSet<_> =
            ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(texts.len(), ErrorCode::ALL.len());
        for &code in ErrorCode::ALL {
            assert!(code.as_str().starts_with("E_"), "{code}");
            assert_eq!(ErrorCode::parse(code.as_str()), Some(code));
            let error = CoreError::new(code, "why");
            assert_eq!((error.code(), error.message()), (code, "why"));
        }
        assert_eq!(ErrorCode::parse("E_NOPE"), None);
    }

    #[test]
    fn a_note_joins_the_explanation_not_cursors_words() {
        let e = CoreError::new(ErrorCode::Network, "check the connection.")
            .with_agent_output("fetch failed");
        let noted = e.with_note(Some("Capture: cap-abc."));
        assert_eq!(noted.code(), "E_NETWORK");
        assert_eq!(noted.message(), "check the connection. Capture: cap-abc.");
        assert_eq!(noted.agent_output(), Some("fetch failed"));
        assert_eq!(noted.clone().with_note(None), noted);
    }

    #[test]
    fn display_is_the_message() {
        let e = CoreError::new(ErrorCode::Auth, "run `cursor-agent login`");
        assert_eq!(e.to_string(), "run `cursor-agent login`");
        assert_eq!(e.message(), "run `cursor-agent login`");
        assert_eq!(e.agent_output(), None);
        assert_eq!(e.resets_at(), None);
    }

    #[test]
    fn agent_output_is_kept_apart_from_the_explanation() {
        let e = CoreError::new(ErrorCode::Network, "check the connection")
            .with_agent_output("fetch failed");
        assert_eq!(e.code(), "E_NETWORK");
        assert_eq!(e.message(), "check the connection");
        assert_eq!(e.agent_output(), Some("fetch failed"));
        assert_eq!(
            e.to_string(),
            "check the connection cursor-agent said: fetch failed"
        );
        let replaced = e.with_agent_output("ECONNRESET");
        assert_eq!(replaced.agent_output(), Some("ECONNRESET"));
        assert_eq!(replaced.message(), "check the connection");
        let blank = CoreError::new(ErrorCode::Auth, "log in").with_agent_output("  \n");
        assert_eq!(blank, CoreError::new(ErrorCode::Auth, "log in"));
    }

    #[test]
    fn a_reset_time_travels_with_notes_and_cursors_words() {
        let e = CoreError::new(ErrorCode::Quota, "limit reached.")
            .with_reset(Some(1_798_761_600_000))
            .with_agent_output("limit")
            .with_note(Some("Capture: cap-x."));
        assert_eq!(e.resets_at(), Some(1_798_761_600_000));
        assert_eq!(e.message(), "limit reached. Capture: cap-x.");
    }
}
