//! A transformer's options: which encoder, the SSE chunk's fixed fields, the record size cap.

use crate::core::stream::encode::ToolCallMode;

/// Which encoder turns the neutral parts into outputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum Format {
    /// OpenAI `chat.completion.chunk` frames, `data: {...}\n\n`.
    #[default]
    #[serde(rename = "openai-sse")]
    OpenAiSse,
    /// AI SDK LanguageModelV3 stream parts (JSON values).
    #[serde(rename = "ai-sdk")]
    AiSdk,
}

/// Options of a [`StreamTransformer`]; `Default` gives the documented defaults. A capture's start
/// line keeps them as serde writes them: a field added later needs a default, so that older
/// captures still read.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
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
    /// SSE only: after each response's frames, its `chat.completion` object too, for a server
    /// that answers some requests of a conversation with one completion. Default false.
    #[serde(default)]
    pub completions: bool,
    /// Record size cap. Default 64 MiB.
    pub max_line_bytes: usize,
    /// The MCP server through which the host runs its own tools (the tool bridge); default
    /// none: Cursor runs every tool.
    pub host_tool_server: Option<String>,
    /// Cursor's data folder (its `CURSOR_DATA_DIR`) when the host runs the tools: Cursor's reads
    /// of its own bookkeeping there are not shown; default none.
    pub cursor_data_dir: Option<String>,
    /// The run's attachments folder: the model's reads of the files there (what the user
    /// attached) are not shown, in either tool mode; default none.
    pub attachments_dir: Option<String>,
    /// Added to the explanation of a failure the stream reports (a run names its capture
    /// there); default none.
    pub failure_note: Option<String>,
    /// `ai-sdk` only: told with the stream's start (the `stream-start` part's warnings, each
    /// `{type: 'other', message}`); a run's are what its attachments could not send. Default
    /// none.
    #[serde(default)]
    pub warnings: Vec<String>,
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
            completions: false,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            host_tool_server: None,
            cursor_data_dir: None,
            attachments_dir: None,
            failure_note: None,
            warnings: Vec::new(),
        }
    }
}

/// A chunk id for SSE output when the caller gives none: unique per process and stream.
pub(super) fn generated_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    hasher.write_u128(now().as_nanos());
    format!("chatcmpl-cursor-{:016x}", hasher.finish())
}

pub(super) fn now() -> std::time::Duration {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
}
