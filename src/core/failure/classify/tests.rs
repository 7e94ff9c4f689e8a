use super::*;

fn classify(stderr: &str) -> CoreError {
    classify_failure(stderr, Some(1), None, None, false)
}

#[test]
fn table_of_real_error_texts() {
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
        ("Authentication required", "E_AUTH", &["cursor-agent login"]),
        (
            "Error: You've hit your usage limit\nGet Cursor Pro for more Agent usage, unlimited Tab, and more.\nspendLimitHit: false",
            "E_QUOTA",
            &["You've hit your usage limit", "another model"],
        ),
        (
            "chatMessage: *You've hit your free requests limit. It will reset when your monthly cycle ends on 12/1/2026.*",
            "E_QUOTA",
            &["free requests limit"],
        ),
        (
            "Cannot use this model: gpt-9. Available models: auto, composer-2.5, gpt-5.5-high",
            "E_MODEL",
            &["'gpt-9'", "auto, composer-2.5, gpt-5.5-high", "cursor-agent models"],
        ),
        (
            "RetriableError: [internal] self-signed certificate in certificate chain",
            "E_NETWORK",
            &["self-signed certificate in certificate chain", "proxy"],
        ),
        (
            "Connection lost, reconnecting to https://agentn.global.api5.cursor.sh (attempt 1)...\nRetry attempt 1...",
            "E_NETWORK",
            &["Connection lost"],
        ),
        (
            "RetriableError: [invalid_argument] unknown option '--system-prompt'",
            "E_AGENT_EXIT",
            &["unknown option '--system-prompt'"],
        ),
        (
            "\u{26a0} Workspace Trust Required\nPass --trust, --yolo, or -f if you trust this directory",
            "E_AGENT_EXIT",
            &["CURSOR_ACP_FORCE"],
        ),
        (
            "\u{1b}[31mError: Authentication required.\u{1b}[0m",
            "E_AUTH",
            &["cursor-agent said: Error: Authentication required."],
        ),
    ];
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
    }
}

#[test]
fn words_containing_auth_are_not_auth_errors() {
    for stderr in [
        "Error: commit author unknown",
        "OAuth provider returned 500",
        "authorization header parse failure",
    ] {
        assert_eq!(classify(stderr).code(), "E_AGENT_EXIT", "{stderr}");
    }
}

#[test]
fn other_failures_quote_the_last_stderr_lines() {
    let stderr: String = (1..=12).map(|i| format!("line {i}\n")).collect();
    let e = classify(&stderr);
    assert_eq!(e.code(), "E_AGENT_EXIT");
    assert!(e
        .message()
        .starts_with("cursor-agent exited with code 1. stderr:\n"));
    assert!(e
        .message()
        .ends_with("line 5\nline 6\nline 7\nline 8\nline 9\nline 10\nline 11\nline 12"));
    assert!(!e.message().contains("line 4\n"));
}

#[test]
fn status_wording_for_signal_missing_result_and_result_error() {
    let e = classify_failure("", None, Some("SIGKILL"), None, false);
    assert_eq!(
        e.message(),
        "cursor-agent was stopped by signal SIGKILL (no output on stderr)."
    );
    let e = classify_failure("", Some(0), None, None, false);
    assert_eq!(
        e.message(),
        "cursor-agent ended without a result (no output on stderr)."
    );
    let e = classify_failure("", Some(0), None, Some("tool loop"), true);
    assert_eq!(
        e.message(),
        "Cursor reported an error: tool loop (no output on stderr)."
    );
    let e = classify_failure("", Some(0), None, Some(""), true);
    assert_eq!(
        e.message(),
        "Cursor reported an error (no output on stderr)."
    );
    let e = classify_failure("", Some(0), None, Some("Authentication required"), true);
    assert_eq!(e.code(), "E_AUTH");
}

#[test]
fn quoted_lines_are_clipped() {
    let long = "\u{e9}".repeat(1000);
    let e = classify(&format!("first\n{long}\nRetriableError: {long}"));
    assert_eq!(e.code(), "E_NETWORK");
    assert!(e
        .message()
        .ends_with(&format!("RetriableError: {}", "\u{e9}".repeat(384))));
    let e = classify(&format!("{long}\nlast"));
    assert_eq!(
        e.message(),
        format!(
            "cursor-agent exited with code 1. stderr:\n{}\nlast",
            "\u{e9}".repeat(400)
        )
    );
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
fn quota_detection() {
    assert!(is_quota("Error: You've hit your usage limit"));
    assert!(!is_quota("Error: Authentication required."));
    assert!(!is_quota(""));
}

#[test]
fn ansi_is_stripped() {
    assert_eq!(
        strip_ansi("\u{1b}[1;31mred\u{1b}[0m \u{1b}]0;title\u{7}ok"),
        "red ok"
    );
}
