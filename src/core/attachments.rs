//! Pictures and files a user attaches, handed to cursor-agent the way Cursor documents for its
//! CLI: saved to disk and named by their path in the prompt, for the agent's Read tool to open.
//!
//! Files, each using only those before it: `format` (what Cursor's code opens, and the limits a
//! picture is held to wherever it comes from), `placement` (which attachments a run saves and
//! what the prompt says of each; pure), `pending` (a plan's files, kept in memory for its run),
//! `folder` (the run's private folder).

mod folder;
mod format;
mod pending;
mod placement;

pub use folder::{
    attachments_base, check as check_planned_folder, new_run_folder, remove_left_behind,
    remove_left_behind_once, AttachmentFolder,
};
pub use format::{
    dimensions, not_a_picture, picture_format, PictureFormat, ATTACHMENTS_PER_RUN, FILE_MAX_BYTES,
    PICTURE_FORMATS, PICTURE_MAX_BYTES,
};
pub use pending::{keep as keep_planned_files, kept as kept_planned_files};
pub use placement::{
    named_location, place, place_for_run, LocalFiles, Planned, PlannedFile, Scope,
};

#[cfg(test)]
pub(crate) use format::samples as picture_samples;
