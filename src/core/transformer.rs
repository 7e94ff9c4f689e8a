//! The whole translation pipeline behind one type: bytes in any chunking -> outputs.
//!
//! INTERFACE CONTRACT (used by `agent` and `node`): keep these signatures.

use crate::core::encode::ai_sdk::AiSdkEncoder;
use crate::core::encode::sse::SseEncoder;
use crate::core::error::CoreError;
use crate::core::event::{parse, Parsed};
use crate::core::framing::{LineFramer, Record, SkipReason, SKIPPED_PREFIX_BYTES};
use crate::core::part::Part;
use crate::core::translate::Translator;
use crate::core::usage::CursorUsage;

/// Which encoder turns the neutral parts into outputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// OpenAI `chat.completion.chunk` frames, `data: {...}\n\n`.
    #[default]
    OpenAiSse,
    /// AI SDK LanguageModelV3 stream parts (JSON values).
    AiSdk,
}

/// Whether Cursor's own tool calls appear as `tool_calls` deltas in SSE output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolCallMode {
    #[default]
    Emit,
    Omit,
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
        }
    }
}

/// How the process behind the stream ended.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    pub exit_code: Option<i32>,
    pub signal: Option<String>,
    pub stderr: String,
    pub cancelled: bool,
}

/// One output: a complete SSE frame, or one JSON-safe V3 stream part.
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    Frame(String),
    Part(serde_json::Value),
}

/// What `finish` concluded, for callers that report it beside the outputs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FinishSummary {
    /// `None` on success, on cancel, and on quota after output.
    pub error: Option<CoreError>,
}

/// The encoder chosen by [`Format`].
#[derive(Debug)]
enum Encoder {
    Sse(SseEncoder),
    AiSdk(AiSdkEncoder),
}

impl Encoder {
    fn encode(&mut self, part: &Part<'_>, out: &mut Vec<Output>) {
        match self {
            Self::Sse(e) => e.encode(part, out),
            Self::AiSdk(e) => e.encode(part, out),
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
    translator: Translator,
    encoder: Encoder,
    skipped: u64,
    finished: bool,
}

/// Log a skipped record with a short prefix (never the whole record).
fn log_skipped(what: &str, prefix: &[u8]) {
    let shown = String::from_utf8_lossy(&prefix[..prefix.len().min(SKIPPED_PREFIX_BYTES)]);
    let shown: String = shown.chars().take(SKIPPED_PREFIX_BYTES).collect();
    tracing::debug!(prefix = %shown, "skipped cursor-agent record: {what}");
}

/// Hand one framed record down the pipeline.
fn on_record(
    record: Record<'_>,
    translator: &mut Translator,
    encoder: &mut Encoder,
    skipped: &mut u64,
    out: &mut Vec<Output>,
) {
    match record {
        Record::Line(line) => {
            let parsed = parse(line);
            if matches!(parsed, Parsed::Invalid) {
                *skipped += 1;
                log_skipped("not a JSON object", line.as_bytes());
                return;
            }
            translator.record(parsed, &mut |part| encoder.encode(&part, out));
        }
        Record::Skipped { reason, prefix } => {
            *skipped += 1;
            let what = match reason {
                SkipReason::TooLong => "longer than maxLineBytes",
                SkipReason::InvalidUtf8 => "not valid UTF-8",
            };
            log_skipped(what, prefix);
        }
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
            translator: Translator::new(),
            encoder,
            skipped: 0,
            finished: false,
            options,
        }
    }

    pub fn options(&self) -> &TransformerOptions {
        &self.options
    }

    /// Feed stdout bytes; appends outputs to `out`. `E_INVALID_ARG` after `finish`.
    pub fn push(&mut self, bytes: &[u8], out: &mut Vec<Output>) -> Result<(), CoreError> {
        if self.finished {
            return Err(CoreError::InvalidArg(
                "push after finish: the stream is already closed".into(),
            ));
        }
        let Self {
            framer,
            translator,
            encoder,
            skipped,
            ..
        } = self;
        framer.push(bytes, |record| {
            on_record(record, translator, encoder, skipped, out)
        });
        Ok(())
    }

    /// Close the stream per the finish table; a second call appends nothing.
    pub fn finish(&mut self, outcome: &Outcome, out: &mut Vec<Output>) -> FinishSummary {
        if self.finished {
            return FinishSummary::default();
        }
        self.finished = true;
        let Self {
            framer,
            translator,
            encoder,
            skipped,
            ..
        } = self;
        framer.finish(|record| on_record(record, translator, encoder, skipped, out));
        translator.finish(outcome, &mut |part| encoder.encode(&part, out))
    }

    /// Whether `finish` has been called.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// The cursor chat id seen in the stream.
    pub fn session_id(&self) -> Option<&str> {
        self.translator.session_id()
    }

    /// Non-blank records that were skipped (bad UTF-8, bad JSON, not an object, too long).
    pub fn skipped_lines(&self) -> u64 {
        self.skipped
    }

    /// Usage from `result.usage`, after the validity filter.
    pub fn usage(&self) -> Option<&CursorUsage> {
        self.translator.usage().map(|r| &r.counts)
    }

    /// Cursor tool calls started and not yet completed (the idle timer pauses while > 0).
    pub fn open_tool_calls(&self) -> usize {
        self.translator.open_tool_calls()
    }

    /// Whether any text or reasoning has been emitted.
    pub fn has_content(&self) -> bool {
        self.translator.has_content()
    }

    /// Whether any record (event) has been parsed yet.
    pub fn has_events(&self) -> bool {
        self.translator.has_events()
    }
}
