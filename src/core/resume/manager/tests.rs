use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use serde_json::{json, Value};

use super::*;
use crate::core::attachments::LocalFiles;
use crate::core::prompt::conversation_of;
use crate::core::resume::options::{DEFAULT_MAX_ENTRIES, DEFAULT_TTL_MS};
use std::num::NonZeroUsize;

#[derive(Clone, Default)]
struct FakeClock(Arc<AtomicU64>);

impl FakeClock {
    fn set(&self, ms: u64) {
        self.0.store(ms, Ordering::SeqCst);
    }
}

impl Clock for FakeClock {
    fn now_ms(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }
}

fn manager(max_entries: usize, ttl_ms: u64) -> (SessionResumeManager, FakeClock) {
    let clock = FakeClock::default();
    let options = ResumeOptions {
        enabled: true,
        max_entries: NonZeroUsize::new(max_entries).expect("non-zero"),
        ttl_ms,
    };
    (
        SessionResumeManager::with_clock(options, Box::new(clock.clone())),
        clock,
    )
}

fn enabled() -> SessionResumeManager {
    manager(DEFAULT_MAX_ENTRIES, DEFAULT_TTL_MS).0
}

fn read_tool() -> Value {
    json!({"type": "function", "function": {"name": "read", "description": "Read a file",
        "parameters": {"type": "object", "properties": {"filePath": {}}, "required": ["filePath"]}}})
}

fn request(messages: Value) -> Value {
    json!({"workspace": "/home/user/project", "model": "cursor-acp/auto", "messages": messages, "tools": [read_tool()]})
}

/// The typed request of a request-shaped test value.
fn typed(request: &Value) -> ResumeRequest<'_> {
    ResumeRequest {
        workspace: request["workspace"].as_str().expect("a workspace"),
        model: request["model"].as_str().expect("a model"),
        conversation: conversation_of(request),
        tools_in_prompt: request["toolsInPrompt"].as_bool().unwrap_or(false),
        conversation_id: request["conversationId"]
            .as_str()
            .filter(|id| !id.is_empty()),
        local_files: if request["localFiles"] == true {
            LocalFiles::Read
        } else {
            LocalFiles::Refuse
        },
    }
}

fn plan(m: &mut SessionResumeManager, request: &Value) -> ResumePlan {
    m.plan(&typed(request))
}

/// A conversation after opencode's system prompt: the turns, alternately the user's and the
/// assistant's, the user first.
fn talk(turns: &[&str]) -> Value {
    let mut messages = vec![json!({"role": "system", "content": "You are opencode."})];
    for (index, text) in turns.iter().enumerate() {
        let role = if index % 2 == 0 { "user" } else { "assistant" };
        messages.push(json!({"role": role, "content": text}));
    }
    request(Value::Array(messages))
}

fn turn1() -> Value {
    talk(&["read hello.txt"])
}

fn turn2() -> Value {
    talk(&["read hello.txt", "It says hi.", "  now summarise it  "])
}

fn turn3() -> Value {
    talk(&[
        "read hello.txt",
        "It says hi.",
        "  now summarise it  ",
        "A greeting.",
        "thanks",
    ])
}

#[test]
fn disabled_always_plans_fresh_and_never_records() {
    let mut m = SessionResumeManager::new(ResumeOptions::default());
    let p = plan(&mut m, &turn1());
    assert_eq!(p.session_key, None);
    assert_eq!(p.resume_chat_id, None);
    assert!(!p.incremental);
    assert_eq!(
        p.prompt,
        "SYSTEM: You are opencode.\n\nUSER: read hello.txt"
    );
    assert!(!m.record(&p, "chat-1"));
    assert_eq!(m.len(), 0);
}

#[test]
fn conversation_resumes_with_only_the_new_messages() {
    let mut m = enabled();
    let first = plan(&mut m, &turn1());
    assert!(first.session_key.is_some());
    assert_eq!(first.resume_chat_id, None);
    assert_eq!(
        first.prompt,
        "SYSTEM: You are opencode.\n\nUSER: read hello.txt"
    );
    assert!(m.record(&first, "chat-1"));
    assert_eq!(m.len(), 1);

    let second = plan(&mut m, &turn2());
    assert_eq!(second.session_key, first.session_key);
    assert_eq!(second.resume_chat_id.as_deref(), Some("chat-1"));
    assert!(second.incremental);
    assert_eq!(second.prompt, "now summarise it");
    assert!(m.record(&second, "chat-1"));

    let tool_turn = request(json!([
        {"role": "system", "content": "You are opencode."},
        {"role": "user", "content": "read hello.txt"},
        {"role": "assistant", "content": "It says hi."},
        {"role": "user", "content": "  now summarise it  "},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "read", "arguments": "{\"filePath\":\"hello.txt\"}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "hi"},
    ]));
    let third = plan(&mut m, &tool_turn);
    assert_eq!(third.resume_chat_id.as_deref(), Some("chat-1"));
    assert!(third.incremental);
    assert_eq!(
        third.prompt,
        "ASSISTANT: tool_call(id: call_1, name: read, args: {\"filePath\":\"hello.txt\"})\n\n\
         TOOL_RESULT (name: read, call_id: call_1): hi\n\n\
         The above tool calls have been executed. Continue your response based on these results."
    );
}

#[test]
fn a_branch_with_another_second_message_misses_and_keeps_the_entry() {
    let mut m = enabled();
    let first = plan(&mut m, &turn1());
    m.record(&first, "chat-1");
    let second = plan(&mut m, &turn2());
    m.record(&second, "chat-1");

    let branch = talk(&[
        "read hello.txt",
        "It says hi.",
        "translate it instead",
        "Hallo.",
        "thanks",
    ]);
    let p = plan(&mut m, &branch);
    assert_eq!(p.resume_chat_id, None);
    assert!(!p.incremental);
    assert!(p
        .prompt
        .starts_with("SYSTEM: You are opencode.\n\nUSER: read hello.txt"));
    assert_eq!(m.len(), 1, "a sequence mismatch keeps the entry");

    // The original line still resumes.
    let continued = talk(&[
        "read hello.txt",
        "It says hi.",
        "  now summarise it  ",
        "Summary.",
        "shorter",
    ]);
    assert_eq!(
        plan(&mut m, &continued).resume_chat_id.as_deref(),
        Some("chat-1")
    );

    // Two branches under one key: the newest record wins.
    assert!(m.record(&p, "chat-2"));
    let branch_next = talk(&[
        "read hello.txt",
        "It says hi.",
        "translate it instead",
        "Hallo.",
        "thanks",
        "Bitte.",
        "bye",
    ]);
    assert_eq!(
        plan(&mut m, &branch_next).resume_chat_id.as_deref(),
        Some("chat-2")
    );
    assert_eq!(plan(&mut m, &continued).resume_chat_id, None);
}

#[test]
fn a_tool_list_change_evicts_including_none_to_some() {
    let mut m = enabled();
    let first = plan(&mut m, &turn1());
    m.record(&first, "chat-1");
    let mut changed = turn2();
    changed["tools"] = json!([read_tool(), {"type": "function", "name": "task",
        "description": "Launch an agent. Agents: general", "inputSchema": {"type": "object"}}]);
    let p = plan(&mut m, &changed);
    assert_eq!(p.resume_chat_id, None);
    assert_eq!(m.len(), 0);

    let mut no_tools = turn1();
    no_tools["tools"] = json!([]);
    let p = plan(&mut m, &no_tools);
    m.record(&p, "chat-3");
    let p = plan(&mut m, &turn2());
    assert_eq!(p.resume_chat_id, None);
    assert_eq!(m.len(), 0);
}

#[test]
fn ttl_counts_from_record_and_a_hit_does_not_extend_it() {
    let (mut m, clock) = manager(DEFAULT_MAX_ENTRIES, 1_000);
    clock.set(5_000);
    let first = plan(&mut m, &turn1());
    m.record(&first, "chat-1");
    clock.set(5_500);
    assert_eq!(
        plan(&mut m, &turn2()).resume_chat_id.as_deref(),
        Some("chat-1")
    );
    clock.set(5_999);
    assert_eq!(
        plan(&mut m, &turn2()).resume_chat_id.as_deref(),
        Some("chat-1")
    );
    assert_eq!(m.len(), 1);
    clock.set(6_000);
    assert_eq!(m.len(), 0, "expired entries are not counted");
    assert_eq!(plan(&mut m, &turn2()).resume_chat_id, None);
    // Recording again starts a new lifetime.
    let again = plan(&mut m, &turn2());
    m.record(&again, "chat-2");
    clock.set(6_900);
    let third = talk(&[
        "read hello.txt",
        "It says hi.",
        "  now summarise it  ",
        "ok",
        "more",
    ]);
    assert_eq!(
        plan(&mut m, &third).resume_chat_id.as_deref(),
        Some("chat-2")
    );
}

fn opener(text: &str) -> (Value, Value) {
    let first = request(json!([{"role": "user", "content": text}]));
    let next = request(json!([
        {"role": "user", "content": text},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "next"},
    ]));
    (first, next)
}

#[test]
fn a_huge_capacity_reserves_nothing_and_still_caps_the_entries() {
    // `usize::MAX` entries would abort the process if room for them were reserved up front.
    let options = ResumeOptions {
        enabled: true,
        max_entries: NonZeroUsize::MAX,
        ttl_ms: DEFAULT_TTL_MS,
    };
    let mut m = SessionResumeManager::new(options);
    let (a, _) = opener("conversation a");
    let pa = plan(&mut m, &a);
    assert!(m.record(&pa, "chat-a"));
    assert_eq!(m.len(), 1);

    let (mut small, _clock) = manager(1, DEFAULT_TTL_MS);
    let (b, b_next) = opener("conversation b");
    let pa = plan(&mut small, &a);
    small.record(&pa, "chat-a");
    let pb = plan(&mut small, &b);
    small.record(&pb, "chat-b");
    assert_eq!(small.len(), 1);
    assert_eq!(
        plan(&mut small, &b_next).resume_chat_id.as_deref(),
        Some("chat-b")
    );
}

#[test]
fn least_recently_used_is_evicted_and_a_hit_refreshes_the_order() {
    let (mut m, _clock) = manager(2, DEFAULT_TTL_MS);
    let (a, a_next) = opener("conversation a");
    let (b, b_next) = opener("conversation b");
    let (c, c_next) = opener("conversation c");
    let pa = plan(&mut m, &a);
    m.record(&pa, "chat-a");
    let pb = plan(&mut m, &b);
    m.record(&pb, "chat-b");
    assert_eq!(
        plan(&mut m, &a_next).resume_chat_id.as_deref(),
        Some("chat-a")
    );
    let pc = plan(&mut m, &c);
    m.record(&pc, "chat-c");
    assert_eq!(m.len(), 2);
    assert_eq!(
        plan(&mut m, &b_next).resume_chat_id,
        None,
        "b was least recently used"
    );
    assert_eq!(
        plan(&mut m, &a_next).resume_chat_id.as_deref(),
        Some("chat-a")
    );
    assert_eq!(
        plan(&mut m, &c_next).resume_chat_id.as_deref(),
        Some("chat-c")
    );
}

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

#[test]
fn report_failure_evicts_only_for_resume_specific_failures_of_the_resumed_chat() {
    let mut m = enabled();
    let first = plan(&mut m, &turn1());
    m.record(&first, "chat-1");
    let resumed = plan(&mut m, &turn2());
    assert_eq!(resumed.resume_chat_id.as_deref(), Some("chat-1"));
    let transient = [
        Failure {
            code: Some("E_NETWORK"),
            message: "connect ECONNREFUSED",
        },
        Failure {
            code: Some("E_AUTH"),
            message: "Authentication required",
        },
        Failure {
            code: None,
            message: "Session expired due to network timeout",
        },
        Failure {
            code: Some("E_AGENT_EXIT"),
            message: "JavaScript heap out of memory",
        },
        Failure {
            code: Some("E_QUOTA"),
            message: "You've hit your usage limit",
        },
        Failure {
            code: Some("E_NETWORK"),
            message: "chat not found",
        },
        Failure {
            code: None,
            message: "invalid chat format",
        },
    ];
    for failure in &transient {
        assert!(!m.report_failure(&resumed, failure), "{failure:?}");
    }
    assert_eq!(m.len(), 1);
    // A fresh plan has no chat to evict.
    assert!(!m.report_failure(
        &first,
        &Failure {
            code: Some("E_RESUME"),
            message: ""
        }
    ));
    assert!(m.report_failure(
        &resumed,
        &Failure {
            code: Some("E_AGENT_EXIT"),
            message: "Error: chat not found"
        }
    ));
    assert_eq!(m.len(), 0);

    m.record(&first, "chat-1");
    let resumed = plan(&mut m, &turn2());
    assert!(m.report_failure(
        &resumed,
        &Failure {
            code: Some("E_RESUME"),
            message: "replaced"
        }
    ));

    // A newer record for the key is not evicted by an old plan's failure.
    m.record(&first, "chat-1");
    let resumed = plan(&mut m, &turn2());
    m.record(&first, "chat-9");
    assert!(!m.report_failure(
        &resumed,
        &Failure {
            code: Some("E_RESUME"),
            message: ""
        }
    ));
    assert_eq!(m.len(), 1);
}

#[test]
fn a_fresh_plan_never_resumes_and_can_still_be_recorded() {
    let mut m = enabled();
    let first = plan(&mut m, &turn1());
    assert!(m.record(&first, "chat-1"));
    let resumed = plan(&mut m, &turn2());
    assert_eq!(resumed.resume_chat_id.as_deref(), Some("chat-1"));

    // The rerun after the resumed chat turned out to be gone.
    let fresh = m.fresh_plan(&typed(&turn2()));
    assert_eq!(fresh.resume_chat_id, None);
    assert!(!fresh.incremental);
    assert_eq!(
        fresh.prompt,
        crate::core::prompt::build_full_prompt(&conversation_of(&turn2()), false)
    );
    assert!(fresh
        .prompt
        .starts_with("SYSTEM: You are opencode.\n\nUSER: read hello.txt"));
    assert_eq!(fresh.session_key, resumed.session_key);
    assert_eq!(fresh.record_token, resumed.record_token);
    assert!(m.record(&fresh, "chat-2"));
    assert_eq!(
        plan(&mut m, &turn3()).resume_chat_id.as_deref(),
        Some("chat-2")
    );

    // Without a key (resume disabled) a fresh plan is what `plan` gives.
    let mut off = SessionResumeManager::new(ResumeOptions::default());
    assert_eq!(off.fresh_plan(&typed(&turn2())), plan(&mut off, &turn2()));
}

#[test]
fn clear_empties_the_cache() {
    let mut m = enabled();
    let p = plan(&mut m, &turn1());
    m.record(&p, "chat-1");
    m.clear();
    assert!(m.is_empty());
}
