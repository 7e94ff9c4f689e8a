//! Cursor's identifiers, one rule each for every layer that handles them: the model id
//! OpenCode addresses (`cursor-acp/<id>`) and the chat id `--resume` takes.

/// The model-id prefix OpenCode puts in front of Cursor's ids (the provider id and a slash).
const PROVIDER_PREFIX: &str = "cursor-acp/";

/// Longest chat id accepted (Cursor's ids are 36-character UUIDs).
pub const MAX_CHAT_ID_LEN: usize = 256;

/// Cursor's model id for a possibly provider-qualified id (`cursor-acp/gpt-5` -> `gpt-5`).
pub fn cursor_model_id(model: &str) -> &str {
    model.strip_prefix(PROVIDER_PREFIX).unwrap_or(model)
}

/// `^[A-Za-z0-9][A-Za-z0-9_-]*$`, at most [`MAX_CHAT_ID_LEN`] characters. No leading dash:
/// `--resume -1` would mean "the latest chat".
pub fn is_valid_chat_id(id: &str) -> bool {
    let mut chars = id.chars();
    id.len() <= MAX_CHAT_ID_LEN
        && chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_prefix_stripped_only_at_the_start() {
        assert_eq!(cursor_model_id("cursor-acp/auto"), "auto");
        assert_eq!(cursor_model_id("auto"), "auto");
        assert_eq!(cursor_model_id("x/cursor-acp/auto"), "x/cursor-acp/auto");
    }

    #[test]
    fn chat_id_table() {
        let long_enough = "a".repeat(MAX_CHAT_ID_LEN);
        let too_long = "a".repeat(MAX_CHAT_ID_LEN + 1);
        for (id, ok) in [
            ("abc", true),
            ("A1_b-2", true),
            ("0", true),
            ("9f1c2b3a-0000-4abc-8def-0123456789ab", true),
            (long_enough.as_str(), true),
            (too_long.as_str(), false),
            ("", false),
            ("-1", false),
            ("--resume", false),
            ("_a", false),
            ("a b", false),
            ("a/b", false),
            ("a.b", false),
            ("abc;rm -rf /", false),
            ("$(id)", false),
            ("é", false),
            (" a", false),
            ("a\n", false),
        ] {
            assert_eq!(is_valid_chat_id(id), ok, "{id:?}");
        }
    }
}
