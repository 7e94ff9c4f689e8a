//! `MixedDeltaTracker`: one stream mixes token deltas with snapshots that repeat the text so
//! far; this decides, per event, which text is new.
//!
//! * A partial delta (numeric `timestamp_ms`, no `model_call_id`) is appended as it is.
//! * Anything else is a snapshot, reconciled against the text emitted on its channel since the
//!   last reset: if it extends that text, only the suffix is new; if that text already starts
//!   with it, nothing is; otherwise the whole snapshot is emitted and becomes the new reference
//!   (no longest-common-prefix guessing).
//! * Text and thinking have separate buffers; a tool call start resets both.
//! * Cursor's interaction/retry flush is shaped like a delta but repeats the whole pending
//!   segment. A delta equal to the whole non-empty text emitted since the reset is therefore
//!   held until the next record: dropped if that record is an `interaction_query` or `retry`,
//!   kept held over a `connection` record (Cursor reconnecting before its retry), emitted
//!   otherwise (and at the end of the stream). A short delta that merely repeats ("ha",
//!   "ha") is held for one record and then emitted, so it survives.
//!
//! Every operation costs O(size of the event's own text): a snapshot is compared with at most
//! its own length of the buffer, and only new text is appended.

use crate::core::stream::event::Channel;

#[derive(Debug, Default)]
pub struct MixedDeltaTracker {
    text: String,
    thinking: String,
    held: Option<(Channel, String)>,
}

impl MixedDeltaTracker {
    pub fn new() -> Self {
        Self::default()
    }

    fn buffer(&mut self, channel: Channel) -> &mut String {
        match channel {
            Channel::Text => &mut self.text,
            Channel::Thinking => &mut self.thinking,
        }
    }

    /// A new record arrived (`transport`: it is an `interaction_query` or `retry`), or the
    /// stream ended (not `transport`). Returns a held delta that must now be emitted, before
    /// anything the record itself yields.
    pub fn next_record(&mut self, transport: bool) -> Option<(Channel, String)> {
        let (channel, text) = self.held.take()?;
        if transport {
            return None;
        }
        self.buffer(channel).push_str(&text);
        Some((channel, text))
    }

    /// A partial delta. Returns the text to emit now; `None` when it is held (or empty).
    pub fn delta<'t>(&mut self, channel: Channel, delta: &'t str) -> Option<&'t str> {
        if delta.is_empty() {
            return None;
        }
        let buffer = self.buffer(channel);
        if !buffer.is_empty() && buffer.as_str() == delta {
            self.held = Some((channel, delta.to_owned()));
            return None;
        }
        buffer.push_str(delta);
        Some(delta)
    }

    /// A snapshot. Returns the text to emit (possibly empty).
    pub fn snapshot<'t>(&mut self, channel: Channel, snapshot: &'t str) -> &'t str {
        let buffer = self.buffer(channel);
        if let Some(suffix) = snapshot.strip_prefix(buffer.as_str()) {
            buffer.push_str(suffix);
            suffix
        } else if buffer.starts_with(snapshot) {
            ""
        } else {
            buffer.clear();
            buffer.push_str(snapshot);
            snapshot
        }
    }

    /// A tool call started: the next assistant phase is a new segment.
    pub fn reset(&mut self) {
        self.text.clear();
        self.thinking.clear();
    }
}

#[cfg(test)]
mod tests;
