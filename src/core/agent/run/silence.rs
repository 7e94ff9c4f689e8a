//! Long silences of cursor-agent's stdout, in the log. Cursor prints nothing for a while in a
//! healthy turn (25-39 s while it compacts its context, once 757 s while the model wrote a long
//! reply before its record appeared), so a silence is no sign of a hang by itself; the log says
//! how long each long one lasted and what ended it, which tells a slow turn from a stuck one and
//! shows how close a healthy turn comes to the idle limit.

use std::time::Duration;

use tokio::time::Instant;

use crate::core::failure::duration::readable_duration;

/// A silence at least this long gets a line in the log (at info).
pub(super) const LOGGED_SILENCE: Duration = Duration::from_secs(60);

/// What ends a silence besides the run's own ending (whose label says how it ended).
pub(super) const OUTPUT: &str = "output";
pub(super) const STDOUT_CLOSED: &str = "stdout closed";
pub(super) const EXIT: &str = "exit";

/// The line a silence of `quiet` ended by `ended_by` gets in the log; `None` when too short to note.
pub(super) fn silence_note(quiet: Duration, ended_by: &str) -> Option<String> {
    (quiet >= LOGGED_SILENCE).then(|| {
        format!(
            "cursor-agent's stdout was silent for {}, until {ended_by}",
            readable_duration(quiet)
        )
    })
}

/// Since when stdout has been silent, and since when the run was asked for (its first output
/// is logged at debug with the time it took: a slow first answer can be placed).
#[derive(Debug)]
pub(super) struct Silence {
    since: Instant,
    /// When the run was created; `None` once its first output was noted.
    asked: Option<Instant>,
}

impl Silence {
    pub(super) fn new() -> Self {
        let now = Instant::now();
        Self {
            since: now,
            asked: Some(now),
        }
    }

    /// The silence ends now, by `ended_by`: logged when long.
    pub(super) fn end(&mut self, ended_by: &str) {
        let now = Instant::now();
        if ended_by == OUTPUT {
            if let Some(asked) = self.asked.take() {
                let first_output_ms = u64::try_from((now - asked).as_millis()).unwrap_or(u64::MAX);
                tracing::debug!(first_output_ms, "cursor-agent's first output");
            }
        }
        let quiet = now - self.since;
        if let Some(note) = silence_note(quiet, ended_by) {
            let silence_ms = u64::try_from(quiet.as_millis()).unwrap_or(u64::MAX);
            tracing::info!(silence_ms, ended_by, "{note}");
        }
        self.since = now;
    }

    /// Count from now without a note: the time before was not stdout's to fill (the consumer
    /// was behind, so nothing was read).
    pub(super) fn restart(&mut self) {
        self.since = Instant::now();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_long_silences_are_noted_with_their_length_and_end() {
        let table: &[(u64, &str, Option<&str>)] = &[
            (0, OUTPUT, None),
            // Cursor compacting its context: ordinary, not noted
            (39_000, OUTPUT, None),
            (59_999, EXIT, None),
            (
                60_000,
                OUTPUT,
                Some("cursor-agent's stdout was silent for 1 min, until output"),
            ),
            // the longest healthy silence seen
            (
                757_358,
                OUTPUT,
                Some("cursor-agent's stdout was silent for 12 min 37 s, until output"),
            ),
            (
                1_800_000,
                "idle timeout",
                Some("cursor-agent's stdout was silent for 30 min, until idle timeout"),
            ),
            (
                95_000,
                "cancelled",
                Some("cursor-agent's stdout was silent for 1 min 35 s, until cancelled"),
            ),
            (
                61_000,
                STDOUT_CLOSED,
                Some("cursor-agent's stdout was silent for 1 min 1 s, until stdout closed"),
            ),
        ];
        for (ms, ended_by, expected) in table {
            assert_eq!(
                silence_note(Duration::from_millis(*ms), ended_by).as_deref(),
                *expected,
                "{ms} ms, {ended_by}"
            );
        }
    }
}
