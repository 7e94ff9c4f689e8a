//! Which attachments of a conversation a run saves for Cursor, and what the prompt says of each.
//!
//! Cursor's CLI takes a picture the way its headless documentation says: saved to disk and named
//! by its path in the prompt, for the agent's Read tool to open. The rules:
//!
//! * Only user messages' attachments are saved. A tool's picture reaches the model another way
//!   (in tool mode `opencode`, inside the tool's result, held to the same limits).
//! * A resumed chat ([`Scope::Newest`]) gets the newest user message's attachments only, and only
//!   when that message is the one the run sends (not when tool results follow it): Cursor's chat
//!   already holds what it read of earlier ones.
//! * A fresh chat ([`Scope::Conversation`]) starts with nothing, and a follow-up question about an
//!   earlier screenshot needs that screenshot: the newest message's attachments are saved first,
//!   then earlier messages' from the newest back, up to [`ATTACHMENTS_PER_RUN`]. An earlier one
//!   past the limit is named by a short line (type, size), not sent; the newest message's extra
//!   ones are refused with the reason.
//! * An attachment that cannot be sent (a format Cursor cannot decode, corrupt data, over the
//!   size limit) becomes a line that says why, and when it is in the message this request adds,
//!   a warning for the user too. An earlier message's problems were reported when it was sent.

use std::borrow::Cow;
use std::path::Path;
use std::sync::Arc;

use base64::Engine;

use super::format::{
    dimensions, is_pdf, is_text, not_a_picture, picture_format, ATTACHMENTS_PER_RUN,
    FILE_MAX_BYTES, PICTURE_MAX_BYTES,
};
use crate::core::prompt::{
    data_url, Conversation, DataUrl, Media, MediaKind, MediaSource, Part, Role,
};

/// Which messages' attachments a run saves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The newest user message's only, when it is the last message (a resumed chat).
    Newest,
    /// Every user message's, newest first, up to the limit (a fresh chat).
    Conversation,
}

/// Whether an attachment named by a local path (a `file:` URL) is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LocalFiles {
    /// The user's own host named one of its user's files (OpenCode's provider): read it.
    Read,
    /// Refused: a server never reads a path its client names.
    Refuse,
}

/// The first attachment of `conversation` that names where its bytes are (a URL or a local
/// path) instead of carrying them, with what it names: refused for a server's client, since the
/// server fetches nothing and never reads a path its client names.
pub fn named_location<'a>(conversation: &Conversation<'a>) -> Option<Cow<'a, str>> {
    let mut parts = conversation.messages.iter().flat_map(|m| &m.parts);
    parts.find_map(|part| match part {
        Part::Media(Media {
            source: MediaSource::Url(url),
            ..
        }) => Some(Cow::Borrowed(*url)),
        Part::Media(Media {
            source: MediaSource::Path(path),
            ..
        }) => Some(path.clone()),
        _ => None,
    })
}

/// One file a run writes before cursor-agent starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedFile {
    /// Its name in the run's folder: random, with the extension Cursor's Read goes by.
    pub name: String,
    /// Its bytes, shared: a plan's files are kept for its run, not copied.
    pub data: Arc<[u8]>,
}

/// The files a run saves for Cursor, and what the user should be told.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Planned {
    /// The run's folder, which the prompt's paths are in (created by the run).
    pub folder: String,
    pub files: Vec<PlannedFile>,
    /// One sentence per attachment of the newest message that is not sent.
    pub warnings: Vec<String>,
}

impl Planned {
    /// Whether the run has anything to save: a plan of refusals only (a URL kept, a picture
    /// refused) makes no folder and grants no read.
    pub fn has_files(&self) -> bool {
        !self.files.is_empty()
    }
}

/// What becomes of one attachment.
enum Verdict {
    Save {
        bytes: Vec<u8>,
        extension: &'static str,
    },
    Refuse {
        bytes: Option<usize>,
        reason: String,
    },
    /// Left as it is: a URL or a provider's file id, which the prompt names as before.
    Keep,
}

/// `conversation` with the attachments `scope` covers placed in `folder` (a path the run
/// creates; nothing is written here), and the files to write there.
pub fn place<'a>(
    conversation: &Conversation<'a>,
    scope: Scope,
    local_files: LocalFiles,
    folder: &Path,
) -> (Conversation<'a>, Planned) {
    let mut placed = conversation.clone();
    let mut planned = Planned {
        folder: folder.to_string_lossy().into_owned(),
        ..Planned::default()
    };
    let newest_is_last = newest_user_is_last(conversation);
    for (order, index) in covered(conversation, scope).into_iter().enumerate() {
        let newest = order == 0;
        for part in &mut placed.messages[index].parts {
            let Part::Media(media) = part else { continue };
            // Past the limit, an earlier message's attachment is only named; the newest
            // message's is refused with the reason.
            let full = planned.files.len() >= ATTACHMENTS_PER_RUN;
            let source = match verdict(media, local_files) {
                Verdict::Keep => continue,
                Verdict::Save { bytes, .. } if full && !newest => MediaSource::Earlier {
                    bytes: Some(bytes.len()),
                },
                Verdict::Refuse { bytes, .. } if full && !newest => MediaSource::Earlier { bytes },
                Verdict::Save { bytes, .. } if full => MediaSource::Refused {
                    bytes: Some(bytes.len()),
                    reason: format!(
                        "a run takes at most {ATTACHMENTS_PER_RUN} attachments, and this one came after them"
                    ),
                },
                Verdict::Save { bytes, extension } => {
                    let name = format!("{}.{extension}", uuid::Uuid::new_v4().simple());
                    let source = MediaSource::Saved {
                        path: folder.join(&name).to_string_lossy().into_owned(),
                        bytes: bytes.len(),
                        dimensions: dimensions(&bytes),
                        earlier: !newest,
                    };
                    planned.files.push(PlannedFile {
                        name,
                        data: bytes.into(),
                    });
                    source
                }
                Verdict::Refuse { bytes, reason } => MediaSource::Refused { bytes, reason },
            };
            if let (true, true, MediaSource::Refused { reason, .. }) =
                (newest, newest_is_last, &source)
            {
                planned.warnings.push(warning(media, reason));
            }
            media.source = source;
        }
    }
    (placed, planned)
}

/// [`place`] in a new folder of [`super::attachments_base`] when a user message of `scope` holds
/// an attachment; else the conversation as it is and nothing to write.
pub fn place_for_run<'c, 'a>(
    conversation: &'c Conversation<'a>,
    scope: Scope,
    local_files: LocalFiles,
) -> (Cow<'c, Conversation<'a>>, Option<Planned>) {
    let attached = |index: usize| {
        conversation.messages[index]
            .parts
            .iter()
            .any(|p| matches!(p, Part::Media(_)))
    };
    if !covered(conversation, scope).into_iter().any(attached) {
        return (Cow::Borrowed(conversation), None);
    }
    let (placed, planned) = place(conversation, scope, local_files, &super::new_run_folder());
    let planned = (planned.has_files() || !planned.warnings.is_empty()).then_some(planned);
    (Cow::Owned(placed), planned)
}

/// The indexes of the user messages `scope` covers, newest first. A resumed chat's newest user
/// message is covered only when it is the last message, the one this run sends: after it come
/// tool results, and its attachments went with the run that sent it.
fn covered(conversation: &Conversation<'_>, scope: Scope) -> Vec<usize> {
    let users = conversation
        .messages
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, m)| m.role == Role::User)
        .map(|(index, _)| index);
    match scope {
        Scope::Newest if newest_user_is_last(conversation) => users.take(1).collect(),
        Scope::Newest => Vec::new(),
        Scope::Conversation => users.collect(),
    }
}

/// Whether the last message is a user's (the request adds it).
fn newest_user_is_last(conversation: &Conversation<'_>) -> bool {
    conversation
        .messages
        .last()
        .is_some_and(|m| m.role == Role::User)
}

/// The sentence a user is shown for an attachment that was not sent.
fn warning(media: &Media<'_>, reason: &str) -> String {
    let what = match (media.filename, media.media_type) {
        (Some(name), _) => format!("\"{name}\""),
        (None, Some(media_type)) => format!("({media_type})"),
        (None, None) => String::new(),
    };
    let kind = media.kind.label();
    let what = if what.is_empty() {
        format!("An attached {kind}")
    } else {
        format!("The attached {kind} {what}")
    };
    format!("{what} was not sent to Cursor: {reason}.")
}

fn verdict(media: &Media<'_>, local_files: LocalFiles) -> Verdict {
    let bytes = match &media.source {
        MediaSource::Inline {
            data: Some(data), ..
        } => match decode(data) {
            Ok(bytes) => bytes,
            Err(reason) => {
                return Verdict::Refuse {
                    bytes: None,
                    reason,
                }
            }
        },
        MediaSource::Inline { data: None, bytes } => {
            return Verdict::Refuse {
                bytes: Some(*bytes),
                reason: "its bytes did not arrive as base64 text".to_owned(),
            }
        }
        MediaSource::Path(_) if local_files == LocalFiles::Refuse => {
            return Verdict::Refuse {
                bytes: None,
                reason: "it names a file on the server's machine, which the server never reads for a client (send its bytes instead)".to_owned(),
            }
        }
        MediaSource::Path(path) => match read_path(path) {
            Ok(bytes) => bytes,
            Err(refused) => return refused,
        },
        _ => return Verdict::Keep,
    };
    judge(media.kind, media.media_type, bytes)
}

/// Whether Cursor can take `bytes`, declared as `kind` of `media_type`.
fn judge(kind: MediaKind, media_type: Option<&str>, bytes: Vec<u8>) -> Verdict {
    let refuse = |bytes: &[u8], reason: String| Verdict::Refuse {
        bytes: Some(bytes.len()),
        reason,
    };
    if kind == MediaKind::Audio {
        return refuse(&bytes, "Cursor's models take no audio".to_owned());
    }
    if bytes.is_empty() {
        return refuse(&bytes, "it is empty".to_owned());
    }
    if let Some(format) = picture_format(&bytes) {
        let Some(extension) = format.read_extension else {
            let name = format.name.to_ascii_uppercase();
            return refuse(
                &bytes,
                format!("Cursor's Read tool does not open {name} pictures"),
            );
        };
        if bytes.len() > PICTURE_MAX_BYTES {
            let limit =
                format!("it is larger than the {PICTURE_MAX_BYTES}-byte limit for a picture");
            return refuse(&bytes, limit);
        }
        match not_a_picture(format, &bytes) {
            None => return Verdict::Save { bytes, extension },
            Some(why) if kind == MediaKind::Image => return refuse(&bytes, why),
            // A file that only begins like a picture (a text starting `BM`) is judged as a file.
            Some(_) => {}
        }
    }
    if kind == MediaKind::Image {
        let reason = if media_type.is_some_and(|t| t.eq_ignore_ascii_case("image/svg+xml")) {
            "Cursor cannot decode SVG pictures (a PNG of it would do)".to_owned()
        } else {
            "its bytes are not a PNG, JPEG, GIF, WebP or BMP picture (the data may be corrupt)"
                .to_owned()
        };
        return refuse(&bytes, reason);
    }
    let extension = if is_pdf(&bytes) {
        "pdf"
    } else if is_text(&bytes) {
        "txt"
    } else {
        let what = media_type.unwrap_or("this kind of file");
        return refuse(
            &bytes,
            format!("Cursor's Read tool opens pictures, PDFs and text, not {what}"),
        );
    };
    if bytes.len() > FILE_MAX_BYTES {
        return refuse(
            &bytes,
            format!("it is larger than the {FILE_MAX_BYTES}-byte limit for a file"),
        );
    }
    Verdict::Save { bytes, extension }
}

/// The bytes of base64 text or a `data:` URL.
fn decode(data: &str) -> Result<Vec<u8>, String> {
    let payload = match data_url(data) {
        None => data,
        Some(DataUrl::Base64(payload)) => payload,
        Some(DataUrl::Text(_)) => return Err("its data URL is not base64-encoded".to_owned()),
        Some(DataUrl::NoData) => return Err("its data URL has no data".to_owned()),
    };
    let clean: Cow<'_, str> = if payload.bytes().any(|b| b.is_ascii_whitespace()) {
        Cow::Owned(payload.split_ascii_whitespace().collect())
    } else {
        Cow::Borrowed(payload)
    };
    base64::engine::general_purpose::STANDARD
        .decode(clean.as_bytes())
        .map_err(|_| "its data is not valid base64 (a corrupt paste or upload)".to_owned())
}

/// The bytes of a local file an attachment names (`file:` URL), or why it cannot be sent.
fn read_path(path: &str) -> Result<Vec<u8>, Verdict> {
    let refuse = |bytes: Option<usize>, reason: String| Verdict::Refuse { bytes, reason };
    let limit = PICTURE_MAX_BYTES.max(FILE_MAX_BYTES);
    let metadata = std::fs::metadata(path)
        .map_err(|error| refuse(None, format!("its file could not be read ({error})")))?;
    if !metadata.is_file() {
        return Err(refuse(None, "its path is not a file".to_owned()));
    }
    let size = usize::try_from(metadata.len()).unwrap_or(usize::MAX);
    if size > limit {
        return Err(refuse(
            Some(size),
            format!("it is larger than the {limit}-byte limit"),
        ));
    }
    std::fs::read(path)
        .map_err(|error| refuse(None, format!("its file could not be read ({error})")))
}

#[cfg(test)]
mod tests;
