//! Cursor's token usage (`result.usage`) and its OpenAI mapping (the AI SDK one is the V3
//! `finish` part's, `encode/ai_sdk/part.rs`).
//!
//! Cursor's `inputTokens` excludes cached tokens. A negative or non-numeric count is missing; a
//! usage object without any valid count is absent; absent counts are never invented as zeros.

use serde_json::{json, Map, Value};

use crate::core::wire::wire_struct;

wire_struct! {
    /// Cursor's token counts (after the validity filter: negative or non-numeric counts are
    /// missing); a count Cursor did not report is absent.
    pub struct CursorUsage as named (derive(serde::Serialize, Default, Eq)) {
        input_tokens "inputTokens": Option<u64>,
        output_tokens "outputTokens": Option<u64>,
        cache_read_tokens "cacheReadTokens": Option<u64>,
        cache_write_tokens "cacheWriteTokens": Option<u64>,
        reasoning_tokens "reasoningTokens": Option<u64>,
    }
}

/// Valid counts plus Cursor's object as it was reported.
#[derive(Debug, Clone, PartialEq)]
pub struct UsageReport {
    pub counts: CursorUsage,
    pub raw: Value,
}

type Field = fn(&mut CursorUsage) -> &mut Option<u64>;

/// Field names Cursor uses (camelCase), with the snake_case spellings some builds of other
/// agents use, mapped to the count they fill.
const FIELDS: &[(&str, &str, Field)] = &[
    ("inputTokens", "input_tokens", |u| &mut u.input_tokens),
    ("outputTokens", "output_tokens", |u| &mut u.output_tokens),
    ("cacheReadTokens", "cache_read_tokens", |u| {
        &mut u.cache_read_tokens
    }),
    ("cacheWriteTokens", "cache_write_tokens", |u| {
        &mut u.cache_write_tokens
    }),
    ("reasoningTokens", "reasoning_tokens", |u| {
        &mut u.reasoning_tokens
    }),
];

/// A count: a non-negative number (a fractional one is truncated).
fn count(value: &Value) -> Option<u64> {
    if let Some(n) = value.as_u64() {
        return Some(n);
    }
    let f = value.as_f64()?;
    (f.is_finite() && f >= 0.0).then_some(f as u64)
}

/// Parse `result.usage`. `None` when it is not an object or holds no valid count.
pub fn parse_usage(raw_json: &str) -> Option<UsageReport> {
    let raw: Value = serde_json::from_str(raw_json).ok()?;
    let object = raw.as_object()?;
    let mut counts = CursorUsage::default();
    let mut any = false;
    for (camel, snake, field) in FIELDS {
        let found = object
            .get(*camel)
            .and_then(count)
            .or_else(|| object.get(*snake).and_then(count));
        if found.is_some() {
            *field(&mut counts) = found;
            any = true;
        }
    }
    any.then_some(UsageReport { counts, raw })
}

impl CursorUsage {
    /// `input + cacheRead + cacheWrite` over the reported counts; `None` when none is.
    pub fn prompt_total(&self) -> Option<u64> {
        let parts = [
            self.input_tokens,
            self.cache_read_tokens,
            self.cache_write_tokens,
        ];
        parts.iter().flatten().copied().reduce(u64::saturating_add)
    }
}

/// The OpenAI `usage` object of the SSE usage chunk.
pub fn openai_usage(u: &CursorUsage) -> Value {
    let prompt = u.prompt_total().unwrap_or(0);
    let completion = u.output_tokens.unwrap_or(0);
    let mut prompt_details = Map::new();
    if let Some(n) = u.cache_read_tokens {
        prompt_details.insert("cached_tokens".into(), n.into());
    }
    if let Some(n) = u.cache_write_tokens {
        prompt_details.insert("cache_write_tokens".into(), n.into());
    }
    let mut usage = json!({
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt.saturating_add(completion),
    });
    // Only a count Cursor reported: a client reads a 0 as "no reasoning happened".
    if let Some(reasoning) = u.reasoning_tokens {
        usage["completion_tokens_details"] = json!({ "reasoning_tokens": reasoning });
    }
    if !prompt_details.is_empty() {
        usage["prompt_tokens_details"] = Value::Object(prompt_details);
    }
    usage
}

#[cfg(test)]
mod tests {
    use super::*;

    const CAPTURE_04_USAGE: &str =
        r#"{"inputTokens":21994,"outputTokens":261,"cacheReadTokens":22528,"cacheWriteTokens":0}"#;

    #[test]
    fn parses_cursor_usage_fields() {
        let r = parse_usage(CAPTURE_04_USAGE).unwrap();
        assert_eq!(
            r.counts,
            CursorUsage {
                input_tokens: Some(21994),
                output_tokens: Some(261),
                cache_read_tokens: Some(22528),
                cache_write_tokens: Some(0),
                reasoning_tokens: None,
            }
        );
    }

    #[test]
    fn invalid_counts_are_missing_and_no_valid_count_is_absent() {
        let table: &[(&str, Option<CursorUsage>)] = &[
            (r#"{}"#, None),
            (r#"[]"#, None),
            (r#""12""#, None),
            (
                r#"{"inputTokens":-1,"outputTokens":"5","cacheReadTokens":null}"#,
                None,
            ),
            (
                r#"{"inputTokens":-1,"outputTokens":7}"#,
                Some(CursorUsage {
                    output_tokens: Some(7),
                    ..Default::default()
                }),
            ),
            (
                r#"{"input_tokens":3,"reasoningTokens":2.9}"#,
                Some(CursorUsage {
                    input_tokens: Some(3),
                    reasoning_tokens: Some(2),
                    ..Default::default()
                }),
            ),
        ];
        for (input, expected) in table {
            assert_eq!(parse_usage(input).map(|r| r.counts), *expected, "{input}");
        }
    }

    #[test]
    fn openai_mapping_of_the_prior_art_fixture() {
        // prompt = 1397 + 9856 + 2 = 11255; total = prompt + completion = 11263.
        let r = parse_usage(
            r#"{"inputTokens":1397,"outputTokens":8,"cacheReadTokens":9856,"cacheWriteTokens":2}"#,
        )
        .unwrap();
        assert_eq!(
            openai_usage(&r.counts),
            json!({
                "prompt_tokens": 11255,
                "completion_tokens": 8,
                "total_tokens": 11263,
                "prompt_tokens_details": {"cached_tokens": 9856, "cache_write_tokens": 2},
            }),
            "no reasoning count is made up when Cursor reported none"
        );
        let with_reasoning =
            parse_usage(r#"{"inputTokens":10,"outputTokens":8,"reasoningTokens":3}"#).unwrap();
        assert_eq!(
            openai_usage(&with_reasoning.counts)["completion_tokens_details"],
            json!({"reasoning_tokens": 3})
        );
    }
}
