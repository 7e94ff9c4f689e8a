//! `SessionResumeManager`: its options, the turn it plans, the plan it hands out and takes back,
//! and a failure it is told of.

use std::num::NonZeroUsize;

use crate::core::api::attachments::PlannedAttachments;
use crate::core::attachments::{named_location, LocalFiles};
use crate::core::error::CoreError;
use crate::core::prompt::Conversation;
use crate::core::resume::{
    ResumeOptions, ResumePlan as Plan, ResumeRequest as Request, MAX_ENTRIES_LIMIT,
};
use crate::core::whole_number::{Positive, WholeNumber};
use crate::core::wire::{wire_struct, Nullable, Objects, WireType};

wire_struct! {
    /// Options of `SessionResumeManager`; any other field is refused.
    pub struct SessionResumeOptions as named (derive(serde::Deserialize, Default), serde(deny_unknown_fields)) {
        /// Resume cursor-agent chats at all. Default `false`. The OpenCode host sets it from
        /// the `CURSOR_ACP_SESSION_RESUME` environment variable:
        /// `parseSwitch(process.env.CURSOR_ACP_SESSION_RESUME, false)`.
        enabled "enabled": Option<bool>,
        /// Conversations kept; the least recently used is evicted first. A whole number from 1
        /// to 1,000,000; default `64`. Nothing is reserved up front: memory grows with what is
        /// kept.
        max_entries "maxEntries": Option<WholeNumber<1, { MAX_ENTRIES_LIMIT as i64 }>>,
        /// Lifetime of an entry, counted from its `record`, in milliseconds. A whole number
        /// from 1 to 2^53 - 1; default `3_600_000` (one hour).
        ttl_ms "ttlMs": Option<Positive>,
    }
}

impl From<SessionResumeOptions> for ResumeOptions {
    fn from(options: SessionResumeOptions) -> Self {
        let defaults = ResumeOptions::default();
        Self {
            enabled: options.enabled.unwrap_or(defaults.enabled),
            max_entries: options
                .max_entries
                .and_then(|n| NonZeroUsize::new(usize::try_from(n.get()).unwrap_or(0)))
                .unwrap_or(defaults.max_entries),
            ttl_ms: options.ttl_ms.map_or(defaults.ttl_ms, Positive::unsigned),
        }
    }
}

/// Where a request's attachments may come from (`ResumeRequest.attachmentSources`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AttachmentSources {
    #[default]
    Named,
    Local,
    Bytes,
}

impl WireType for AttachmentSources {
    #[cfg(test)]
    fn typescript(_: usize) -> String {
        "'named' | 'local' | 'bytes'".into()
    }
}

wire_struct! {
    /// One turn to plan; read as the JSON data `JSON.stringify` makes of it.
    pub struct ResumeRequest as named (derive(serde::Deserialize), serde(deny_unknown_fields)) {
        /// The workspace cursor-agent runs in (part of the key).
        workspace "workspace": String,
        /// The model, with or without the `cursor-acp/` prefix (the concrete model is part of
        /// the key).
        model "model": String,
        /// OpenAI chat messages or AI SDK V3 prompt messages (`file` data already base64).
        messages "messages": Objects,
        /// Tool definitions, OpenAI `{type: 'function', function: {name, description,
        /// parameters}}` or V3 `{type: 'function', name, description, inputSchema}` (provider
        /// tools count by name). They always feed the tool fingerprint.
        tools "tools": Option<Objects>,
        /// Write the tool definitions into the prompt. Default `false`.
        tools_in_prompt "toolsInPrompt": Option<bool>,
        /// OpenCode's session id (`X-Session-Id`); when given it identifies the conversation
        /// instead of the hash of the first user message.
        conversation_id "conversationId": Option<String>,
        /// Where attachments may come from. `'named'` (the default): their bytes, or a URL the
        /// prompt names as it is; one that names a local path (a `file:` URL) is refused with a
        /// line in the prompt and a warning. `'local'`, only for the user's own host (OpenCode's
        /// provider): a local path is read too. `'bytes'`, for a server's client: only their
        /// bytes, and a request whose attachment names a URL or a path is refused with
        /// `E_INVALID_ARG` (the server fetches nothing, and never reads a path its client names).
        attachment_sources "attachmentSources": Option<AttachmentSources>,
        /// Take the system prompt out of the conversation and hand it back as the plan's
        /// `instructions`, for `hostTools.instructions` (Cursor's rules channel, which Cursor's
        /// models follow where they may refuse a host's system prompt sent as prompt text):
        /// every `system` and `developer` message, when all of them are text. Default `false`:
        /// they stay in the prompt.
        instructions_apart "instructionsApart": Option<bool>,
    }
}

impl ResumeRequest {
    /// The plan `plan` makes of the typed request, which borrows from this one.
    pub fn plan_with(
        &self,
        plan: impl FnOnce(&Request<'_>) -> Plan,
    ) -> Result<ResumePlan, CoreError> {
        let tools = self.tools.as_ref().map(|tools| &tools.0);
        let mut conversation = Conversation::parse(&self.messages.0, tools)?;
        let sources = self.attachment_sources.unwrap_or_default();
        if let (AttachmentSources::Bytes, Some(named)) = (sources, named_location(&conversation)) {
            let shown: String = named.chars().take(200).collect();
            let cut = if shown.len() < named.len() { "…" } else { "" };
            return Err(CoreError::invalid_arg(format!(
                "An attachment names {:?}, but this server fetches nothing: send its bytes \
                 instead, as a data URL (data:image/png;base64,...).",
                format!("{shown}{cut}")
            )));
        }
        let instructions = if self.instructions_apart == Some(true) {
            conversation.take_instructions()
        } else {
            None
        };
        let made = plan(&Request {
            workspace: &self.workspace,
            model: &self.model,
            conversation,
            tools_in_prompt: self.tools_in_prompt.unwrap_or(false),
            conversation_id: self.conversation_id.as_deref().filter(|id| !id.is_empty()),
            local_files: if sources == AttachmentSources::Local {
                LocalFiles::Read
            } else {
                LocalFiles::Refuse
            },
        });
        Ok(ResumePlan {
            instructions: Nullable(instructions),
            ..made.into()
        })
    }
}

wire_struct! {
    /// How to run one turn. Plain JSON-safe data: a JSON round trip keeps it usable, and fields
    /// a caller adds are ignored when it is handed back.
    pub struct ResumePlan as named (derive(serde::Serialize, serde::Deserialize, Default), serde(default)) {
        /// The conversation's cache key; `null` when resume is disabled, for a title request, or
        /// when the conversation has no anchor.
        session_key "sessionKey": Nullable<String>,
        /// When set, run `cursor-agent --resume <resumeChatId>`.
        resume_chat_id "resumeChatId": Nullable<String>,
        /// What to write to cursor-agent's stdin.
        prompt "prompt": String,
        /// `true` when `prompt` holds only the new messages.
        incremental "incremental": bool,
        /// Opaque state for `record`.
        record_token "recordToken": Nullable<String>,
        /// The attachments the prompt names, for `runCursorAgent`'s `attachments`; `null` when
        /// the messages it covers hold none. A resumed chat's plan covers the newest user
        /// message; a fresh chat's covers every user message, newest first, up to 8 files
        /// (earlier ones past that are named by a line, not sent).
        // Not read back by `record` or `reportFailure`, which need none of it: their plan's
        // files (up to 80 MiB of base64) are skipped, not converted.
        #[serde(skip_deserializing)]
        attachments "attachments": Nullable<PlannedAttachments>,
        /// With `instructionsApart`: the system prompt taken out of the prompt, for
        /// `hostTools.instructions`; else `null`.
        // Not read back either: `record` and `reportFailure` need none of it.
        #[serde(skip_deserializing)]
        instructions "instructions": Nullable<String>,
    }
}

impl From<Plan> for ResumePlan {
    fn from(plan: Plan) -> Self {
        Self {
            session_key: Nullable(plan.session_key),
            resume_chat_id: Nullable(plan.resume_chat_id),
            prompt: plan.prompt,
            incremental: plan.incremental,
            record_token: Nullable(plan.record_token),
            attachments: Nullable(plan.attachments.map(PlannedAttachments::from)),
            instructions: Nullable(None),
        }
    }
}

impl From<ResumePlan> for Plan {
    fn from(plan: ResumePlan) -> Self {
        Self {
            session_key: plan.session_key.0,
            resume_chat_id: plan.resume_chat_id.0,
            prompt: plan.prompt,
            incremental: plan.incremental,
            record_token: plan.record_token.0,
            // Never read back (see the field); a run takes them through its own option.
            attachments: None,
        }
    }
}

wire_struct! {
    /// A failure reported by `runCursorAgent` (`RunResult.error`), or any object with a `code`
    /// or a `message`; its other fields are not read.
    pub struct ResumeFailure as named (derive(serde::Deserialize)) {
        /// A stable code such as `E_RESUME` or `E_NETWORK`.
        code "code": Option<String>,
        /// The error text.
        message "message": Option<String>,
        /// What cursor-agent said, which tells a gone chat from a transient fault.
        agent_output "agentOutput": Option<String>,
    }
}

/// `reportFailure`'s error: the text of a failure, or a failure report.
#[derive(serde::Deserialize)]
#[serde(untagged, expecting = "a string or {code, message}")]
pub enum FailureArgument {
    Text(String),
    Report(ResumeFailure),
}

impl FailureArgument {
    /// The code, and the text a gone chat is told by: the message, then Cursor's own words.
    pub fn into_parts(self) -> Result<(Option<String>, String), CoreError> {
        let report = match self {
            Self::Text(message) => return Ok((None, message)),
            Self::Report(report) => report,
        };
        if report.code.is_none() && report.message.is_none() {
            return Err(CoreError::invalid_arg(
                "the error must be a string or {code, message}",
            ));
        }
        let message = report.message.unwrap_or_default();
        let text = match report.agent_output {
            Some(said) => format!("{message}\n{said}"),
            None => message,
        };
        Ok((report.code, text))
    }
}
