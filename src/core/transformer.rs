//! The whole translation pipeline behind one type: bytes in any chunking -> outputs.
//!
//! INTERFACE CONTRACT (used by `agent` and `node`): keep these signatures.

use crate::core::error::CoreError;
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

/// Stateful translator of one cursor-agent stdout stream.
pub struct StreamTransformer {
    options: TransformerOptions,
    finished: bool,
}

impl StreamTransformer {
    pub fn new(options: TransformerOptions) -> Self {
        Self {
            options,
            finished: false,
        }
    }

    pub fn options(&self) -> &TransformerOptions {
        &self.options
    }

    /// Feed stdout bytes; appends outputs to `out`. `E_INVALID_ARG` after `finish`.
    pub fn push(&mut self, _bytes: &[u8], _out: &mut Vec<Output>) -> Result<(), CoreError> {
        if self.finished {
            return Err(CoreError::InvalidArg("push after finish".into()));
        }
        Ok(())
    }

    /// Close the stream per the finish table; a second call appends nothing.
    pub fn finish(&mut self, _outcome: &Outcome, _out: &mut Vec<Output>) -> FinishSummary {
        self.finished = true;
        FinishSummary::default()
    }

    /// The cursor chat id seen in the stream.
    pub fn session_id(&self) -> Option<&str> {
        None
    }

    /// Non-blank records that were skipped (bad UTF-8, bad JSON, not an object, too long).
    pub fn skipped_lines(&self) -> u64 {
        0
    }

    /// Usage from `result.usage`, after the validity filter.
    pub fn usage(&self) -> Option<&CursorUsage> {
        None
    }

    /// Cursor tool calls started and not yet completed (the idle timer pauses while > 0).
    pub fn open_tool_calls(&self) -> usize {
        0
    }

    /// Whether any text or reasoning has been emitted.
    pub fn has_content(&self) -> bool {
        false
    }

    /// Whether any record (event) has been parsed yet.
    pub fn has_events(&self) -> bool {
        false
    }
}
