use serde_json::json;

use super::*;
use crate::core::stream::usage::parse_usage;
use crate::core::wire::typescript;

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

#[test]
fn header_declares_the_parts_exactly_as_they_are_written() {
    typescript::check_header_section(RENDERED_FROM, RENDERED_END, &rendered());
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
