//! Session resume: reuse a cursor-agent chat across the turns of one conversation, only when it
//! is provably the same conversation with the same tools, and evict it only when the chat itself
//! is gone.

pub mod key;
mod manager;

pub use key::is_title_request;
pub use manager::{
    chat_id_from_json, Clock, Failure, MonotonicClock, ResumeOptions, ResumePlan, ResumeRequest,
    SessionResumeManager, DEFAULT_MAX_ENTRIES, DEFAULT_TTL_MS,
};
