//! The AI SDK LanguageModelV3 stream parts the `ai-sdk` format writes, each defined once: serde
//! writes them, and the `StreamPart` and `StreamUsage` declarations of `src/node/header.d.ts`
//! (which JS consumers read in `index.d.ts`) are rendered from them and compared by a test.

use serde::Serialize;
use serde_json::Value;

use crate::core::error::CoreError;
use crate::core::stream::usage::{CursorUsage, UsageReport};
use crate::core::wire::{wire_strings, wire_struct, wire_union, True, WireType};

wire_union! {
    /// A JSON-safe AI SDK LanguageModelV3 stream part (`@ai-sdk/provider` 3.x), as the `'ai-sdk'`
    /// format emits them.
    ///
    /// A tool Cursor ran itself is reported as Cursor reported it, the same for every host: under
    /// Cursor's tool name (`shell`, `read`, `edit`, an MCP tool's own name, ...), with Cursor's
    /// arguments and Cursor's result, and with `providerExecuted: true`, `dynamic: true` and
    /// `providerMetadata: { cursor: { kind, server? } }`: Cursor's tool kind (the `*ToolCall` key,
    /// e.g. `shellToolCall`, or `function`) and, for an `mcpToolCall`, the MCP server. A host
    /// that shows these calls as its own tools maps them by kind (the OpenCode plugin:
    /// `plugin/opencode/tool-view.ts`). A call handed to the host (`hostTools`) carries none of
    /// the three, keeps the host's tool name and the arguments as Cursor gave them, and is
    /// followed by a `tool-calls` finish.
    pub enum StreamPart<'a> {
        StreamStart = "stream-start" { warnings "warnings": &'a [Value] },
        TextStart = "text-start" { id "id": &'a str },
        TextDelta = "text-delta" { id "id": &'a str, delta "delta": &'a str },
        TextEnd = "text-end" { id "id": &'a str },
        ReasoningStart = "reasoning-start" { id "id": &'a str },
        ReasoningDelta = "reasoning-delta" { id "id": &'a str, delta "delta": &'a str },
        ReasoningEnd = "reasoning-end" { id "id": &'a str },
        ToolInputStart = "tool-input-start" {
            id "id": &'a str,
            tool_name "toolName": &'a str,
            provider_executed "providerExecuted": Option<True>,
            dynamic "dynamic": Option<True>,
            provider_metadata "providerMetadata": Option<CallMetadata<'a>>,
        },
        /// The whole input, in one delta.
        ToolInputDelta = "tool-input-delta" { id "id": &'a str, delta "delta": &'a str },
        ToolInputEnd = "tool-input-end" { id "id": &'a str },
        ToolCall = "tool-call" {
            tool_call_id "toolCallId": &'a str,
            tool_name "toolName": &'a str,
            /// The arguments as a JSON text, as Cursor gave them.
            input "input": &'a str,
            /// Absent on a call handed to the host, like `dynamic` and `providerMetadata`.
            provider_executed "providerExecuted": Option<True>,
            dynamic "dynamic": Option<True>,
            provider_metadata "providerMetadata": Option<CallMetadata<'a>>,
        },
        /// The result of a call Cursor ran itself (a call handed to the host gets none here).
        ToolResult = "tool-result" {
            tool_call_id "toolCallId": &'a str,
            tool_name "toolName": &'a str,
            /// Cursor's result: its variant as `status` (`success`, `failure`, `error`,
            /// `rejected`, `permissionDenied`, `timeout`, `aborted`, `interrupted` when the run
            /// ended first, `unknown`) and the variant's fields. A rejected call without a reason
            /// gets the package's explanation; a field nested 128 levels deep or more arrives as
            /// its JSON text.
            result "result": CursorResult<'a>,
            /// The call did not do its work (rejected, failed, denied, interrupted, an MCP
            /// tool's own error). A command that exited non-zero did: its `exitCode` is in the
            /// result.
            is_error "isError": bool,
            provider_executed "providerExecuted": True,
            dynamic "dynamic": True,
            provider_metadata "providerMetadata": CallMetadata<'a>,
        },
        /// `message`: the package's explanation; `agentOutput`: what cursor-agent printed about it.
        Error = "error" { error "error": &'a CoreError },
        Finish = "finish" {
            finish_reason "finishReason": FinishReason<'a>,
            usage "usage": StreamUsage<'a>,
        },
    }
}

wire_struct! {
    /// `providerMetadata` of a call Cursor ran itself.
    pub struct CallMetadata<'a> as inline (derive(serde::Serialize)) {
        cursor "cursor": CursorCall<'a>,
    }
}

wire_struct! {
    /// Which of Cursor's tools a call is: what a host needs to show it as one of its own.
    pub struct CursorCall<'a> as inline (derive(serde::Serialize)) {
        // The `*ToolCall` key (`shellToolCall`), or `function`.
        kind "kind": &'a str,
        // The MCP server of an `mcpToolCall`.
        server "server": Option<&'a str>,
    }
}

impl<'a> CallMetadata<'a> {
    pub fn of(kind: &'a str, server: Option<&'a str>) -> Self {
        Self {
            cursor: CursorCall { kind, server },
        }
    }
}

/// Cursor's result, `{status, ...the variant's fields}` (`stream/tool.rs` `tool_result`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(transparent)]
pub struct CursorResult<'a>(pub &'a Value);

impl WireType for CursorResult<'_> {
    #[cfg(test)]
    fn typescript(_: usize) -> String {
        "{ status: string; [field: string]: JsonValue }".into()
    }
}

/// A JSON object, as Cursor sent it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(transparent)]
pub struct JsonObject<'a>(pub &'a Value);

impl WireType for JsonObject<'_> {
    #[cfg(test)]
    fn typescript(_: usize) -> String {
        "{ [key: string]: JsonValue }".into()
    }
}

wire_strings! {
    /// The AI SDK's unified finish reason.
    pub enum Unified {
        Stop = "stop",
        ToolCalls = "tool-calls",
        Error = "error",
        Other = "other",
    }
}

wire_struct! {
    pub struct FinishReason<'a> as inline (derive(serde::Serialize)) {
        unified "unified": Unified,
        raw "raw": &'a str,
    }
}

wire_struct! {
    /// Token counts of a `finish` part; a count Cursor did not report is absent.
    pub struct StreamUsage<'a> as named (derive(serde::Serialize)) {
        input_tokens "inputTokens": InputTokens,
        output_tokens "outputTokens": OutputTokens,
        /// Cursor's own `usage` object, when it sent one.
        raw "raw": Option<JsonObject<'a>>,
    }
}

wire_struct! {
    pub struct InputTokens as inline (derive(serde::Serialize)) {
        /// Input + cache read + cache write tokens.
        total "total": Option<u64>,
        /// Input tokens that were not read from or written to the cache.
        no_cache "noCache": Option<u64>,
        cache_read "cacheRead": Option<u64>,
        cache_write "cacheWrite": Option<u64>,
    }
}

wire_struct! {
    pub struct OutputTokens as inline (derive(serde::Serialize)) {
        total "total": Option<u64>,
        /// Output tokens that were not reasoning, when Cursor reported reasoning tokens.
        text "text": Option<u64>,
        /// Present only when Cursor reported reasoning tokens.
        reasoning "reasoning": Option<u64>,
    }
}

impl<'a> StreamUsage<'a> {
    /// The LanguageModelV3 `finish.usage`: both objects always, numbers only when reported.
    pub fn of(report: Option<&'a UsageReport>) -> Self {
        let unreported = CursorUsage::default();
        let u = report.map_or(&unreported, |report| &report.counts);
        let text = u
            .reasoning_tokens
            .and_then(|reasoning| u.output_tokens?.checked_sub(reasoning));
        Self {
            input_tokens: InputTokens {
                total: u.prompt_total(),
                no_cache: u.input_tokens,
                cache_read: u.cache_read_tokens,
                cache_write: u.cache_write_tokens,
            },
            output_tokens: OutputTokens {
                total: u.output_tokens,
                text,
                reasoning: u.reasoning_tokens,
            },
            raw: report.map(|report| JsonObject(&report.raw)),
        }
    }
}

#[cfg(test)]
mod tests;
