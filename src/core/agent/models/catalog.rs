//! What a host needs to know about a Cursor model beyond its id: its context window, its output
//! limit, and whether Cursor streams its thinking. `cursor-agent models` prints only ids and
//! labels, so the figures come from a maintained table, Cursor's own label when it names a
//! window (`GPT-5.5 1M High`), and a cautious default for ids the table does not know.

use super::rung::split_rung;

/// A model's limits and whether Cursor streams its thinking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelSpec {
    /// The tokens one request may hold, prompt and answer together.
    pub context_window: u32,
    /// The most tokens one answer may have.
    pub max_output_tokens: u32,
    /// Cursor streams the model's thinking (`thinking` events) before its answer.
    pub reasoning: bool,
    /// The model sees pictures: one the user attaches reaches it (saved for Cursor's Read tool).
    pub pictures: bool,
}

/// The window Cursor gives every model outside Max Mode, which cursor-agent does not turn on.
/// Source: <https://docs.cursor.com/models> ("Max Mode": "Normally, Cursor uses a context
/// window of 200k tokens ... Max Mode extends the context window to the maximum available for
/// each model").
pub const CURSOR_CONTEXT_WINDOW: u32 = 200_000;

/// Cursor publishes no output limits; where its vendor publishes none either (Cursor's own
/// Composer, Grok through Cursor, `auto`), the 32k answer OpenCode itself caps requests at.
pub const UNPUBLISHED_OUTPUT_TOKENS: u32 = 32_000;

/// For an id the table does not know: the smallest window among current frontier models
/// (128k), so OpenCode compacts early rather than running past a smaller model's limit, and no
/// claim of streamed thinking.
pub const UNKNOWN_MODEL: ModelSpec = ModelSpec {
    context_window: 128_000,
    max_output_tokens: UNPUBLISHED_OUTPUT_TOKENS,
    reasoning: false,
    pictures: false,
};

/// Cursor's variant of a Claude model that streams its extended thinking; also read where an
/// effort follows it (`claude-opus-4-8-thinking-high`).
const THINKING_SUFFIX: &str = "-thinking";

/// Whether a family sees pictures.
#[derive(Clone, Copy)]
enum Pictures {
    Seen,
    NotSeen,
}

/// A family's entry: every family has [`CURSOR_CONTEXT_WINDOW`].
const fn spec(max_output_tokens: u32, reasoning: bool, pictures: Pictures) -> ModelSpec {
    ModelSpec {
        context_window: CURSOR_CONTEXT_WINDOW,
        max_output_tokens,
        reasoning,
        pictures: matches!(pictures, Pictures::Seen),
    }
}

/// Model families by the start of their Cursor id, the most specific first; a family matches an
/// id equal to it or followed by `-` or `.` (`gpt-5` matches `gpt-5.5-high`, not `gpt-50`).
///
/// Context: [`CURSOR_CONTEXT_WINDOW`] for every family, as each model's own maximum is at least
/// that. Output limits are the vendors' published ones, as Cursor publishes none: Anthropic
/// (<https://platform.claude.com/docs/en/models/opus-4-6/overview> and `.../sonnet-4-6/overview`:
/// 128K for Opus/Sonnet 4.6 and later; 64K for the 4.5 models, 32K for Opus 4.1); OpenAI
/// (128,000 for the GPT-5 family); Google
/// (<https://ai.google.dev/gemini-api/docs/models/gemini-3.1-pro-preview>: 65,536, as for Gemini
/// 2.5 and 3 Flash). Thinking: Cursor streams it for `auto` (seen in real captures), for the
/// reasoning families below, and for Claude only in the `-thinking` variants.
///
/// Pictures, as each vendor documents its models' input: Claude 4.x (Anthropic, "Vision": every
/// current model takes images), GPT-5 and its Codex models (OpenAI: text and image input), Gemini
/// (Google: multimodal input), Grok 4 (xAI: text and image input; not `grok-code`, text only).
/// Cursor documents no picture input for `auto` (the model behind it varies) nor for Composer:
/// off, so OpenCode refuses a pasted picture there itself.
const FAMILIES: &[(&str, ModelSpec)] = &[
    (
        "auto",
        spec(UNPUBLISHED_OUTPUT_TOKENS, true, Pictures::NotSeen),
    ),
    (
        "composer",
        spec(UNPUBLISHED_OUTPUT_TOKENS, true, Pictures::NotSeen),
    ),
    ("opus-4.1", spec(32_000, false, Pictures::Seen)),
    ("opus-4.5", spec(64_000, false, Pictures::Seen)),
    ("sonnet-4.5", spec(64_000, false, Pictures::Seen)),
    ("haiku", spec(64_000, false, Pictures::Seen)),
    ("opus", spec(128_000, false, Pictures::Seen)),
    ("sonnet", spec(128_000, false, Pictures::Seen)),
    ("gpt-5", spec(128_000, true, Pictures::Seen)),
    ("gemini-3", spec(65_536, true, Pictures::Seen)),
    ("gemini-2.5", spec(65_536, true, Pictures::Seen)),
    (
        "grok-code",
        spec(UNPUBLISHED_OUTPUT_TOKENS, true, Pictures::NotSeen),
    ),
    (
        "grok",
        spec(UNPUBLISHED_OUTPUT_TOKENS, true, Pictures::Seen),
    ),
];

/// `id` is `family` or starts with it followed by `-` or `.`.
fn in_family(id: &str, family: &str) -> bool {
    id.strip_prefix(family)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(['-', '.']))
}

/// A window Cursor's label names, such as `1M` in `GPT-5.5 1M High` or `272K` in
/// `GPT-5.6 Luna 272K Low`: a word of digits (a decimal point allowed) ending in `K` or `M`.
fn labelled_window(name: &str) -> Option<u32> {
    name.split_whitespace().find_map(|word| {
        let (number, unit) = word.split_at(word.len().checked_sub(1)?);
        let scale = match unit {
            "K" | "k" => 1_000.0,
            "M" => 1_000_000.0,
            _ => return None,
        };
        if number.is_empty() || !number.chars().all(|c| c.is_ascii_digit() || c == '.') {
            return None;
        }
        let tokens = number.parse::<f64>().ok()? * scale;
        (1.0..=f64::from(u32::MAX))
            .contains(&tokens)
            .then(|| tokens.round() as u32)
    })
}

/// An id's parameters in brackets (`claude-opus-4-8[context=1m,effort=high]`): the id without
/// them, and the window `context=` names (`1m`, `272k`). Assumed, not seen: that Cursor gives
/// such a model the window its parameter names (`doctor --live` reports what a run used).
fn parameters(id: &str) -> (&str, Option<u32>) {
    let Some((base, rest)) = id.split_once('[') else {
        return (id, None);
    };
    let window = rest
        .trim_end_matches(']')
        .split(',')
        .find_map(|pair| pair.trim().strip_prefix("context="))
        .and_then(|value| labelled_window(&value.to_ascii_uppercase()));
    (base, window)
}

/// What the catalog says about the model `id` that Cursor labels `name`: its family's entry
/// (or [`UNKNOWN_MODEL`]), with the window the label names, or the id's `context=` parameter
/// over both, and thinking for ids whose tail names it (`-thinking`, `-thinking-high`).
pub fn model_spec(id: &str, name: &str) -> ModelSpec {
    let id = id.to_ascii_lowercase();
    let (id, parameter_window) = parameters(&id);
    let mut spec = FAMILIES
        .iter()
        .find(|(family, _)| in_family(id, family))
        .map_or(UNKNOWN_MODEL, |(_, spec)| *spec);
    if let Some(window) = parameter_window.or_else(|| labelled_window(name)) {
        spec.context_window = window;
    }
    if id.ends_with(THINKING_SUFFIX) || split_rung(id).is_some_and(|(_, rung)| rung.thinking) {
        spec.reasoning = true;
    }
    spec
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_labels_table() {
        // (id, label, context window, output limit, reasoning)
        for (id, name, context, output, reasoning) in [
            ("auto", "Auto", 200_000, 32_000, true),
            ("composer-2.5", "Composer 2.5", 200_000, 32_000, true),
            (
                "composer-2.5-fast",
                "Composer 2.5 Fast",
                200_000,
                32_000,
                true,
            ),
            ("sonnet-4.6", "Claude 4.6 Sonnet", 200_000, 128_000, false),
            (
                "sonnet-4.6-thinking",
                "Claude 4.6 Sonnet (Thinking)",
                200_000,
                128_000,
                true,
            ),
            (
                "opus-4.6-thinking",
                "Claude Opus 4.6",
                200_000,
                128_000,
                true,
            ),
            ("opus-4.7", "Claude Opus 4.7", 200_000, 128_000, false),
            ("opus-4.5", "Claude Opus 4.5", 200_000, 64_000, false),
            ("sonnet-4.5-thinking", "Sonnet 4.5", 200_000, 64_000, true),
            ("opus-4.1", "Claude Opus 4.1", 200_000, 32_000, false),
            ("haiku-4.5", "Claude Haiku 4.5", 200_000, 64_000, false),
            ("gpt-5.5-high", "GPT-5.5 1M High", 1_000_000, 128_000, true),
            ("gpt-5.5-high", "GPT-5.5 High", 200_000, 128_000, true),
            ("gpt-5.3-codex", "GPT-5.3 Codex", 200_000, 128_000, true),
            ("gpt-5", "GPT-5", 200_000, 128_000, true),
            (
                "gpt-5.6-luna-low",
                "GPT-5.6 Luna 272K Low",
                272_000,
                128_000,
                true,
            ),
            ("gemini-3.1-pro", "Gemini 3.1 Pro", 200_000, 65_536, true),
            ("gemini-3-flash", "Gemini 3 Flash", 200_000, 65_536, true),
            ("grok", "Grok", 200_000, 32_000, true),
            (
                "grok-4.7-xhigh",
                "Grok 4.7 256K Extra High",
                256_000,
                32_000,
                true,
            ),
            ("GPT-5.5-HIGH", "GPT-5.5 High", 200_000, 128_000, true),
            // Not a family member: a longer word that only starts like one.
            ("gpt-50", "GPT-50", 128_000, 32_000, false),
            ("autopilot", "Autopilot", 128_000, 32_000, false),
            ("fake-model", "Fake Model", 128_000, 32_000, false),
            ("mystery-thinking", "Mystery", 128_000, 32_000, true),
            (
                "opus-4.8-thinking-high",
                "Claude Opus 4.8 Thinking High",
                200_000,
                128_000,
                true,
            ),
            (
                "opus-4.8-high-thinking-fast",
                "Claude Opus 4.8",
                200_000,
                128_000,
                true,
            ),
            (
                "opus-4.8-high",
                "Claude Opus 4.8 High",
                200_000,
                128_000,
                false,
            ),
            ("mystery", "Mystery 64K", 64_000, 32_000, false),
            // Parameters in brackets: the family of the id before them, the window of
            // `context=` over the label's.
            (
                "opus-4.8[context=1m,effort=high]",
                "Claude Opus 4.8",
                1_000_000,
                128_000,
                false,
            ),
            (
                "gpt-5.5-high[effort=high,context=272k]",
                "GPT-5.5 1M High",
                272_000,
                128_000,
                true,
            ),
            (
                "sonnet-4.6-thinking[effort=high]",
                "Sonnet",
                200_000,
                128_000,
                true,
            ),
            (
                "opus-4.8[context=huge]",
                "Claude Opus 4.8",
                200_000,
                128_000,
                false,
            ),
        ] {
            let found = model_spec(id, name);
            assert_eq!(
                (
                    found.context_window,
                    found.max_output_tokens,
                    found.reasoning
                ),
                (context, output, reasoning),
                "{id} / {name}"
            );
        }
    }

    #[test]
    fn pictures_table() {
        for (id, pictures) in [
            ("auto", false),
            ("composer-2.5", false),
            ("sonnet-4.6-thinking", true),
            ("opus-4.8[context=1m,effort=high]", true),
            ("haiku-4.5", true),
            ("gpt-5.5-high", true),
            ("gpt-5.3-codex", true),
            ("gemini-3.1-pro", true),
            ("grok-4.7-xhigh", true),
            ("grok-code-fast-1", false),
            ("fake-model", false),
        ] {
            assert_eq!(model_spec(id, id).pictures, pictures, "{id}");
        }
    }

    #[test]
    fn labelled_window_table() {
        for (name, window) in [
            ("GPT-5.5 1M High", Some(1_000_000)),
            ("GPT-5.6 Luna 272K Low", Some(272_000)),
            ("Model 1.5M", Some(1_500_000)),
            ("Model 128k", Some(128_000)),
            ("Claude 4.6 Sonnet", None),
            ("Gemini 3.1 Pro", None),
            ("Plan M", None),
            ("Model .K", None),
            ("Model 0K", None),
            ("Model 99999999M", None),
            ("", None),
        ] {
            assert_eq!(labelled_window(name), window, "{name:?}");
        }
    }

    #[test]
    fn every_family_is_reachable() {
        // A family listed after a broader one that already matches it would never be used.
        for (index, (family, spec)) in FAMILIES.iter().enumerate() {
            let first = FAMILIES
                .iter()
                .position(|(other, _)| in_family(family, other));
            assert_eq!(first, Some(index), "{family} is shadowed");
            assert!(
                spec.context_window > 0 && spec.max_output_tokens > 0,
                "{family}"
            );
            assert!(spec.max_output_tokens < spec.context_window, "{family}");
        }
    }
}
