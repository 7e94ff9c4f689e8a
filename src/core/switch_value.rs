//! The one parser for boolean switches (`CURSOR_ACP_*` variables and options).

/// `1/true/on/yes` -> true, `0/false/off/no` -> false (case-insensitive, surrounding spaces
/// ignored); anything else, including empty or absent, -> `default`.
pub fn parse_switch(value: Option<&str>, default: bool) -> bool {
    const TABLE: [(&str, bool); 8] = [
        ("1", true),
        ("true", true),
        ("on", true),
        ("yes", true),
        ("0", false),
        ("false", false),
        ("off", false),
        ("no", false),
    ];
    let Some(value) = value else { return default };
    let value = value.trim();
    TABLE
        .iter()
        .find(|(word, _)| word.eq_ignore_ascii_case(value))
        .map_or(default, |&(_, on)| on)
}

#[cfg(test)]
mod tests {
    use super::parse_switch;

    #[test]
    fn table() {
        let cases: &[(Option<&str>, bool, bool)] = &[
            (Some("1"), false, true),
            (Some("true"), false, true),
            (Some("TRUE"), false, true),
            (Some(" On "), false, true),
            (Some("yes"), false, true),
            (Some("YeS"), false, true),
            (Some("0"), true, false),
            (Some("false"), true, false),
            (Some("Off"), true, false),
            (Some(" no\t"), true, false),
            (Some(""), true, true),
            (Some(""), false, false),
            (Some("enabled"), false, false),
            (Some("disabled"), true, true),
            (Some("2"), true, true),
            (None, true, true),
            (None, false, false),
        ];
        for &(value, default, expected) in cases {
            assert_eq!(
                parse_switch(value, default),
                expected,
                "{value:?} default {default}"
            );
        }
    }
}
