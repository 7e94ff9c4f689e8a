//! The attachments a plan names and a run saves: one declaration for `ResumePlan.attachments`
//! and `RunCursorAgentOptions.attachments`.

use crate::core::attachments::{keep_planned_files, kept_planned_files, Planned};
use crate::core::error::CoreError;
use crate::core::wire::wire_struct;

wire_struct! {
    /// Pictures and files of the user's messages that the plan's prompt names by path. Pass it
    /// to `runCursorAgent` as it is: the run creates `folder` (0700) with the files (0600)
    /// before cursor-agent starts, lets Cursor's Read tool open them (with `hostTools`: a
    /// `Read(<folder>/**)` rule and the hook's exception for that folder alone), and removes the
    /// folder when it ends, however it ends. A host killed before that leaves it behind: the
    /// next host removes it before its first run.
    pub struct PlannedAttachments as named (derive(serde::Serialize, serde::Deserialize, Default), serde(deny_unknown_fields)) {
        /// A new folder of `<temp>/opencode-cursor-native-<uid>/attachments/` (should another
        /// local user have made that first, of `opencode-cursor-native/attachments/` under
        /// `$XDG_RUNTIME_DIR`, else the user's cache folder), named by the plan; any other path is
        /// refused with `E_INVALID_ARG`.
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
    /// One file of `PlannedAttachments`. Its bytes stay in the process that planned it, kept for
    /// the run (the newest plans' files, 160 MiB at most in all); a run handed a plan whose files
    /// are no longer kept is refused with `E_INVALID_ARG`.
    pub struct PlannedAttachment as named (derive(serde::Serialize, serde::Deserialize), serde(deny_unknown_fields)) {
        /// Its name in the folder: random, with the extension Cursor's Read goes by.
        name "name": String,
        /// Its size in bytes.
        bytes "bytes": f64,
    }
}

impl From<Planned> for PlannedAttachments {
    fn from(planned: Planned) -> Self {
        let files = planned
            .files
            .iter()
            .map(|file| PlannedAttachment {
                name: file.name.clone(),
                // Exact: a file is at most a few MiB.
                #[expect(clippy::cast_precision_loss, reason = "sizes far below 2^53")]
                bytes: file.data.len() as f64,
            })
            .collect();
        if planned.has_files() {
            keep_planned_files(&planned.folder, planned.files);
        }
        Self {
            folder: planned.folder,
            files,
            warnings: planned.warnings,
        }
    }
}

impl TryFrom<PlannedAttachments> for Planned {
    type Error = CoreError;

    /// The plan's files, as its process keeps them.
    fn try_from(wire: PlannedAttachments) -> Result<Self, CoreError> {
        let files = if wire.files.is_empty() {
            Vec::new()
        } else {
            let kept = kept_planned_files(&wire.folder).unwrap_or_default();
            let same = kept.len() == wire.files.len()
                && kept.iter().zip(&wire.files).all(|(k, w)| k.name == w.name);
            if !same {
                return Err(CoreError::invalid_arg(format!(
                    "attachments: the files of {} are not kept by this process (a plan's \
                     attachments are run as planned, soon after, by the process that planned them)",
                    wire.folder
                )));
            }
            kept
        };
        Ok(Self {
            folder: wire.folder,
            files,
            warnings: wire.warnings,
        })
    }
}
