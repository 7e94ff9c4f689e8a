//! The real cursor-agent captures through the whole pipeline, against the expectations
//! written by hand from each capture (`__test__/fixtures/captures/maestro/*.expected.json`,
//! which the JS contract tests read too).

mod support;

use opencode_cursor_native::core::stream::encode::Output;
use opencode_cursor_native::core::stream::tool::REJECTED_REASON;
use opencode_cursor_native::core::stream::transformer::Format;
use opencode_cursor_native::core::stream::usage::CursorUsage;
use proptest::prelude::*;
use serde_json::{json, Value};
use support::*;

/// The id of the `index`-th tool call an expectation lists.
fn tool_id(expectation: &Expected, index: usize) -> String {
    expectation
        .blocks
        .iter()
        .filter_map(|b| match b {
            ExpectedBlock::Tool { id, .. } => Some(id.clone()),
            _ => None,
        })
        .nth(index)
        .expect("the capture has that many tool calls")
}

/// The AI SDK outline (see [`ai_sdk_outline`]) an expectation describes.
fn expected_ai_sdk(expectation: &Expected) -> Vec<String> {
    let (mut texts, mut reasonings) = (0, 0);
    let mut lines = vec!["stream-start".to_owned()];
    for block in &expectation.blocks {
        match block {
            ExpectedBlock::Reasoning { text } => {
                lines.push(format!("reasoning reasoning-{reasonings}: {text}"));
                reasonings += 1;
            }
            ExpectedBlock::Text { text } => {
                lines.push(format!("text text-{texts}: {text}"));
                texts += 1;
            }
            ExpectedBlock::Tool {
                id,
                name,
                status,
                is_error,
                ..
            } => {
                lines.push(format!("tool {name} {id:?}"));
                lines.push(format!("result {name} {id:?} {status} error={is_error}"));
            }
        }
    }
    lines.push(format!("finish {0}/{0}", expectation.finish));
    lines
}

/// The SSE outline (see [`sse_outline`]) of the same expectation: blocks become merged deltas,
/// tool starts become `tool_calls` deltas (arguments left out), results are not shown.
fn expected_sse(expectation: &Expected) -> Vec<String> {
    let mut lines = Vec::new();
    let mut tools = 0;
    // The documented rule: a blank line before the first text after a tool call, when text
    // came before it (SSE `content` is one string).
    let (mut text_before, mut tool_since_text) = (false, false);
    for block in &expectation.blocks {
        match block {
            ExpectedBlock::Reasoning { text } => lines.push(format!("reasoning: {text}")),
            ExpectedBlock::Text { text } => {
                let separator = if text_before && tool_since_text {
                    "\n\n"
                } else {
                    ""
                };
                lines.push(format!("text: {separator}{text}"));
                (text_before, tool_since_text) = (true, false);
            }
            ExpectedBlock::Tool { id, name, .. } => {
                lines.push(format!("tool {tools} {id:?} {name}"));
                tools += 1;
                tool_since_text = text_before;
            }
        }
    }
    lines.push(format!("finish {}", expectation.finish));
    lines
}

/// `actual` holds every field of `subset` with the same value.
fn assert_contains(actual: &Value, subset: &serde_json::Map<String, Value>, what: &str) {
    for (key, value) in subset {
        assert_eq!(&actual[key], value, "{what}: {key}");
    }
}

#[test]
fn ai_sdk_output_of_every_capture() {
    for expectation in expectations() {
        let name = expectation.capture.as_str();
        let (out, summary) = run(Format::AiSdk, &capture(name), &success());
        assert_eq!(
            ai_sdk_outline(&out),
            expected_ai_sdk(&expectation),
            "{name}"
        );
        assert_eq!(summary.error, None, "{name}");
        assert_eq!(visible_text(&out), expectation.result_text, "{name}");
    }
}

/// The arguments of each call as the capture's `started` event carries them: the JSON text
/// verbatim, by call id.
fn started_arguments(capture: &[u8]) -> Vec<(String, String)> {
    #[derive(serde::Deserialize)]
    struct Started<'a> {
        subtype: Option<&'a str>,
        call_id: Option<String>,
        #[serde(borrow)]
        tool_call: Option<std::collections::HashMap<&'a str, &'a serde_json::value::RawValue>>,
    }
    let mut found = Vec::new();
    for line in capture.split(|b| *b == b'\n') {
        let Ok(event) = serde_json::from_slice::<Started<'_>>(line) else {
            continue;
        };
        let (Some("started"), Some(id), Some(call)) =
            (event.subtype, event.call_id, event.tool_call)
        else {
            continue;
        };
        for (key, entry) in call {
            if !key.ends_with("ToolCall") {
                continue;
            }
            #[derive(serde::Deserialize)]
            struct Entry<'a> {
                #[serde(borrow)]
                args: &'a serde_json::value::RawValue,
            }
            let entry: Entry<'_> = serde_json::from_str(entry.get()).expect("a tool entry");
            found.push((id.clone(), entry.args.get().to_owned()));
        }
    }
    found
}

#[test]
fn tool_calls_of_every_capture_as_cursor_reported_them() {
    for expectation in expectations() {
        let name = expectation.capture.as_str();
        let input = capture(name);
        let (out, _) = run(Format::AiSdk, &input, &success());
        let parts = parts(&out);
        let started = started_arguments(&input);
        for block in &expectation.blocks {
            let ExpectedBlock::Tool {
                id,
                name: tool,
                tool_kind,
                status,
                is_error,
                args,
                result: fields,
            } = block
            else {
                continue;
            };
            let what = format!("{name} {id:?}");
            let cursor = json!({"cursor": {"kind": tool_kind}});
            let call = parts
                .iter()
                .find(|p| p["type"] == "tool-call" && p["toolCallId"] == id.as_str())
                .unwrap_or_else(|| panic!("{what}: no call"));
            assert_eq!(call["toolName"], tool.as_str(), "{what}");
            assert_eq!(call["providerMetadata"], cursor, "{what}");
            // Cursor's arguments, verbatim: the very text of the capture's `started` event.
            let (_, verbatim) = started
                .iter()
                .find(|(started_id, _)| started_id == id)
                .unwrap_or_else(|| panic!("{what}: the capture starts the call"));
            assert_eq!(s(call, "input"), verbatim, "{what}");
            let arguments: Value = serde_json::from_str(s(call, "input")).expect("JSON arguments");
            assert_contains(&arguments, args, &what);
            let done = parts
                .iter()
                .find(|p| p["type"] == "tool-result" && p["toolCallId"] == id.as_str())
                .unwrap_or_else(|| panic!("{what}: no result"));
            assert_eq!(done["toolName"], tool.as_str(), "{what}");
            assert_eq!(done["providerMetadata"], cursor, "{what}");
            assert_eq!(done["isError"], *is_error, "{what}");
            assert_eq!(done["result"]["status"], status.as_str(), "{what}");
            assert_contains(&done["result"], fields, &what);
        }
    }
}

/// The SSE output keeps Cursor's tool names and its arguments as Cursor sent them.
#[test]
fn sse_tool_calls_keep_cursors_names_and_arguments() {
    for expectation in expectations() {
        let name = expectation.capture.as_str();
        let (out, _) = run(Format::OpenAiSse, &capture(name), &success());
        let calls: Vec<Value> = out
            .into_iter()
            .filter_map(|o| match o {
                Output::Frame(frame) => Some(frame),
                Output::Part(_) => None,
            })
            .filter_map(|f| serde_json::from_str::<Value>(f.strip_prefix("data: ")?.trim()).ok())
            .filter_map(|chunk| chunk.pointer("/choices/0/delta/tool_calls/0").cloned())
            .collect();
        let tools: Vec<_> = expectation
            .blocks
            .iter()
            .filter_map(|b| match b {
                ExpectedBlock::Tool { id, name, args, .. } => Some((id, name, args)),
                _ => None,
            })
            .collect();
        assert_eq!(calls.len(), tools.len(), "{name}");
        for (call, (id, tool, args)) in calls.iter().zip(tools) {
            assert_eq!(call["id"], id.as_str(), "{name}");
            assert_eq!(call["function"]["name"], tool.as_str(), "{name}");
            let input: Value =
                serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
            assert_contains(&input, args, name);
        }
    }
}

/// Usage in both formats, by the documented mapping: Cursor's `inputTokens` excludes cached
/// tokens, so the prompt total adds the cache reads and writes.
#[test]
fn usage_of_every_capture() {
    for expectation in expectations() {
        let name = expectation.capture.as_str();
        let u = &expectation.usage;
        let prompt = u.input_tokens + u.cache_read_tokens + u.cache_write_tokens;
        let (out, _) = run(Format::AiSdk, &capture(name), &success());
        let finish = parts(&out).pop().expect("a finish");
        assert_eq!(
            finish["usage"],
            json!({"inputTokens": {"total": prompt, "noCache": u.input_tokens,
                                   "cacheRead": u.cache_read_tokens, "cacheWrite": u.cache_write_tokens},
                   "outputTokens": {"total": u.output_tokens},
                   "raw": {"inputTokens": u.input_tokens, "outputTokens": u.output_tokens,
                           "cacheReadTokens": u.cache_read_tokens, "cacheWriteTokens": u.cache_write_tokens}}),
            "{name}"
        );
        let (out, _) = run(Format::OpenAiSse, &capture(name), &success());
        let usage_line = sse_outline(&out)
            .into_iter()
            .find(|l| l.starts_with("usage "))
            .unwrap_or_else(|| panic!("{name}: every capture reports usage"));
        let usage: Value = serde_json::from_str(&usage_line["usage ".len()..]).unwrap();
        assert_eq!(
            usage,
            json!({"prompt_tokens": prompt, "completion_tokens": u.output_tokens,
                   "total_tokens": prompt + u.output_tokens,
                   "prompt_tokens_details": {"cached_tokens": u.cache_read_tokens,
                                             "cache_write_tokens": u.cache_write_tokens}}),
            "{name}"
        );
    }
}

#[test]
fn sse_output_of_every_capture() {
    for expectation in expectations() {
        let name = expectation.capture.as_str();
        let (out, summary) = run(Format::OpenAiSse, &capture(name), &success());
        let got: Vec<String> = sse_outline(&out)
            .into_iter()
            .filter(|l| !l.starts_with("usage ") && l != "[DONE]")
            .map(|l| {
                // Arguments are checked elsewhere; keep the outline short.
                if l.starts_with("tool ") {
                    l.split(" {").next().unwrap().to_owned()
                } else {
                    l
                }
            })
            .collect();
        assert_eq!(got, expected_sse(&expectation), "{name}");
        assert_eq!(summary.error, None);
    }
}

#[test]
fn session_id_of_every_capture() {
    for expectation in expectations() {
        let name = expectation.capture.as_str();
        let (_, _, t) = run_chunks(options(Format::AiSdk), &[&capture(name)], &success());
        assert_eq!(
            t.session_id(),
            Some(expectation.session_id.as_str()),
            "{name}"
        );
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
                        "prompt_tokens_details":{"cached_tokens":5632,"cache_write_tokens":0}}})
    );
    assert_eq!(frames[5], "data: [DONE]\n\n");
}

#[test]
fn ai_sdk_tool_parts_of_capture_02_exactly() {
    let input = capture("02_shell_tool_call.jsonl");
    let (out, _) = run(Format::AiSdk, &input, &success());
    let parts = parts(&out);
    let id = tool_id(&expected("02_shell_tool_call.jsonl"), 0);
    let metadata = json!({"cursor": {"kind": "shellToolCall"}});
    let start = parts
        .iter()
        .find(|p| p["type"] == "tool-input-start")
        .unwrap();
    assert_eq!(
        *start,
        json!({"type": "tool-input-start", "id": id, "toolName": "shell",
               "providerExecuted": true, "dynamic": true, "providerMetadata": metadata})
    );
    // Cursor's `shell`, with all of Cursor's arguments, its own bookkeeping included.
    let call = parts.iter().find(|p| p["type"] == "tool-call").unwrap();
    let arguments: Value = serde_json::from_str(s(call, "input")).unwrap();
    assert_eq!(arguments["command"], "ls -1 | wc -l; ls -1");
    assert_eq!(arguments["toolCallId"], id.as_str());
    assert_eq!(
        arguments["conversationId"],
        "5545ce80-d7d8-4502-b64b-240f15844099"
    );
    assert_eq!(arguments["simpleCommands"], json!(["ls", "wc", "ls"]));
    let result = parts.iter().find(|p| p["type"] == "tool-result").unwrap();
    let listing = "4\na.txt\nb.js\nstream1.raw.jsonl\nstream2.raw.jsonl\n";
    assert_eq!(
        *result,
        json!({
            "type": "tool-result", "toolCallId": id, "toolName": "shell",
            "result": {"status": "success", "command": "ls -1 | wc -l; ls -1",
                       "workingDirectory": "", "exitCode": 0, "signal": "", "stdout": listing,
                       "stderr": "", "executionTime": 1241, "interleavedOutput": listing,
                       "localExecutionTimeMs": 16},
            "isError": false, "providerExecuted": true, "dynamic": true,
            "providerMetadata": metadata,
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
fn rejected_call_of_capture_05_fails_with_the_reason_and_its_started_arguments() {
    let (out, _) = run(
        Format::AiSdk,
        &capture("05_rejected_shell.jsonl"),
        &success(),
    );
    let parts = parts(&out);
    let result = parts.iter().find(|p| p["type"] == "tool-result").unwrap();
    // Cursor gave no reason; the package's explanation takes its place.
    assert_eq!(result["result"]["reason"], REJECTED_REASON);
    assert_eq!(result["result"]["status"], "rejected");
    assert_eq!(result["isError"], true);
    assert_eq!(result["toolName"], "shell");
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
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn every_chunking_of_every_capture_gives_the_same_outputs(
        cuts in proptest::collection::vec(0usize..10_000, 0..40)
    ) {
        for expectation in expectations() {
            let name = expectation.capture.as_str();
            let input = capture(name);
            for format in [Format::OpenAiSse, Format::AiSdk] {
                let whole = run_cut(format, &input, &[]);
                prop_assert_eq!(run_cut(format, &input, &cuts), whole, "{}", name);
            }
        }
    }
}

#[test]
fn byte_by_byte_chunking_gives_the_same_outputs() {
    for expectation in expectations() {
        let name = expectation.capture.as_str();
        let input = capture(name);
        for format in [Format::OpenAiSse, Format::AiSdk] {
            let chunks: Vec<&[u8]> = input.chunks(1).collect();
            let (bytewise, _, _) = run_chunks(options(format), &chunks, &success());
            assert_eq!(bytewise, run_cut(format, &input, &[]), "{name}");
        }
    }
}
