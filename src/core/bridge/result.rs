//! Shaping the host's answer so that Cursor's MCP client hands all of it to the model.
//!
//! Cursor writes any text item longer than 40,000 characters (UTF-16 code units) to a file
//! and gives the model only its path, which the model cannot Read in tool mode; it drops
//! `isError` and `structuredContent`; and it re-encodes images, failing on formats it cannot
//! decode (the MCP client and image code bundled in Cursor's npm package `@cursor/sdk`
//! 1.0.18). So a long text goes as several items under the
//! limit, up to [`TOTAL_UNITS`], and what is beyond ends with how to get the rest; a failure
//! says so in its text; an image Cursor cannot take becomes a line describing it.

use base64::Engine;

use super::held::{Answer, AnswerContent};

/// Cursor keeps a text item in the result up to 40,000 UTF-16 code units; this leaves room.
pub const ITEM_UNITS: usize = 39_000;
/// The most text one result carries (five items); the rest is offered separately.
pub const TOTAL_UNITS: usize = 5 * ITEM_UNITS;
/// Larger images are described instead of sent (Cursor shrinks what it gets to 1 MiB anyway).
pub const IMAGE_MAX_BYTES: usize = 20 * 1024 * 1024;
/// How a failed call's text begins, since Cursor does not pass `isError` on.
pub const FAILURE_PREFIX: &str = "Error: ";

/// Bytes at an offset that a format's files begin with.
pub type Mark = (usize, &'static [u8]);

/// The image formats Cursor decodes, each with the bytes that identify it.
pub const DECODABLE_IMAGES: &[(&str, &[Mark])] = &[
    ("png", &[(0, b"\x89PNG\r\n\x1a\n")]),
    ("jpeg", &[(0, b"\xff\xd8\xff")]),
    ("gif", &[(0, b"GIF8")]),
    ("bmp", &[(0, b"BM")]),
    ("tiff", &[(0, b"II*\0")]),
    ("tiff", &[(0, b"MM\0*")]),
    ("webp", &[(0, b"RIFF"), (8, b"WEBP")]),
];

/// How the model gets what did not fit: `read` again from a later line, or a page kept by the
/// bridge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rest {
    /// The tool reads files: the model reads on with `offset` and `limit`.
    ReadOn,
    /// The rest is kept as page `n` of the paging tool.
    Page(u64),
}

/// The answer as Cursor should get it; `rest` is the text that did not fit (to keep as a
/// page when [`Rest::Page`] is used).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shaped {
    pub content: Vec<AnswerContent>,
    pub rest: Option<String>,
}

fn units(text: &str) -> usize {
    text.encode_utf16().count()
}

/// `text` cut after at most `limit` UTF-16 code units, at a line break when one is in the
/// second half of what fits, never inside a character.
pub fn split_units(text: &str, limit: usize) -> (&str, &str) {
    let mut used = 0;
    let mut cut = text.len();
    for (at, c) in text.char_indices() {
        if used + c.len_utf16() > limit {
            cut = at;
            break;
        }
        used += c.len_utf16();
    }
    if cut < text.len() {
        if let Some(line_end) = text[..cut].rfind('\n').filter(|&at| at >= cut / 2) {
            cut = line_end + 1;
        }
    }
    text.split_at(cut)
}

/// Shape `answer` of tool `tool`; `page_tool` names the paging tool, and `next_page` gives
/// the number of the page the rest will be kept as.
pub fn shape(
    answer: Answer,
    tool: &str,
    page_tool: &str,
    next_page: impl FnOnce() -> u64,
) -> Shaped {
    let mut content = Vec::new();
    let mut budget = TOTAL_UNITS;
    let mut rest = String::new();
    let mut shown = 0usize;
    let mut total = 0usize;
    let mut failure_said = !answer.is_error;
    for piece in answer.content {
        match piece {
            AnswerContent::Text(mut text) => {
                if !failure_said {
                    if !text.starts_with("Error") {
                        text.insert_str(0, FAILURE_PREFIX);
                    }
                    failure_said = true;
                }
                total += units(&text);
                let mut left = text.as_str();
                while !left.is_empty() && budget > 0 && rest.is_empty() {
                    let (item, after) = split_units(left, ITEM_UNITS.min(budget));
                    if item.is_empty() {
                        break;
                    }
                    let item_units = units(item);
                    budget -= item_units;
                    shown += item_units;
                    content.push(AnswerContent::Text(item.to_owned()));
                    left = after;
                }
                if !left.is_empty() {
                    if !rest.is_empty() {
                        rest.push('\n');
                    }
                    rest.push_str(left);
                }
            }
            AnswerContent::Image { data, mime_type } => content.push(image(data, mime_type)),
        }
    }
    if !failure_said {
        content.insert(
            0,
            AnswerContent::Text(format!("{FAILURE_PREFIX}the tool failed and said nothing.")),
        );
    }
    if rest.is_empty() {
        return Shaped {
            content,
            rest: None,
        };
    }
    let how = if tool == "read" {
        Rest::ReadOn
    } else {
        Rest::Page(next_page())
    };
    content.push(AnswerContent::Text(rest_note(shown, total, how, page_tool)));
    Shaped {
        content,
        rest: matches!(how, Rest::Page(_)).then_some(rest),
    }
}

/// The line that ends a result cut at `shown` of `total` characters.
pub fn rest_note(shown: usize, total: usize, how: Rest, page_tool: &str) -> String {
    let get = match how {
        Rest::ReadOn => "To see the rest, call read again with `offset` set to the line after \
the last line shown above, and a `limit`."
            .to_owned(),
        Rest::Page(page) => {
            format!("To get the next part, call the tool `{page_tool}` with {{\"page\": {page}}}.")
        }
    };
    format!(
        "[This result was cut after {shown} of {total} characters: Cursor takes no more in one \
tool result. {get}]"
    )
}

/// The image, when Cursor can decode it and it is not too big; else a line saying what it was.
fn image(data: String, mime_type: String) -> AnswerContent {
    let bytes = base64::engine::general_purpose::STANDARD.decode(data.trim());
    let Ok(bytes) = bytes else {
        return AnswerContent::Text(format!(
            "[An image ({mime_type}) was left out: its data is not valid base64.]"
        ));
    };
    let format = decodable_format(&bytes);
    if format.is_some() && bytes.len() <= IMAGE_MAX_BYTES {
        return AnswerContent::Image { data, mime_type };
    }
    let why = match format {
        Some(_) => format!("it is larger than {IMAGE_MAX_BYTES} bytes"),
        None => "Cursor cannot decode this format".to_owned(),
    };
    let size = match dimensions(&bytes) {
        Some((w, h)) => format!("{} bytes, {w}x{h} px", bytes.len()),
        None => format!("{} bytes, dimensions unknown", bytes.len()),
    };
    AnswerContent::Text(format!(
        "[An image was left out ({why}): type {mime_type}, {size}.]"
    ))
}

/// Which of [`DECODABLE_IMAGES`] `bytes` are, by their first bytes (as Cursor tells them).
pub fn decodable_format(bytes: &[u8]) -> Option<&'static str> {
    DECODABLE_IMAGES
        .iter()
        .find(|(_, marks)| {
            marks
                .iter()
                .all(|(at, mark)| bytes.get(*at..*at + mark.len()) == Some(*mark))
        })
        .map(|(format, _)| *format)
}

/// Width and height when the header says them simply (PNG, GIF, BMP).
pub fn dimensions(bytes: &[u8]) -> Option<(u32, u32)> {
    let be = |at: usize| Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
    let le16 = |at: usize| Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?));
    let le = |at: usize| Some(i32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
    match decodable_format(bytes)? {
        "png" => Some((be(16)?, be(20)?)),
        "gif" => Some((u32::from(le16(6)?), u32::from(le16(8)?))),
        "bmp" => Some((le(18)?.unsigned_abs(), le(22)?.unsigned_abs())),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
