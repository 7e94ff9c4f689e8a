//! The model steps of a run whose tools the host runs: when the calls of a step are handed over
//! (calls and stdout quiet for a moment), and the wait for the host's answers, during which no
//! limit counts and what stdout brings is kept for after the answers.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::ToolAnswers;

use crate::core::agent::options::HostTools;
use crate::core::bridge::{HeldCalls, HostCall, ToolBridge};
use crate::core::stream::encode::Output;
use crate::core::stream::transformer::StreamTransformer;
use crate::core::stream::translate::{BridgedStart, HandedCall};

/// How long a call waits for the started record that gives it the model's id (Cursor's stdout
/// can lag the MCP request), at most, before it is handed over under the bridge's own id.
pub const CORRELATION_WAIT: Duration = Duration::from_millis(500);

#[derive(Debug, Default)]
pub(super) struct Steps {
    calls: Option<Arc<HeldCalls>>,
    wait: Duration,
    quiet: Duration,
    /// Since when the handed-over calls wait for answers.
    waiting_since: Option<Instant>,
    /// All the time spent waiting so far.
    waited: Duration,
    /// Outputs read while the host has not answered yet: they belong after the answers.
    kept: Vec<Output>,
}

impl Steps {
    pub fn new(bridge: Option<&ToolBridge>, host: Option<&HostTools>) -> Self {
        Self {
            calls: bridge.map(|b| Arc::clone(b.calls())),
            wait: host.map_or(Duration::ZERO, |h| h.wait),
            quiet: host.map_or(Duration::ZERO, |h| h.quiet),
            ..Self::default()
        }
    }

    /// Whether the run has host tools at all.
    pub fn bridged(&self) -> bool {
        self.calls.is_some()
    }

    pub fn is_waiting(&self) -> bool {
        self.waiting_since.is_some()
    }

    /// The time spent waiting for answers, the current wait included.
    pub fn waited(&self) -> Duration {
        self.waited
            + self
                .waiting_since
                .map_or(Duration::ZERO, |since| since.elapsed())
    }

    pub fn wait_limit(&self) -> Duration {
        self.wait
    }

    /// When the waiting calls are to be handed over, given the last read from stdout.
    pub fn hand_over_at(&self, last_read: Instant) -> Option<Instant> {
        if self.is_waiting() {
            return None;
        }
        let calls = self.calls.as_ref()?;
        let arrived = calls.waiting_since()?;
        let quiet = arrived.max(last_read) + self.quiet;
        Some(match calls.unmatched_since() {
            Some(unmatched) => quiet.max(unmatched + CORRELATION_WAIT),
            None => quiet,
        })
    }

    /// Started records of calls to the bridge, read from Cursor's stream.
    pub fn announce(&self, starts: Vec<BridgedStart>) {
        if let (Some(calls), false) = (&self.calls, starts.is_empty()) {
            calls.announce(starts);
        }
    }

    /// When the current wait for answers runs out.
    pub fn wait_ends(&self) -> Option<Instant> {
        self.waiting_since.map(|since| since + self.wait)
    }

    /// Resolves at a call's arrival; never without a bridge or while waiting.
    pub async fn arrival(&self) {
        match (&self.calls, self.is_waiting()) {
            (Some(calls), false) => calls.arrival().await,
            _ => std::future::pending().await,
        }
    }

    /// Hand the waiting calls over as parts; the wait for answers begins. Returns the calls
    /// handed over (none when no call was waiting).
    pub fn hand_over(
        &mut self,
        transformer: &mut StreamTransformer,
        outputs: &mut Vec<Output>,
    ) -> Vec<HostCall> {
        let Some(calls) = &self.calls else {
            return Vec::new();
        };
        let step = calls.take_step();
        if step.is_empty() {
            return Vec::new();
        }
        let handed: Vec<HandedCall<'_>> = step.iter().map(HandedCall::from).collect();
        transformer.hand_over(&handed, outputs);
        tracing::debug!(calls = step.len(), "tool calls handed to the host");
        self.waiting_since = Some(Instant::now());
        step
    }

    /// While waiting, `outputs` are kept for after the answers (true); else left alone.
    pub fn keep(&mut self, outputs: &mut Vec<Output>) -> bool {
        if self.is_waiting() {
            self.kept.append(outputs);
        }
        self.is_waiting()
    }

    /// The host's answers. Once every handed-over call is answered the wait ends, and the kept
    /// outputs are returned for delivery.
    pub fn answer(&mut self, answers: ToolAnswers) -> Option<Vec<Output>> {
        let (Some(calls), Some(since)) = (&self.calls, self.waiting_since) else {
            tracing::warn!("tool answers arrived while no call was handed over; ignored");
            return None;
        };
        if let Err(unknown) = calls.answer(answers) {
            tracing::warn!(ids = ?unknown.0, "tool answers for calls that were not handed over; ignored");
            return None;
        }
        if calls.unanswered() > 0 {
            return None;
        }
        self.waiting_since = None;
        self.waited += since.elapsed();
        Some(std::mem::take(&mut self.kept))
    }

    /// What was kept and never delivered (the run ends).
    pub fn take_kept(&mut self) -> Vec<Output> {
        std::mem::take(&mut self.kept)
    }
}
