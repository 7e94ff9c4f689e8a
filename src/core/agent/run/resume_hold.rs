//! Outputs kept back from the consumer.
//!
//! While a resumed run has not yet shown which chat it is in, nothing may reach the consumer: a
//! run that turns out to be in another chat, or that fails with resume-specific text, ends with
//! `E_RESUME` and delivers no output at all, so the host can rerun it as a fresh chat. Once the
//! chat is confirmed, everything held goes out in order. A batch that a stop interrupted before
//! delivery waits here too, so it goes out ahead of the closing outputs.
//!
//! The hold is bounded: Cursor names the chat in its first record, so a resumed run that has
//! printed [`MAX_UNCONFIRMED_STDOUT_BYTES`] without naming one is taken as confirmed and what is
//! held goes out. From then on the run is an ordinary one: it can no longer end in `E_RESUME`,
//! so the rule that an `E_RESUME` run delivers nothing still holds, and neither the memory held
//! nor the batch that crosses into JS grows with the answer.

use crate::core::stream::encode::Output;

/// Stdout a resumed run may print before its chat is confirmed (1 MiB).
pub(super) const MAX_UNCONFIRMED_STDOUT_BYTES: usize = 1024 * 1024;

#[derive(Debug, Default)]
pub(super) struct Hold {
    resume_unconfirmed: bool,
    pending: Vec<Output>,
    /// Stdout read while the resumed chat was unconfirmed.
    unconfirmed_bytes: usize,
}

impl Hold {
    /// A hold for a run that resumes a chat (`resuming`) or starts a fresh one.
    pub fn new(resuming: bool) -> Self {
        Self {
            resume_unconfirmed: resuming,
            ..Self::default()
        }
    }

    /// Whether the resumed chat is not yet confirmed.
    pub fn resume_unconfirmed(&self) -> bool {
        self.resume_unconfirmed
    }

    /// Passes `outputs` (translated from `read_bytes` of stdout) on, or keeps them while the
    /// resumed chat is unconfirmed. `seen` is the chat id the stream reported so far: the run's
    /// own (`expected`) releases everything held into `outputs`; any other is `Err` with that
    /// id. Reaching [`MAX_UNCONFIRMED_STDOUT_BYTES`] without an id releases everything too.
    pub fn admit(
        &mut self,
        outputs: &mut Vec<Output>,
        read_bytes: usize,
        seen: Option<&str>,
        expected: Option<&str>,
    ) -> Result<(), String> {
        if !self.resume_unconfirmed {
            return Ok(());
        }
        self.pending.append(outputs);
        self.unconfirmed_bytes = self.unconfirmed_bytes.saturating_add(read_bytes);
        match seen {
            Some(seen) if Some(seen) != expected => return Err(seen.to_owned()),
            Some(_) => {}
            None if self.unconfirmed_bytes >= MAX_UNCONFIRMED_STDOUT_BYTES => {
                tracing::debug!(
                    bytes = self.unconfirmed_bytes,
                    "a resumed run named no chat; its output is no longer held"
                );
            }
            None => return Ok(()),
        }
        self.resume_unconfirmed = false;
        *outputs = std::mem::take(&mut self.pending);
        Ok(())
    }

    /// A batch a stop kept from its consumer: it goes out first, with the closing outputs.
    pub fn keep_undelivered(&mut self, mut outputs: Vec<Output>) {
        outputs.append(&mut self.pending);
        self.pending = outputs;
    }

    /// Drops what is held: the run ends without delivering it.
    pub fn discard(&mut self) {
        self.pending.clear();
        self.resume_unconfirmed = false;
    }

    /// Everything held, for the last batch.
    pub fn release(&mut self) -> Vec<Output> {
        std::mem::take(&mut self.pending)
    }

    /// Everything held, to go out with a step that ends (the run handed tool calls over): the
    /// chat went on answering, so nothing is held any more.
    pub fn end_step(&mut self) -> Vec<Output> {
        self.resume_unconfirmed = false;
        self.release()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(texts: &[&str]) -> Vec<Output> {
        texts
            .iter()
            .map(|t| Output::Frame((*t).to_owned()))
            .collect()
    }

    #[test]
    fn a_fresh_run_passes_everything_on() {
        let mut hold = Hold::new(false);
        let mut batch = frames(&["a"]);
        assert_eq!(hold.admit(&mut batch, 1, None, None), Ok(()));
        assert_eq!(batch, frames(&["a"]));
        assert!(hold.release().is_empty());
    }

    #[test]
    fn a_resumed_run_holds_until_its_own_chat_shows() {
        let mut hold = Hold::new(true);
        let mut first = frames(&["a"]);
        assert_eq!(hold.admit(&mut first, 1, None, Some("chat-1")), Ok(()));
        assert!(first.is_empty() && hold.resume_unconfirmed());
        let mut second = frames(&["b"]);
        assert_eq!(
            hold.admit(&mut second, 1, Some("chat-1"), Some("chat-1")),
            Ok(())
        );
        assert_eq!(second, frames(&["a", "b"]));
        assert!(!hold.resume_unconfirmed());
        let mut third = frames(&["c"]);
        assert_eq!(
            hold.admit(&mut third, 1, Some("chat-1"), Some("chat-1")),
            Ok(())
        );
        assert_eq!(third, frames(&["c"]));
    }

    #[test]
    fn another_chat_is_reported_and_nothing_is_released() {
        let mut hold = Hold::new(true);
        let mut batch = frames(&["a"]);
        assert_eq!(
            hold.admit(&mut batch, 1, Some("chat-9"), Some("chat-1")),
            Err("chat-9".to_owned())
        );
        assert!(batch.is_empty());
        hold.discard();
        assert!(hold.release().is_empty());
    }

    #[test]
    fn a_run_that_names_no_chat_is_held_only_up_to_the_limit() {
        let mut hold = Hold::new(true);
        let step = MAX_UNCONFIRMED_STDOUT_BYTES / 4;
        let mut released = Vec::new();
        for i in 0..4 {
            let mut batch = frames(&[["a", "b", "c", "d"][i]]);
            assert_eq!(hold.admit(&mut batch, step, None, Some("chat-1")), Ok(()));
            if i < 3 {
                assert!(batch.is_empty() && hold.resume_unconfirmed(), "step {i}");
            } else {
                released = batch;
            }
        }
        assert_eq!(released, frames(&["a", "b", "c", "d"]));
        assert!(!hold.resume_unconfirmed());
        // An ordinary run from then on: a later id, even another one, changes nothing.
        let mut later = frames(&["e"]);
        assert_eq!(
            hold.admit(&mut later, 1, Some("chat-9"), Some("chat-1")),
            Ok(())
        );
        assert_eq!(later, frames(&["e"]));
    }

    #[test]
    fn an_undelivered_batch_goes_out_first() {
        let mut hold = Hold::new(false);
        hold.keep_undelivered(frames(&["a", "b"]));
        assert_eq!(hold.release(), frames(&["a", "b"]));
    }
}
