use serde_json::json;

use super::*;
use crate::core::stream::encode::wire::typescript;
use crate::core::stream::usage::parse_usage;

/// The hand-kept declarations JS consumers read (`index.d.ts` starts with this file).
const HEADER: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/node/header.d.ts"));
const RENDERED_FROM: &str =
    "// Rendered from the definitions in src/core/stream/encode/ai_sdk/part.rs (a test compares).\n";
const RENDERED_END: &str = "// End of the rendered part declarations.\n";

/// The declarations of [`StreamUsage`] and [`StreamPart`], as `header.d.ts` must carry them.
fn rendered() -> String {
    let usage = typescript::interface(
        StreamUsage::TYPESCRIPT_DOCS,
        "StreamUsage",
        &StreamUsage::typescript_fields(2),
    );
    format!("{usage}\n{}", StreamPart::typescript_declaration())
}

/// What `header.d.ts` holds between the line that says it is rendered and the end mark.
fn header_section() -> &'static str {
    let (_, body) = HEADER
        .split_once(RENDERED_FROM)
        .expect("header.d.ts marks where the rendered declarations begin");
    let (section, _) = body
        .split_once(RENDERED_END)
        .expect("header.d.ts marks where the rendered declarations end");
    section
}

#[test]
fn header_declares_the_parts_exactly_as_they_are_written() {
    let rendered = rendered();
    assert!(
        header_section() == rendered,
        "src/node/header.d.ts does not declare the parts as part.rs defines them; the section \
         should read:\n{rendered}"
    );
}

#[test]
fn the_rendering_follows_the_definitions() {
    // A check of the renderer itself, on the definitions it renders: a field's key and
    // optionality, a nested object, a string enum, a documented variant.
    let declaration = StreamPart::typescript_declaration();
    assert!(declaration.starts_with("/**\n * A JSON-safe AI SDK LanguageModelV3 stream part"));
    assert!(declaration.contains("\n  | { type: 'text-delta'; id: string; delta: string }\n"));
    assert!(declaration
        .contains("      providerMetadata?: { cursor: { kind: string; server?: string } }\n"));
    assert!(declaration.contains(
        "      finishReason: { unified: 'stop' | 'tool-calls' | 'error' | 'other'; raw: string }\n"
    ));
    assert!(declaration
        .contains("  /** The whole input, in one delta. */\n  | { type: 'tool-input-delta';"));
    assert!(declaration.contains("      usage: StreamUsage\n"));
    let usage = rendered();
    assert!(usage.starts_with(
        "/** Token counts of a `finish` part; a count Cursor did not report is absent. */\nexport interface StreamUsage {\n  inputTokens: {\n    /** Input + cache read + cache write tokens. */\n    total?: number\n"
    ));
}

#[test]
fn every_part_writes_its_type_first_and_leaves_absent_fields_out() {
    let text = serde_json::to_string(&StreamPart::ToolInputStart {
        id: "h1",
        tool_name: "read",
        provider_executed: None,
        dynamic: None,
        provider_metadata: None,
    })
    .unwrap();
    assert_eq!(
        text,
        r#"{"type":"tool-input-start","id":"h1","toolName":"read"}"#
    );
    let text = serde_json::to_string(&StreamPart::ToolInputStart {
        id: "c1",
        tool_name: "mcp",
        provider_executed: Some(True),
        dynamic: Some(True),
        provider_metadata: Some(CallMetadata::of("mcpToolCall", None)),
    })
    .unwrap();
    assert_eq!(
        text,
        r#"{"type":"tool-input-start","id":"c1","toolName":"mcp","providerExecuted":true,"dynamic":true,"providerMetadata":{"cursor":{"kind":"mcpToolCall"}}}"#
    );
}

const CAPTURE_04_USAGE: &str =
    r#"{"inputTokens":21994,"outputTokens":261,"cacheReadTokens":22528,"cacheWriteTokens":0}"#;

#[test]
fn usage_with_and_without_a_report() {
    let written = |report| serde_json::to_value(StreamUsage::of(report)).unwrap();
    let r = parse_usage(CAPTURE_04_USAGE).unwrap();
    assert_eq!(
        written(Some(&r)),
        json!({
            "inputTokens": {"total": 44522, "noCache": 21994, "cacheRead": 22528, "cacheWrite": 0},
            "outputTokens": {"total": 261},
            "raw": {"inputTokens":21994,"outputTokens":261,"cacheReadTokens":22528,"cacheWriteTokens":0},
        })
    );
    assert_eq!(
        written(None),
        json!({"inputTokens": {}, "outputTokens": {}})
    );
    let with_reasoning = parse_usage(r#"{"outputTokens":10,"reasoningTokens":4}"#).unwrap();
    assert_eq!(
        written(Some(&with_reasoning)),
        json!({
            "inputTokens": {},
            "outputTokens": {"total": 10, "text": 6, "reasoning": 4},
            "raw": {"outputTokens":10,"reasoningTokens":4},
        })
    );
}
