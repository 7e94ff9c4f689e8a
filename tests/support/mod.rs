//! What the pipeline's black-box tests share: the real captures and their hand-written
//! expectations, runs of a `StreamTransformer`, and readers that check the grammar of each
//! output format while turning it into lines a test can compare.
#![allow(
    dead_code,
    reason = "each test crate uses its own part of the shared support"
)]

use std::path::{Path, PathBuf};

use opencode_cursor_native::core::stream::encode::Output;
use opencode_cursor_native::core::stream::transformer::{
    Format, StreamTransformer, TransformerOptions,
};
use opencode_cursor_native::core::stream::translate::{FinishSummary, Outcome};
use serde::Deserialize;
use serde_json::{json, Value};

fn captures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("__test__/fixtures/captures/maestro")
}

/// One of the hand-written streams (`__test__/fixtures/streams/<name>`, described in its README).
pub fn stream_fixture(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("__test__/fixtures/streams")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("stream {}: {e}", path.display()))
}

/// A real capture, kept byte for byte in the repository.
pub fn capture(name: &str) -> Vec<u8> {
    let path = captures_dir().join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("capture {}: {e}", path.display()))
}

/// What a capture must show, written by hand from the capture (`<capture>.expected.json`;
/// the JS tests read the same files).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Expected {
    pub capture: String,
    pub session_id: String,
    pub blocks: Vec<ExpectedBlock>,
    pub finish: String,
    /// Cursor's own counts, as its `result.usage` reports them.
    pub usage: ExpectedUsage,
    pub result_text: String,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum ExpectedBlock {
    Reasoning {
        text: String,
    },
    Text {
        text: String,
    },
    /// A call Cursor ran, as Cursor reports it (what both output formats carry); how OpenCode
    /// shows it (`opencode` in the file) is the plugin's, checked by the JS tests.
    #[serde(rename_all = "camelCase")]
    Tool {
        id: String,
        /// Cursor's name for the tool.
        name: String,
        /// The `*ToolCall` key.
        tool_kind: String,
        /// The result's variant.
        status: String,
        is_error: bool,
        /// Cursor's arguments that must match (the call may carry more).
        #[serde(default)]
        args: serde_json::Map<String, Value>,
        /// Fields of Cursor's result besides `status` that must match.
        #[serde(default)]
        result: serde_json::Map<String, Value>,
    },
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExpectedUsage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_tokens: u64,
    pub cache_write_tokens: u64,
}

/// Every capture with an expectation, in name order.
pub fn expectations() -> Vec<Expected> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(captures_dir())
        .expect("the captures folder")
        .map(|entry| entry.expect("a folder entry").path())
        .filter(|path| path.to_string_lossy().ends_with(".expected.json"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 5, "one expectation per capture");
    files
        .iter()
        .map(|path| {
            let text = std::fs::read_to_string(path).expect("readable");
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        })
        .collect()
}

/// The expectation of one capture.
pub fn expected(capture: &str) -> Expected {
    expectations()
        .into_iter()
        .find(|e| e.capture == capture)
        .unwrap_or_else(|| panic!("no expectation for {capture}"))
}

pub fn options(format: Format) -> TransformerOptions {
    TransformerOptions {
        format,
        id: Some("chatcmpl-test".into()),
        created: Some(1_700_000_000),
        ..Default::default()
    }
}

pub fn success() -> Outcome {
    Outcome {
        exit_code: Some(0),
        ..Default::default()
    }
}

pub fn run_chunks(
    opts: TransformerOptions,
    chunks: &[&[u8]],
    outcome: &Outcome,
) -> (Vec<Output>, FinishSummary, StreamTransformer) {
    let mut t = StreamTransformer::new(opts);
    let mut out = Vec::new();
    for c in chunks {
        t.push(c, &mut out).unwrap();
    }
    let summary = t.finish(outcome, &mut out);
    (out, summary, t)
}

pub fn run(format: Format, input: &[u8], outcome: &Outcome) -> (Vec<Output>, FinishSummary) {
    let (out, summary, _) = run_chunks(options(format), &[input], outcome);
    (out, summary)
}

pub fn parts(out: &[Output]) -> Vec<Value> {
    out.iter()
        .map(|o| match o {
            Output::Part(v) => v.clone(),
            Output::Frame(f) => panic!("frame in ai-sdk output: {f}"),
        })
        .collect()
}

pub fn s<'v>(v: &'v Value, key: &str) -> &'v str {
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("{key} missing in {v}"))
}

/// Checks the V3 part grammar and returns one line per block, tool call, result and end:
/// `reasoning reasoning-0: <text>`, `tool <name> <id>`, `result <name> <id> <status> error=<b>`,
/// `error <code>`, `finish <unified>/<raw>`. Every tool part is one of Cursor's own calls.
pub fn ai_sdk_outline(out: &[Output]) -> Vec<String> {
    let parts = parts(out);
    assert_eq!(parts[0], json!({"type": "stream-start", "warnings": []}));
    let finishes = parts.iter().filter(|p| p["type"] == "finish").count();
    assert_eq!(finishes, 1, "exactly one finish");
    assert_eq!(parts.last().unwrap()["type"], "finish", "finish is last");
    let mut lines = vec!["stream-start".to_owned()];
    let mut open: Option<(String, String, String)> = None; // (kind, id, text)
    let mut seen_ids = std::collections::HashSet::new();
    let mut i = 1;
    while i < parts.len() {
        let p = &parts[i];
        let ty = s(p, "type");
        match ty {
            "text-start" | "reasoning-start" => {
                assert!(open.is_none(), "block opened inside another: {p}");
                let kind = ty.trim_end_matches("-start").to_owned();
                let id = s(p, "id").to_owned();
                assert!(id.starts_with(&format!("{kind}-")), "{id}");
                assert!(seen_ids.insert(id.clone()), "id reused: {id}");
                open = Some((kind, id, String::new()));
            }
            "text-delta" | "reasoning-delta" => {
                let (kind, id, text) = open.as_mut().expect("delta outside a block");
                assert_eq!(ty, format!("{kind}-delta"));
                assert_eq!(s(p, "id"), id);
                let delta = s(p, "delta");
                assert!(!delta.is_empty(), "empty delta");
                text.push_str(delta);
            }
            "text-end" | "reasoning-end" => {
                let (kind, id, text) = open.take().expect("end outside a block");
                assert_eq!(ty, format!("{kind}-end"));
                assert_eq!(s(p, "id"), id);
                lines.push(format!("{kind} {id}: {text}"));
            }
            "tool-input-start" => {
                assert!(open.is_none(), "tool part inside a block");
                let id = s(p, "id");
                let name = s(p, "toolName");
                assert_eq!(p["providerExecuted"], true);
                assert_eq!(p["dynamic"], true);
                let metadata = &p["providerMetadata"];
                assert!(metadata["cursor"]["kind"].is_string(), "{p}");
                let delta = &parts[i + 1];
                let end = &parts[i + 2];
                let call = &parts[i + 3];
                assert_eq!(delta["type"], "tool-input-delta");
                assert_eq!(s(delta, "id"), id);
                assert_eq!(*end, json!({"type": "tool-input-end", "id": id}));
                assert_eq!(
                    *call,
                    json!({"type": "tool-call", "toolCallId": id, "toolName": name,
                           "input": s(delta, "delta"), "providerExecuted": true, "dynamic": true,
                           "providerMetadata": metadata})
                );
                serde_json::from_str::<Value>(s(delta, "delta")).expect("input is JSON");
                lines.push(format!("tool {name} {id:?}"));
                i += 3;
            }
            "tool-result" => {
                assert!(open.is_none(), "tool part inside a block");
                assert_eq!(p["providerExecuted"], true);
                assert_eq!(p["dynamic"], true);
                assert!(p["providerMetadata"]["cursor"]["kind"].is_string(), "{p}");
                // Cursor's result: its variant and the variant's fields.
                let status = s(&p["result"], "status");
                let failed = p["isError"].as_bool().expect("isError is a boolean");
                lines.push(format!(
                    "result {} {:?} {status} error={failed}",
                    s(p, "toolName"),
                    s(p, "toolCallId")
                ));
            }
            "error" => {
                assert!(open.is_none());
                lines.push(format!("error {}", s(&p["error"], "code")));
            }
            "finish" => {
                assert!(open.is_none(), "finish inside a block");
                let usage = &p["usage"];
                assert!(usage["inputTokens"].is_object() && usage["outputTokens"].is_object());
                lines.push(format!(
                    "finish {}/{}",
                    s(&p["finishReason"], "unified"),
                    s(&p["finishReason"], "raw")
                ));
            }
            other => panic!("unexpected part {other}: {p}"),
        }
        i += 1;
    }
    lines
}

/// Checks the SSE frame grammar and returns merged lines: `text: …`, `reasoning: …`,
/// `tool <index> <id> <name> <arguments>`, `finish <reason>`, `usage <json>`,
/// `error <code>: <message>`, `[DONE]`.
pub fn sse_outline(out: &[Output]) -> Vec<String> {
    let frames: Vec<&str> = out
        .iter()
        .map(|o| match o {
            Output::Frame(f) => f.as_str(),
            Output::Part(p) => panic!("part in SSE output: {p}"),
        })
        .collect();
    assert_eq!(frames.last(), Some(&"data: [DONE]\n\n"), "[DONE] last");
    assert_eq!(frames.iter().filter(|f| f.contains("[DONE]")).count(), 1);
    let mut lines: Vec<String> = Vec::new();
    let mut roles = 0;
    let mut chunks = 0;
    let mut finishes = 0;
    let mut indexes = std::collections::HashSet::new();
    for frame in &frames {
        let body = frame
            .strip_prefix("data: ")
            .and_then(|f| f.strip_suffix("\n\n"))
            .unwrap_or_else(|| panic!("not a frame: {frame:?}"));
        assert!(!body.contains('\n'), "raw newline inside a frame");
        if body == "[DONE]" {
            lines.push("[DONE]".into());
            continue;
        }
        let v: Value = serde_json::from_str(body).unwrap();
        if let Some(e) = v.get("error") {
            assert_eq!(e["type"], "cursor_agent_error");
            lines.push(format!("error {}: {}", s(e, "code"), s(e, "message")));
            continue;
        }
        assert_eq!(v["id"], "chatcmpl-test");
        assert_eq!(v["object"], "chat.completion.chunk");
        assert_eq!(v["created"], 1_700_000_000);
        assert_eq!(v["model"], "auto");
        let choices = v["choices"].as_array().unwrap();
        if choices.is_empty() {
            lines.push(format!("usage {}", v["usage"]));
            continue;
        }
        assert_eq!(choices.len(), 1);
        let choice = &choices[0];
        assert_eq!(choice["index"], 0);
        let delta = choice["delta"].as_object().unwrap();
        if delta.contains_key("role") {
            assert_eq!(delta["role"], "assistant");
            assert_eq!(chunks, 0, "role only on the first chunk");
            roles += 1;
        }
        chunks += 1;
        let mut merge = |kind: &str, text: &str| match lines.last_mut() {
            Some(last) if last.starts_with(&format!("{kind}: ")) => last.push_str(text),
            _ => lines.push(format!("{kind}: {text}")),
        };
        if let Some(t) = delta.get("content") {
            merge("text", t.as_str().unwrap());
        }
        if let Some(t) = delta.get("reasoning_content") {
            merge("reasoning", t.as_str().unwrap());
        }
        if let Some(calls) = delta.get("tool_calls") {
            for c in calls.as_array().unwrap() {
                assert!(indexes.insert(c["index"].as_u64().unwrap()), "index reused");
                assert_eq!(c["type"], "function");
                lines.push(format!(
                    "tool {} {:?} {} {}",
                    c["index"],
                    s(c, "id"),
                    s(&c["function"], "name"),
                    s(&c["function"], "arguments")
                ));
            }
        }
        if !choice["finish_reason"].is_null() {
            finishes += 1;
            lines.push(format!("finish {}", s(choice, "finish_reason")));
        }
    }
    // A failure or a cancel ends without a finish_reason (an error frame, or `[DONE]` alone),
    // and one before any output without a role chunk.
    assert!(roles <= 1, "at most one role chunk");
    let failed = lines.iter().any(|l| l.starts_with("error "));
    assert!(finishes <= 1, "at most one finish_reason");
    assert!(
        !(failed && finishes > 0),
        "a failed completion claims no finish_reason"
    );
    lines
}

/// `input` cut at the given byte offsets (taken modulo its length + 1, in any order).
pub fn cut<'i>(input: &'i [u8], cuts: &[usize]) -> Vec<&'i [u8]> {
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (input.len() + 1)).collect();
    cuts.sort_unstable();
    let mut chunks = Vec::new();
    let mut from = 0;
    for c in cuts {
        chunks.push(&input[from..c]);
        from = c;
    }
    chunks.push(&input[from..]);
    chunks
}

/// Outputs for an input cut at the given byte offsets.
pub fn run_cut(format: Format, input: &[u8], cuts: &[usize]) -> Vec<Output> {
    run_chunks(options(format), &cut(input, cuts), &success()).0
}

/// Outputs as JSON values (a frame as a string).
pub fn as_values(out: &[Output]) -> Vec<Value> {
    out.iter()
        .map(|o| match o {
            Output::Frame(f) => Value::String(f.clone()),
            Output::Part(p) => p.clone(),
        })
        .collect()
}

pub const SID: &str = r#""session_id":"chat-1""#;

pub fn delta(text: &str) -> String {
    format!(
        r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"text","text":{}}}]}},{SID},"timestamp_ms":1}}"#,
        serde_json::to_string(text).unwrap()
    )
}

pub fn stream(lines: &[String]) -> Vec<u8> {
    let mut s = lines.join("\n");
    s.push('\n');
    s.into_bytes()
}

pub fn result_line() -> String {
    format!(r#"{{"type":"result","subtype":"success","is_error":false,{SID}}}"#)
}

pub fn visible_text(out: &[Output]) -> String {
    parts(out)
        .iter()
        .filter(|p| p["type"] == "text-delta")
        .map(|p| s(p, "delta").to_owned())
        .collect()
}
