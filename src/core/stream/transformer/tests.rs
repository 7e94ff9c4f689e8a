use super::*;
use crate::core::stream::tool::{INTERRUPTED_MESSAGE, REJECTED_REASON};

use proptest::prelude::*;
use serde_json::{json, Value};

/// The real captures, kept in the repository (`__test__/fixtures/captures/maestro`).
fn capture(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("__test__/fixtures/captures/maestro")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("capture {}: {e}", path.display()))
}

const CAPTURES: [&str; 5] = [
    "01_simple_no_tool.jsonl",
    "02_shell_tool_call.jsonl",
    "03_edit_tool_call.jsonl",
    "04_partial_output.jsonl",
    "05_rejected_shell.jsonl",
];

fn options(format: Format) -> TransformerOptions {
    TransformerOptions {
        format,
        id: Some("chatcmpl-test".into()),
        created: Some(1_700_000_000),
        ..Default::default()
    }
}

fn success() -> Outcome {
    Outcome {
        exit_code: Some(0),
        ..Default::default()
    }
}

fn run_chunks(
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

fn run(format: Format, input: &[u8], outcome: &Outcome) -> (Vec<Output>, FinishSummary) {
    let (out, summary, _) = run_chunks(options(format), &[input], outcome);
    (out, summary)
}

fn parts(out: &[Output]) -> Vec<Value> {
    out.iter()
        .map(|o| match o {
            Output::Part(v) => v.clone(),
            Output::Frame(f) => panic!("frame in ai-sdk output: {f}"),
        })
        .collect()
}

fn s<'v>(v: &'v Value, key: &str) -> &'v str {
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("{key} missing in {v}"))
}

/// Checks the V3 part grammar and returns one line per block, tool call, result and end:
/// `reasoning reasoning-0: <text>`, `tool <name> <id>`, `result <name> <status> error=<b>`,
/// `error <code>`, `finish <unified>/<raw>`.
fn ai_sdk_outline(out: &[Output]) -> Vec<String> {
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
                let delta = &parts[i + 1];
                let end = &parts[i + 2];
                let call = &parts[i + 3];
                assert_eq!(delta["type"], "tool-input-delta");
                assert_eq!(s(delta, "id"), id);
                assert_eq!(*end, json!({"type": "tool-input-end", "id": id}));
                assert_eq!(
                    *call,
                    json!({"type": "tool-call", "toolCallId": id, "toolName": name,
                           "input": s(delta, "delta"), "providerExecuted": true, "dynamic": true})
                );
                serde_json::from_str::<Value>(s(delta, "delta")).expect("input is JSON");
                lines.push(format!("tool {name} {id:?}"));
                i += 3;
            }
            "tool-result" => {
                assert!(open.is_none(), "tool part inside a block");
                assert_eq!(p["providerExecuted"], true);
                assert_eq!(p["dynamic"], true);
                let status = s(&p["result"], "status");
                assert_eq!(p["isError"], status != "success");
                lines.push(format!(
                    "result {} {:?} {status}",
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
fn sse_outline(out: &[Output]) -> Vec<String> {
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
    assert_eq!(roles, 1, "exactly one role chunk");
    assert_eq!(finishes, 1, "exactly one finish_reason");
    lines
}

const ID_02: &str =
    "call-ff9ecfd9-caee-43b7-a754-46e1a87268e8-0\nfc_eb39c388-b710-904d-a2a1-3887fe008ba7_0";
const ID_03: &str =
    "call-d13510ed-5ac2-4979-a05f-6782fde1cd57-0\nfc_95ab1d1f-ae12-9851-9446-d15a3be5b67f_0";
const ID_04: &str =
    "call-48a7da78-af65-4ad6-ad05-5d3b81140096-0\nfc_a4ac85f3-99d4-90bf-b52f-f8e4090cb392_0";
const ID_05A: &str =
    "call-c9002dbc-bda9-447c-acb5-74e5093a186d-0\nfc_0956680b-0312-940b-9e66-70d44dee7753_0";
const ID_05B: &str =
    "call-757a07b2-46a7-46c9-8051-23ef55681626-1\nfc_91a5a26c-788b-9a62-9eeb-f1372fcd1c19_0";

/// What each capture must show, derived by reading it: thinking as reasoning, the visible
/// text exactly once, Cursor's tool calls with their results.
fn expected_ai_sdk(name: &str) -> Vec<String> {
    let lines: Vec<String> = match name {
        "01_simple_no_tool.jsonl" => vec![
            "reasoning reasoning-0: The response will be exactly \"PONG\".".into(),
            "text text-0: PONG".into(),
        ],
        "02_shell_tool_call.jsonl" => vec![
            "reasoning reasoning-0: Running `ls` to list the files and count them.".into(),
            "text text-0: I'll list the directory contents with `ls`, then report how many entries there are.".into(),
            format!("tool shell {ID_02:?}"),
            format!("result shell {ID_02:?} success"),
            "reasoning reasoning-1: The directory contains 4 files.".into(),
            "text text-1: There are **4** files in this directory:\n\n- `a.txt`\n- `b.js`\n- `stream1.raw.jsonl`\n- `stream2.raw.jsonl`".into(),
        ],
        "03_edit_tool_call.jsonl" => vec![
            "reasoning reasoning-0: Creating spike.txt with the single line HELLO.".into(),
            "text text-0: Creating `spike.txt` with that single line.".into(),
            format!("tool edit {ID_03:?}"),
            format!("result edit {ID_03:?} success"),
            "reasoning reasoning-1: Created spike.txt with the single line HELLO.".into(),
            "text text-1: Created `spike.txt` with the single line `HELLO`.".into(),
        ],
        "04_partial_output.jsonl" => vec![
            "reasoning reasoning-0: Preparing to check sample.txt.".into(),
            "text text-0: Checking now.".into(),
            format!("tool shell {ID_04:?}"),
            format!("result shell {ID_04:?} success"),
            "reasoning reasoning-1: The file contained \"hello\".".into(),
            "text text-1: `sample.txt` contained:\n\n```\nhello\n```".into(),
        ],
        "05_rejected_shell.jsonl" => vec![
            "reasoning reasoning-0: Running 'uname -a' to get the system information.".into(),
            "text text-0: I'll run `uname -a` and report the output.".into(),
            format!("tool shell {ID_05A:?}"),
            format!("result shell {ID_05A:?} rejected"),
            "reasoning reasoning-1: The shell command was rejected. I'll retry with different permissions or sandbox settings.".into(),
            "text text-1: The first attempt was blocked, so I'm retrying the same command.".into(),
            format!("tool shell {ID_05B:?}"),
            format!("result shell {ID_05B:?} rejected"),
            "reasoning reasoning-2: The shell command is being rejected.\n\nNo required permissions appear in the tool schema. The rejection reason is empty. This is a harmless command.\n\nI'll try another approach or simply report the rejection.".into(),
            "text text-2: The shell runner blocked `uname -a` twice, so I don't have the live output. You can run it locally with:\n\n```bash\nuname -a\n```\n\nThat prints the kernel name, hostname, kernel release, version, machine architecture, and operating system.".into(),
        ],
        other => panic!("no expectation for {other}"),
    };
    let mut all = vec!["stream-start".to_owned()];
    all.extend(lines);
    all.push("finish stop/stop".into());
    all
}

#[test]
fn ai_sdk_output_of_every_capture() {
    for name in CAPTURES {
        let (out, summary) = run(Format::AiSdk, &capture(name), &success());
        assert_eq!(ai_sdk_outline(&out), expected_ai_sdk(name), "{name}");
        assert_eq!(summary.error, None, "{name}");
    }
}

/// The SSE view of the same expectations: blocks become merged deltas, tool starts become
/// `tool_calls` deltas, results are not shown.
#[test]
fn sse_output_of_every_capture() {
    for name in CAPTURES {
        let (out, summary) = run(Format::OpenAiSse, &capture(name), &success());
        let got: Vec<String> = sse_outline(&out)
            .into_iter()
            .map(|l| {
                // Arguments are checked elsewhere; keep the outline short.
                if l.starts_with("tool ") {
                    l.split(" {").next().unwrap().to_owned()
                } else {
                    l
                }
            })
            .collect();
        let mut tool_index = 0;
        let mut expected: Vec<String> = Vec::new();
        for line in expected_ai_sdk(name) {
            if let Some(rest) = line.strip_prefix("reasoning reasoning-") {
                expected.push(format!("reasoning: {}", rest.split_once(": ").unwrap().1));
            } else if let Some(rest) = line.strip_prefix("text text-") {
                expected.push(format!("text: {}", rest.split_once(": ").unwrap().1));
            } else if let Some(rest) = line.strip_prefix("tool shell ") {
                expected.push(format!("tool {tool_index} {rest} shell"));
                tool_index += 1;
            } else if let Some(rest) = line.strip_prefix("tool edit ") {
                expected.push(format!("tool {tool_index} {rest} edit"));
                tool_index += 1;
            }
        }
        expected.push("finish stop".into());
        let usage_line = got.iter().find(|l| l.starts_with("usage ")).cloned();
        assert!(usage_line.is_some(), "{name}: every capture reports usage");
        expected.push(usage_line.unwrap());
        expected.push("[DONE]".into());
        assert_eq!(got, expected, "{name}");
        assert_eq!(summary.error, None);
    }
}

#[test]
fn sse_frames_of_capture_01_exactly() {
    let (out, _) = run(
        Format::OpenAiSse,
        &capture("01_simple_no_tool.jsonl"),
        &success(),
    );
    let head = r#"data: {"id":"chatcmpl-test","object":"chat.completion.chunk","created":1700000000,"model":"auto","choices":"#;
    let frames: Vec<String> = out
        .iter()
        .map(|o| match o {
            Output::Frame(f) => f.clone(),
            Output::Part(_) => unreachable!(),
        })
        .collect();
    assert_eq!(frames.len(), 6);
    assert_eq!(
        frames[..4],
        [
            format!("{head}[{{\"index\":0,\"delta\":{{\"role\":\"assistant\",\"reasoning_content\":\"The response will be\"}},\"finish_reason\":null}}]}}\n\n"),
            format!("{head}[{{\"index\":0,\"delta\":{{\"reasoning_content\":\" exactly \\\"PONG\\\".\"}},\"finish_reason\":null}}]}}\n\n"),
            format!("{head}[{{\"index\":0,\"delta\":{{\"content\":\"PONG\"}},\"finish_reason\":null}}]}}\n\n"),
            format!("{head}[{{\"index\":0,\"delta\":{{}},\"finish_reason\":\"stop\"}}]}}\n\n"),
        ]
    );
    let usage: Value = serde_json::from_str(
        frames[4]
            .strip_prefix("data: ")
            .unwrap()
            .strip_suffix("\n\n")
            .unwrap(),
    )
    .unwrap();
    // prompt = 14737 + 5632 + 0; total = prompt + 34.
    assert_eq!(
        usage,
        json!({"id":"chatcmpl-test","object":"chat.completion.chunk","created":1700000000,
               "model":"auto","choices":[],
               "usage":{"prompt_tokens":20369,"completion_tokens":34,"total_tokens":20403,
                        "prompt_tokens_details":{"cached_tokens":5632,"cache_write_tokens":0},
                        "completion_tokens_details":{"reasoning_tokens":0}}})
    );
    assert_eq!(frames[5], "data: [DONE]\n\n");
}

#[test]
fn ai_sdk_tool_parts_of_capture_02_exactly() {
    let (out, _) = run(
        Format::AiSdk,
        &capture("02_shell_tool_call.jsonl"),
        &success(),
    );
    let parts = parts(&out);
    let call = parts.iter().find(|p| p["type"] == "tool-call").unwrap();
    let input = s(call, "input");
    // Cursor's argument text passes through as it was sent.
    assert!(input.starts_with(
        r#"{"command":"ls -1 | wc -l; ls -1","workingDirectory":"","timeout":30000,"toolCallId":"#
    ));
    assert!(input.ends_with(
        r#""conversationId":"5545ce80-d7d8-4502-b64b-240f15844099","adminCommandDenylist":[]}"#
    ));
    let result = parts.iter().find(|p| p["type"] == "tool-result").unwrap();
    assert_eq!(
        *result,
        json!({
            "type": "tool-result", "toolCallId": ID_02, "toolName": "shell",
            "result": {"status":"success","command":"ls -1 | wc -l; ls -1","workingDirectory":"",
                       "exitCode":0,"signal":"","stdout":"4\na.txt\nb.js\nstream1.raw.jsonl\nstream2.raw.jsonl\n",
                       "stderr":"","executionTime":1241,
                       "interleavedOutput":"4\na.txt\nb.js\nstream1.raw.jsonl\nstream2.raw.jsonl\n",
                       "localExecutionTimeMs":16},
            "isError": false, "providerExecuted": true, "dynamic": true,
        })
    );
    let finish = parts.last().unwrap();
    assert_eq!(
        *finish,
        json!({"type":"finish","finishReason":{"unified":"stop","raw":"stop"},
               "usage":{"inputTokens":{"total":40905,"noCache":18377,"cacheRead":22528,"cacheWrite":0},
                        "outputTokens":{"total":122},
                        "raw":{"inputTokens":18377,"outputTokens":122,"cacheReadTokens":22528,"cacheWriteTokens":0}}})
    );
}

#[test]
fn rejected_call_of_capture_05_gets_a_reason_and_its_started_arguments() {
    let (out, _) = run(
        Format::AiSdk,
        &capture("05_rejected_shell.jsonl"),
        &success(),
    );
    let parts = parts(&out);
    let result = parts.iter().find(|p| p["type"] == "tool-result").unwrap();
    assert_eq!(
        result["result"],
        json!({"status":"rejected","command":"uname -a","workingDirectory":"/tmp/spike",
               "reason": REJECTED_REASON,"isReadonly":false})
    );
    assert_eq!(result["isError"], true);
    let call = parts.iter().find(|p| p["type"] == "tool-call").unwrap();
    let input: Value = serde_json::from_str(s(call, "input")).unwrap();
    assert_eq!(input["command"], "uname -a");
}

#[test]
fn session_id_usage_and_counters_of_a_capture() {
    let (_, _, t) = run_chunks(
        options(Format::AiSdk),
        &[&capture("04_partial_output.jsonl")],
        &success(),
    );
    assert_eq!(t.session_id(), Some("4e91ef8b-e38e-4793-a875-a4818b4318ed"));
    assert_eq!(
        t.usage(),
        Some(&CursorUsage {
            input_tokens: Some(21994),
            output_tokens: Some(261),
            cache_read_tokens: Some(22528),
            cache_write_tokens: Some(0),
            reasoning_tokens: None,
        })
    );
    assert_eq!(t.skipped_lines(), 0);
    assert_eq!(t.open_tool_calls(), 0);
    assert!(t.has_content() && t.has_events());
}

/// `input` cut at the given byte offsets (taken modulo its length + 1, in any order).
fn cut<'i>(input: &'i [u8], cuts: &[usize]) -> Vec<&'i [u8]> {
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
fn run_cut(format: Format, input: &[u8], cuts: &[usize]) -> Vec<Output> {
    run_chunks(options(format), &cut(input, cuts), &success()).0
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn every_chunking_of_every_capture_gives_the_same_outputs(
        cuts in proptest::collection::vec(0usize..10_000, 0..40)
    ) {
        for name in CAPTURES {
            let input = capture(name);
            for format in [Format::OpenAiSse, Format::AiSdk] {
                let whole = run_cut(format, &input, &[]);
                prop_assert_eq!(run_cut(format, &input, &cuts), whole, "{}", name);
            }
        }
    }
}

/// A stream with every framing hazard: multi-byte characters, CRLF, a raw U+2028, blank
/// lines, an over-long record, invalid UTF-8, invalid JSON, and an interaction flush.
fn hazard_stream() -> Vec<u8> {
    let mut s = Vec::new();
    s.extend_from_slice(format!("{}\r\n", delta("h\u{e9}llo \u{1F600}")).as_bytes());
    s.extend_from_slice(format!("{}\n\n  \n", delta(" x\u{2028}y")).as_bytes());
    s.extend_from_slice(format!("{}\n", delta(&"long ".repeat(40))).as_bytes());
    s.extend_from_slice(b"\xf0\x9f\x98\nnot json\n");
    s.extend_from_slice(format!("{}\n", delta("h\u{e9}llo \u{1F600} x\u{2028}y")).as_bytes());
    s.extend_from_slice(
        format!(r#"{{"type":"retry","subtype":"starting",{SID},"timestamp_ms":9}}"#).as_bytes(),
    );
    s.extend_from_slice(
        format!("\n{}\n{}", delta(" \u{4e16}\u{754c}"), result_line()).as_bytes(),
    );
    s
}

fn hazard_options(format: Format) -> TransformerOptions {
    TransformerOptions {
        max_line_bytes: 160,
        ..options(format)
    }
}

#[test]
fn hazard_stream_translation() {
    let (out, _, t) = run_chunks(
        hazard_options(Format::AiSdk),
        &[&hazard_stream()],
        &success(),
    );
    assert_eq!(
        visible_text(&out),
        "h\u{e9}llo \u{1F600} x\u{2028}y \u{4e16}\u{754c}"
    );
    // The over-long record, the invalid UTF-8 one and "not json".
    assert_eq!(t.skipped_lines(), 3);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]
    #[test]
    fn every_chunking_of_the_hazard_stream_gives_the_same_outputs(
        cuts in proptest::collection::vec(0usize..2_000, 0..60)
    ) {
        let input = hazard_stream();
        for format in [Format::OpenAiSse, Format::AiSdk] {
            let whole = run_chunks(hazard_options(format), &[&input], &success());
            let chunked = run_chunks(hazard_options(format), &cut(&input, &cuts), &success());
            prop_assert_eq!(&chunked.0, &whole.0);
            prop_assert_eq!(chunked.2.skipped_lines(), whole.2.skipped_lines());
        }
    }
}

#[test]
fn byte_by_byte_chunking_gives_the_same_outputs() {
    for name in CAPTURES {
        let input = capture(name);
        for format in [Format::OpenAiSse, Format::AiSdk] {
            let chunks: Vec<&[u8]> = input.chunks(1).collect();
            let (bytewise, _, _) = run_chunks(options(format), &chunks, &success());
            assert_eq!(bytewise, run_cut(format, &input, &[]), "{name}");
        }
    }
}

/// Outputs as JSON values, the way `push_json` text parses back.
fn as_values(out: &[Output]) -> Vec<Value> {
    out.iter()
        .map(|o| match o {
            Output::Frame(f) => Value::String(f.clone()),
            Output::Part(p) => p.clone(),
        })
        .collect()
}

fn parse_json_outputs(text: &str) -> Vec<Value> {
    serde_json::from_str(&format!("[{}]", text.strip_suffix(',').unwrap_or(text))).unwrap()
}

#[test]
fn json_text_outputs_equal_the_values_for_every_capture() {
    for name in CAPTURES {
        let input = capture(name);
        for format in [Format::OpenAiSse, Format::AiSdk] {
            let (values, summary, _) = run_chunks(options(format), &[&input], &success());
            let mut t = StreamTransformer::new(options(format));
            let mut text = String::new();
            for chunk in input.chunks(97) {
                t.push_json(chunk, &mut text).unwrap();
            }
            let json_summary = t.finish_json(&success(), &mut text);
            assert_eq!(json_summary, summary);
            assert_eq!(
                parse_json_outputs(&text),
                as_values(&values),
                "{name} {format:?}"
            );
            let mut after = String::new();
            assert_eq!(
                t.finish_json(&success(), &mut after),
                FinishSummary::default()
            );
            assert!(after.is_empty());
            assert!(t.push_json(b"{}", &mut after).is_err());
        }
    }
    let input = stream(&[delta("part")]);
    for format in [Format::OpenAiSse, Format::AiSdk] {
        let error = CoreError::Timeout("too slow".into());
        let mut values = Vec::new();
        let mut t = StreamTransformer::new(options(format));
        t.push(&input, &mut values).unwrap();
        t.fail(error.clone(), &mut values);
        let mut text = String::new();
        let mut t = StreamTransformer::new(options(format));
        t.push_json(&input, &mut text).unwrap();
        t.fail_json(error, &mut text);
        assert_eq!(parse_json_outputs(&text), as_values(&values), "{format:?}");
    }
}

// ---- hand-written streams ----

const SID: &str = r#""session_id":"chat-1""#;

fn delta(text: &str) -> String {
    format!(
        r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"text","text":{}}}]}},{SID},"timestamp_ms":1}}"#,
        serde_json::to_string(text).unwrap()
    )
}

fn stream(lines: &[String]) -> Vec<u8> {
    let mut s = lines.join("\n");
    s.push('\n');
    s.into_bytes()
}

fn result_line() -> String {
    format!(r#"{{"type":"result","subtype":"success","is_error":false,{SID}}}"#)
}

fn visible_text(out: &[Output]) -> String {
    parts(out)
        .iter()
        .filter(|p| p["type"] == "text-delta")
        .map(|p| s(p, "delta").to_owned())
        .collect()
}

#[test]
fn interaction_flush_is_not_duplicated() {
    let input = stream(&[
        delta("Let me "),
        delta("ask you."),
        delta("Let me ask you."),
        format!(
            r#"{{"type":"interaction_query","subtype":"request","query_type":"askQuestionInteractionQuery","query":{{"id":0}},{SID},"timestamp_ms":2}}"#
        ),
        format!(
            r#"{{"type":"interaction_query","subtype":"response","response":{{"id":0}},{SID},"timestamp_ms":3}}"#
        ),
        delta(" Skipped."),
        result_line(),
    ]);
    let (out, _) = run(Format::AiSdk, &input, &success());
    assert_eq!(visible_text(&out), "Let me ask you. Skipped.");
}

#[test]
fn repeated_short_deltas_survive_through_the_transformer() {
    let input = stream(&[delta("ha"), delta("ha"), result_line()]);
    let (out, _) = run(Format::AiSdk, &input, &success());
    assert_eq!(visible_text(&out), "haha");
    // Held at the very end of the stream: still emitted, before the finish.
    let input = stream(&[delta("ha"), delta("ha")]);
    let (out, _) = run(Format::AiSdk, &input, &success());
    assert_eq!(visible_text(&out), "haha");
}

#[test]
fn skipped_lines_count_only_unusable_records() {
    let mut input = Vec::new();
    input.extend_from_slice(b"not json\n[1]\n\n   \n\xff\xfe\n");
    input.extend_from_slice(br#"{"type":"assistant","message":"bad shape"}"#);
    input.extend_from_slice(b"\n{\"type\":\"connection\",\"subtype\":\"reconnecting\"}\n");
    input.extend_from_slice(format!("{}\n", "x".repeat(70)).as_bytes());
    let opts = TransformerOptions {
        max_line_bytes: 60,
        ..options(Format::AiSdk)
    };
    let (_, _, t) = run_chunks(opts, &[&input], &success());
    // "not json", "[1]", invalid UTF-8, the 70-byte record.
    assert_eq!(t.skipped_lines(), 4);
}

/// Log lines written while `f` runs, at every level.
fn captured_logs(f: impl FnOnce()) -> String {
    use std::sync::{Arc, Mutex};
    #[derive(Clone)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Buffer {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let buffer = Buffer(Arc::new(Mutex::new(Vec::new())));
    let writer = buffer.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    tracing::subscriber::with_default(subscriber, f);
    let bytes = buffer.0.lock().unwrap().clone();
    String::from_utf8(bytes).unwrap()
}

#[test]
fn skipped_records_are_logged_at_debug_with_a_short_prefix() {
    let garbage = format!("{}{}", "\u{e9}".repeat(100), "TAIL".repeat(50));
    let logs = captured_logs(|| {
        let mut t = StreamTransformer::new(options(Format::AiSdk));
        let mut out = Vec::new();
        t.push(format!("{garbage}\n").as_bytes(), &mut out).unwrap();
        assert_eq!(t.skipped_lines(), 1);
    });
    assert!(logs.contains("DEBUG"), "{logs}");
    assert!(logs.contains("not a JSON object"), "{logs}");
    // 100 bytes of the record: fifty two-byte characters, nothing of the tail.
    assert!(logs.contains(&"\u{e9}".repeat(50)), "{logs}");
    assert!(!logs.contains(&"\u{e9}".repeat(51)), "{logs}");
    assert!(!logs.contains("TAIL"), "{logs}");
}

#[test]
fn quota_after_output_is_logged_not_reported() {
    let logs = captured_logs(|| {
        let (_, summary) = run(
            Format::AiSdk,
            &stream(&[delta("kept")]),
            &outcome(Some(1), None, "Error: You've hit your usage limit", false),
        );
        assert_eq!(summary.error, None);
    });
    assert!(logs.contains("usage limit"), "{logs}");
}

#[test]
fn push_after_finish_is_invalid_and_second_finish_is_empty() {
    let mut t = StreamTransformer::new(options(Format::AiSdk));
    let mut out = Vec::new();
    t.finish(&success(), &mut out);
    assert!(!out.is_empty());
    let err = t.push(b"{}\n", &mut out).unwrap_err();
    assert_eq!(err.code(), "E_INVALID_ARG");
    let mut again = Vec::new();
    assert_eq!(t.finish(&success(), &mut again), FinishSummary::default());
    assert!(again.is_empty());
}

#[test]
fn tool_calls_omit_and_distinct_indexes() {
    let tool = |id: &str, sub: &str| {
        format!(
            r#"{{"type":"tool_call","subtype":"{sub}","call_id":"{id}","tool_call":{{"readToolCall":{{"args":{{"path":"/{id}"}}}}}},{SID},"timestamp_ms":1}}"#
        )
    };
    let input = stream(&[
        tool("a", "started"),
        tool("b", "started"),
        tool("b", "completed"),
        tool("a", "completed"),
        tool("c", "completed"),
        result_line(),
    ]);
    let (out, _) = run(Format::OpenAiSse, &input, &success());
    let lines = sse_outline(&out);
    assert_eq!(
        lines,
        vec![
            r#"tool 0 "a" read {"path":"/a"}"#,
            r#"tool 1 "b" read {"path":"/b"}"#,
            r#"tool 2 "c" read {"path":"/c"}"#,
            "finish stop",
            "[DONE]",
        ]
    );
    let opts = TransformerOptions {
        tool_calls: ToolCallMode::Omit,
        ..options(Format::OpenAiSse)
    };
    let (out, _, _) = run_chunks(opts, &[&input], &success());
    assert_eq!(sse_outline(&out), vec!["finish stop", "[DONE]"]);
    // In ai-sdk, the completion without a start yields both.
    let (out, _) = run(Format::AiSdk, &input, &success());
    assert_eq!(
        ai_sdk_outline(&out),
        vec![
            "stream-start",
            r#"tool read "a""#,
            r#"tool read "b""#,
            r#"result read "b" unknown"#,
            r#"result read "a" unknown"#,
            r#"tool read "c""#,
            r#"result read "c" unknown"#,
            "finish stop/stop",
        ]
    );
}

#[test]
fn usage_chunk_only_when_reported_and_included() {
    let with_usage = stream(&[
        delta("x"),
        format!(r#"{{"type":"result","is_error":false,"usage":{{"outputTokens":3}},{SID}}}"#),
    ]);
    let (out, _) = run(Format::OpenAiSse, &with_usage, &success());
    assert!(sse_outline(&out).iter().any(|l| l.starts_with("usage ")));
    let opts = TransformerOptions {
        include_usage: false,
        ..options(Format::OpenAiSse)
    };
    let (out, _, _) = run_chunks(opts, &[&with_usage], &success());
    assert_eq!(sse_outline(&out), vec!["text: x", "finish stop", "[DONE]"]);
    let without = stream(&[delta("x"), result_line()]);
    let (out, _) = run(Format::OpenAiSse, &without, &success());
    assert_eq!(sse_outline(&out), vec!["text: x", "finish stop", "[DONE]"]);
    let (out, _) = run(Format::AiSdk, &without, &success());
    let finish = parts(&out).pop().unwrap();
    assert_eq!(
        finish["usage"],
        json!({"inputTokens": {}, "outputTokens": {}})
    );
}

// ---- the finish table ----

struct FinishCase {
    name: &'static str,
    lines: Vec<String>,
    outcome: Outcome,
    /// `None`: no error; else the code.
    code: Option<&'static str>,
    ai_sdk_tail: &'static [&'static str],
    sse_tail: &'static [&'static str],
}

fn outcome(exit: Option<i32>, signal: Option<&str>, stderr: &str, cancelled: bool) -> Outcome {
    Outcome {
        exit_code: exit,
        signal: signal.map(str::to_owned),
        stderr: stderr.to_owned(),
        cancelled,
    }
}

#[test]
fn finish_table() {
    let quota = "Error: You've hit your usage limit";
    let is_error = format!(
        r#"{{"type":"result","subtype":"error","is_error":true,"result":"Model overloaded",{SID}}}"#
    );
    let quota_result = format!(
        r#"{{"type":"result","is_error":true,"error":{{"message":"You've hit your usage limit"}},{SID}}}"#
    );
    let cases = vec![
        FinishCase {
            name: "success",
            lines: vec![delta("hi"), result_line()],
            outcome: outcome(Some(0), None, "", false),
            code: None,
            ai_sdk_tail: &["text text-0: hi", "finish stop/stop"],
            sse_tail: &["text: hi", "finish stop", "[DONE]"],
        },
        FinishCase {
            name: "success without an exit status (pure translation)",
            lines: vec![delta("hi"), result_line()],
            outcome: Outcome::default(),
            code: None,
            ai_sdk_tail: &["text text-0: hi", "finish stop/stop"],
            sse_tail: &["text: hi", "finish stop", "[DONE]"],
        },
        FinishCase {
            name: "cancelled wins over a failure",
            lines: vec![delta("hi")],
            outcome: outcome(None, Some("SIGTERM"), "", true),
            code: None,
            ai_sdk_tail: &["text text-0: hi", "finish other/cancelled"],
            sse_tail: &["text: hi", "finish stop", "[DONE]"],
        },
        FinishCase {
            name: "quota after output is kept as success",
            lines: vec![delta("hi")],
            outcome: outcome(Some(1), None, quota, false),
            code: None,
            ai_sdk_tail: &["text text-0: hi", "finish stop/stop"],
            sse_tail: &["text: hi", "finish stop", "[DONE]"],
        },
        FinishCase {
            name: "quota reported in the result after output",
            lines: vec![delta("hi"), quota_result.clone()],
            outcome: outcome(Some(1), None, "", false),
            code: None,
            ai_sdk_tail: &["text text-0: hi", "finish stop/stop"],
            sse_tail: &["text: hi", "finish stop", "[DONE]"],
        },
        FinishCase {
            name: "quota before output",
            lines: vec![],
            outcome: outcome(Some(1), None, quota, false),
            code: Some("E_QUOTA"),
            ai_sdk_tail: &["stream-start", "error E_QUOTA", "finish error/E_QUOTA"],
            sse_tail: &["finish error", "[DONE]"],
        },
        FinishCase {
            name: "failing exit after a successful result",
            lines: vec![delta("hi"), result_line()],
            outcome: outcome(Some(1), None, "Error: Authentication required.", false),
            code: Some("E_AUTH"),
            ai_sdk_tail: &["text text-0: hi", "error E_AUTH", "finish error/E_AUTH"],
            sse_tail: &["text: hi", "finish error", "[DONE]"],
        },
        FinishCase {
            name: "no result at all, exit 0",
            lines: vec![delta("hi")],
            outcome: outcome(Some(0), None, "", false),
            code: Some("E_AGENT_EXIT"),
            ai_sdk_tail: &[
                "text text-0: hi",
                "error E_AGENT_EXIT",
                "finish error/E_AGENT_EXIT",
            ],
            sse_tail: &["text: hi", "finish error", "[DONE]"],
        },
        FinishCase {
            name: "is_error result",
            lines: vec![is_error.clone()],
            outcome: outcome(Some(0), None, "", false),
            code: Some("E_AGENT_EXIT"),
            ai_sdk_tail: &[
                "stream-start",
                "error E_AGENT_EXIT",
                "finish error/E_AGENT_EXIT",
            ],
            sse_tail: &["finish error", "[DONE]"],
        },
        FinishCase {
            name: "signal without cancel",
            lines: vec![result_line()],
            outcome: outcome(None, Some("SIGKILL"), "", false),
            code: Some("E_AGENT_EXIT"),
            ai_sdk_tail: &[
                "stream-start",
                "error E_AGENT_EXIT",
                "finish error/E_AGENT_EXIT",
            ],
            sse_tail: &["finish error", "[DONE]"],
        },
    ];
    for case in cases {
        let input = stream(&case.lines);
        let input = if case.lines.is_empty() {
            Vec::new()
        } else {
            input
        };
        let (out, summary) = run(Format::AiSdk, &input, &case.outcome);
        assert_eq!(
            summary.error.as_ref().map(|e| e.code().as_str()),
            case.code,
            "{}",
            case.name
        );
        let outline = ai_sdk_outline(&out);
        assert_eq!(
            outline[outline.len() - case.ai_sdk_tail.len()..],
            *case.ai_sdk_tail,
            "{}",
            case.name
        );
        if let Some(code) = case.code {
            let error = parts(&out)
                .into_iter()
                .find(|p| p["type"] == "error")
                .unwrap();
            assert_eq!(error["error"]["code"], code);
            assert_eq!(
                error["error"]["message"],
                summary.error.as_ref().unwrap().message(),
                "{}",
                case.name
            );
        }
        let (out, sse_summary) = run(Format::OpenAiSse, &input, &case.outcome);
        assert_eq!(sse_summary, summary, "{}", case.name);
        let outline = sse_outline(&out);
        let without_error: Vec<&String> = outline
            .iter()
            .filter(|l| !l.starts_with("error "))
            .collect();
        let tail = &without_error[without_error.len() - case.sse_tail.len()..];
        assert_eq!(tail, case.sse_tail, "{}", case.name);
        let error_lines: Vec<_> = outline.iter().filter(|l| l.starts_with("error ")).collect();
        match case.code {
            Some(code) => {
                assert_eq!(error_lines.len(), 1, "{}", case.name);
                assert!(error_lines[0].starts_with(&format!("error {code}: ")));
                // The error frame comes right before the finish chunk.
                assert_eq!(outline[outline.len() - 3], *error_lines[0]);
            }
            None => assert!(error_lines.is_empty(), "{}", case.name),
        }
    }
}

#[test]
fn fail_closes_with_the_given_error() {
    let input = stream(&[delta("partial"), result_line()]);
    let timeout = CoreError::Timeout("no output for 300 s".into());
    let mut t = StreamTransformer::new(options(Format::AiSdk));
    let mut out = Vec::new();
    t.push(&input, &mut out).unwrap();
    let summary = t.fail(timeout.clone(), &mut out);
    assert_eq!(summary.error, Some(timeout.clone()));
    assert_eq!(
        ai_sdk_outline(&out),
        vec![
            "stream-start",
            "text text-0: partial",
            "error E_TIMEOUT",
            "finish error/E_TIMEOUT"
        ]
    );
    assert_eq!(t.finish(&success(), &mut out), FinishSummary::default());
    assert!(t.push(b"x", &mut out).is_err());
    let mut t = StreamTransformer::new(options(Format::OpenAiSse));
    let mut out = Vec::new();
    t.push(&input, &mut out).unwrap();
    t.fail(timeout, &mut out);
    assert_eq!(
        sse_outline(&out),
        vec![
            "text: partial",
            "error E_TIMEOUT: no output for 300 s",
            "finish error",
            "[DONE]"
        ]
    );
}

#[test]
fn open_tool_call_at_finish_gets_an_interrupted_result() {
    let input = stream(&[
        delta("Running."),
        format!(
            r#"{{"type":"tool_call","call_id":"t1","tool_call":{{"shellToolCall":{{"args":{{"command":"sleep 9"}}}}}},{SID},"timestamp_ms":1}}"#
        ),
    ]);
    let mut t = StreamTransformer::new(options(Format::AiSdk));
    let mut out = Vec::new();
    t.push(&input, &mut out).unwrap();
    assert_eq!(t.open_tool_calls(), 1);
    t.finish(&outcome(None, Some("SIGTERM"), "", true), &mut out);
    assert_eq!(
        ai_sdk_outline(&out),
        vec![
            "stream-start",
            "text text-0: Running.",
            r#"tool shell "t1""#,
            r#"result shell "t1" interrupted"#,
            "finish other/cancelled",
        ]
    );
    let result = parts(&out)
        .into_iter()
        .find(|p| p["type"] == "tool-result")
        .unwrap();
    assert_eq!(
        result["result"],
        json!({"status":"interrupted","message":INTERRUPTED_MESSAGE})
    );
    assert_eq!(result["isError"], true);
}

#[test]
fn reasoning_block_ends_at_thinking_completed_and_blocks_never_overlap() {
    let thinking = |text: &str| {
        format!(
            r#"{{"type":"thinking","subtype":"delta","text":"{text}",{SID},"timestamp_ms":1}}"#
        )
    };
    let input = stream(&[
        thinking("a"),
        delta("x"),
        thinking("b"),
        format!(r#"{{"type":"thinking","subtype":"completed",{SID},"timestamp_ms":1}}"#),
        delta("y"),
        result_line(),
    ]);
    let (out, _) = run(Format::AiSdk, &input, &success());
    assert_eq!(
        ai_sdk_outline(&out),
        vec![
            "stream-start",
            "reasoning reasoning-0: a",
            "text text-0: x",
            "reasoning reasoning-1: b",
            "text text-1: y",
            "finish stop/stop",
        ]
    );
}

#[test]
fn generated_sse_ids_differ_between_streams() {
    let a = StreamTransformer::new(TransformerOptions::default());
    let b = StreamTransformer::new(TransformerOptions::default());
    let head = |t: &StreamTransformer| match &t.encoder {
        Encoder::Sse(e) => format!("{e:?}"),
        Encoder::AiSdk(_) => unreachable!(),
    };
    assert_ne!(head(&a), head(&b));
}
