//! The tail Cursor puts on a model id for one reasoning effort, thinking or speed
//! (`gpt-5.4-high-fast`, `claude-opus-4-8-thinking-high`, `claude-4.6-opus-max-thinking`): read
//! by rule from the words themselves, never from a list of model names, so a family Cursor adds
//! tomorrow is read like today's.

/// A reasoning effort Cursor lists as an id of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Effort {
    None,
    Minimal,
    Low,
    Medium,
    High,
    /// Cursor writes it `xhigh` for some families and `extra-high` for others.
    XHigh,
    Max,
}

/// Each effort's words as they end an id (the longest first, so `extra-high` is not read as
/// `high`), and the name OpenCode's users know it by.
const EFFORTS: &[(&[&str], Effort)] = &[
    (&["extra", "high"], Effort::XHigh),
    (&["xhigh"], Effort::XHigh),
    (&["none"], Effort::None),
    (&["minimal"], Effort::Minimal),
    (&["low"], Effort::Low),
    (&["medium"], Effort::Medium),
    (&["high"], Effort::High),
    (&["max"], Effort::Max),
];

const THINKING: &str = "thinking";
const FAST: &str = "fast";

impl Effort {
    /// The name OpenAI's and Anthropic's APIs and OpenCode's variants give the effort.
    pub fn name(self) -> &'static str {
        match self {
            Effort::None => "none",
            Effort::Minimal => "minimal",
            Effort::Low => "low",
            Effort::Medium => "medium",
            Effort::High => "high",
            Effort::XHigh => "xhigh",
            Effort::Max => "max",
        }
    }

    /// The effort a request names (`high`, `xhigh`, `extra-high`, `extra_high`, `extra high`,
    /// any case); `None` for any other word.
    pub fn parse(word: &str) -> Option<Effort> {
        let word = word.trim().to_ascii_lowercase().replace(['_', ' '], "-");
        let tokens: Vec<&str> = word.split('-').collect();
        EFFORTS
            .iter()
            .find(|(words, _)| *words == tokens.as_slice())
            .map(|(_, effort)| *effort)
    }
}

/// What an id's tail says: an effort, thinking, fast; all absent for a base id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Rung {
    pub effort: Option<Effort>,
    pub thinking: bool,
    pub fast: bool,
}

impl Rung {
    /// Nothing: the id is a base.
    pub fn is_base(self) -> bool {
        self == Rung::default()
    }

    /// The variant's name: `thinking`, the effort, `fast`, in this order whatever the id's order
    /// (`claude-4.6-opus-max-thinking` is `thinking-max`); empty for a base.
    pub fn name(self) -> String {
        let mut parts = Vec::new();
        if self.thinking {
            parts.push(THINKING);
        }
        if let Some(effort) = self.effort {
            parts.push(effort.name());
        }
        if self.fast {
            parts.push(FAST);
        }
        parts.join("-")
    }
}

/// An id of the grammar: lowercase letters, digits, `.` and `-` (an id with parameters in
/// brackets, or in capitals, is not one).
fn fits_grammar(id: &str) -> bool {
    !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.' || c == '-')
}

/// `tokens` without a trailing effort, and the effort.
fn strip_effort<'a>(tokens: &'a [&'a str]) -> Option<(&'a [&'a str], Effort)> {
    EFFORTS
        .iter()
        .find_map(|(words, effort)| tokens.strip_suffix(*words).map(|rest| (rest, *effort)))
}

/// The id read as a base and a rung: `fast` last, before it an effort and `thinking` in either
/// order, each at most once; the longest tail the grammar reads. `None` when the id has no such
/// tail, or nothing would be left of the base.
pub fn split_rung(id: &str) -> Option<(&str, Rung)> {
    if !fits_grammar(id) {
        return None;
    }
    let all: Vec<&str> = id.split('-').collect();
    let mut tokens = all.as_slice();
    let mut rung = Rung::default();
    if let Some(rest) = tokens.strip_suffix(&[FAST]) {
        rung.fast = true;
        tokens = rest;
    }
    loop {
        if let (false, Some(rest)) = (rung.thinking, tokens.strip_suffix(&[THINKING])) {
            rung.thinking = true;
            tokens = rest;
        } else if let (None, Some((rest, effort))) = (rung.effort, strip_effort(tokens)) {
            rung.effort = Some(effort);
            tokens = rest;
        } else {
            break;
        }
    }
    let kept = tokens.len();
    if rung.is_base() || kept == 0 || tokens.iter().any(|token| token.is_empty()) {
        return None;
    }
    let base_len = tokens.iter().map(|token| token.len()).sum::<usize>() + kept - 1;
    Some((&id[..base_len], rung))
}

/// A display name's word that names a rung (`High`, `Extra High`, `Thinking`, `Fast`, `Max`):
/// Cursor's default of a family is the one whose name has none.
pub fn names_a_rung(name: &str) -> bool {
    name.split(|c: char| c.is_whitespace() || "()[],".contains(c))
        .map(str::to_ascii_lowercase)
        .any(|word| {
            word == THINKING
                || word == FAST
                || word == "extra"
                || EFFORTS
                    .iter()
                    .any(|(words, _)| words.len() == 1 && words[0] == word && word != "none")
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rung(effort: Option<Effort>, thinking: bool, fast: bool) -> Rung {
        Rung {
            effort,
            thinking,
            fast,
        }
    }

    #[test]
    fn split_rung_table() {
        for (id, expected) in [
            (
                "gpt-5.4-high",
                Some(("gpt-5.4", rung(Some(Effort::High), false, false))),
            ),
            (
                "gpt-5.4-medium-fast",
                Some(("gpt-5.4", rung(Some(Effort::Medium), false, true))),
            ),
            (
                "gpt-5.5-extra-high",
                Some(("gpt-5.5", rung(Some(Effort::XHigh), false, false))),
            ),
            (
                "gpt-5.5-xhigh",
                Some(("gpt-5.5", rung(Some(Effort::XHigh), false, false))),
            ),
            (
                "claude-opus-4-8-thinking-high",
                Some(("claude-opus-4-8", rung(Some(Effort::High), true, false))),
            ),
            (
                "claude-4.6-opus-max-thinking",
                Some(("claude-4.6-opus", rung(Some(Effort::Max), true, false))),
            ),
            (
                "claude-opus-4-8-thinking-max-fast",
                Some(("claude-opus-4-8", rung(Some(Effort::Max), true, true))),
            ),
            (
                "sonnet-4.6-thinking",
                Some(("sonnet-4.6", rung(None, true, false))),
            ),
            (
                "composer-2.5-fast",
                Some(("composer-2.5", rung(None, false, true))),
            ),
            (
                "o4-mini-none",
                Some(("o4-mini", rung(Some(Effort::None), false, false))),
            ),
            // A second effort is part of the base: the longest tail the grammar reads.
            (
                "gpt-5.5-max-high",
                Some(("gpt-5.5-max", rung(Some(Effort::High), false, false))),
            ),
            // No rung, or nothing but a rung, or not the grammar's alphabet.
            ("gpt-5.3-codex", None),
            ("gpt-5.2", None),
            ("grok-code-fast-1", None),
            ("auto", None),
            ("high", None),
            ("thinking-high", None),
            ("fast", None),
            ("gpt--high", None),
            ("claude-opus-4-8[effort=high]", None),
            ("GPT-5.5-HIGH", None),
            ("", None),
        ] {
            assert_eq!(split_rung(id), expected, "{id}");
        }
    }

    #[test]
    fn variant_names_table() {
        for (rung, name) in [
            (rung(Some(Effort::Low), false, false), "low"),
            (rung(Some(Effort::XHigh), false, false), "xhigh"),
            (rung(Some(Effort::High), true, false), "thinking-high"),
            (rung(Some(Effort::High), false, true), "high-fast"),
            (rung(Some(Effort::Max), true, true), "thinking-max-fast"),
            (rung(None, true, false), "thinking"),
            (rung(None, false, true), "fast"),
            (Rung::default(), ""),
        ] {
            assert_eq!(rung.name(), name);
        }
    }

    #[test]
    fn efforts_a_request_names() {
        for (word, effort) in [
            ("high", Some(Effort::High)),
            ("HIGH", Some(Effort::High)),
            ("xhigh", Some(Effort::XHigh)),
            ("extra-high", Some(Effort::XHigh)),
            ("extra_high", Some(Effort::XHigh)),
            ("Extra High", Some(Effort::XHigh)),
            ("max", Some(Effort::Max)),
            ("minimal", Some(Effort::Minimal)),
            ("none", Some(Effort::None)),
            ("extra", None),
            ("ultra", None),
            ("", None),
        ] {
            assert_eq!(Effort::parse(word), effort, "{word:?}");
        }
    }

    #[test]
    fn display_names_that_name_a_rung() {
        for (name, named) in [
            ("GPT-5.4 1M", false),
            ("Claude Opus 4.7 1M", false),
            ("Kimi K3", false),
            ("GPT-5.4 1M High", true),
            ("GPT-5.5 Extra High", true),
            ("Claude 4.6 Sonnet (Thinking)", true),
            ("GPT-5.4 1M Fast", true),
            ("Claude 4.6 Opus Max", true),
            ("Highlander", false),
        ] {
            assert_eq!(names_a_rung(name), named, "{name}");
        }
    }
}
