use serde_json::{json, Value};

use super::*;
use crate::core::error::{CoreError, ErrorCode};
use crate::core::stream::encode::encode_all;
use crate::core::stream::encode::sse::SseEncoder;
use crate::core::stream::usage::parse_usage;

fn completions(parts: &[Part<'_>], tool_calls: ToolCallMode) -> Vec<Value> {
    let mut encoder = CompletionEncoder::new("c-1", 7, "auto", tool_calls, true);
    encode_all(parts, |part, out| encoder.encode(part, out))
        .into_iter()
        .map(|o| o.into_part().expect("an object"))
        .collect()
}

/// What a client gathering the SSE frames of the same parts puts together: the oracle.
fn gathered_from_frames(parts: &[Part<'_>], tool_calls: ToolCallMode) -> Vec<Value> {
    let mut encoder = SseEncoder::new("c-1", 7, "auto", tool_calls, true);
    let frames = encode_all(parts, |part, out| encoder.encode(part, out));
    let mut gathered = Vec::new();
    let (mut content, mut reasoning, mut calls) = (String::new(), String::new(), Vec::new());
    let (mut finish, mut usage): (Option<String>, Option<Value>) = (None, None);
    for frame in frames.into_iter().filter_map(|o| o.into_frame()) {
        let body = frame.trim_start_matches("data: ").trim();
        if body == "[DONE]" {
            if let Some(reason) = finish.take() {
                let mut message = json!({"role": "assistant", "content":
                    if content.is_empty() && !calls.is_empty() { Value::Null } else { content.clone().into() }});
                if !reasoning.is_empty() {
                    message["reasoning_content"] = reasoning.clone().into();
                }
                if !calls.is_empty() {
                    message["tool_calls"] = calls.clone().into();
                }
                let mut completion = json!({"id": "c-1", "object": "chat.completion", "created": 7,
                    "model": "auto", "choices": [{"index": 0, "message": message, "finish_reason": reason}]});
                if let Some(usage) = usage.take() {
                    completion["usage"] = usage;
                }
                gathered.push(completion);
            }
            (content, reasoning, calls) = (String::new(), String::new(), Vec::new());
            continue;
        }
        let chunk: Value = serde_json::from_str(body).unwrap();
        if chunk.get("error").is_some() {
            gathered.push(chunk);
            continue;
        }
        if let Some(counts) = chunk.get("usage") {
            usage = Some(counts.clone());
        }
        let Some(choice) = chunk["choices"].get(0) else {
            continue;
        };
        let delta = &choice["delta"];
        content.push_str(delta["content"].as_str().unwrap_or(""));
        reasoning.push_str(delta["reasoning_content"].as_str().unwrap_or(""));
        for call in delta["tool_calls"].as_array().into_iter().flatten() {
            calls.push(json!({"id": call["id"], "type": "function", "function": call["function"]}));
        }
        if let Some(reason) = choice["finish_reason"].as_str() {
            finish = Some(reason.to_owned());
        }
    }
    gathered
}

fn call<'a>(id: &'a str, executor: Executor) -> Part<'a> {
    Part::ToolStarted {
        id,
        name: "read",
        kind: "readToolCall",
        server: None,
        input: r#"{"path":"a"}"#,
        executor,
    }
}

#[test]
fn a_completion_is_what_its_frames_gather_to() {
    let usage = parse_usage(r#"{"inputTokens": 12, "outputTokens": 3}"#).unwrap();
    let error = CoreError::new(ErrorCode::Quota, "limit reached.").with_agent_output("429");
    let stop = Part::Finish {
        reason: FinishReason::Stop,
        usage: Some(&usage),
    };
    let table: Vec<(&str, Vec<Part<'_>>)> = vec![
        (
            "text",
            vec![
                Part::TextDelta("Hello"),
                Part::TextDelta(", world"),
                stop.clone(),
            ],
        ),
        (
            "thinking, text, a call of Cursor's between two texts",
            vec![
                Part::ReasoningDelta("hm"),
                Part::ReasoningEnd,
                Part::TextDelta("before"),
                call("c1", Executor::Cursor),
                Part::TextDelta("after"),
                stop.clone(),
            ],
        ),
        (
            "a hand-over, then the answer",
            vec![
                Part::TextDelta("Let me look."),
                call("h1", Executor::Host),
                call("h2", Executor::Host),
                Part::Finish {
                    reason: FinishReason::ToolCalls,
                    usage: None,
                },
                Part::TextDelta("Done."),
                stop.clone(),
            ],
        ),
        (
            "calls only",
            vec![
                call("h1", Executor::Host),
                Part::Finish {
                    reason: FinishReason::ToolCalls,
                    usage: None,
                },
            ],
        ),
        (
            "a failure after text",
            vec![
                Part::TextDelta("partial"),
                Part::Finish {
                    reason: FinishReason::Error(&error),
                    usage: None,
                },
            ],
        ),
        (
            "cancelled",
            vec![
                Part::TextDelta("partial"),
                Part::Finish {
                    reason: FinishReason::Cancelled,
                    usage: None,
                },
            ],
        ),
    ];
    for mode in [ToolCallMode::Emit, ToolCallMode::Omit] {
        for (name, parts) in &table {
            assert_eq!(
                completions(parts, mode),
                gathered_from_frames(parts, mode),
                "{name} ({mode:?})"
            );
        }
    }
}

#[test]
fn a_failure_is_its_error_object_and_nothing_follows_the_end() {
    let error = CoreError::new(ErrorCode::Auth, "log in");
    let out = completions(
        &[
            Part::Finish {
                reason: FinishReason::Error(&error),
                usage: None,
            },
            Part::TextDelta("late"),
            Part::Finish {
                reason: FinishReason::Stop,
                usage: None,
            },
        ],
        ToolCallMode::Emit,
    );
    assert_eq!(
        out,
        [json!({"error": {"message": "log in", "type": "cursor_agent_error", "code": "E_AUTH"}})]
    );
}
