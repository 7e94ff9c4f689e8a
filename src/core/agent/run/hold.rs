//! Outputs kept back from the consumer.
//!
//! While a resumed run has not yet shown which chat it is in, nothing may reach the consumer: a
//! run that turns out to be in another chat, or that fails with resume-specific text, ends with
//! `E_RESUME` and delivers no output at all, so the host can rerun it as a fresh chat. Once the
//! chat is confirmed, everything held goes out in order. A batch that a stop interrupted before
//! delivery waits here too, so it goes out ahead of the closing outputs.

use crate::core::stream::encode::Output;

#[derive(Debug, Default)]
pub(super) struct Hold {
    resume_unconfirmed: bool,
    pending: Vec<Output>,
}

impl Hold {
    /// A hold for a run that resumes a chat (`resuming`) or starts a fresh one.
    pub fn new(resuming: bool) -> Self {
        Self {
            resume_unconfirmed: resuming,
            pending: Vec::new(),
        }
    }

    /// Whether the resumed chat is not yet confirmed.
    pub fn resume_unconfirmed(&self) -> bool {
        self.resume_unconfirmed
    }

    /// Passes `outputs` on, or keeps them while the resumed chat is unconfirmed. `seen` is the
    /// chat id the stream reported so far: the run's own (`expected`) releases everything held
    /// into `outputs`; any other is `Err` with that id.
    pub fn admit(
        &mut self,
        outputs: &mut Vec<Output>,
        seen: Option<&str>,
        expected: Option<&str>,
    ) -> Result<(), String> {
        if !self.resume_unconfirmed {
            return Ok(());
        }
        self.pending.append(outputs);
        if let Some(seen) = seen {
            if Some(seen) != expected {
                return Err(seen.to_owned());
            }
            self.resume_unconfirmed = false;
            *outputs = std::mem::take(&mut self.pending);
        }
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
        assert_eq!(hold.admit(&mut batch, None, None), Ok(()));
        assert_eq!(batch, frames(&["a"]));
        assert!(hold.release().is_empty());
    }

    #[test]
    fn a_resumed_run_holds_until_its_own_chat_shows() {
        let mut hold = Hold::new(true);
        let mut first = frames(&["a"]);
        assert_eq!(hold.admit(&mut first, None, Some("chat-1")), Ok(()));
        assert!(first.is_empty() && hold.resume_unconfirmed());
        let mut second = frames(&["b"]);
        assert_eq!(
            hold.admit(&mut second, Some("chat-1"), Some("chat-1")),
            Ok(())
        );
        assert_eq!(second, frames(&["a", "b"]));
        assert!(!hold.resume_unconfirmed());
        let mut third = frames(&["c"]);
        assert_eq!(
            hold.admit(&mut third, Some("chat-1"), Some("chat-1")),
            Ok(())
        );
        assert_eq!(third, frames(&["c"]));
    }

    #[test]
    fn another_chat_is_reported_and_nothing_is_released() {
        let mut hold = Hold::new(true);
        let mut batch = frames(&["a"]);
        assert_eq!(
            hold.admit(&mut batch, Some("chat-9"), Some("chat-1")),
            Err("chat-9".to_owned())
        );
        assert!(batch.is_empty());
        hold.discard();
        assert!(hold.release().is_empty());
    }

    #[test]
    fn an_undelivered_batch_goes_out_first() {
        let mut hold = Hold::new(false);
        hold.keep_undelivered(frames(&["a", "b"]));
        assert_eq!(hold.release(), frames(&["a", "b"]));
    }
}
