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
    /// Usage limit reached before any output.
    #[error("{0}")]
    Quota(String),
    /// Unknown or unavailable model.
    #[error("{0}")]
    Model(String),
    /// The resumed chat is gone or was silently replaced.
    #[error("{0}")]
    Resume(String),
    /// Connection failures after Cursor's own retries.
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
}

impl CoreError {
    /// The stable code, e.g. `E_AUTH`.
    pub fn code(&self) -> &'static str {
        match self {
            Self::AgentNotFound(_) => "E_AGENT_NOT_FOUND",
            Self::Auth(_) => "E_AUTH",
            Self::Quota(_) => "E_QUOTA",
            Self::Model(_) => "E_MODEL",
            Self::Resume(_) => "E_RESUME",
            Self::Network(_) => "E_NETWORK",
            Self::Timeout(_) => "E_TIMEOUT",
            Self::Callback(_) => "E_CALLBACK",
            Self::AgentExit(_) => "E_AGENT_EXIT",
            Self::InvalidArg(_) => "E_INVALID_ARG",
        }
    }

    /// The human-readable message.
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
        let codes: std::collections::HashSet<_> = all.iter().map(CoreError::code).collect();
        assert_eq!(codes.len(), all.len());
        assert!(codes.iter().all(|c| c.starts_with("E_")));
    }

    #[test]
    fn display_is_the_message() {
        let e = CoreError::Auth("run `cursor-agent login`".into());
        assert_eq!(e.to_string(), "run `cursor-agent login`");
        assert_eq!(e.message(), "run `cursor-agent login`");
    }
}
