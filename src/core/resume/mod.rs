//! Session resume: reuse a cursor-agent chat across the turns of one conversation, only when it
//! is provably the same conversation with the same tools, and evict it only when the chat itself
//! is gone. [`key`] says what identifies a conversation, [`plan`] what a plan holds,
//! [`manager`] keeps the cache.

pub mod clock;
pub mod key;
pub mod manager;
pub mod options;
pub mod plan;

pub use clock::{Clock, MonotonicClock};
pub use key::is_title_request;
pub use manager::SessionResumeManager;
pub use options::{ResumeOptions, DEFAULT_MAX_ENTRIES, DEFAULT_TTL_MS, MAX_ENTRIES_LIMIT};
pub use plan::{Failure, ResumePlan, ResumeRequest};
