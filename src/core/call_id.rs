//! The one rule that turns a model's tool call id, as Cursor's stream gives it, into the id a
//! host sees. Cursor's ids hold a line break (`call-…-0\nfc_…_0`), which hosts and providers
//! reject or mangle, and which would split a line of the prompt's transcript. Every place that
//! names a call outside Cursor's stream uses [`host_call_id`]: the bridge's hand-over (and so the
//! continuation's matching of the results that answer it) and the prompt's tool history. It lives
//! below both, so the two cannot drift apart.

/// Characters kept as they are; any other character becomes [`REPLACEMENT`].
fn kept(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// What stands in for a character outside `[A-Za-z0-9_-]`.
pub const REPLACEMENT: char = '_';
/// The id of a call whose model id is empty.
pub const EMPTY_ID: &str = "call";

/// `model_id` with every character outside `[A-Za-z0-9_-]` replaced by `_` (the line break
/// among them); an empty id becomes [`EMPTY_ID`]. Ids that already follow the rule are kept.
pub fn host_call_id(model_id: &str) -> String {
    if model_id.is_empty() {
        return EMPTY_ID.to_owned();
    }
    model_id
        .chars()
        .map(|c| if kept(c) { c } else { REPLACEMENT })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_call_id_table() {
        let table = [
            (
                "call-c9002dbc-bda9-447c-acb5-74e5093a186d-0\nfc_0956680b-0312-940b-9e66-70d44dee7753_0",
                "call-c9002dbc-bda9-447c-acb5-74e5093a186d-0_fc_0956680b-0312-940b-9e66-70d44dee7753_0",
            ),
            ("toolu_fake_mcp_0", "toolu_fake_mcp_0"),
            ("a\r\nb", "a__b"),
            ("a b:c/d", "a_b_c_d"),
            ("é", "_"),
            ("", EMPTY_ID),
        ];
        for (model, host) in table {
            assert_eq!(host_call_id(model), host, "{model:?}");
            assert_eq!(host_call_id(host), host, "the rule is stable: {host:?}");
        }
    }
}
