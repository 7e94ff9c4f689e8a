//! Images, files and audio attached to a message: the media types, their OpenAI and AI SDK V3
//! part shapes, and where their bytes are (`http(s):` and `file:` URLs, `data:` URLs, base64).

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::fields::{required_str, str_field, within};
use crate::core::error::CoreError;

/// An image or file attached to a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Media<'a> {
    pub kind: MediaKind,
    pub media_type: Option<&'a str>,
    pub filename: Option<&'a str>,
    pub source: MediaSource<'a>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaKind {
    Image,
    File,
    Audio,
}

impl MediaKind {
    pub fn label(self) -> &'static str {
        match self {
            Self::Image => "image",
            Self::File => "file",
            Self::Audio => "audio",
        }
    }
}

/// Where the bytes of a [`Media`] are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MediaSource<'a> {
    /// A URL Cursor can fetch (`http:`/`https:`).
    Url(&'a str),
    /// A local path Cursor can read (from a `file:` URL).
    Path(Cow<'a, str>),
    /// Bytes carried inline (base64 or a `data:` URL); `data` is the encoded text when there
    /// is one, and feeds the conversation anchor.
    Inline { bytes: usize, data: Option<&'a str> },
    /// A provider-side file id (OpenAI `file_id`), not readable by Cursor.
    FileId(&'a str),
    /// Saved for this run where Cursor's Read tool opens it.
    Saved {
        path: String,
        bytes: usize,
        dimensions: Option<(u32, u32)>,
        /// Attached to an earlier message (sent again to a fresh chat): the model need not open
        /// it unless it needs it again.
        earlier: bool,
    },
    /// Not handed to Cursor; `reason` says why, in words the model can pass on to the user.
    Refused {
        bytes: Option<usize>,
        reason: String,
    },
    /// An earlier message's attachment, not sent again with this run.
    Earlier { bytes: Option<usize> },
}

pub(super) fn parse_openai_image(object: &Map<String, Value>) -> Result<Media<'_>, CoreError> {
    let url = match object.get("image_url") {
        Some(Value::String(url)) => url.as_str(),
        Some(Value::Object(inner)) => {
            required_str(inner, "url").map_err(|e| within("image_url", &e))?
        }
        _ => return Err(CoreError::invalid_arg("`image_url.url` must be a string")),
    };
    Ok(Media {
        kind: MediaKind::Image,
        media_type: data_url_media_type(url),
        filename: None,
        source: source_from_url(url),
    })
}

pub(super) fn parse_openai_audio(object: &Map<String, Value>) -> Media<'_> {
    let inner = object.get("input_audio").and_then(Value::as_object);
    let data = inner.and_then(|i| str_field(i, "data"));
    Media {
        kind: MediaKind::Audio,
        media_type: inner.and_then(|i| name_field(i, "format")),
        filename: None,
        source: MediaSource::Inline {
            bytes: data.map_or(0, base64_decoded_len),
            data,
        },
    }
}

pub(super) fn parse_openai_file(object: &Map<String, Value>) -> Media<'_> {
    let inner = object.get("file").and_then(Value::as_object);
    let filename = inner.and_then(|i| name_field(i, "filename"));
    let source = match (
        inner.and_then(|i| str_field(i, "file_data")),
        inner.and_then(|i| str_field(i, "file_id")),
    ) {
        (Some(data), _) => source_from_data(data),
        (None, Some(id)) => MediaSource::FileId(id),
        (None, None) => without_data(0),
    };
    let media_type = match &source {
        MediaSource::Inline {
            data: Some(data), ..
        } => data_url_media_type(data),
        _ => None,
    };
    Media {
        kind: MediaKind::File,
        media_type,
        filename,
        source,
    }
}

/// V3 `file` parts (`data`, `mediaType`, `filename`), legacy `image` parts (`image`), and V3 tool
/// output `media`/`image-data`/`file-data` parts.
pub(super) fn parse_v3_file<'a>(object: &'a Map<String, Value>, kind: &str) -> Media<'a> {
    let media_type = name_field(object, "mediaType").or_else(|| name_field(object, "mimeType"));
    let data = object.get("data").or_else(|| object.get("image"));
    let source = match data {
        Some(Value::String(data)) => source_from_data(data),
        // Bytes that reached us as an object (a typed array or a URL without toJSON).
        Some(Value::Object(map)) => without_data(map.len()),
        Some(Value::Array(items)) => without_data(items.len()),
        _ => without_data(0),
    };
    let is_image = kind == "image"
        || kind == "image-data"
        || media_type.is_some_and(|t| t.starts_with("image/"));
    Media {
        kind: if is_image {
            MediaKind::Image
        } else {
            MediaKind::File
        },
        media_type,
        filename: name_field(object, "filename"),
        source,
    }
}

/// V3 tool output `image-url` and `file-url` parts.
pub(super) fn parse_v3_url<'a>(
    object: &'a Map<String, Value>,
    kind: &str,
) -> Result<Media<'a>, CoreError> {
    let url = required_str(object, "url")?;
    let kind = if kind == "image-url" {
        MediaKind::Image
    } else {
        MediaKind::File
    };
    Ok(Media {
        kind,
        media_type: name_field(object, "mediaType"),
        filename: None,
        source: source_from_url(url),
    })
}

/// A file name or media type: one left empty names nothing, and is never shown.
fn name_field<'a>(object: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    str_field(object, key).filter(|text| !text.trim().is_empty())
}

/// Inline bytes that did not arrive as text (`bytes` counts what did arrive).
fn without_data(bytes: usize) -> MediaSource<'static> {
    MediaSource::Inline { bytes, data: None }
}

/// `data` is a URL (`http(s):`, `file:`, `data:`) or base64.
fn source_from_data(data: &str) -> MediaSource<'_> {
    if ["http:", "https:", "file:", "data:"]
        .iter()
        .any(|scheme| has_scheme(data, scheme))
    {
        source_from_url(data)
    } else {
        MediaSource::Inline {
            bytes: base64_decoded_len(data),
            data: Some(data),
        }
    }
}

/// What a `data:` URL carries after its comma.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataUrl<'a> {
    /// Base64 (`;base64` ends the part before the comma, in any case).
    Base64(&'a str),
    /// Text as it is (percent-encoded, by the standard).
    Text(&'a str),
    /// No comma: no data at all.
    NoData,
}

/// The payload of `text` when it is a `data:` URL; `None` for anything else.
pub fn data_url(text: &str) -> Option<DataUrl<'_>> {
    if !has_scheme(text, "data:") {
        return None;
    }
    Some(match text.split_once(',') {
        None => DataUrl::NoData,
        Some((head, payload)) if head.to_ascii_lowercase().ends_with(";base64") => {
            DataUrl::Base64(payload)
        }
        Some((_, payload)) => DataUrl::Text(payload),
    })
}

fn source_from_url(url: &str) -> MediaSource<'_> {
    if let Some(data) = data_url(url) {
        let bytes = match data {
            DataUrl::Base64(payload) => base64_decoded_len(payload),
            DataUrl::Text(payload) => payload.len(),
            DataUrl::NoData => 0,
        };
        MediaSource::Inline {
            bytes,
            data: Some(url),
        }
    } else if has_scheme(url, "file:") {
        MediaSource::Path(file_url_to_path(url))
    } else {
        MediaSource::Url(url)
    }
}

fn has_scheme(text: &str, scheme: &str) -> bool {
    text.get(..scheme.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(scheme))
}

fn data_url_media_type(url: &str) -> Option<&str> {
    if !has_scheme(url, "data:") {
        return None;
    }
    let head = url.get(5..)?.split([',', ';']).next()?;
    (!head.is_empty()).then_some(head)
}

/// `file:///a/b%20c` -> `/a/b c` (percent-decoded; a host other than empty/localhost is kept).
fn file_url_to_path(url: &str) -> Cow<'_, str> {
    let rest = &url[5..];
    let path = match rest.strip_prefix("//") {
        Some(after) => match after.find('/') {
            Some(0) => after,
            Some(slash) if after[..slash].eq_ignore_ascii_case("localhost") => &after[slash..],
            _ => rest,
        },
        None => rest,
    };
    if !path.contains('%') {
        return Cow::Borrowed(path);
    }
    let bytes = path.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
            if let Some(value) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                decoded.push(value);
                i += 3;
                continue;
            }
        }
        decoded.push(bytes[i]);
        i += 1;
    }
    Cow::Owned(String::from_utf8_lossy(&decoded).into_owned())
}

/// Decoded size of base64 text (whitespace ignored).
fn base64_decoded_len(data: &str) -> usize {
    let significant = data.bytes().filter(|b| !b.is_ascii_whitespace()).count();
    let padding = data
        .bytes()
        .rev()
        .filter(|b| !b.is_ascii_whitespace())
        .take(2)
        .filter(|&b| b == b'=')
        .count();
    (significant / 4) * 3
        + match significant % 4 {
            2 => 1,
            3 => 2,
            _ => 0,
        }
        - if significant % 4 == 0 { padding } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_data_url_is_read_in_any_case() {
        let table = [
            ("data:image/png;base64,AAAA", Some(DataUrl::Base64("AAAA"))),
            ("DATA:image/png;BASE64,AA==", Some(DataUrl::Base64("AA=="))),
            (
                "data:text/plain,hi%20there",
                Some(DataUrl::Text("hi%20there")),
            ),
            ("data:image/png;base64", Some(DataUrl::NoData)),
            ("https://example.com/a.png", None),
            ("AAAA", None),
        ];
        for (text, expected) in table {
            assert_eq!(data_url(text), expected, "{text}");
        }
    }

    use crate::core::prompt::{conversation_of, Part};

    #[test]
    fn media_sources() {
        let request = json!({"messages": [{"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
            {"type": "file", "mediaType": "application/pdf", "data": "file:///home/u/My%20Doc.pdf", "filename": "My Doc.pdf"},
            {"type": "file", "mediaType": "image/jpeg", "data": "QUJDRA=="},
            {"type": "input_audio", "input_audio": {"data": "AAAAAA==", "format": "wav"}},
        ]}]});
        let c = conversation_of(&request);
        let sources: Vec<_> = c.messages[0]
            .parts
            .iter()
            .map(|p| match p {
                Part::Media(m) => (m.kind, m.media_type, m.source.clone()),
                other => panic!("media expected, got {other:?}"),
            })
            .collect();
        assert_eq!(
            sources,
            vec![
                (
                    MediaKind::Image,
                    None,
                    MediaSource::Url("https://example.com/a.png")
                ),
                (
                    MediaKind::Image,
                    Some("image/png"),
                    MediaSource::Inline {
                        bytes: 3,
                        data: Some("data:image/png;base64,AAAA")
                    }
                ),
                (
                    MediaKind::File,
                    Some("application/pdf"),
                    MediaSource::Path(Cow::Owned("/home/u/My Doc.pdf".into()))
                ),
                (
                    MediaKind::Image,
                    Some("image/jpeg"),
                    MediaSource::Inline {
                        bytes: 4,
                        data: Some("QUJDRA==")
                    }
                ),
                (
                    MediaKind::Audio,
                    Some("wav"),
                    MediaSource::Inline {
                        bytes: 4,
                        data: Some("AAAAAA==")
                    }
                ),
            ]
        );
    }

    #[test]
    fn base64_sizes() {
        for (text, bytes) in [
            ("", 0),
            ("QQ==", 1),
            ("QUI=", 2),
            ("QUJD", 3),
            ("QUJDRA", 4),
            ("QUJD\nREVG", 6),
        ] {
            assert_eq!(base64_decoded_len(text), bytes, "{text:?}");
        }
    }
}
