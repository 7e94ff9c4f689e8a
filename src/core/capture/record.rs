//! The capture file: one JSON object per line, in the order things happened. The first line
//! is [`Start`], the last (when the run ended while the host lived) is [`End`]. Times `t` are
//! milliseconds since the capture started (the child's spawn).
//!
//! Pipeline lines (`stdout`, `handOver`, `cutOff`, `close`) hold each input of the run's
//! [`StreamTransformer`](crate::core::stream::transformer::StreamTransformer) with the outputs it
//! produced, so a replay feeds the same inputs to a new one and compares.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::core::error::{CoreError, ErrorCode};
use crate::core::stream::transformer::TransformerOptions;
use crate::core::stream::translate::Outcome;

/// The version of the layout below; a replay refuses others.
pub const CAPTURE_VERSION: u32 = 1;

/// One line of a capture.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Line {
    Start(Box<Start>),
    /// Bytes of stdout. `read` is how many bytes this read of the pipe brought; `data` (or
    /// `base64`, when not UTF-8) is what the capture keeps of stdout at this point: complete
    /// records only (a record's masked spans are known once it is whole), so a record split
    /// over reads appears with the read that completed it.
    #[serde(rename_all = "camelCase")]
    Stdout {
        t: f64,
        read: usize,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        data: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        base64: Option<String>,
        outputs: Vec<Value>,
    },
    /// The step's calls handed to the host (tool mode `opencode`).
    HandOver {
        t: f64,
        calls: Vec<HandedCallRecord>,
        outputs: Vec<Value>,
    },
    /// The host answered these calls (the answers themselves are not kept).
    Answers {
        t: f64,
        ids: Vec<String>,
    },
    /// The child exited (stdout may still be draining).
    #[serde(rename_all = "camelCase")]
    Exit {
        t: f64,
        exit_code: Option<i32>,
        signal: Option<String>,
    },
    /// A last record without its line feed was dropped.
    CutOff {
        t: f64,
    },
    /// The stream closed.
    Close {
        t: f64,
        closing: ClosingRecord,
        outputs: Vec<Value>,
    },
    /// The capture reached its size limit: nothing more of stdout or outputs is kept.
    Truncated {
        t: f64,
    },
    End(Box<End>),
}

/// What the run was started with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Start {
    /// [`CAPTURE_VERSION`].
    pub capture: u32,
    pub name: String,
    /// Milliseconds since the Unix epoch.
    pub started_at_ms: u64,
    /// This package's version.
    pub package: String,
    /// The program and every argument, as started.
    pub argv: Vec<String>,
    /// The child's working folder.
    pub workspace: String,
    /// The names of the child's environment variables (never their values).
    pub env: Vec<String>,
    pub prompt: PromptRecord,
    pub masked: Masked,
    /// The transformer's options, as the run used them (the SSE id and `created` included).
    pub transformer: TransformerOptions,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume_chat_id: Option<String>,
    /// The host's tools (tool mode `opencode`), by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_tools: Option<Vec<String>>,
    /// Which cursor-agent ran, when known at its start (it updates itself between runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_version: Option<AgentVersionRecord>,
}

/// A cursor-agent version and where it was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentVersionRecord {
    pub value: String,
    pub source: AgentVersionSource,
}

/// Where a version was read. Known at the start: the launcher's path. A version Cursor reports
/// in its own stream (`system/init`) arrives later, so it belongs on a later line with a source
/// of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AgentVersionSource {
    /// The release folder the launcher resolves into (`…/cursor-agent/versions/<version>/…`).
    Path,
    /// The `system/init` record of the run's own stream (on the end line).
    Init,
}

impl AgentVersionRecord {
    pub fn from_path(value: impl Into<String>) -> Self {
        Self {
            value: value.into(),
            source: AgentVersionSource::Path,
        }
    }

    pub fn from_init(value: impl Into<String>) -> Self {
        Self {
            value: value.into(),
            source: AgentVersionSource::Init,
        }
    }
}

/// The prompt: its size and hash, the text only when asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptRecord {
    pub bytes: usize,
    /// SHA-256 of its UTF-8 bytes, hex.
    pub sha256: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// What the capture replaced, and with what.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Masked {
    /// Whether the prompt's echo in the `user` record was replaced by [`super::mask::PROMPT_MASK`].
    pub prompt: bool,
    /// The secrets whose values were replaced (each by `[masked NAME]`), by name.
    pub secrets: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandedCallRecord {
    pub id: String,
    pub name: String,
    pub input: String,
}

impl<'a> From<&'a HandedCallRecord> for crate::core::stream::translate::HandedCall<'a> {
    fn from(call: &'a HandedCallRecord) -> Self {
        Self {
            id: &call.id,
            name: &call.name,
            input: &call.input,
        }
    }
}

/// How the stream closed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ClosingRecord {
    /// From the process outcome (the stderr is the tail the run kept).
    Outcome(Outcome),
    /// With a failure the run determined (a timeout, say).
    Failure(ErrorRecord),
}

/// A [`CoreError`] as text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorRecord {
    pub code: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_output: Option<String>,
}

impl From<&CoreError> for ErrorRecord {
    fn from(error: &CoreError) -> Self {
        Self {
            code: error.code().as_str().to_owned(),
            message: error.message().to_owned(),
            agent_output: error.agent_output().map(str::to_owned),
        }
    }
}

impl ErrorRecord {
    /// The error again; `None` for a code this version does not know.
    pub fn to_error(&self) -> Option<CoreError> {
        let error = CoreError::new(ErrorCode::parse(&self.code)?, self.message.clone());
        Some(match &self.agent_output {
            Some(output) => error.with_agent_output(output.clone()),
            None => error,
        })
    }
}

/// How the run ended, written once everything was delivered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct End {
    pub t: f64,
    /// `finished`, `cancelled`, `consumer gone`, `callback threw`, `idle timeout`,
    /// `overall timeout`, `tool wait timeout`, `resume replaced` or `not started`.
    pub ending: String,
    pub exit_code: Option<i32>,
    pub signal: Option<String>,
    pub cancelled: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorRecord>,
    pub skipped_lines: u64,
    /// Outputs handed to the consumer (some may have been held back and discarded, as for a
    /// resumed chat that turned out gone).
    pub delivered: u64,
    /// Bytes read from stdout in all.
    pub stdout_bytes: u64,
    #[serde(default)]
    pub first_stdout_ms: Option<f64>,
    /// Whether the capture stopped keeping data at its size limit.
    pub truncated: bool,
    /// The version the run's `system/init` record named, when it named one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_version: Option<AgentVersionRecord>,
}
