//! What goes into a plan and comes out of it: the request, the plan itself, the state it
//! carries for `record`, and a reported failure.

use super::key::{parse_hex, Digest};
use crate::core::attachments::{LocalFiles, Planned};
use crate::core::hex::hex;
use crate::core::prompt::Conversation;

/// One request to plan: where, which model, the conversation, and OpenCode's session id.
#[derive(Debug, Clone)]
pub struct ResumeRequest<'a> {
    pub workspace: &'a str,
    pub model: &'a str,
    pub conversation: Conversation<'a>,
    /// Whether tool definitions are written into the prompt; default false.
    pub tools_in_prompt: bool,
    /// OpenCode's session id; `None` (or empty) falls back to the first user message.
    pub conversation_id: Option<&'a str>,
    /// Whether attachments named by a local path are read.
    pub local_files: LocalFiles,
}

/// What to run: resume a chat with an incremental prompt, or start a fresh one with the full
/// prompt. Plain data; `record_token` is opaque state for
/// [`SessionResumeManager::record`](super::SessionResumeManager::record).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ResumePlan {
    pub session_key: Option<String>,
    pub resume_chat_id: Option<String>,
    pub prompt: String,
    pub incremental: bool,
    pub record_token: Option<String>,
    /// The attachments the prompt names, for the run to save before it starts.
    pub attachments: Option<Planned>,
}

/// The state a plan hands to `record`: the user-message sequence and tool fingerprint the chat
/// will hold once this turn ran.
pub(crate) struct RecordToken {
    pub user_sequence: Digest,
    pub fingerprint: Digest,
}

impl RecordToken {
    pub fn encode(&self) -> String {
        format!("{}.{}", hex(&self.user_sequence), hex(&self.fingerprint))
    }

    pub fn decode(text: &str) -> Option<Self> {
        let (sequence, fingerprint) = text.split_once('.')?;
        Some(Self {
            user_sequence: parse_hex(sequence)?,
            fingerprint: parse_hex(fingerprint)?,
        })
    }
}

/// A failure reported for a plan's run: a stable code when the caller has one, and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure<'a> {
    pub code: Option<&'a str>,
    pub message: &'a str,
}
