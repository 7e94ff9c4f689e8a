//! What a conversation's key is made of, and which chat ids are recorded under it.

use super::*;

#[test]
fn chat_ids_are_checked() {
    let valid = [
        "a",
        "A1",
        "0",
        "9f1c2b3a-0000-4abc-8def-0123456789ab",
        "chat_1-x",
    ];
    let invalid = [
        "",
        "-1",
        "--resume",
        "_a",
        "abc;rm -rf /",
        "a b",
        "a/b",
        "ä",
        "a\n",
        " a",
        "a.b",
        "$(id)",
    ];
    let too_long = "a".repeat(257);
    let mut m = enabled();
    let p = plan(&mut m, &turn1());
    for id in invalid.into_iter().chain([too_long.as_str()]) {
        assert!(!m.record(&p, id), "{id:?}");
    }
    assert_eq!(m.len(), 0);
    for id in valid {
        assert!(m.record(&p, id), "{id:?}");
    }
}

#[test]
fn conversation_ids_keep_same_opener_sessions_apart() {
    let mut m = enabled();
    let with_id = |v: Value, id: &str| {
        let mut v = v;
        v["conversationId"] = json!(id);
        v
    };
    let p1 = plan(&mut m, &with_id(turn1(), "ses_one"));
    let p2 = plan(&mut m, &with_id(turn1(), "ses_two"));
    assert_ne!(p1.session_key, p2.session_key);
    m.record(&p1, "chat-1");
    m.record(&p2, "chat-2");
    assert_eq!(m.len(), 2);
    assert_eq!(
        plan(&mut m, &with_id(turn2(), "ses_one"))
            .resume_chat_id
            .as_deref(),
        Some("chat-1")
    );
    assert_eq!(
        plan(&mut m, &with_id(turn2(), "ses_two"))
            .resume_chat_id
            .as_deref(),
        Some("chat-2")
    );
    // Without an id, the anchor is used: a different key from both.
    assert_eq!(plan(&mut m, &turn2()).resume_chat_id, None);
}

#[test]
fn workspace_and_model_are_part_of_the_key_and_the_provider_prefix_is_not() {
    let mut m = enabled();
    let p = plan(&mut m, &turn1());
    m.record(&p, "chat-1");
    let mut bare_model = turn2();
    bare_model["model"] = json!("auto");
    assert_eq!(
        plan(&mut m, &bare_model).resume_chat_id.as_deref(),
        Some("chat-1")
    );
    let mut other_model = turn2();
    other_model["model"] = json!("cursor-acp/sonnet-4.6");
    assert_eq!(plan(&mut m, &other_model).resume_chat_id, None);
    let mut other_workspace = turn2();
    other_workspace["workspace"] = json!("/elsewhere");
    assert_eq!(plan(&mut m, &other_workspace).resume_chat_id, None);
}

#[test]
fn an_image_in_the_opener_changes_the_anchor() {
    let mut m = enabled();
    let p = plan(&mut m, &turn1());
    m.record(&p, "chat-1");
    let with_image = request(json!([
        {"role": "system", "content": "You are opencode."},
        {"role": "user", "content": [{"type": "text", "text": "read hello.txt"}, {"type": "file", "mediaType": "image/png", "data": "AAAA"}]},
        {"role": "assistant", "content": "It says hi."},
        {"role": "user", "content": "now summarise it"},
    ]));
    let q = plan(&mut m, &with_image);
    assert_ne!(q.session_key, p.session_key);
    assert_eq!(q.resume_chat_id, None);
}

#[test]
fn a_new_user_message_with_an_image_starts_a_fresh_chat_not_a_resumed_full_prompt() {
    let mut m = enabled();
    let p = plan(&mut m, &turn1());
    m.record(&p, "chat-1");
    let with_image = request(json!([
        {"role": "system", "content": "You are opencode."},
        {"role": "user", "content": "read hello.txt"},
        {"role": "assistant", "content": "It says hi."},
        {"role": "user", "content": [{"type": "text", "text": "what is this?"}, {"type": "image_url", "image_url": {"url": "https://x/a.png"}}]},
    ]));
    let q = plan(&mut m, &with_image);
    assert_eq!(q.session_key, p.session_key);
    assert_eq!(q.resume_chat_id, None);
    assert!(!q.incremental);
    assert!(q
        .prompt
        .ends_with("USER: what is this?\n[attached image: https://x/a.png]"));
    // The fresh chat can be recorded and then continues.
    assert!(m.record(&q, "chat-2"));
}

#[test]
fn title_requests_never_get_a_key() {
    let mut m = enabled();
    let title = json!({"workspace": "/w", "model": "auto", "conversationId": "ses_1", "messages": [
        {"role": "system", "content": "You are a title generator. You output ONLY a thread title."},
        {"role": "user", "content": [{"type": "text", "text": "Generate a title for this conversation:\n"}]},
        {"role": "user", "content": [{"type": "text", "text": "say hi"}]},
    ]});
    let p = plan(&mut m, &title);
    assert_eq!(p.session_key, None);
    assert!(!m.record(&p, "chat-1"));
    assert_eq!(m.len(), 0);
}

#[test]
fn no_real_user_message_and_no_conversation_id_means_no_key() {
    let mut m = enabled();
    let p = plan(
        &mut m,
        &request(json!([{"role": "system", "content": "s"}])),
    );
    assert_eq!(p.session_key, None);
}
