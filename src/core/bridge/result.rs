//! Shaping the host's answer so that Cursor's MCP client hands all of it to the model, under
//! the rules of every Cursor client users run (the MCP client bundled in Cursor's npm package
//! `@cursor/sdk`): 1.0.18 writes any one text item over 40,000 UTF-16 code units to a file and
//! gives the model only its path; 1.0.32 joins all text items with "\n\n" and, when their UTF-8
//! bytes pass 40,000, replaces every one of them with one such file reference. Both hand the model
//! a file to Read in Cursor's data folder, a read that a team's `readBoundary` (1.0.32) or a hook
//! can refuse. So a result never reaches either limit: its text goes as one item of at most
//! [`BUDGET_BYTES`] UTF-8 bytes (UTF-16 units never outnumber UTF-8 bytes, so 1.0.18's limit holds
//! too), and what is beyond ends with how to get the rest (`read` again from a later line, or the
//! paging tool). A failure is marked twice: `isError` (1.0.32 forwards it) and its text's
//! `Error: ` (1.0.18 dropped `isError`). An image Cursor cannot decode (its format, or a header
//! that is not a picture's), or one over the limit every picture is held to
//! ([`crate::core::attachments`]), becomes a line saying so.

use base64::Engine;

use super::held::{Answer, AnswerContent};
use crate::core::attachments::{dimensions, not_a_picture, picture_format, PICTURE_MAX_BYTES};

/// The UTF-8 bytes of all text of one result, the note on the rest included: under Cursor's
/// 40,000, with room for what its client adds around them.
pub const BUDGET_BYTES: usize = 38_000;
/// What the note on the rest may take of [`BUDGET_BYTES`].
const NOTE_BYTES: usize = 400;
/// How a result's text items are joined into its one item (as Cursor 1.0.32 joins them).
pub const ITEM_SEPARATOR: &str = "\n\n";
/// How a failed call's text begins, for Cursor clients that drop `isError`.
pub const FAILURE_PREFIX: &str = "Error: ";

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

/// `text` cut after at most `limit` UTF-8 bytes, at a line break when one is in the second half
/// of what fits, never inside a character.
pub fn split_bytes(text: &str, limit: usize) -> (&str, &str) {
    if text.len() <= limit {
        return (text, "");
    }
    let mut cut = limit;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    if let Some(line_end) = text[..cut].rfind('\n').filter(|&at| at >= cut / 2) {
        cut = line_end + 1;
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
    let mut texts = Vec::new();
    let mut images = Vec::new();
    for piece in answer.content {
        match piece {
            AnswerContent::Text(text) => texts.push(text),
            AnswerContent::Image { data, mime_type } => match image(data, mime_type) {
                AnswerContent::Text(line) => texts.push(line),
                kept => images.push(kept),
            },
        }
    }
    let mut text = texts.join(ITEM_SEPARATOR);
    if answer.is_error && !text.starts_with("Error") {
        if text.is_empty() {
            text = format!("{FAILURE_PREFIX}the tool failed and said nothing.");
        } else {
            text.insert_str(0, FAILURE_PREFIX);
        }
    }
    let (shown, rest) = split_bytes(&text, BUDGET_BYTES);
    let (item, rest) = if rest.is_empty() {
        (shown.to_owned(), None)
    } else {
        let (shown, rest) = split_bytes(&text, BUDGET_BYTES - NOTE_BYTES);
        let how = if tool == "read" {
            Rest::ReadOn
        } else {
            Rest::Page(next_page())
        };
        let note = rest_note(shown.chars().count(), text.chars().count(), how, page_tool);
        let kept = matches!(how, Rest::Page(_)).then(|| rest.to_owned());
        (format!("{shown}{ITEM_SEPARATOR}{note}"), kept)
    };
    let mut content = Vec::with_capacity(1 + images.len());
    if !item.is_empty() {
        content.push(AnswerContent::Text(item));
    }
    content.extend(images);
    Shaped { content, rest }
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
tool result without moving it to a file. {get}]"
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
    let why = match picture_format(&bytes) {
        None => "Cursor cannot decode this format".to_owned(),
        Some(_) if bytes.len() > PICTURE_MAX_BYTES => {
            format!("it is larger than {PICTURE_MAX_BYTES} bytes")
        }
        Some(format) => match not_a_picture(format, &bytes) {
            None => return AnswerContent::Image { data, mime_type },
            Some(why) => why,
        },
    };
    let size = match dimensions(&bytes) {
        Some((w, h)) => format!("{} bytes, {w}x{h} px", bytes.len()),
        None => format!("{} bytes, dimensions unknown", bytes.len()),
    };
    AnswerContent::Text(format!(
        "[An image was left out ({why}): type {mime_type}, {size}.]"
    ))
}

#[cfg(test)]
mod tests;
