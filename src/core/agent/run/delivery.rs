//! How a run's outputs reach its consumer: through the resume hold, one batch per place in the
//! queue, each batch that ends a step with its [`RunStep`], the last one even after a cancel.

use std::sync::Arc;

use tokio::time::Instant;

use super::ending::{callback_error, Ending, TimeoutKind};
use super::handle::{request_stop, StopReason};
use super::{sleep_until, stop_requested, Receipt, Run, RunStep, MAX_BATCHES_IN_FLIGHT};
use crate::core::error::CoreError;
use crate::core::stream::encode::Output;

impl Run {
    /// Pass `outputs` (from `read_bytes` of stdout) through the resume hold, then deliver what
    /// it lets through, with `step` when they end one (everything held goes out with it). An
    /// ending interrupts; undelivered outputs then go out ahead of the closing ones, so the
    /// consumer never sees a block closed that it did not see opened.
    pub(super) async fn admit_and_deliver(
        &mut self,
        outputs: &mut Vec<Output>,
        read_bytes: usize,
        overall: Option<Instant>,
        step: Option<RunStep>,
    ) -> Result<(), Ending> {
        let seen = self.transformer.session_id();
        let expected = self.options.resume_chat_id.as_deref();
        if let Err(other) = self.hold.admit(outputs, read_bytes, seen, expected) {
            return Err(Ending::ResumeReplaced(other));
        }
        if step.is_some() {
            let mut held = self.hold.end_step();
            held.append(outputs);
            *outputs = held;
        }
        if outputs.is_empty() {
            return Ok(());
        }
        if let Err(ending) = self.deliver(outputs, step, overall).await {
            self.hold.keep_undelivered(std::mem::take(outputs));
            return Err(ending);
        }
        Ok(())
    }

    /// Wait for a place in the queue (a stop or the overall deadline interrupts), then deliver
    /// `batch` (taking it; after an interruption it is left in place) and the end of its step.
    pub(super) async fn deliver(
        &mut self,
        batch: &mut Vec<Output>,
        step: Option<RunStep>,
        overall: Option<Instant>,
    ) -> Result<(), Ending> {
        let permit = tokio::select! {
            biased;
            reason = stop_requested(&mut self.stop_rx) => return Err(Ending::Stopped(reason)),
            () = sleep_until(overall) => {
                let limit = self.options.timeout.unwrap_or_default();
                return Err(Ending::Timeout(TimeoutKind::Overall(limit)));
            }
            permit = Arc::clone(&self.permits).acquire_owned() => permit,
        };
        let Ok(permit) = permit else {
            return Err(Ending::Stopped(StopReason::ConsumerGone));
        };
        let receipt = Receipt {
            _permit: permit,
            stop: Arc::clone(&self.stop_tx),
        };
        self.delivered += batch.len() as u64;
        if self.sink.deliver(std::mem::take(batch), step, receipt) {
            Ok(())
        } else {
            request_stop(&self.stop_tx, StopReason::ConsumerGone);
            Err(Ending::Stopped(StopReason::ConsumerGone))
        }
    }

    /// The last batch, with the end of the run: delivered even if a cancel arrives meanwhile
    /// (the run is over anyway); a run that delivers nothing (`E_RESUME`) tells nothing either.
    /// Returns once every batch is consumed, with the error the run reports, which a callback
    /// failure found meanwhile replaces.
    pub(super) async fn deliver_last(
        &mut self,
        batch: Vec<Output>,
        error: Option<CoreError>,
        cancelled: bool,
    ) -> Option<CoreError> {
        if !batch.is_empty() {
            let step = RunStep::last(
                error.as_ref(),
                cancelled,
                self.transformer.usage().cloned(),
                self.transformer.answered(),
            );
            if let Ok(permit) = Arc::clone(&self.permits).acquire_owned().await {
                let receipt = Receipt {
                    _permit: permit,
                    stop: Arc::clone(&self.stop_tx),
                };
                self.delivered += batch.len() as u64;
                self.sink.deliver(batch, Some(step), receipt);
            }
        }
        self.settle().await;
        self.late_callback_failure().or(error)
    }

    /// Returns once every delivered batch has been consumed.
    async fn settle(&self) {
        let all = u32::try_from(MAX_BATCHES_IN_FLIGHT).unwrap_or(u32::MAX);
        let _ = self.permits.acquire_many(all).await;
    }

    /// `E_CALLBACK` when the consumer threw on a batch after the run's ending was decided (a
    /// short run is often over before its first batch is consumed); a callback failure wins
    /// over whatever the ending reported, as it would have had it come earlier.
    fn late_callback_failure(&self) -> Option<CoreError> {
        match &*self.stop_rx.borrow() {
            Some(StopReason::Callback(message)) => {
                Some(self.transformer.noted(callback_error(message)))
            }
            _ => None,
        }
    }
}
