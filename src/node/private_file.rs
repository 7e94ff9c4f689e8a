//! Private files and folders for the host (its model cache, its data folder), by the core's rule.

use std::path::Path;

use napi_derive::napi;

use super::error::{invalid_arg, Result};
use crate::core::private_file::{create_folder, write_atomic};

/// Creates `folder` and any missing parent, each new one 0700; an existing one of the user's is
/// narrowed to 0700. Throws `E_INVALID_ARG` when a symbolic link or a file stands there, or it
/// cannot be made.
#[napi(catch_unwind)]
pub fn make_private_folder(folder: String) -> Result<()> {
    create_folder(Path::new(&folder))
        .map_err(|error| invalid_arg(format!("the private folder {folder}: {error}")))
}

/// Replaces `file` with `text` at once (written 0600 beside it, then renamed over it), in a
/// private folder made as `makePrivateFolder` makes it; a link at `file` is replaced, never
/// followed. Throws `E_INVALID_ARG` when it cannot be written.
#[napi(catch_unwind)]
pub fn write_private_file(file: String, text: String) -> Result<()> {
    let path = Path::new(&file);
    path.parent()
        .map_or(Ok(()), create_folder)
        .and_then(|()| write_atomic(path, text.as_bytes()))
        .map_err(|error| invalid_arg(format!("the private file {file}: {error}")))
}
