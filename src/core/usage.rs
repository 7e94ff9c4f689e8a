//! Cursor's token usage (`result.usage`) and its mappings.

/// Cursor's counts after the validity filter (negative or non-numeric counts are missing).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CursorUsage {
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub cache_read_tokens: Option<u64>,
    pub cache_write_tokens: Option<u64>,
    pub reasoning_tokens: Option<u64>,
}
