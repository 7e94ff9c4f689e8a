use super::*;
use serde_json::{json, Value};

use crate::core::prompt::conversation_of;

#[test]
fn title_request_is_system_title_generator_without_tools() {
    let title = json!({"messages": [
        {"role": "system", "content": "You are a title generator. You output ONLY a thread title."},
        {"role": "user", "content": [{"type": "text", "text": "Generate a title for this conversation:\n"}]},
        {"role": "user", "content": [{"type": "text", "text": "say hi"}]},
    ]});
    assert!(is_title_request(&conversation_of(&title)));
    let mut with_tools = title.clone();
    with_tools["tools"] = json!([{"type": "function", "name": "read", "inputSchema": {}}]);
    assert!(!is_title_request(&conversation_of(&with_tools)));
    let in_user_text =
        json!({"messages": [{"role": "user", "content": "you are a title generator"}]});
    assert!(!is_title_request(&conversation_of(&in_user_text)));
    let normal = json!({"messages": [{"role": "system", "content": "You are opencode"}, {"role": "user", "content": "hi"}]});
    assert!(!is_title_request(&conversation_of(&normal)));
}

#[test]
fn meta_and_empty_user_messages_are_not_real() {
    let request = json!({"messages": [
        {"role": "user", "content": "   "},
        {"role": "user", "content": "Please generate a brief title for this"},
        {"role": "user", "content": "What's the thread title?"},
        {"role": "user", "content": "real question"},
        {"role": "assistant", "content": "answer"},
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://x/y.png"}}]},
    ]});
    let c = conversation_of(&request);
    let indices: Vec<usize> = real_user_messages(&c.messages)
        .iter()
        .map(|(i, _)| *i)
        .collect();
    assert_eq!(indices, vec![3, 5]);
}

#[test]
fn canonical_digest_is_shape_independent_for_text_and_changes_with_an_image() {
    let a = json!({"messages": [{"role": "user", "content": "look at this"}]});
    let b = json!({"messages": [{"role": "user", "content": [{"type": "text", "text": "look at this"}]}]});
    let c = json!({"messages": [{"role": "user", "content": [
        {"type": "text", "text": "look at this"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
    ]}]});
    let d = json!({"messages": [{"role": "user", "content": [
        {"type": "text", "text": "look at this"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,BBBB"}},
    ]}]});
    let digest = |v: &Value| canonical_digest(&conversation_of(v).messages[0]);
    assert_eq!(digest(&a), digest(&b));
    assert_ne!(digest(&a), digest(&c));
    assert_ne!(digest(&c), digest(&d));
}

fn tools_fp(tools: Value) -> Digest {
    let request = json!({"messages": [], "tools": tools});
    tool_fingerprint(&conversation_of(&request).tools)
}

#[test]
fn fingerprint_rules() {
    let read = json!({"type": "function", "function": {"name": "read", "description": "Read a file",
        "parameters": {"type": "object", "properties": {"filePath": {"type": "string"}, "limit": {"type": "number"}}, "required": ["filePath"]}}});
    let task = |agents: &str| {
        json!({"type": "function", "name": "task", "description": format!("Launch an agent. Available agents:\n{agents}"),
        "inputSchema": {"type": "object", "properties": {"prompt": {}}, "required": ["prompt"]}})
    };
    let base = tools_fp(json!([read, task("- general\n- explore")]));
    // Order does not matter.
    assert_eq!(base, tools_fp(json!([task("- general\n- explore"), read])));
    // The same tool in the V3 shape fingerprints alike.
    let read_v3 = json!({"type": "function", "name": "read", "description": "Read a file",
        "inputSchema": {"type": "object", "properties": {"limit": {"type": "number"}, "filePath": {"type": "string"}}, "required": ["filePath"]}});
    assert_eq!(
        base,
        tools_fp(json!([read_v3, task("- general\n- explore")]))
    );
    // A changed subagent list (the Task description) changes it.
    assert_ne!(
        base,
        tools_fp(json!([read, task("- general\n- explore\n- reviewer")]))
    );
    // A parameter key or required key change changes it; a parameter's own schema does not.
    let mut extra_key = read.clone();
    extra_key["function"]["parameters"]["properties"]["offset"] = json!({});
    assert_ne!(
        base,
        tools_fp(json!([extra_key, task("- general\n- explore")]))
    );
    let mut required = read.clone();
    required["function"]["parameters"]["required"] = json!(["filePath", "limit"]);
    assert_ne!(
        base,
        tools_fp(json!([required, task("- general\n- explore")]))
    );
    // None vs some tools differ; provider tools count by name.
    assert_ne!(
        tools_fp(json!([])),
        tools_fp(json!([{"type": "provider", "id": "x.search", "name": "search", "args": {}}]))
    );
    assert_eq!(
        tools_fp(
            json!([{"type": "provider", "id": "x.search", "name": "search", "args": {"a": 1}}])
        ),
        tools_fp(
            json!([{"type": "provider", "id": "x.search", "name": "search", "args": {"b": 2}}])
        )
    );
}

#[test]
fn session_key_strips_the_provider_prefix_and_separates_parts() {
    let anchor = [7u8; 32];
    let k = |w, m| session_key(w, m, ConversationRef::Anchor(&anchor));
    assert_eq!(k("/w", "cursor-acp/auto"), k("/w", "auto"));
    assert_ne!(k("/w", "auto"), k("/w", "sonnet-4.6"));
    assert_ne!(k("/w", "auto"), k("/v", "auto"));
    assert_ne!(
        session_key("/w", "auto", ConversationRef::SessionId("ses_1")),
        session_key("/w", "auto", ConversationRef::SessionId("ses_2"))
    );
    assert_eq!(k("/w", "auto").len(), 64);
}

#[test]
fn hex_round_trip() {
    let digest = [0xab; 32];
    assert_eq!(parse_hex(&hex(&digest)), Some(digest));
    assert_eq!(parse_hex("zz"), None);
}
