//! What a translation takes: the options `StreamTransformer` and `runCursorAgent` share, and how
//! the process behind a stream ended (`StreamTransformer.finish`).

use crate::core::stream::encode::ToolCallMode;
use crate::core::stream::transformer::{Format, TransformerOptions};
use crate::core::stream::translate::Outcome;
use crate::core::whole_number::{NonNegative, Positive};
use crate::core::wire::{wire_struct, Nullable, WireType};

impl WireType for Format {
    #[cfg(test)]
    fn typescript(_: usize) -> String {
        "'openai-sse' | 'ai-sdk'".into()
    }
}

impl WireType for ToolCallMode {
    #[cfg(test)]
    fn typescript(_: usize) -> String {
        "'emit' | 'omit'".into()
    }
}

/// Declares the options struct `$name` of an entry point that translates a stream: its own
/// fields, then the options every translation takes, written once here; and reads the latter
/// over the entry point's defaults. Any field not declared is refused.
macro_rules! with_translation_options {
    ($(#[doc = $doc:literal])* pub struct $name:ident { $($fields:tt)* }) => {
        $crate::core::wire::wire_struct! {
            $(#[doc = $doc])*
            pub struct $name as named (derive(serde::Deserialize), serde(deny_unknown_fields)) {
                $($fields)*
                /// `'openai-sse'` (SSE frame strings) or `'ai-sdk'` (V3 stream part objects).
                /// Default `'openai-sse'` for a `StreamTransformer`, `'ai-sdk'` for a run.
                format "format": Option<$crate::core::stream::transformer::Format>,
                /// SSE chunk `id`. Default: generated.
                id "id": Option<String>,
                /// SSE chunk `created`, epoch seconds: a whole number from 0 to 2^53 - 1.
                /// Default: now.
                created "created": Option<$crate::core::whole_number::NonNegative>,
                /// `'emit'` Cursor's own tool calls (SSE: as `tool_calls` deltas with Cursor's
                /// names and arguments; `ai-sdk`: as provider-executed tool parts with their
                /// results), or `'omit'` them. Default `'emit'`. Calls a run hands to the host
                /// (`hostTools`) are always there.
                ///
                /// Cursor has already run these calls. An OpenAI client receives them as
                /// ordinary `message.tool_calls` beside `finish_reason: "stop"` (the official
                /// `openai` package's `finalChatCompletion()` does), and an agent loop that runs
                /// every tool call it gets would run them a second time. Use `'omit'` where the
                /// client runs tools. With `'omit'`, an `ai-sdk` text block still ends where a
                /// call was left out: a host joining the blocks into one string joins them with
                /// `TEXT_SEGMENT_SEPARATOR`, as SSE's `content` does.
                tool_calls "toolCalls": Option<$crate::core::stream::encode::ToolCallMode>,
                /// SSE only: send the usage chunk when Cursor reported usage. Default `true`.
                include_usage "includeUsage": Option<bool>,
                /// SSE only: after each response's frames, also its whole `chat.completion`
                /// object (`ChatCompletion`, or `ChatCompletionFailure` after a failure), as
                /// gathering the frames would give it: for a server that answers a request that
                /// asked for no stream. Default `false`.
                completions "completions": Option<bool>,
                /// Size cap of one NDJSON record in bytes, a whole number from 1 to 2^53 - 1; a
                /// longer record is skipped and counted in `skippedLines`. Default 67108864
                /// (64 MiB).
                max_line_bytes "maxLineBytes": Option<$crate::core::whole_number::Positive>,
            }
        }

        impl $name {
            /// The translation options given, over `defaults`.
            pub fn translation(
                &self,
                defaults: $crate::core::stream::transformer::TransformerOptions,
            ) -> $crate::core::stream::transformer::TransformerOptions {
                $crate::core::api::translation::translation(
                    self.format,
                    self.id.clone(),
                    self.created,
                    self.tool_calls,
                    self.include_usage,
                    self.completions,
                    self.max_line_bytes,
                    defaults,
                )
            }
        }
    };
}
pub(crate) use with_translation_options;

/// The translation options of an entry point over its `defaults` (see
/// [`with_translation_options!`]).
#[allow(
    clippy::too_many_arguments,
    reason = "one argument per option the entry points share"
)]
pub fn translation(
    format: Option<Format>,
    id: Option<String>,
    created: Option<NonNegative>,
    tool_calls: Option<ToolCallMode>,
    include_usage: Option<bool>,
    completions: Option<bool>,
    max_line_bytes: Option<Positive>,
    defaults: TransformerOptions,
) -> TransformerOptions {
    TransformerOptions {
        format: format.unwrap_or(defaults.format),
        id: id.or(defaults.id),
        created: created.map(NonNegative::get).or(defaults.created),
        tool_calls: tool_calls.unwrap_or(defaults.tool_calls),
        include_usage: include_usage.unwrap_or(defaults.include_usage),
        completions: completions.unwrap_or(defaults.completions),
        max_line_bytes: max_line_bytes.map_or(defaults.max_line_bytes, |n| {
            usize::try_from(n.get()).unwrap_or(usize::MAX)
        }),
        ..defaults
    }
}

with_translation_options! {
    /// Options of `new StreamTransformer(options)`; every field is optional, any other field is
    /// refused.
    pub struct StreamTransformerOptions {
        /// Model name echoed in SSE chunks. Default `'auto'`.
        model "model": Option<String>,
    }
}

impl StreamTransformerOptions {
    /// The transformer's options: these over the defaults.
    pub fn into_options(self) -> TransformerOptions {
        let mut options = self.translation(TransformerOptions::default());
        if let Some(model) = self.model {
            options.model = model;
        }
        options
    }
}

wire_struct! {
    /// How the process behind the stream ended; every field is optional.
    pub struct StreamOutcome as named (derive(serde::Deserialize, Default), serde(deny_unknown_fields)) {
        /// Exit code (a whole number from -2^31 to 2^31 - 1), `null` when killed by a signal.
        /// Default `null`.
        exit_code "exitCode": Option<Nullable<i32>>,
        /// Name of the signal that ended the process (e.g. `'SIGTERM'`). Default `null`.
        signal "signal": Option<Nullable<String>>,
        /// What the process wrote to stderr; classifies failures. Default `''`.
        stderr "stderr": Option<String>,
        /// The run was cancelled by the caller: the stream ends without an error. Default
        /// `false`.
        cancelled "cancelled": Option<bool>,
    }
}

impl From<StreamOutcome> for Outcome {
    fn from(outcome: StreamOutcome) -> Self {
        Self {
            exit_code: outcome.exit_code.and_then(|code| code.0),
            signal: outcome.signal.and_then(|signal| signal.0),
            stderr: outcome.stderr.unwrap_or_default(),
            cancelled: outcome.cancelled.unwrap_or(false),
        }
    }
}
