//! The one error contract: every failure the package reports carries a stable code.

/// A failure with a stable code (`err.code` in JS) and a message that says what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CoreError {
    /// The cursor-agent binary cannot be found or started.
    #[error("{0}")]
    AgentNotFound(String),
    /// Not logged in or invalid API key.
    #[error("{0}")]
    Auth(String),
    /// Usage limit reached (before or after output: either way the answer is incomplete).
    #[error("{0}")]
    Quota(String),
    /// Unknown or unavailable model.
    #[error("{0}")]
    Model(String),
    /// The resumed chat is gone or was silently replaced.
    #[error("{0}")]
    Resume(String),
    /// Cursor's servers could not be reached, or failed to answer, after Cursor's own retries.
    #[error("{0}")]
    Network(String),
    /// Idle or overall timeout hit.
    #[error("{0}")]
    Timeout(String),
    /// The JS output callback threw.
    #[error("{0}")]
    Callback(String),
    /// Any other failure of the agent process.
    #[error("{0}")]
    AgentExit(String),
    /// Bad options from the caller.
    #[error("{0}")]
    InvalidArg(String),
    /// One of the failures above, with what cursor-agent itself printed about it, kept apart
    /// from the package's own explanation: a front end decides whether and where to quote it
    /// (OpenCode, for one, retries any error whose message reads like a transient one).
    #[error("{error} cursor-agent said: {agent_output}")]
    WithAgentOutput {
        error: Box<CoreError>,
        agent_output: String,
    },
}

/// The stable codes, one per [`CoreError`] variant (`err.code` in JS). Bindings map this enum
/// with an exhaustive match, so a new code cannot reach JS undeclared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    AgentNotFound,
    Auth,
    Quota,
    Model,
    Resume,
    Network,
    Timeout,
    Callback,
    AgentExit,
    InvalidArg,
}

impl ErrorCode {
    /// Every code, in declaration order.
    pub const ALL: [Self; 10] = [
        Self::AgentNotFound,
        Self::Auth,
        Self::Quota,
        Self::Model,
        Self::Resume,
        Self::Network,
        Self::Timeout,
        Self::Callback,
        Self::AgentExit,
        Self::InvalidArg,
    ];

    /// The code of its JS text (`E_AUTH`), if it is one.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|code| code.as_str() == text)
    }

    /// The code as JS sees it, e.g. `E_AUTH`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::AgentNotFound => "E_AGENT_NOT_FOUND",
            Self::Auth => "E_AUTH",
            Self::Quota => "E_QUOTA",
            Self::Model => "E_MODEL",
            Self::Resume => "E_RESUME",
            Self::Network => "E_NETWORK",
            Self::Timeout => "E_TIMEOUT",
            Self::Callback => "E_CALLBACK",
            Self::AgentExit => "E_AGENT_EXIT",
            Self::InvalidArg => "E_INVALID_ARG",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Lets a test or a caller compare with the code's text (`code == "E_AUTH"`).
impl PartialEq<&str> for ErrorCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl CoreError {
    /// A bad argument from the caller; `message` names what was wrong.
    pub fn invalid_arg(message: impl Into<String>) -> Self {
        Self::InvalidArg(message.into())
    }

    /// The stable code.
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::AgentNotFound(_) => ErrorCode::AgentNotFound,
            Self::Auth(_) => ErrorCode::Auth,
            Self::Quota(_) => ErrorCode::Quota,
            Self::Model(_) => ErrorCode::Model,
            Self::Resume(_) => ErrorCode::Resume,
            Self::Network(_) => ErrorCode::Network,
            Self::Timeout(_) => ErrorCode::Timeout,
            Self::Callback(_) => ErrorCode::Callback,
            Self::AgentExit(_) => ErrorCode::AgentExit,
            Self::InvalidArg(_) => ErrorCode::InvalidArg,
            Self::WithAgentOutput { error, .. } => error.code(),
        }
    }

    /// `self` with what cursor-agent printed about it; blank output adds nothing.
    pub fn with_agent_output(self, agent_output: impl Into<String>) -> Self {
        let agent_output = agent_output.into();
        if agent_output.trim().is_empty() {
            return self;
        }
        match self {
            Self::WithAgentOutput { error, .. } => Self::WithAgentOutput {
                error,
                agent_output,
            },
            error => Self::WithAgentOutput {
                error: Box::new(error),
                agent_output,
            },
        }
    }

    /// `self` with `note` added to the package's explanation (Cursor's words stay apart).
    pub fn with_note(self, note: &str) -> Self {
        match self {
            Self::WithAgentOutput {
                error,
                agent_output,
            } => Self::WithAgentOutput {
                error: Box::new(error.with_note(note)),
                agent_output,
            },
            error => {
                let code = error.code();
                let message = format!("{} {note}", error.message());
                Self::new(code, message)
            }
        }
    }

    /// The error of `code` with `message` (the inverse of [`code`](Self::code) and
    /// [`message`](Self::message)).
    pub fn new(code: ErrorCode, message: String) -> Self {
        match code {
            ErrorCode::AgentNotFound => Self::AgentNotFound(message),
            ErrorCode::Auth => Self::Auth(message),
            ErrorCode::Quota => Self::Quota(message),
            ErrorCode::Model => Self::Model(message),
            ErrorCode::Resume => Self::Resume(message),
            ErrorCode::Network => Self::Network(message),
            ErrorCode::Timeout => Self::Timeout(message),
            ErrorCode::Callback => Self::Callback(message),
            ErrorCode::AgentExit => Self::AgentExit(message),
            ErrorCode::InvalidArg => Self::InvalidArg(message),
        }
    }

    /// What cursor-agent itself printed about the failure, verbatim (ANSI removed).
    pub fn agent_output(&self) -> Option<&str> {
        match self {
            Self::WithAgentOutput { agent_output, .. } => Some(agent_output),
            _ => None,
        }
    }

    /// The package's explanation: what happened and what to do, without Cursor's own words
    /// (those are in [`Self::agent_output`]; `Display` joins both).
    pub fn message(&self) -> &str {
        match self {
            Self::AgentNotFound(m)
            | Self::Auth(m)
            | Self::Quota(m)
            | Self::Model(m)
            | Self::Resume(m)
            | Self::Network(m)
            | Self::Timeout(m)
            | Self::Callback(m)
            | Self::AgentExit(m)
            | Self::InvalidArg(m) => m,
            Self::WithAgentOutput { error, .. } => error.message(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::CoreError;

    #[test]
    fn every_variant_has_a_distinct_stable_code() {
        let all = [
            CoreError::AgentNotFound(String::new()),
            CoreError::Auth(String::new()),
            CoreError::Quota(String::new()),
            CoreError::Model(String::new()),
            CoreError::Resume(String::new()),
            CoreError::Network(String::new()),
            CoreError::Timeout(String::new()),
            CoreError::Callback(String::new()),
            CoreError::AgentExit(String::new()),
            CoreError::InvalidArg(String::new()),
        ];
        let codes: std::collections::HashSet<_> = all.iter().map(|e| e.code().as_str()).collect();
        assert_eq!(codes.len(), all.len());
        assert!(codes.iter().all(|c| c.starts_with("E_")));
    }

    #[test]
    fn a_code_and_message_make_the_error_again() {
        for code in super::ErrorCode::ALL {
            let error = CoreError::new(code, "why".into());
            assert_eq!(error.code(), code);
            assert_eq!(error.message(), "why");
            assert_eq!(super::ErrorCode::parse(code.as_str()), Some(code));
        }
        assert_eq!(super::ErrorCode::parse("E_NOPE"), None);
    }

    #[test]
    fn a_note_joins_the_explanation_not_cursors_words() {
        let e =
            CoreError::Network("check the connection.".into()).with_agent_output("fetch failed");
        let noted = e.with_note("Capture: cap-abc.");
        assert_eq!(noted.code(), "E_NETWORK");
        assert_eq!(noted.message(), "check the connection. Capture: cap-abc.");
        assert_eq!(noted.agent_output(), Some("fetch failed"));
    }

    #[test]
    fn display_is_the_message() {
        let e = CoreError::Auth("run `cursor-agent login`".into());
        assert_eq!(e.to_string(), "run `cursor-agent login`");
        assert_eq!(e.message(), "run `cursor-agent login`");
        assert_eq!(e.agent_output(), None);
    }

    #[test]
    fn agent_output_is_kept_apart_from_the_explanation() {
        let e = CoreError::Network("check the connection".into()).with_agent_output("fetch failed");
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
        let blank = CoreError::Auth("log in".into()).with_agent_output("  \n");
        assert_eq!(blank, CoreError::Auth("log in".into()));
    }
}
