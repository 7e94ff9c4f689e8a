//! Options of the resume cache.

use std::num::NonZeroUsize;

/// Default of [`ResumeOptions::max_entries`].
pub const DEFAULT_MAX_ENTRIES: usize = 64;
/// The largest [`ResumeOptions::max_entries`]: far beyond any editor's conversations, and
/// small enough that a full cache stays within a few hundred megabytes.
pub const MAX_ENTRIES_LIMIT: usize = 1_000_000;
/// Default of [`ResumeOptions::ttl_ms`]: one hour.
pub const DEFAULT_TTL_MS: u64 = 3_600_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResumeOptions {
    /// Resume at all (from `CURSOR_ACP_SESSION_RESUME`); default false.
    pub enabled: bool,
    /// Entries kept, least recently used evicted first; 1 to
    /// [`MAX_ENTRIES_LIMIT`], default 64. Nothing is reserved up front.
    pub max_entries: NonZeroUsize,
    /// Lifetime of an entry from its `record`, in milliseconds (more than 0); default one hour.
    pub ttl_ms: u64,
}

impl Default for ResumeOptions {
    fn default() -> Self {
        Self {
            enabled: false,
            max_entries: NonZeroUsize::new(DEFAULT_MAX_ENTRIES).unwrap_or(NonZeroUsize::MIN),
            ttl_ms: DEFAULT_TTL_MS,
        }
    }
}
