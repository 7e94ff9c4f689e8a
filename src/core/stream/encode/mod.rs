//! Encoders over the neutral parts: the same [`Part`](crate::core::stream::part::Part)s become OpenAI
//! SSE frames ([`sse`]), one OpenAI completion per response ([`completion`]) or AI SDK V3 stream
//! parts ([`ai_sdk`]).

pub mod ai_sdk;
pub mod batch;
pub mod completion;
pub mod sse;

/// Whether Cursor's own tool calls, which Cursor already ran, are among the outputs: a host that
/// shows them wants them; a client that runs every tool call it gets would run them again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolCallMode {
    #[default]
    Emit,
    Omit,
}

/// Between two segments of an answer's text with a tool call of Cursor's between them: a client
/// that reads the answer as one string would otherwise see them run together ("...entries there
/// are.There are 4 files"). SSE puts it before the first text after the call; a host that joins
/// the `ai-sdk` format's text blocks into one string joins them with it.
pub const SEGMENT_SEPARATOR: &str = "\n\n";

/// One output: a complete SSE frame, or one JSON-safe V3 stream part (written as the string or
/// the object it is).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(untagged)]
pub enum Output {
    Frame(String),
    Part(serde_json::Value),
}

/// The JSON value an output is written as: a frame as its string, a part as it is.
impl From<Output> for serde_json::Value {
    fn from(output: Output) -> Self {
        match output {
            Output::Frame(frame) => Self::String(frame),
            Output::Part(part) => part,
        }
    }
}

/// Every output of `parts` through one encoder's `encode`, in order.
#[cfg(test)]
pub(crate) fn encode_all(
    parts: &[crate::core::stream::part::Part<'_>],
    mut encode: impl FnMut(&crate::core::stream::part::Part<'_>, &mut Vec<Output>),
) -> Vec<Output> {
    let mut out = Vec::new();
    for part in parts {
        encode(part, &mut out);
    }
    out
}

#[cfg(test)]
impl Output {
    /// The SSE frame, if this is one.
    pub fn into_frame(self) -> Option<String> {
        match self {
            Self::Frame(frame) => Some(frame),
            Self::Part(_) => None,
        }
    }

    /// The V3 part, if this is one.
    pub fn into_part(self) -> Option<serde_json::Value> {
        match self {
            Self::Part(part) => Some(part),
            Self::Frame(_) => None,
        }
    }
}

/// Escape table: 0 = copy the byte, else the character after the backslash (`u` = `\u00XX`).
const ESCAPES: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut i = 0;
    while i < 0x20 {
        table[i] = b'u';
        i += 1;
    }
    table[b'\n' as usize] = b'n';
    table[b'\r' as usize] = b'r';
    table[b'\t' as usize] = b't';
    table[0x08] = b'b';
    table[0x0c] = b'f';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

/// serde_json's compact writing, with every character past ASCII written as a `\u` escape (a
/// surrogate pair past U+FFFF): the text is ASCII, which a JS engine takes without decoding UTF-8
/// and parses on its one-byte path, and it parses to the same values.
#[derive(Debug, Clone, Copy, Default)]
pub struct AsciiJson;

impl serde_json::ser::Formatter for AsciiJson {
    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        // Most fragments are ASCII: `is_ascii` checks a word at a time.
        if fragment.is_ascii() {
            return writer.write_all(fragment.as_bytes());
        }
        let mut ascii_from = 0;
        for (at, c) in fragment.char_indices() {
            if c.is_ascii() {
                continue;
            }
            writer.write_all(&fragment.as_bytes()[ascii_from..at])?;
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                let hex = |shift: u16| HEX[usize::from((*unit >> shift) & 0xf)];
                writer.write_all(&[b'\\', b'u', hex(12), hex(8), hex(4), hex(0)])?;
            }
            ascii_from = at + c.len_utf8();
        }
        writer.write_all(&fragment.as_bytes()[ascii_from..])
    }
}

/// Writes `value` as compact JSON in ASCII ([`AsciiJson`]) at the end of `out`.
pub fn write_ascii_json<T: serde::Serialize + ?Sized>(
    out: &mut Vec<u8>,
    value: &T,
) -> serde_json::Result<()> {
    value.serialize(&mut serde_json::Serializer::with_formatter(out, AsciiJson))
}

/// Append `s` as a JSON string literal (quotes included), escaped as serde_json escapes it.
pub fn push_json_str(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(s.len() + 2);
    out.push('"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape = ESCAPES[b as usize];
        if escape == 0 {
            continue;
        }
        // Every escaped byte is ASCII, so `start..i` lies on character boundaries.
        out.push_str(&s[start..i]);
        out.push('\\');
        if escape == b'u' {
            out.push_str("u00");
            out.push(HEX[(b >> 4) as usize] as char);
            out.push(HEX[(b & 0xf) as usize] as char);
        } else {
            out.push(escape as char);
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::{push_json_str, write_ascii_json};
    use serde_json::Value;

    #[test]
    fn ascii_json_is_ascii_and_reads_back_the_same() {
        let samples = [
            "",
            "plain",
            "quote \" backslash \\ controls \u{0}\u{1f}\u{7f}",
            "caf\u{e9} na\u{ef}ve",
            "\u{4f60}\u{597d}",
            "astral \u{1F680}\u{1F600} then ascii",
            "\u{2028}\u{2029}\u{ffff}\u{10000}\u{10ffff}",
        ];
        for s in samples {
            let value = serde_json::json!({ "k\u{e9}y": s, "n": [1, s] });
            let mut out = Vec::new();
            write_ascii_json(&mut out, &value).unwrap();
            assert!(out.is_ascii(), "{s:?}");
            let text = String::from_utf8(out).unwrap();
            assert_eq!(
                serde_json::from_str::<Value>(&text).unwrap(),
                value,
                "{s:?}"
            );
        }
        let mut out = Vec::new();
        write_ascii_json(&mut out, "\u{e9}\u{1F680}").unwrap();
        assert_eq!(out, br#""\u00e9\ud83d\ude80""#);
    }

    #[test]
    fn escaping_matches_serde_json() {
        let samples = [
            "",
            "plain",
            "quote \" backslash \\ slash /",
            "lines\n\r\ttab",
            "controls \u{0}\u{1}\u{8}\u{b}\u{c}\u{1f}\u{7f}",
            "unicode \u{e9}\u{1F600} \u{2028}\u{2029}",
        ];
        for s in samples {
            let mut out = String::from("x");
            push_json_str(&mut out, s);
            assert_eq!(out[1..], serde_json::to_string(s).unwrap(), "{s:?}");
        }
    }
}
