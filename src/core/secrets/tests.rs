use super::*;

const KEY: &str = "key_0123456789abcdefghij";

fn secrets() -> Secrets {
    let mut secrets = Secrets::default();
    secrets.add_vars([("CURSOR_API_KEY", KEY), ("PATH", "/usr/bin:/bin")]);
    secrets
}

#[test]
fn whole_secrets_and_cut_pieces_at_either_end_are_masked() {
    // (text, what it becomes)
    let table: &[(&str, &str)] = &[
        (
            "error: key_0123456789abcdefghij rejected",
            "error: [masked CURSOR_API_KEY] rejected",
        ),
        // A tail cut inside the key keeps its end at the start.
        (
            "3456789abcdefghij rejected",
            "[masked CURSOR_API_KEY] rejected",
        ),
        // A clipped line keeps its start at the end.
        ("error: key_01234567", "error: [masked CURSOR_API_KEY]"),
        // Both ends at once.
        (
            "cdefghij ... key_0123",
            "[masked CURSOR_API_KEY] ... [masked CURSOR_API_KEY]",
        ),
        // Fewer than eight characters of it are ordinary text.
        ("fghij rejected", "fghij rejected"),
        ("error: key_012", "error: key_012"),
        // The PATH is not a secret.
        ("/usr/bin:/bin", "/usr/bin:/bin"),
    ];
    let secrets = secrets();
    for (text, masked) in table {
        assert_eq!(secrets.text(text), *masked, "{text:?}");
    }
}

#[test]
fn a_short_secret_is_masked_only_whole() {
    let mut secrets = Secrets::default();
    // Shorter than a piece: only the whole value counts (and values under eight are not secrets).
    secrets.add("SHORT_TOKEN", "abcdefgh");
    assert_eq!(secrets.text("xx abcdefgh yy"), "xx [masked SHORT_TOKEN] yy");
    assert_eq!(secrets.text("bcdefgh yy"), "bcdefgh yy");
    let mut tiny = Secrets::default();
    tiny.add("PIN_TOKEN", "1234567");
    assert!(tiny.is_empty());
}

#[test]
fn remembered_secrets_mask_any_text() {
    let mut run = Secrets::default();
    run.add_vars([
        ("OTHER_API_KEY", "remembered-secret-value-42"),
        ("PATH", "/usr/bin:/bin"),
    ]);
    run.add("tool bridge token", "0123456789abcdef0123");
    remember(&run);
    assert_eq!(
        mask_known("said remembered-secret-value-42 and 0123456789abcdef0123"),
        "said [masked OTHER_API_KEY] and [masked tool bridge token]"
    );
    assert_eq!(mask_known("nothing here"), "nothing here");
}

#[test]
fn the_process_remembers_only_the_newest_secrets() {
    let mut many = Secrets::default();
    for n in 0..KNOWN_LIMIT + 3 {
        many.add("SOME_TOKEN", &format!("distinct-secret-{n:04}"));
    }
    many.keep_newest(KNOWN_LIMIT);
    assert_eq!(
        many.text("distinct-secret-0000 x"),
        "distinct-secret-0000 x",
        "the oldest is forgotten"
    );
    let newest = format!("distinct-secret-{:04}", KNOWN_LIMIT + 2);
    assert_eq!(many.text(&format!("{newest} x")), "[masked SOME_TOKEN] x");
}
