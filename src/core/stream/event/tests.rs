use super::*;

pub(super) fn event(line: &str) -> Event<'_> {
    match parse(line) {
        Parsed::Event(e) => e,
        other => panic!("not an event: {other:?} for {line}"),
    }
}

#[test]
fn invalid_and_non_object_records_are_invalid() {
    for line in [
        "not json",
        "[1,2]",
        "42",
        "\"s\"",
        "{\"type\":",
        "null",
        "{} x",
    ] {
        assert!(matches!(parse(line), Parsed::Invalid), "{line}");
    }
}

#[test]
fn unknown_types_and_untyped_objects_are_ignored_not_invalid() {
    let cases = [
        (
            r#"{"type":"future_thing","message":"a string where assistant has an object"}"#,
            Some("future_thing"),
        ),
        (
            r#"{"type":"heartbeat","subtype":"beat"}"#,
            Some("heartbeat/beat"),
        ),
        (
            r#"{"type":"system","subtype":"compaction"}"#,
            Some("system/compaction"),
        ),
        (r#"{"type":"odd_subtype","subtype":7}"#, Some("odd_subtype")),
        (r#"{"no_type":true}"#, None),
        (r#"{"type":7}"#, None),
    ];
    for (line, unknown) in cases {
        match parse(line) {
            Parsed::Ignored {
                held: HeldFlush::Release,
                unknown: found,
            } => assert_eq!(
                found.as_ref().map(label),
                unknown.map(str::to_owned),
                "{line}"
            ),
            other => panic!("{line}: {other:?}"),
        }
    }
}

/// An unknown record's kind as `type` or `type/subtype`.
fn label(record: &UnknownRecord<'_>) -> String {
    match &record.subtype {
        Some(subtype) => format!("{}/{subtype}", record.kind),
        None => record.kind.to_string(),
    }
}

#[test]
fn known_types_with_bad_shapes_are_ignored() {
    for line in [
        r#"{"type":"assistant","message":{"content":"flat string"}}"#,
        r#"{"type":"assistant"}"#,
        r#"{"type":"assistant","message":{"content":[{"type":"text","text":5}]}}"#,
        r#"{"type":"tool_call","subtype":"started","call_id":"c"}"#,
        r#"{"type":"tool_call","subtype":"started","call_id":"c","tool_call":{"x":1}}"#,
        r#"{"type":"tool_call","subtype":"started","tool_call":{"shellToolCall":{}}}"#,
        r#"{"type":"result","is_error":"yes"}"#,
        r#"{"type":"system","subtype":"init","session_id":5}"#,
    ] {
        assert!(
            matches!(
                parse(line),
                Parsed::Ignored {
                    held: HeldFlush::Release,
                    unknown: None
                }
            ),
            "{line}"
        );
    }
    // A subtype of `tool_call` no version is known to write is an unknown record.
    let progress = r#"{"type":"tool_call","subtype":"progress","call_id":"c","tool_call":{"shellToolCall":{}}}"#;
    match parse(progress) {
        Parsed::Ignored {
            unknown: Some(record),
            ..
        } => assert_eq!(label(&record), "tool_call/progress"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn each_record_type_decides_a_held_flush_as_its_table_says() {
    let cases = [
        (
            r#"{"type":"connection","subtype":"reconnecting","attempt":1}"#,
            HeldFlush::Keep,
        ),
        (r#"{"type":"connection","subtype":7}"#, HeldFlush::Keep),
        (r#"{"type":"retry","message":7}"#, HeldFlush::Drop),
        (
            r#"{"type":"interaction_query","query":7,"subtype":[]}"#,
            HeldFlush::Drop,
        ),
        (r#"{"type":"future_thing"}"#, HeldFlush::Release),
    ];
    for (line, effect) in cases {
        match parse(line) {
            Parsed::Ignored { held, .. } => assert_eq!(held, effect, "{line}"),
            Parsed::Event(e) if matches!(e.body, EventBody::Transport) => {
                assert_eq!(effect, HeldFlush::Drop, "{line}")
            }
            other => panic!("{line}: {other:?}"),
        }
    }
}

#[test]
fn transport_events_are_recognised_even_with_odd_shapes() {
    assert!(matches!(
        event(r#"{"type":"retry","subtype":"starting","attempt":1}"#).body,
        EventBody::Transport
    ));
    assert!(matches!(
        event(r#"{"type":"interaction_query","subtype":"request","query":{}}"#).body,
        EventBody::Transport
    ));
    assert!(matches!(
        parse(r#"{"type":"retry","message":7}"#),
        Parsed::Ignored {
            held: HeldFlush::Drop,
            unknown: None
        }
    ));
}

#[test]
fn partial_needs_a_numeric_timestamp_and_no_model_call_id() {
    let cases = [
        (r#""timestamp_ms":1"#, true),
        (r#""timestamp_ms":1.5"#, true),
        (r#""timestamp_ms":"1""#, false),
        (r#""timestamp_ms":null"#, false),
        (r#""timestamp_ms":1,"model_call_id":"m""#, false),
        (r#""timestamp_ms":1,"model_call_id":null"#, true),
        (r#""model_call_id":"m""#, false),
        (r#""session_id":"s""#, false),
    ];
    for (fields, expected) in cases {
        let line = format!(
            r#"{{"type":"assistant","message":{{"content":[{{"type":"text","text":"x"}}]}},{fields}}}"#
        );
        match event(&line).body {
            EventBody::Assistant { partial, .. } => assert_eq!(partial, expected, "{fields}"),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn assistant_parts_feed_their_channels_and_unknown_parts_feed_none() {
    let e = event(
        r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"a\nb"},{"type":"image","data":"x"}]},"extra":{"x":[1]}}"#,
    );
    let EventBody::Assistant { parts, .. } = e.body else {
        panic!()
    };
    let got: Vec<_> = parts.iter().map(ContentPart::channel_text).collect();
    assert_eq!(
        got,
        vec![
            Some((Channel::Thinking, "hm")),
            Some((Channel::Text, "a\nb")),
            None
        ]
    );
}

#[test]
fn tool_key_is_the_one_ending_in_tool_call_not_the_first() {
    let e = event(
        r#"{"type":"tool_call","call_id":"c\nd","tool_call":{"hookAdditionalContexts":[],"toolCallId":"c\nd","readToolCall":{"args":{"path":"/x"}},"startedAtMs":"1"}}"#,
    );
    let EventBody::ToolCall {
        completed,
        call_id,
        call,
    } = e.body
    else {
        panic!()
    };
    assert!(!completed);
    assert_eq!(call_id, "c\nd");
    assert_eq!(call.kind.as_deref(), Some("readToolCall"));
    assert_eq!(call.args.map(RawValue::get), Some(r#"{"path":"/x"}"#));
}

#[test]
fn function_entry_and_tool_call_id_fallback() {
    let e = event(
        r#"{"type":"tool_call","subtype":"started","tool_call":{"toolCallId":"t1","function":{"name":"lookup","arguments":"{\"q\":1}"}}}"#,
    );
    let EventBody::ToolCall { call_id, call, .. } = e.body else {
        panic!()
    };
    assert_eq!(call_id, "t1");
    assert_eq!(call.kind.as_deref(), Some("function"));
    assert_eq!(call.function_name.as_deref(), Some("lookup"));
    assert_eq!(call.args.map(RawValue::get), Some(r#""{\"q\":1}""#));
}

#[test]
fn function_entry_carries_its_result() {
    let e = event(
        r#"{"type":"tool_call","subtype":"completed","call_id":"f1","tool_call":{"function":{"name":"lookup","arguments":"{}","result":{"success":{"answer":42}}}}}"#,
    );
    let EventBody::ToolCall { call, .. } = e.body else {
        panic!()
    };
    assert_eq!(
        call.result.map(RawValue::get),
        Some(r#"{"success":{"answer":42}}"#)
    );
}

#[test]
fn result_error_message_sources() {
    let cases = [
        (
            r#"{"type":"result","is_error":false,"result":"fine"}"#,
            false,
            None,
        ),
        (
            r#"{"type":"result","is_error":true,"error":{"message":"boom"}}"#,
            true,
            Some("boom"),
        ),
        (
            r#"{"type":"result","subtype":"error","result":"said so"}"#,
            true,
            Some("said so"),
        ),
        (
            r#"{"type":"result","is_error":true,"error":"str"}"#,
            true,
            Some("str"),
        ),
        (r#"{"type":"result","is_error":true}"#, true, None),
    ];
    for (line, want_error, want_message) in cases {
        match event(line).body {
            EventBody::Result {
                is_error,
                error_message,
                ..
            } => {
                assert_eq!(is_error, want_error, "{line}");
                assert_eq!(error_message.as_deref(), want_message, "{line}");
            }
            other => panic!("{other:?}"),
        }
    }
}

// ---- shapes of cursor-agent 2026.09 and later (guessed; see the fixtures' README) ----

/// A `text` record's text, concatenated over its text parts; `None` when it is not one.
fn text_of(line: &str) -> Option<String> {
    match parse(line) {
        Parsed::Event(Event {
            body: EventBody::Text { parts },
            ..
        }) => Some(
            parts
                .iter()
                .filter_map(|p| p.channel_text())
                .filter(|(channel, _)| *channel == Channel::Text)
                .map(|(_, text)| text)
                .collect(),
        ),
        _ => None,
    }
}

#[test]
fn a_text_record_is_read_from_each_carrier_in_order() {
    let cases = [
        (r#"{"type":"text","text":"a"}"#, Some("a")),
        (r#"{"type":"text","content":"b\u00e9"}"#, Some("b\u{e9}")),
        (
            r#"{"type":"text","message":{"role":"assistant","content":[{"type":"text","text":"c"},{"type":"text","text":"d"}]}}"#,
            Some("cd"),
        ),
        (
            r#"{"type":"text","text":"first","content":"second"}"#,
            Some("first"),
        ),
        (
            r#"{"type":"text","content":"second","message":{"content":[{"text":"third"}]}}"#,
            Some("second"),
        ),
        (r#"{"type":"text","text":"","session_id":"s"}"#, Some("")),
        // No carrier of the right shape: an unknown record.
        (r#"{"type":"text","content":["x"]}"#, None),
        (r#"{"type":"text","text":{"value":"x"}}"#, None),
        (r#"{"type":"text","message":{"content":"flat"}}"#, None),
        (r#"{"type":"text"}"#, None),
    ];
    for (line, text) in cases {
        assert_eq!(text_of(line).as_deref(), text, "{line}");
        if text.is_none() {
            match parse(line) {
                Parsed::Ignored {
                    held: HeldFlush::Release,
                    unknown: Some(record),
                } => assert_eq!(label(&record), "text", "{line}"),
                other => panic!("{line}: {other:?}"),
            }
        }
    }
}

#[test]
fn content_of_another_shape_does_not_spoil_other_records() {
    let line = r#"{"type":"assistant","content":{"not":"a string"},"message":{"content":[{"type":"text","text":"ok"}]}}"#;
    assert!(matches!(event(line).body, EventBody::Assistant { .. }));
}

#[test]
fn system_subtypes_are_read_by_their_table() {
    let cases = [
        (
            r#"{"type":"system","subtype":"task_notification","task":{}}"#,
            Some(Notice::TaskNotification),
        ),
        (
            r#"{"type":"system","subtype":"background_shell_timeout","command":"x"}"#,
            Some(Notice::BackgroundShellTimeout),
        ),
        (r#"{"type":"system","subtype":"init"}"#, None),
        (r#"{"type":"system"}"#, None),
    ];
    for (line, notice) in cases {
        match (event(line).body, notice) {
            (
                EventBody::Notice {
                    notice: found,
                    record,
                },
                Some(notice),
            ) => {
                assert_eq!(found, notice, "{line}");
                assert_eq!(record, line);
            }
            (EventBody::Context { .. }, None) => {}
            (other, _) => panic!("{line}: {other:?}"),
        }
    }
}

#[test]
fn system_init_may_carry_the_cli_version() {
    let cases = [
        (
            r#"{"type":"system","subtype":"init","session_id":"s"}"#,
            None,
        ),
        (
            r#"{"type":"system","subtype":"init","version":"2026.09.18-9a7762b"}"#,
            Some("2026.09.18-9a7762b"),
        ),
        (
            r#"{"type":"system","subtype":"init","cliVersion":"2026.10.01-e373342"}"#,
            Some("2026.10.01-e373342"),
        ),
        (
            r#"{"type":"system","subtype":"init","agentVersion":" 1.2 "}"#,
            Some("1.2"),
        ),
        (
            r#"{"type":"system","subtype":"init","version":"","agent_version":"3"}"#,
            Some("3"),
        ),
        (r#"{"type":"system","subtype":"init","version":5}"#, None),
        (
            r#"{"type":"user","version":"9","message":{"content":[]}}"#,
            None,
        ),
    ];
    for (line, version) in cases {
        match event(line).body {
            EventBody::Context { agent_version } => {
                assert_eq!(agent_version.as_deref(), version, "{line}")
            }
            other => panic!("{line}: {other:?}"),
        }
    }
}
