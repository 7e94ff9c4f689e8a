use super::*;

#[test]
fn secret_names_table() {
    let table = [
        ("CURSOR_API_KEY", true),
        ("OPENAI_API_KEY", true),
        ("cursor_api_key", true),
        ("GITHUB_TOKEN", true),
        ("CURSOR_ACP_PROXY_TOKEN", true),
        ("AWS_SECRET_ACCESS_KEY", true),
        ("DB_PASSWORD", true),
        ("MYSQL_PWD", false),
        ("PGPASSWD", true),
        ("GOOGLE_APPLICATION_CREDENTIALS", true),
        ("SIGNING_KEY", true),
        ("PATH", false),
        ("HOME", false),
        ("KEYBOARD_LAYOUT", false),
        ("SSH_AUTH_SOCK", false),
        ("TOKENIZERS_PARALLELISM", true),
    ];
    for (name, secret) in table {
        assert_eq!(is_secret_name(name), secret, "{name}");
    }
}

fn masker(prompt: bool, secrets: &[(&str, &str)]) -> Masker {
    let mut masker = Masker::new(prompt);
    for (name, value) in secrets {
        masker.add_secret(name, value);
    }
    masker
}

#[test]
fn the_prompt_echo_is_masked_and_nothing_else() {
    let user = r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"my \"private\" prompt"}]},"session_id":"s-1"}"#;
    let assistant = r#"{"type":"assistant","message":{"content":[{"type":"text","text":"an answer"}]},"session_id":"s-1"}"#;
    let stream = format!("{user}\n{assistant}\n");
    let masked = masker(true, &[]).records(stream.as_bytes()).into_owned();
    let expected = stream.replace(r#""my \"private\" prompt""#, "\"[prompt masked]\"");
    assert_eq!(String::from_utf8(masked).unwrap(), expected);
    let kept = masker(false, &[]).records(stream.as_bytes()).into_owned();
    assert_eq!(kept, stream.as_bytes(), "includePrompt keeps the echo");
}

#[test]
fn a_user_record_in_any_layout_is_masked() {
    let table = [
        // Spaces around the colon, the text before the type, a text key holding a number.
        (
            r#"{ "text" : "p1", "type" : "user" }"#,
            r#"{ "text" : "[prompt masked]", "type" : "user" }"#,
        ),
        (
            r#"{"type":"user","message":{"content":[{"text":"a"},{"text":"b"}],"n":{"text":3}}}"#,
            r#"{"type":"user","message":{"content":[{"text":"[prompt masked]"},{"text":"[prompt masked]"}],"n":{"text":3}}}"#,
        ),
        // Not a user record: a value that merely says "user" stays.
        (
            r#"{"type":"assistant","role":"user","text":"kept"}"#,
            r#"{"type":"assistant","role":"user","text":"kept"}"#,
        ),
        // Not JSON: kept as it is.
        (
            r#"{"type":"user","text":"cut"#,
            r#"{"type":"user","text":"cut"#,
        ),
    ];
    let m = masker(true, &[]);
    for (record, expected) in table {
        let line = format!("{record}\n");
        let masked = String::from_utf8(m.records(line.as_bytes()).into_owned()).unwrap();
        assert_eq!(masked, format!("{expected}\n"), "{record}");
    }
}

#[test]
fn secrets_are_masked_raw_and_json_escaped_and_short_values_are_not() {
    let m = masker(
        false,
        &[
            ("CURSOR_API_KEY", "key_0123456789"),
            ("ODD_TOKEN", "a\"quoted\"token"),
            ("SHORT_TOKEN", "abc"),
        ],
    );
    assert_eq!(m.secret_names(), ["CURSOR_API_KEY", "ODD_TOKEN"]);
    let stream = "{\"text\":\"key_0123456789 and a\\\"quoted\\\"token\"}\nabc key_0123456789\n";
    let masked = String::from_utf8(m.records(stream.as_bytes()).into_owned()).unwrap();
    assert_eq!(
        masked,
        "{\"text\":\"[masked CURSOR_API_KEY] and [masked ODD_TOKEN]\"}\nabc [masked CURSOR_API_KEY]\n"
    );
    assert_eq!(
        m.text("stderr: key_0123456789"),
        "stderr: [masked CURSOR_API_KEY]"
    );
    let mut value = serde_json::json!({"delta": "x key_0123456789", "n": [1, "key_0123456789"]});
    m.value(&mut value);
    assert_eq!(
        value,
        serde_json::json!({"delta": "x [masked CURSOR_API_KEY]", "n": [1, "[masked CURSOR_API_KEY]"]})
    );
}

#[test]
fn bytes_that_are_not_utf8_pass_unchanged_apart_from_secrets() {
    let m = masker(true, &[("CURSOR_API_KEY", "key_0123456789")]);
    let stream = b"\xff\xfe key_0123456789\n".to_vec();
    let masked = m.records(&stream).into_owned();
    assert_eq!(masked, b"\xff\xfe [masked CURSOR_API_KEY]\n");
}

#[test]
fn every_occurrence_is_replaced_wherever_it_stands() {
    let m = masker(false, &[("CURSOR_API_KEY", "secretsecret")]);
    let table = [
        ("secretsecret", "[masked CURSOR_API_KEY]"),
        (
            "secretsecretsecretsecret",
            "[masked CURSOR_API_KEY][masked CURSOR_API_KEY]",
        ),
        // Leftmost first: the overlap that follows is no second occurrence.
        ("secretsecretsecret", "[masked CURSOR_API_KEY]secret"),
        (
            "a secretsecret b secretsecret",
            "a [masked CURSOR_API_KEY] b [masked CURSOR_API_KEY]",
        ),
        // A piece cut at either end, eight characters or more, is masked too; a shorter one is
        // ordinary text.
        ("secretsecre", "[masked CURSOR_API_KEY]"),
        ("a secre", "a secre"),
        ("", ""),
    ];
    for (text, expected) in table {
        assert_eq!(m.text(text), expected, "{text:?}");
    }
}
