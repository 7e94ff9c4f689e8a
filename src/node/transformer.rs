//! `StreamTransformer` for JS, and the translation options it shares with `runCursorAgent`.

use napi::bindgen_prelude::{This, Unknown};
use napi::{Env, ValueType};
use napi_derive::napi;
use serde::Deserialize;

use crate::core::stream::transformer::{self as core, Format, TransformerOptions};
use crate::core::stream::translate::Outcome;
use crate::node::error::{from_napi, invalid_arg, to_js_error, Result};
use crate::node::output::{json_array_to_js, outputs_to_js};
use crate::node::read::{read, read_optional, require_new};

/// Declares an options struct of `$name` with its own fields and the options every translation
/// takes (`StreamTransformer` and `runCursorAgent` alike), written once here, and reads the
/// latter over the defaults of the entry point.
macro_rules! with_translation_options {
    ($(#[doc = $doc:literal])* pub struct $name:ident { $($fields:tt)* }) => {
        $(#[doc = $doc])*
        #[napi(object, object_from_js = false, object_to_js = false)]
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase", deny_unknown_fields)]
        pub struct $name {
            $($fields)*
            /// `'openai-sse'` (SSE frame strings) or `'ai-sdk'` (V3 stream part objects).
            /// Default `'openai-sse'` for a `StreamTransformer`, `'ai-sdk'` for a run.
            #[napi(ts_type = "'openai-sse' | 'ai-sdk'")]
            pub format: Option<crate::core::stream::transformer::Format>,
            /// SSE chunk `id`. Default: generated.
            pub id: Option<String>,
            /// SSE chunk `created`, epoch seconds: a whole number from 0 to 2^53 - 1. Default:
            /// now.
            #[napi(ts_type = "number")]
            pub created: Option<crate::core::whole_number::NonNegative>,
            /// SSE only: `'emit'` Cursor's tool calls as `tool_calls` deltas (with Cursor's
            /// names and arguments), or `'omit'` them. Default `'emit'`.
            ///
            /// Cursor has already run these calls. An OpenAI client receives them as ordinary
            /// `message.tool_calls` beside `finish_reason: "stop"` (the official `openai`
            /// package's `finalChatCompletion()` does), and an agent loop that runs every tool
            /// call it gets would run them a second time. Use `'omit'` where the client runs
            /// tools.
            #[napi(ts_type = "'emit' | 'omit'")]
            pub tool_calls: Option<crate::core::stream::encode::sse::ToolCallMode>,
            /// SSE only: send the usage chunk when Cursor reported usage. Default `true`.
            pub include_usage: Option<bool>,
            /// SSE only: after each response's frames, also its whole `chat.completion` object
            /// (`ChatCompletion`, or `ChatCompletionFailure` after a failure), as gathering the
            /// frames would give it: for a server that answers a request that asked for no
            /// stream. Default `false`.
            pub completions: Option<bool>,
            /// Size cap of one NDJSON record in bytes, a whole number from 1 to 2^53 - 1; a
            /// longer record is skipped and counted in `skippedLines`. Default 67108864 (64 MiB).
            #[napi(ts_type = "number")]
            pub max_line_bytes: Option<crate::core::whole_number::Positive>,
        }

        impl $name {
            /// The translation options given, over `defaults`.
            pub fn translation(
                &self,
                defaults: crate::core::stream::transformer::TransformerOptions,
            ) -> crate::core::stream::transformer::TransformerOptions {
                crate::core::stream::transformer::TransformerOptions {
                    format: self.format.unwrap_or(defaults.format),
                    id: self.id.clone().or(defaults.id),
                    created: self.created.map(|n| n.get()).or(defaults.created),
                    tool_calls: self.tool_calls.unwrap_or(defaults.tool_calls),
                    include_usage: self.include_usage.unwrap_or(defaults.include_usage),
                    completions: self.completions.unwrap_or(defaults.completions),
                    max_line_bytes: self
                        .max_line_bytes
                        .map_or(defaults.max_line_bytes, |n| usize::try_from(n.get()).unwrap_or(usize::MAX)),
                    ..defaults
                }
            }
        }
    };
}

pub(crate) use with_translation_options;

// Docs are `#[doc = "..."]` in these invocations: a doc comment passed through a macro
// becomes a raw string, which napi's TypeScript generator would print with its `r"`.
with_translation_options! {
    #[doc = " Options of `new StreamTransformer(options)`; every field is optional, any other field is"]
    #[doc = " refused."]
    pub struct StreamTransformerOptions {
        #[doc = " Model name echoed in SSE chunks. Default `'auto'`."]
        pub model: Option<String>,
    }
}

/// How the process behind the stream ended; every field is optional.
#[napi(object, object_from_js = false, object_to_js = false)]
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StreamOutcome {
    /// Exit code (a whole number from -2^31 to 2^31 - 1), `null` when killed by a signal.
    /// Default `null`.
    #[napi(ts_type = "number | null")]
    pub exit_code: Option<i32>,
    /// Name of the signal that ended the process (e.g. `'SIGTERM'`). Default `null`.
    #[napi(ts_type = "string | null")]
    pub signal: Option<String>,
    /// What the process wrote to stderr; classifies failures. Default `''`.
    pub stderr: Option<String>,
    /// The run was cancelled by the caller: the stream ends without an error. Default `false`.
    pub cancelled: Option<bool>,
}

impl From<StreamOutcome> for Outcome {
    fn from(outcome: StreamOutcome) -> Self {
        Self {
            exit_code: outcome.exit_code,
            signal: outcome.signal,
            stderr: outcome.stderr.unwrap_or_default(),
            cancelled: outcome.cancelled.unwrap_or(false),
        }
    }
}

/// Translates one cursor-agent `--output-format stream-json` stdout stream into OpenAI SSE
/// frames or AI SDK LanguageModelV3 stream parts. Outputs are identical for every chunking of
/// the input, ids included.
#[napi]
pub struct StreamTransformer {
    inner: core::StreamTransformer,
}

#[napi]
impl StreamTransformer {
    /// Throws `E_INVALID_ARG` for an option of the wrong type or value.
    #[napi(
        constructor,
        catch_unwind,
        ts_args_type = "options?: StreamTransformerOptions | undefined | null"
    )]
    pub fn new(env: Env, this: This<Unknown>, options: Option<Unknown>) -> Result<Self> {
        require_new(&this.object, "StreamTransformer")?;
        let options: Option<StreamTransformerOptions> =
            read_optional(&env, options, "the StreamTransformer options")?;
        let mut merged = TransformerOptions::default();
        if let Some(options) = options {
            merged = options.translation(merged);
            if let Some(model) = options.model {
                merged.model = model;
            }
        }
        Ok(Self {
            inner: core::StreamTransformer::new(merged),
        })
    }

    /// Feeds stdout bytes in any chunking (a string is taken as its UTF-8 bytes) and returns
    /// the outputs they complete: frame strings for `'openai-sse'`, part objects for
    /// `'ai-sdk'`. Throws `E_INVALID_ARG` after `finish()` or for a chunk of another type.
    #[napi(
        catch_unwind,
        ts_args_type = "chunk: Buffer | Uint8Array | string",
        ts_return_type = "Array<StreamOutput>"
    )]
    pub fn push<'env>(&mut self, env: &'env Env, chunk: Unknown<'env>) -> Result<Unknown<'env>> {
        let text;
        let bytes: &[u8] = if chunk.get_type().map_err(from_napi)? == ValueType::String {
            text = read::<String>(env, chunk, "the chunk")?;
            text.as_bytes()
        } else {
            // SAFETY: `chunk` is a live handle of this call; a value that is not a Buffer or
            // Uint8Array is refused by the conversion itself.
            unsafe { chunk.cast::<&[u8]>() }
                .map_err(|_| invalid_arg("the chunk must be a Buffer, a Uint8Array or a string"))?
        };
        if self.inner.options().format == Format::AiSdk {
            let mut json = String::from("[");
            self.inner
                .push_json(bytes, &mut json)
                .map_err(to_js_error)?;
            return json_array_to_js(env, json);
        }
        let mut outputs = Vec::new();
        self.inner.push(bytes, &mut outputs).map_err(to_js_error)?;
        outputs_to_js(env, &mut outputs)
    }

    /// Ends the stream and returns its closing outputs: open blocks closed, an error when the
    /// outcome is a failure, and exactly one end. `ai-sdk`: one `finish` part (`error` after a
    /// failure, `other` after a cancel). `openai-sse`: `data: [DONE]` last, and `finish_reason`
    /// only ever an OpenAI value: a completed answer has one `finish_reason` chunk (`stop`, or
    /// `tool_calls` for calls handed to the host), a failure has its error frame instead, and a
    /// cancelled answer has neither. A second call returns `[]`.
    ///
    /// A failure after output (a usage limit hit mid-answer among them) closes like any
    /// failure: the output already returned stands, then the error. The `ai-sdk` error part is
    /// `{code, message, agentOutput?, resetsAt?}`; the `openai-sse` error frame's message ends
    /// with what cursor-agent said. SSE `content` is one string, so the first text after a tool
    /// call starts with a blank line (`\n\n`) when text came before it;
    /// `completion_tokens_details` appears only when Cursor reported reasoning tokens.
    #[napi(
        catch_unwind,
        ts_args_type = "outcome?: StreamOutcome | undefined | null",
        ts_return_type = "Array<StreamOutput>"
    )]
    pub fn finish<'env>(
        &mut self,
        env: &'env Env,
        outcome: Option<Unknown<'env>>,
    ) -> Result<Unknown<'env>> {
        let outcome: Outcome = read_optional::<StreamOutcome>(env, outcome, "the finish outcome")?
            .unwrap_or_default()
            .into();
        if self.inner.options().format == Format::AiSdk {
            let mut json = String::from("[");
            self.inner.finish_json(&outcome, &mut json);
            return json_array_to_js(env, json);
        }
        let mut outputs = Vec::new();
        self.inner.finish(&outcome, &mut outputs);
        outputs_to_js(env, &mut outputs)
    }

    /// The Cursor chat id (`session_id`) seen in the stream, `null` before any.
    #[napi(getter, catch_unwind)]
    pub fn session_id(&self) -> Option<String> {
        self.inner.session_id().map(str::to_owned)
    }

    /// Non-blank records skipped so far: not valid UTF-8, not valid JSON, not a JSON object,
    /// or longer than `maxLineBytes`.
    #[napi(getter, catch_unwind)]
    pub fn skipped_lines(&self) -> f64 {
        // Counts stay far below 2^53, where f64 is exact.
        self.inner.skipped_lines() as f64
    }
}
