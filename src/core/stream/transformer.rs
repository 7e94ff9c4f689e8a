//! The whole translation pipeline behind one type: bytes in any chunking -> outputs.
//!
//! INTERFACE CONTRACT (used by `agent` and `node`): keep these signatures.

use crate::core::error::CoreError;
use crate::core::json;
use crate::core::stream::encode::ai_sdk::{AiSdkEncoder, JsonParts};
use crate::core::stream::encode::sse::{SseEncoder, ToolCallMode};
use crate::core::stream::encode::{push_json_str, Output};
use crate::core::stream::event::{parse, Parsed};
use crate::core::stream::framing::{LineFramer, Record, SkipReason, SKIPPED_PREFIX_BYTES};
use crate::core::stream::part::Part;
use crate::core::stream::translate::{Closing, FinishSummary, HandedCall, Outcome, Translator};
use crate::core::stream::usage::CursorUsage;

/// Which encoder turns the neutral parts into outputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// OpenAI `chat.completion.chunk` frames, `data: {...}\n\n`.
    #[default]
    OpenAiSse,
    /// AI SDK LanguageModelV3 stream parts (JSON values).
    AiSdk,
}

/// Options of a [`StreamTransformer`]; `Default` gives the documented defaults.
#[derive(Debug, Clone)]
pub struct TransformerOptions {
    pub format: Format,
    /// Echoed in SSE chunks. Default `auto`.
    pub model: String,
    /// SSE chunk id; generated when `None`.
    pub id: Option<String>,
    /// SSE `created` (epoch seconds); now when `None`.
    pub created: Option<i64>,
    pub tool_calls: ToolCallMode,
    /// SSE only: emit the usage chunk. Default true.
    pub include_usage: bool,
    /// Record size cap. Default 64 MiB.
    pub max_line_bytes: usize,
    /// The MCP server through which the host runs its own tools (the tool bridge); default
    /// none: Cursor runs every tool.
    pub host_tool_server: Option<String>,
}

pub const DEFAULT_MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

impl Default for TransformerOptions {
    fn default() -> Self {
        Self {
            format: Format::OpenAiSse,
            model: "auto".to_owned(),
            id: None,
            created: None,
            tool_calls: ToolCallMode::Emit,
            include_usage: true,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            host_tool_server: None,
        }
    }
}

/// The encoder chosen by [`Format`].
#[derive(Debug)]
enum Encoder {
    Sse(SseEncoder),
    AiSdk(AiSdkEncoder),
}

/// Where outputs go: values, or JSON text for a host that parses a batch in one go.
enum Sink<'o> {
    Outputs(&'o mut Vec<Output>),
    Json(&'o mut String),
}

impl Encoder {
    fn encode(&mut self, part: &Part<'_>, sink: &mut Sink<'_>) {
        match (self, sink) {
            (Self::Sse(e), Sink::Outputs(out)) => e.encode(part, out),
            (Self::AiSdk(e), Sink::Outputs(out)) => e.encode(part, *out),
            (Self::AiSdk(e), Sink::Json(text)) => e.encode(part, &mut JsonParts(text)),
            (Self::Sse(e), Sink::Json(text)) => {
                let mut frames = Vec::new();
                e.encode(part, &mut frames);
                for frame in frames {
                    if let Output::Frame(frame) = frame {
                        push_json_str(text, &frame);
                        text.push(',');
                    }
                }
            }
        }
    }
}

/// A chunk id for SSE output when the caller gives none: unique per process and stream.
fn generated_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    hasher.write_u128(now().as_nanos());
    format!("chatcmpl-cursor-{:016x}", hasher.finish())
}

fn now() -> std::time::Duration {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
}

/// Stateful translator of one cursor-agent stdout stream.
pub struct StreamTransformer {
    options: TransformerOptions,
    framer: LineFramer,
    stages: Stages,
}

/// What a framed record passes through: parsing, translation, encoding.
struct Stages {
    translator: Translator,
    encoder: Encoder,
    skipped: u64,
}

/// Log a skipped record with a short prefix (never the whole record).
fn log_skipped(what: &str, prefix: &[u8]) {
    // At most `SKIPPED_PREFIX_BYTES` bytes decode to at most as many characters.
    let shown = String::from_utf8_lossy(&prefix[..prefix.len().min(SKIPPED_PREFIX_BYTES)]);
    tracing::debug!(prefix = %shown, "skipped cursor-agent record: {what}");
}

impl Stages {
    /// Hand one framed record down the pipeline.
    fn record(&mut self, record: Record<'_>, sink: &mut Sink<'_>) {
        match record {
            Record::Line(line) => {
                let depth = json::depth_bound(line);
                if depth > json::MAX_DEPTH {
                    self.skipped += 1;
                    log_skipped("nested deeper than the limit", line.as_bytes());
                    return;
                }
                json::with_stack_for(depth, || self.line(line, sink));
            }
            Record::Skipped { reason, prefix } => {
                self.skipped += 1;
                let what = match reason {
                    SkipReason::TooLong => "longer than maxLineBytes",
                    SkipReason::InvalidUtf8 => "not valid UTF-8",
                };
                log_skipped(what, prefix);
            }
        }
    }

    fn line(&mut self, line: &str, sink: &mut Sink<'_>) {
        let parsed = parse(line);
        if matches!(parsed, Parsed::Invalid) {
            self.skipped += 1;
            log_skipped("not a JSON object", line.as_bytes());
            return;
        }
        let encoder = &mut self.encoder;
        self.translator
            .record(parsed, &mut |part| encoder.encode(&part, sink));
    }

    fn close(&mut self, closing: Closing<'_>, sink: &mut Sink<'_>) -> FinishSummary {
        let encoder = &mut self.encoder;
        self.translator
            .close(closing, &mut |part| encoder.encode(&part, sink))
    }
}

impl StreamTransformer {
    pub fn new(options: TransformerOptions) -> Self {
        let encoder = match options.format {
            Format::OpenAiSse => {
                let id = options.id.clone().unwrap_or_else(generated_id);
                let created = options
                    .created
                    .unwrap_or_else(|| i64::try_from(now().as_secs()).unwrap_or(i64::MAX));
                Encoder::Sse(SseEncoder::new(
                    &id,
                    created,
                    &options.model,
                    options.tool_calls,
                    options.include_usage,
                ))
            }
            Format::AiSdk => Encoder::AiSdk(AiSdkEncoder::new()),
        };
        Self {
            framer: LineFramer::new(options.max_line_bytes),
            stages: Stages {
                translator: Translator::with_line_limit(options.max_line_bytes)
                    .hosting_tools_on(options.host_tool_server.clone()),
                encoder,
                skipped: 0,
            },
            options,
        }
    }

    pub fn options(&self) -> &TransformerOptions {
        &self.options
    }

    /// Feed stdout bytes; appends outputs to `out`. `E_INVALID_ARG` after `finish`.
    pub fn push(&mut self, bytes: &[u8], out: &mut Vec<Output>) -> Result<(), CoreError> {
        self.push_to(bytes, &mut Sink::Outputs(out))
    }

    /// Like [`push`](Self::push), but appends each output as JSON text followed by a comma
    /// (an SSE frame as a JSON string, an AI SDK part as a JSON object): `[` + the text without
    /// its last comma + `]` is a JSON array of the outputs `push` would return. Cheaper for a
    /// host that parses a whole batch at once.
    pub fn push_json(&mut self, bytes: &[u8], out: &mut String) -> Result<(), CoreError> {
        self.push_to(bytes, &mut Sink::Json(out))
    }

    fn push_to(&mut self, bytes: &[u8], sink: &mut Sink<'_>) -> Result<(), CoreError> {
        if self.is_finished() {
            return Err(CoreError::InvalidArg(
                "push after finish: the stream is already closed".into(),
            ));
        }
        let stages = &mut self.stages;
        self.framer
            .push(bytes, |record| stages.record(record, sink));
        Ok(())
    }

    /// End the current step by handing the host `calls` to run (see [`Translator::hand_over`]);
    /// records buffered in the framing are not flushed, since the stream goes on.
    pub fn hand_over(&mut self, calls: &[HandedCall<'_>], out: &mut Vec<Output>) {
        let sink = &mut Sink::Outputs(out);
        let encoder = &mut self.stages.encoder;
        self.stages
            .translator
            .hand_over(calls, &mut |part| encoder.encode(&part, sink));
    }

    /// Close the stream per the finish table; a second call appends nothing.
    pub fn finish(&mut self, outcome: &Outcome, out: &mut Vec<Output>) -> FinishSummary {
        self.close(Closing::Outcome(outcome), &mut Sink::Outputs(out))
    }

    /// [`finish`](Self::finish) with outputs as JSON text, as [`push_json`](Self::push_json).
    pub fn finish_json(&mut self, outcome: &Outcome, out: &mut String) -> FinishSummary {
        self.close(Closing::Outcome(outcome), &mut Sink::Json(out))
    }

    /// Close the stream with a failure the caller determined (`E_TIMEOUT`, `E_CALLBACK`, ...)
    /// instead of classifying the process outcome: pending records are flushed, open blocks
    /// closed, open tool calls interrupted, then the error and the finish. Like `finish`, a
    /// call after the stream is closed appends nothing; `push` afterwards is `E_INVALID_ARG`.
    pub fn fail(&mut self, error: CoreError, out: &mut Vec<Output>) -> FinishSummary {
        self.close(Closing::Failure(error), &mut Sink::Outputs(out))
    }

    /// [`fail`](Self::fail) with outputs as JSON text, as [`push_json`](Self::push_json).
    pub fn fail_json(&mut self, error: CoreError, out: &mut String) -> FinishSummary {
        self.close(Closing::Failure(error), &mut Sink::Json(out))
    }

    fn close(&mut self, closing: Closing<'_>, sink: &mut Sink<'_>) -> FinishSummary {
        if self.is_finished() {
            return FinishSummary::default();
        }
        let stages = &mut self.stages;
        self.framer.finish(|record| stages.record(record, sink));
        stages.close(closing, sink)
    }

    /// Drops a last record that has no line feed, counting it as skipped: a writer that died
    /// in the middle of a record left it cut, and a cut record may still parse (a snapshot cut
    /// short reads as shorter text). [`finish`](Self::finish) would otherwise translate it.
    pub fn drop_unterminated(&mut self) {
        if self.framer.drop_unterminated() {
            self.stages.skipped += 1;
            tracing::debug!("dropped a cursor-agent record cut off by the end of the stream");
        }
    }

    /// Whether the stream is closed (`finish` or `fail` was called).
    pub fn is_finished(&self) -> bool {
        self.stages.translator.is_finished()
    }

    /// The cursor chat id seen in the stream.
    pub fn session_id(&self) -> Option<&str> {
        self.stages.translator.session_id()
    }

    /// Non-blank records that were skipped (bad UTF-8, bad JSON, not an object, too long).
    pub fn skipped_lines(&self) -> u64 {
        self.stages.skipped
    }

    /// Usage from `result.usage`, after the validity filter.
    pub fn usage(&self) -> Option<&CursorUsage> {
        self.stages.translator.usage().map(|r| &r.counts)
    }

    /// Cursor tool calls started and not yet completed (the idle timer pauses while > 0).
    pub fn open_tool_calls(&self) -> usize {
        self.stages.translator.open_tool_calls()
    }

    /// Whether any text or reasoning has been emitted.
    pub fn has_content(&self) -> bool {
        self.stages.translator.has_content()
    }

    /// Whether any record (event) has been parsed yet.
    pub fn has_events(&self) -> bool {
        self.stages.translator.has_events()
    }
}
