use super::*;

fn classify(stderr: &str) -> CoreError {
    classify_failure(stderr, Some(1), None, None, false, false)
}

#[test]
fn table_of_error_texts() {
    // (stderr, code, fragments of the explanation)
    let table: &[(&str, &str, &[&str])] = &[
        (
            "Error: Authentication required. Please run 'agent login' first, or set CURSOR_API_KEY environment variable.",
            "E_AUTH",
            &["cursor-agent login", "CURSOR_API_KEY"],
        ),
        (
            "Error: Authentication required. Run `agent login`, pass `--api-key`/`--auth-token`, or set `CURSOR_API_KEY`/`CURSOR_AUTH_TOKEN`.",
            "E_AUTH",
            &["cursor-agent login", "CURSOR_API_KEY"],
        ),
        ("401 Unauthorized: invalid API key", "E_AUTH", &["cursor-agent login"]),
        ("session not found; please re-authenticate", "E_AUTH", &["cursor-agent login"]),
        ("Your session has expired. Please log in again.", "E_AUTH", &["cursor-agent login"]),
        (
            "Error: You've hit your usage limit\nGet Cursor Pro for more Agent usage, unlimited Tab, and more.\nspendLimitHit: false",
            "E_QUOTA",
            &["usage limit", "another Cursor model"],
        ),
        (
            "chatMessage: *You've hit your free requests limit. It will reset when your monthly cycle ends on 12/1/2026.*",
            "E_QUOTA",
            &["It resets on 12/1/2026."],
        ),
        ("Error: rate limit exceeded", "E_QUOTA", &["usage limit"]),
        ("Request failed: 429 Too Many Requests", "E_QUOTA", &["usage limit"]),
        // Cursor's proxy out of capacity: transient, not the plan's usage limit.
        (
            "ConnectError: [resource_exhausted] resource exhausted",
            "E_NETWORK",
            &["no capacity", "neither the login nor the plan's usage limit"],
        ),
        ("Error: resource exhausted", "E_NETWORK", &["no capacity", "another Cursor model"]),
        // A usage limit worded with resource_exhausted stays a usage limit.
        (
            "ConnectError: [resource_exhausted] You've hit your usage limit",
            "E_QUOTA",
            &["usage limit"],
        ),
        (
            "ConnectError: [unavailable] model channel not available",
            "E_NETWORK",
            &["no capacity for this model", "neither the login", "another Cursor model"],
        ),
        (
            "Error: Your team admin has disabled Run Everything, so --force cannot be used.",
            "E_AGENT_EXIT",
            &["\"Run Everything\"", "CURSOR_ACP_FORCE=false"],
        ),
        (
            "Error: \"Run Everything\" is disabled by your team admin.",
            "E_AGENT_EXIT",
            &["CURSOR_ACP_FORCE=false"],
        ),
        (
            "Connection lost, reconnecting to https://agentn.global.api5.cursor.sh (attempt 1)...\nRetriableError: WritableIterable is closed",
            "E_NETWORK",
            &["dropped before any answer text arrived", "Send the message again"],
        ),
        ("Error: T: WritableIterable is closed", "E_NETWORK", &["dropped"]),
        ("RetriableError: ReadableIterable is closed", "E_NETWORK", &["dropped"]),
        (
            "Cannot use this model: gpt-9. Available models: auto, composer-2.5, gpt-5.5-high",
            "E_MODEL",
            &["'gpt-9'", "auto, composer-2.5, gpt-5.5-high", "cursor-agent models"],
        ),
        ("Error: model not found: gpt-9", "E_MODEL", &["cursor-agent models"]),
        ("TypeError: fetch failed", "E_NETWORK", &["could not reach Cursor's servers"]),
        ("Error: read ECONNRESET", "E_NETWORK", &["could not reach Cursor's servers"]),
        ("Error: socket hang up", "E_NETWORK", &["could not reach Cursor's servers"]),
        ("Error: timeout", "E_NETWORK", &["could not reach Cursor's servers"]),
        ("Request failed with HTTP 500", "E_NETWORK", &["Cursor's side"]),
        ("502 Bad Gateway", "E_NETWORK", &["Cursor's side"]),
        ("503 Service Unavailable", "E_NETWORK", &["Cursor's side"]),
        ("Error: Overloaded", "E_NETWORK", &["Cursor's side"]),
        ("ConnectError: [unavailable] upstream unavailable", "E_NETWORK", &["Cursor's side"]),
        (
            "RetriableError: [internal] self-signed certificate in certificate chain",
            "E_NETWORK",
            &["proxy", "NODE_EXTRA_CA_CERTS"],
        ),
        (
            "Connection lost, reconnecting to https://agentn.global.api5.cursor.sh (attempt 1)...\nRetry attempt 1...",
            "E_NETWORK",
            &["could not reach Cursor's servers"],
        ),
        (
            "RetriableError: [invalid_argument] unknown option '--system-prompt'",
            "E_AGENT_EXIT",
            &["rejected the request"],
        ),
        (
            "\u{26a0} Workspace Trust Required\nPass --trust, --yolo, or -f if you trust this directory",
            "E_AGENT_EXIT",
            &["CURSOR_ACP_FORCE"],
        ),
        ("\u{1b}[31mError: Authentication required.\u{1b}[0m", "E_AUTH", &["cursor-agent login"]),
        ("Error: something odd happened", "E_AGENT_EXIT", &["exited with code 1"]),
    ];
    assert!(table.len() >= 15);
    for (stderr, code, fragments) in table {
        let e = classify(stderr);
        assert_eq!(e.code(), *code, "{stderr}");
        for f in *fragments {
            assert!(
                e.message().contains(f),
                "{stderr}: {:?} lacks {f}",
                e.message()
            );
        }
        // Cursor's own words are kept verbatim (ANSI removed), apart from the explanation.
        let said = strip_ansi(stderr);
        assert_eq!(e.agent_output(), Some(said.trim()), "{stderr}");
    }
}

#[test]
fn the_quota_message_names_no_model_to_switch_to() {
    let e = classify("Error: You've hit your usage limit");
    assert!(!e.message().contains("cursor-acp/"), "{}", e.message());
    assert!(!e.message().contains("auto"), "{}", e.message());
}

#[test]
fn words_containing_auth_or_status_numbers_are_not_classified_by_them() {
    for stderr in [
        "Error: commit author unknown",
        "OAuth provider returned 500",
        "authorization header parse failure",
        "wrote 5023 bytes in 1500 ms",
    ] {
        assert_eq!(classify(stderr).code(), "E_AGENT_EXIT", "{stderr}");
    }
}

#[test]
fn other_failures_keep_the_last_stderr_lines_as_agent_output() {
    let stderr: String = (1..=12).map(|i| format!("line {i}\n")).collect();
    let e = classify(&stderr);
    assert_eq!(e.code(), "E_AGENT_EXIT");
    assert_eq!(e.message(), "cursor-agent exited with code 1.");
    let said = e.agent_output().unwrap();
    assert!(said.starts_with("line 5\n"), "{said}");
    assert!(said.ends_with("line 11\nline 12"), "{said}");
    assert!(!said.contains("line 4\n"));
}

#[test]
fn status_wording_for_signal_missing_result_and_result_error() {
    let e = classify_failure("", None, Some("SIGKILL"), None, false, false);
    assert_eq!(
        e.message(),
        "cursor-agent was stopped by signal SIGKILL, and printed nothing about why."
    );
    assert_eq!(e.agent_output(), None);
    let e = classify_failure("", Some(0), None, None, false, false);
    assert_eq!(
        e.message(),
        "cursor-agent ended without a result, and printed nothing about why."
    );
    let e = classify_failure("", Some(0), None, Some("tool loop"), true, false);
    assert_eq!(e.message(), "Cursor reported an error.");
    assert_eq!(e.agent_output(), Some("tool loop"));
    let e = classify_failure("oops", Some(0), None, Some("tool loop"), true, false);
    assert_eq!(e.agent_output(), Some("tool loop\noops"));
    let e = classify_failure("", Some(0), None, Some(""), true, false);
    assert_eq!(
        e.message(),
        "Cursor reported an error, and printed nothing about why."
    );
    let e = classify_failure(
        "",
        Some(0),
        None,
        Some("Authentication required"),
        true,
        false,
    );
    assert_eq!(e.code(), "E_AUTH");
}

#[test]
fn quoted_lines_are_clipped() {
    let long = "\u{e9}".repeat(1000);
    let e = classify(&format!("first\n{long}\nRetriableError: {long}"));
    assert_eq!(e.code(), "E_NETWORK");
    assert!(e
        .agent_output()
        .unwrap()
        .ends_with(&format!("RetriableError: {}", "\u{e9}".repeat(384))));
    let e = classify(&format!("{long}\nlast"));
    let expected = format!("{}\nlast", "\u{e9}".repeat(400));
    assert_eq!(e.agent_output(), Some(expected.as_str()));
}

#[test]
fn model_list_is_capped() {
    let models: Vec<String> = (0..50).map(|i| format!("m{i}")).collect();
    let e = classify(&format!(
        "Cannot use this model: x. Available models: {}",
        models.join(", ")
    ));
    assert!(e.message().contains("m39 and 10 more."), "{}", e.message());
    assert!(!e.message().contains("m40"));
}

#[test]
fn ansi_is_stripped() {
    assert_eq!(
        strip_ansi("\u{1b}[1;31mred\u{1b}[0m \u{1b}]0;title\u{7}ok"),
        "red ok"
    );
}

#[test]
fn a_quota_failure_carries_the_reset_day_as_data() {
    let dated = classify_failure(
        "You've hit your usage limit. It will reset when your monthly cycle ends on 1/1/2027.",
        Some(1),
        None,
        None,
        false,
        false,
    );
    assert_eq!(dated.code(), "E_QUOTA");
    assert_eq!(dated.resets_at(), Some(1_798_761_600_000));
    let undated = classify_failure("usage limit reached", Some(1), None, None, false, false);
    assert_eq!(
        (undated.code(), undated.resets_at()),
        (ErrorCode::Quota, None)
    );
    let auth = classify_failure(
        "not logged in; resets on 1/1/2027",
        Some(1),
        None,
        None,
        false,
        false,
    );
    assert_eq!(auth.resets_at(), None);
}

#[test]
fn a_quota_failure_says_the_answer_stops_only_when_one_had_begun() {
    let said = "You've hit your usage limit\nspendLimitHit: false\nspendLimits: [50,100,200]";
    let before = classify_failure(said, Some(1), None, None, false, false);
    assert!(
        before.message().contains("no answer was started")
            && !before.message().contains("stops here"),
        "{}",
        before.message()
    );
    let during = classify_failure(said, Some(1), None, None, false, true);
    assert!(
        during.message().contains("so the answer stops here"),
        "{}",
        during.message()
    );
    for error in [&before, &during] {
        // Cursor's diagnostic lines are its words, kept apart from the explanation.
        assert!(
            !error.message().contains("spendLimit"),
            "{}",
            error.message()
        );
        assert!(error
            .agent_output()
            .unwrap_or_default()
            .contains("spendLimits: [50,100,200]"));
    }
}

#[test]
fn a_dropped_connection_says_whether_the_answer_was_cut_off() {
    let said = "Connection lost, reconnecting to https://agentn.global.api5.cursor.sh\nRetriableError: WritableIterable is closed";
    let before = classify_failure(said, Some(1), None, None, false, false);
    let during = classify_failure(said, Some(1), None, None, false, true);
    assert_eq!(
        (before.code(), during.code()),
        (ErrorCode::Network, ErrorCode::Network)
    );
    assert!(
        before.message().contains("before any answer text arrived"),
        "{}",
        before.message()
    );
    assert!(
        during.message().contains("answer was cut off")
            && during.message().contains("what arrived stays"),
        "{}",
        during.message()
    );
}

#[test]
fn connection_dropped_knows_each_variant_and_nothing_else() {
    let table: &[(&str, bool)] = &[
        ("RetriableError: WritableIterable is closed", true),
        ("Error: T: WritableIterable is closed", true),
        ("RetriableError: ReadableIterable is closed", true),
        (
            "\u{1b}[31mRetriableError: WRITABLEITERABLE IS CLOSED\u{1b}[0m",
            true,
        ),
        (
            "Connection lost, reconnecting to https://api2.cursor.sh (attempt 1)...",
            false,
        ),
        ("TypeError: fetch failed", false),
        ("the iterable is closed", false),
    ];
    for (text, dropped) in table {
        assert_eq!(connection_dropped(text), *dropped, "{text}");
    }
}

#[test]
fn explanations_of_capacity_and_drops_avoid_words_a_host_retries_on() {
    // OpenCode reruns a request whose message reads like a transient fault; these failures are
    // never retried by the host, so the package's words must not read that way.
    for said in [
        "ConnectError: [resource_exhausted] resource exhausted",
        "ConnectError: [unavailable] model channel not available",
        "RetriableError: WritableIterable is closed",
    ] {
        for answered in [false, true] {
            let message = classify_failure(said, Some(1), None, None, false, answered)
                .message()
                .to_ascii_lowercase();
            for word in [
                "unavailable",
                "exhausted",
                "connection lost",
                "try again",
                "at capacity",
            ] {
                assert!(!message.contains(word), "{said}: {message}");
            }
        }
    }
}
