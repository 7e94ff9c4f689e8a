//! `StreamTransformer` for JS.

use napi::bindgen_prelude::{This, Unknown};
use napi::{Env, ValueType};
use napi_derive::napi;

use crate::core::api::translation::{StreamOutcome, StreamTransformerOptions};
use crate::core::stream::encode::batch::Batch;
use crate::core::stream::transformer::{self as core, TransformerOptions};
use crate::core::stream::translate::Outcome;
use crate::node::error::{from_napi, invalid_arg, to_js_error, Result};
use crate::node::output::batch_to_js;
use crate::node::read::{read, read_optional, require_new};

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
        require_new(&env, &this.object, "StreamTransformer")?;
        let options: Option<StreamTransformerOptions> =
            read_optional(&env, options, "the StreamTransformer options")?;
        let options = options.map_or_else(TransformerOptions::default, |o| o.into_options());
        Ok(Self {
            inner: core::StreamTransformer::new(options),
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
        let mut batch = Batch::new();
        self.inner
            .push_batch(bytes, &mut batch)
            .map_err(to_js_error)?;
        batch_to_js(env, batch)
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
        let mut batch = Batch::new();
        self.inner.finish_batch(&outcome, &mut batch);
        batch_to_js(env, batch)
    }

    /// Ends the stream with the outputs of a run that answered `text` and nothing else: for a
    /// request answered without cursor-agent (a session title), in this transformer's format.
    /// Throws `E_INVALID_ARG` after `finish()`.
    #[napi(catch_unwind, ts_return_type = "Array<StreamOutput>")]
    pub fn answer<'env>(&mut self, env: &'env Env, text: String) -> Result<Unknown<'env>> {
        let mut batch = Batch::new();
        self.inner.answer(&text, &mut batch).map_err(to_js_error)?;
        batch_to_js(env, batch)
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

/// What joins two segments of an answer's text with a tool call of Cursor's between them: SSE's
/// `content` has it before the first text after the call; a host that joins the `ai-sdk` format's
/// text blocks into one string joins them with it.
#[napi]
pub const TEXT_SEGMENT_SEPARATOR: &str = crate::core::stream::encode::SEGMENT_SEPARATOR;
