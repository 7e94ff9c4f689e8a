//! The attachments a plan names and a run saves: one declaration for `ResumePlan.attachments`
//! and `RunCursorAgentOptions.attachments`.

use crate::core::attachments::{Planned, PlannedFile};
use crate::core::wire::wire_struct;

wire_struct! {
    /// Pictures and files of the user's messages that the plan's prompt names by path. Pass it
    /// to `runCursorAgent` as it is: the run creates `folder` (0700) with the files (0600)
    /// before cursor-agent starts, lets Cursor's Read tool open them (with `hostTools`: a
    /// `Read(<folder>/**)` rule and the hook's exception for that folder alone), and removes the
    /// folder when it ends, however it ends. A host killed before that leaves it behind: the
    /// next host removes it before its first run.
    pub struct PlannedAttachments as named (derive(serde::Serialize, serde::Deserialize, Default), serde(deny_unknown_fields)) {
        /// A new folder of `<temp>/opencode-cursor-native-<uid>/attachments/`, named by the
        /// plan; any other path is refused with `E_INVALID_ARG`.
        folder "folder": String,
        /// The files, at most 8. A picture is PNG, JPEG, GIF, WebP or BMP and at most 10 MiB
        /// (the limit a host tool's picture is held to); a PDF or a text file at most 10 MiB.
        files "files": Vec<PlannedAttachment>,
        /// What the user should be told: one sentence for each attachment of the newest message
        /// that was not sent (the prompt says the same to the model). A run given them tells
        /// them as its `stream-start` part's warnings (`ai-sdk`), which OpenCode shows.
        warnings "warnings": Vec<String>,
    }
}

wire_struct! {
    /// One file of `PlannedAttachments`.
    pub struct PlannedAttachment as named (derive(serde::Serialize, serde::Deserialize), serde(deny_unknown_fields)) {
        /// Its name in the folder: random, with the extension Cursor's Read goes by.
        name "name": String,
        /// Its bytes, base64.
        data "data": String,
    }
}

impl From<Planned> for PlannedAttachments {
    fn from(planned: Planned) -> Self {
        Self {
            folder: planned.folder,
            files: planned
                .files
                .into_iter()
                .map(|file| PlannedAttachment {
                    name: file.name,
                    data: file.data,
                })
                .collect(),
            warnings: planned.warnings,
        }
    }
}

impl From<PlannedAttachments> for Planned {
    fn from(wire: PlannedAttachments) -> Self {
        Self {
            folder: wire.folder,
            files: wire
                .files
                .into_iter()
                .map(|file| PlannedFile {
                    name: file.name,
                    data: file.data,
                })
                .collect(),
            warnings: wire.warnings,
        }
    }
}
