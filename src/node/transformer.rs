use napi::bindgen_prelude::{Either, Null, Unknown};
use napi::{Env, ValueType};
use napi_derive::napi;

use crate::core::stream::encode::sse::ToolCallMode;
use crate::core::stream::transformer::{
    self as core, whole_number_option, Format, TransformerOptions,
};
use crate::core::stream::translate::Outcome;
use crate::node::argument::{convert, optional_object};
use crate::node::error_code::{from_napi, to_js_error, Result};
use crate::node::output::{json_array_to_js, outputs_to_js};

/// Output encoding of a `StreamTransformer`.
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
    /// SSE chunk `created`, epoch seconds. Default: now.
    pub created: Option<f64>,
    /// SSE only: `'emit'` Cursor's tool calls as `tool_calls` deltas, or `'omit'` them.
    /// Default `'emit'`.
    #[napi(ts_type = "'emit' | 'omit'")]
    pub tool_calls: Option<ToolCallOutput>,
    /// SSE only: send the usage chunk when Cursor reported usage. Default `true`.
    pub include_usage: Option<bool>,
    /// Size cap of one NDJSON record in bytes; a longer record is skipped and counted in
    /// `skippedLines`. Default 67108864 (64 MiB).
    pub max_line_bytes: Option<f64>,
}

/// How the process behind the stream ended; every field is optional.
#[napi(object)]
pub struct StreamOutcome {
    /// Exit code, `null` when killed by a signal. Default `null`.
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
    pub fn new(options: Option<Unknown>) -> Result<Self> {
        let options = optional_object(options, "StreamTransformer options")?;
        Ok(Self {
            inner: core::StreamTransformer::new(merge_options(options)?),
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
            text = convert::<String>(chunk, "push chunk")?;
            text.as_bytes()
        } else {
            convert::<&[u8]>(chunk, "push chunk (a Buffer, Uint8Array or string)")?
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
    /// outcome is a failure, and exactly one finish (`finish` part / `finish_reason` chunk and
    /// `data: [DONE]`). A second call returns `[]`.
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
        let outcome = optional_object::<StreamOutcome>(outcome, "finish outcome")?
            .map_or_else(Outcome::default, Outcome::from);
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

impl From<StreamOutcome> for Outcome {
    fn from(outcome: StreamOutcome) -> Self {
        Self {
            exit_code: outcome.exit_code.and_then(non_null),
            signal: outcome.signal.and_then(non_null),
            stderr: outcome.stderr.unwrap_or_default(),
            cancelled: outcome.cancelled.unwrap_or(false),
        }
    }
}

fn non_null<T>(value: Either<T, Null>) -> Option<T> {
    match value {
        Either::A(value) => Some(value),
        Either::B(Null) => None,
    }
}

fn merge_options(options: Option<StreamTransformerOptions>) -> Result<TransformerOptions> {
    let mut merged = TransformerOptions::default();
    let Some(options) = options else {
        return Ok(merged);
    };
    if let Some(format) = options.format {
        merged.format = match format {
            StreamFormat::OpenAiSse => Format::OpenAiSse,
            StreamFormat::AiSdk => Format::AiSdk,
        };
    }
    if let Some(model) = options.model {
        merged.model = model;
    }
    merged.id = options.id.or(merged.id);
    if let Some(created) = options.created {
        merged.created =
            Some(whole_number_option(created, "created", 0.0).map_err(to_js_error)? as i64);
    }
    if let Some(tool_calls) = options.tool_calls {
        merged.tool_calls = match tool_calls {
            ToolCallOutput::Emit => ToolCallMode::Emit,
            ToolCallOutput::Omit => ToolCallMode::Omit,
        };
    }
    if let Some(include_usage) = options.include_usage {
        merged.include_usage = include_usage;
    }
    if let Some(max_line_bytes) = options.max_line_bytes {
        merged.max_line_bytes =
            whole_number_option(max_line_bytes, "maxLineBytes", 1.0).map_err(to_js_error)? as usize;
    }
    Ok(merged)
}
