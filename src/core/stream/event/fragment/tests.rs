use super::{parse_fragment, LONG_RECORD};
use crate::core::stream::event::tests::event;
use crate::core::stream::event::{parse, parse_general, EventBody, Parsed};

/// The fast reading of fragments and the general parser agree on every record.
fn assert_same_reading(line: &str) -> bool {
    let general = format!("{:?}", parse_general(line));
    match parse_fragment(line) {
        Some(fast) => {
            assert_eq!(format!("{fast:?}"), general, "{line}");
            true
        }
        None => false,
    }
}

fn text_fragment(text_json: &str, session_json: &str, ts: &str) -> String {
    format!(
        r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"text","text":{text_json}}}]}},"session_id":{session_json},"timestamp_ms":{ts}}}"#
    )
}

fn thinking_fragment(text_json: &str, session_json: &str, ts: &str) -> String {
    format!(
        r#"{{"type":"thinking","subtype":"delta","text":{text_json},"session_id":{session_json},"timestamp_ms":{ts}}}"#
    )
}

#[test]
fn fragments_in_cursor_layout_take_the_fast_reading() {
    for text in [
        "",
        "Checking",
        " now",
        ":\n\n",
        "\u{e9}\u{1F600}",
        "q\"b\\s\u{7f}\u{2028}",
    ] {
        let text_json = serde_json::to_string(text).unwrap();
        for ts in ["1787030681469", "0", "-5"] {
            assert!(assert_same_reading(&text_fragment(
                &text_json, r#""s-1""#, ts
            )));
            assert!(assert_same_reading(&thinking_fragment(
                &text_json, r#""s-1""#, ts
            )));
        }
    }
    // Long fragments take the tail check first.
    let long = serde_json::to_string(&"long \"text\"\n".repeat(100)).unwrap();
    assert!(long.len() > LONG_RECORD);
    assert!(assert_same_reading(&text_fragment(&long, r#""s-1""#, "7")));
    assert!(assert_same_reading(&thinking_fragment(
        &long, r#""s-1""#, "-7"
    )));
    // Escapes that serde_json itself would not write.
    for text_json in [r#""\u0041\/\ud83d\ude00""#, r#""tab\there""#] {
        assert!(assert_same_reading(&text_fragment(
            text_json,
            r#""s\u0031""#,
            "1"
        )));
    }
}

/// A text record with one of the tails cursor-agent writes after the session id.
fn text_record(text_json: &str, tail: &str) -> String {
    format!(
        r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"text","text":{text_json}}}]}},"session_id":"s-1"{tail}}}"#
    )
}

const SNAPSHOT_TAILS: &[&str] = &[
    "",
    r#","model_call_id":"m-1""#,
    r#","model_call_id":"m-1","timestamp_ms":1787030681469"#,
    r#","timestamp_ms":5"#,
];

#[test]
fn snapshots_in_cursor_layout_take_the_fast_reading_and_are_not_partial() {
    let long = serde_json::to_string(&"long \"text\" \u{e9}\\\n".repeat(400)).unwrap();
    for text_json in [
        r#""""#,
        r#""Hello""#,
        long.as_str(),
        r#""\u0041\/\ud83d\ude00""#,
    ] {
        for tail in SNAPSHOT_TAILS {
            let line = text_record(text_json, tail);
            assert!(assert_same_reading(&line), "{line}");
            let partial = matches!(
                event(&line).body,
                EventBody::Assistant { partial: true, .. }
            );
            assert_eq!(partial, *tail == r#","timestamp_ms":5"#, "{tail}");
        }
    }
    // An escaped session id after a long text.
    let long_x = format!(r#""{}""#, "x".repeat(600));
    assert!(assert_same_reading(&text_fragment(
        &long_x,
        r#""s\"q""#,
        "1"
    )));
    // Text that holds what the tail looks like is still read whole.
    let tricky = serde_json::to_string(r#"a"}]},"session_id":"x"}"#).unwrap();
    assert!(assert_same_reading(&text_record(&tricky, "")));
}

#[test]
fn other_layouts_fall_back_to_the_general_parser() {
    let cases = [
        // Other keys, other orders, whitespace.
        r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"a"}]},"session_id":"s","timestamp_ms":1,"x":2}"#.to_owned(),
        r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"a"}]},"session_id":"s","timestamp_ms":1,"model_call_id":"m"}"#.to_owned(),
        r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"a"}]},"session_id":"s","model_call_id":"m","is_server_notice":true}"#.to_owned(),
        r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},"session_id":"s"}"#.to_owned(),
        r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"a"}]},"session_id":"s","model_call_id":7}"#.to_owned(),
        format!("{} ", text_fragment(r#""a""#, r#""s""#, "1")),
        text_fragment(r#""a""#, r#""s""#, "1.5"),
        text_fragment(r#""a""#, r#""s""#, "1e3"),
        text_fragment(r#""a""#, r#""s""#, r#""1""#),
        text_fragment(r#""a""#, "null", "1"),
        // Invalid JSON the general parser must report.
        text_fragment("\"raw\ncontrol\"", r#""s""#, "1"),
        text_fragment(r#""bad \x escape""#, r#""s""#, "1"),
        text_fragment(r#""lone \ud800""#, r#""s""#, "1"),
        text_fragment(r#""a""#, r#""s""#, "01"),
        text_fragment(r#""a""#, r#""s""#, "-"),
        text_fragment(r#""unterminated"#, r#""s""#, "1"),
        r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"a"#.to_owned(),
    ];
    for line in cases {
        assert!(!assert_same_reading(&line), "fast reading accepted {line}");
    }
    assert!(matches!(
        parse(&text_fragment(r#""bad \x escape""#, r#""s""#, "1")),
        Parsed::Invalid
    ));
}

proptest::proptest! {
    #[test]
    fn fast_and_general_readings_agree(
        text in proptest::prelude::any::<String>(),
        session in "[a-z0-9-]{0,12}",
        ts in proptest::prelude::any::<i64>(),
        thinking in proptest::prelude::any::<bool>(),
    ) {
        let text_json = serde_json::to_string(&text).unwrap();
        let session_json = serde_json::to_string(&session).unwrap();
        let line = if thinking {
            thinking_fragment(&text_json, &session_json, &ts.to_string())
        } else {
            text_fragment(&text_json, &session_json, &ts.to_string())
        };
        proptest::prop_assert!(assert_same_reading(&line));
        for tail in SNAPSHOT_TAILS {
            proptest::prop_assert!(assert_same_reading(&text_record(&text_json, tail)));
        }
    }

    #[test]
    fn a_mutated_fragment_is_read_as_the_general_parser_reads_it(
        position in 0usize..200,
        replacement in proptest::prelude::any::<char>(),
        delete in proptest::prelude::any::<bool>(),
        thinking in proptest::prelude::any::<bool>(),
    ) {
        let line = if thinking {
            thinking_fragment(r#""a \"b\" \u00e9\n c""#, r#""s-1""#, "1787030681469")
        } else {
            text_fragment(r#""a \"b\" \u00e9\n c""#, r#""s-1""#, "1787030681469")
        };
        let mut chars: Vec<char> = line.chars().collect();
        let at = position % chars.len();
        if delete {
            chars.remove(at);
        } else {
            chars[at] = replacement;
        }
        let mutated: String = chars.into_iter().collect();
        assert_same_reading(&mutated);
    }
}
