//! Session-resume cache.

/// Whether an error text says the resumed chat is gone (not a transient failure).
/// INTERFACE CONTRACT (used by `agent`): keep this signature.
pub fn is_resume_specific_failure(_text: &str) -> bool {
    false
}
