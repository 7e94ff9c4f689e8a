//! `SessionResumeManager`: its options, the turn it plans, the plan it hands out and takes back,
//! and a failure it is told of.

use std::num::NonZeroUsize;

use crate::core::api::attachments::PlannedAttachments;
use crate::core::attachments::LocalFiles;
use crate::core::error::CoreError;
use crate::core::prompt::Conversation;
use crate::core::resume::{
    ResumeOptions, ResumePlan as Plan, ResumeRequest as Request, MAX_ENTRIES_LIMIT,
};
use crate::core::whole_number::{Positive, WholeNumber};
use crate::core::wire::{wire_struct, Nullable, Objects};

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
        /// Read the files that attachments name by a local path (`file:` URLs): `true` only
        /// for the user's own host (OpenCode's provider). Default `false`: such an attachment
        /// is refused with a line in the prompt and a warning, as a server never reads a path
        /// its client names.
        local_files "localFiles": Option<bool>,
    }
}

impl ResumeRequest {
    /// Runs `work` on the typed request, which borrows from this one.
    pub fn typed<R>(&self, work: impl FnOnce(&Request<'_>) -> R) -> Result<R, CoreError> {
        let tools = self.tools.as_ref().map(|tools| &tools.0);
        let conversation = Conversation::parse(&self.messages.0, tools)?;
        Ok(work(&Request {
            workspace: &self.workspace,
            model: &self.model,
            conversation,
            tools_in_prompt: self.tools_in_prompt.unwrap_or(false),
            conversation_id: self.conversation_id.as_deref().filter(|id| !id.is_empty()),
            local_files: if self.local_files == Some(true) {
                LocalFiles::Read
            } else {
                LocalFiles::Refuse
            },
        }))
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

impl ResumeFailure {
    /// The code, and the text a gone chat is told by: the message, then Cursor's own words.
    pub fn into_parts(self) -> Result<(Option<String>, String), CoreError> {
        if self.code.is_none() && self.message.is_none() {
            return Err(CoreError::invalid_arg(
                "the error must be a string or {code, message}",
            ));
        }
        let message = self.message.unwrap_or_default();
        let text = match self.agent_output {
            Some(said) => format!("{message}\n{said}"),
            None => message,
        };
        Ok((self.code, text))
    }
}
