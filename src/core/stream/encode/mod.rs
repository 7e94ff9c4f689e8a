//! Encoders over the neutral parts: the same [`Part`](crate::core::stream::part::Part)s become OpenAI
//! SSE frames ([`sse`]), one OpenAI completion per response ([`completion`]) or AI SDK V3 stream
//! parts ([`ai_sdk`]).

pub mod ai_sdk;
pub mod completion;
pub mod sse;

/// One output: a complete SSE frame, or one JSON-safe V3 stream part (written as the string or
/// the object it is).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(untagged)]
pub enum Output {
    Frame(String),
    Part(serde_json::Value),
}

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
    use super::push_json_str;

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
