//! `StreamTransformer` for JS, and the reading of transformer options that `runCursorAgent`
//! shares.

use napi::bindgen_prelude::{Either, Null, This, Unknown};
use napi::{Env, ValueType};
use napi_derive::napi;

use crate::core::stream::encode::sse::ToolCallMode;
use crate::core::stream::transformer::{self as core, Format, TransformerOptions};
use crate::core::stream::translate::Outcome;
use crate::node::error_code::{from_napi, invalid_arg, to_js_error, Result};
use crate::node::options::{argument, require_new, Options, MAX_SAFE_INTEGER};
use crate::node::output::{json_array_to_js, outputs_to_js};

/// Output encoding of a `StreamTransformer`.
#[allow(
    dead_code,
    reason = "declares the TypeScript enum; the options are read field by field"
)]
#[napi(string_enum)]
pub enum StreamFormat {
    /// OpenAI `chat.completion.chunk` frames: each output is one `data: {...}\n\n` string.
    #[napi(value = "openai-sse")]
    OpenAiSse,
    /// AI SDK LanguageModelV3 stream parts: each output is one JSON-safe part object.
    #[napi(value = "ai-sdk")]
    AiSdk,
}

/// Whether Cursor's own tool calls appear in `'openai-sse'` output.
#[allow(
    dead_code,
    reason = "declares the TypeScript enum; the options are read field by field"
)]
#[napi(string_enum)]
pub enum ToolCallOutput {
    /// As `tool_calls` deltas, one distinct `index` per call.
    #[napi(value = "emit")]
    Emit,
    /// Not at all.
    #[napi(value = "omit")]
    Omit,
}

/// Options of `new StreamTransformer(options)`; every field is optional.
#[allow(
    dead_code,
    reason = "declares the TypeScript shape; the options are read field by field"
)]
#[napi(object)]
pub struct StreamTransformerOptions {
    /// `'openai-sse'` (SSE frame strings) or `'ai-sdk'` (V3 stream part objects).
    /// Default `'openai-sse'`.
    #[napi(ts_type = "'openai-sse' | 'ai-sdk'")]
    pub format: Option<StreamFormat>,
    /// Model name echoed in SSE chunks. Default `'auto'`.
    pub model: Option<String>,
    /// SSE chunk `id`. Default: generated.
    pub id: Option<String>,
    /// SSE chunk `created`, epoch seconds: a whole number from 0 to 2^53 - 1. Default: now.
    pub created: Option<f64>,
    /// SSE only: `'emit'` Cursor's tool calls as `tool_calls` deltas (with Cursor's names and
    /// arguments), or `'omit'` them. Default `'emit'`.
    ///
    /// Cursor has already run these calls. An OpenAI client receives them as ordinary
    /// `message.tool_calls` beside `finish_reason: "stop"` (the official `openai` package's
    /// `finalChatCompletion()` does), and an agent loop that runs every tool call it gets would
    /// run them a second time. Use `'omit'` where the client runs tools.
    #[napi(ts_type = "'emit' | 'omit'")]
    pub tool_calls: Option<ToolCallOutput>,
    /// SSE only: send the usage chunk when Cursor reported usage. Default `true`.
    pub include_usage: Option<bool>,
    /// Size cap of one NDJSON record in bytes, a whole number from 1 to 2^53 - 1; a longer
    /// record is skipped and counted in `skippedLines`. Default 67108864 (64 MiB).
    pub max_line_bytes: Option<f64>,
}

/// How the process behind the stream ended; every field is optional.
#[allow(
    dead_code,
    reason = "declares the TypeScript shape; the outcome is read field by field"
)]
#[napi(object)]
pub struct StreamOutcome {
    /// Exit code (a whole number from -2^31 to 2^31 - 1), `null` when killed by a signal.
    /// Default `null`.
    #[napi(ts_type = "number | null")]
    pub exit_code: Option<Either<i32, Null>>,
    /// Name of the signal that ended the process (e.g. `'SIGTERM'`). Default `null`.
    #[napi(ts_type = "string | null")]
    pub signal: Option<Either<String, Null>>,
    /// What the process wrote to stderr; classifies failures. Default `''`.
    pub stderr: Option<String>,
    /// The run was cancelled by the caller: the stream ends without an error. Default `false`.
    pub cancelled: Option<bool>,
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
    pub fn new(this: This<Unknown>, options: Option<Unknown>) -> Result<Self> {
        require_new(&this.object, "StreamTransformer")?;
        let options = Options::new(options, "the StreamTransformer options")?;
        let mut merged = read_transformer_options(&options, TransformerOptions::default())?;
        if let Some(model) = options.string("model")? {
            merged.model = model;
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
            text = argument::<String>(Some(chunk), ValueType::String, "the chunk", "a string")?
                .unwrap_or_default();
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
    /// `{code, message, agentOutput?}`; the `openai-sse` error frame's message ends with what
    /// cursor-agent said. SSE `content` is one string, so the first text after a tool call
    /// starts with a blank line (`\n\n`) when text came before it; `completion_tokens_details`
    /// appears only when Cursor reported reasoning tokens.
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
        let outcome = read_outcome(&Options::new(outcome, "the finish outcome")?)?;
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

fn read_outcome(outcome: &Options<'_>) -> Result<Outcome> {
    let exit_code = outcome.whole_number("exitCode", i64::from(i32::MIN)..=i64::from(i32::MAX))?;
    Ok(Outcome {
        exit_code: exit_code.and_then(|code| i32::try_from(code).ok()),
        signal: outcome.string("signal")?,
        stderr: outcome.string("stderr")?.unwrap_or_default(),
        cancelled: outcome.boolean("cancelled")?.unwrap_or(false),
    })
}

/// The options every translation takes (`StreamTransformer` and `runCursorAgent` alike) over
/// `defaults`: `format`, `id`, `created`, `toolCalls`, `includeUsage`, `maxLineBytes`.
pub fn read_transformer_options(
    options: &Options<'_>,
    defaults: TransformerOptions,
) -> Result<TransformerOptions> {
    let mut merged = defaults;
    let formats = [("openai-sse", Format::OpenAiSse), ("ai-sdk", Format::AiSdk)];
    if let Some(format) = options.choice("format", &formats)? {
        merged.format = format;
    }
    if let Some(id) = options.string("id")? {
        merged.id = Some(id);
    }
    merged.created = options
        .whole_number("created", 0..=MAX_SAFE_INTEGER)?
        .or(merged.created);
    let modes = [("emit", ToolCallMode::Emit), ("omit", ToolCallMode::Omit)];
    if let Some(tool_calls) = options.choice("toolCalls", &modes)? {
        merged.tool_calls = tool_calls;
    }
    if let Some(include_usage) = options.boolean("includeUsage")? {
        merged.include_usage = include_usage;
    }
    if let Some(max) = options.whole_number("maxLineBytes", 1..=MAX_SAFE_INTEGER)? {
        merged.max_line_bytes = usize::try_from(max).unwrap_or(usize::MAX);
    }
    Ok(merged)
}
