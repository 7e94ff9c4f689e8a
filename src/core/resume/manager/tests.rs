use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use serde_json::{json, Value};

use super::*;
use crate::core::attachments::LocalFiles;
use crate::core::prompt::conversation_of;
use crate::core::resume::options::{DEFAULT_MAX_ENTRIES, DEFAULT_TTL_MS};
use std::num::NonZeroUsize;

mod cache;
mod keys;

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
