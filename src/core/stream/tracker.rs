//! `MixedDeltaTracker`: one stream mixes token deltas with snapshots that repeat the text so
//! far; this decides, per event, which text is new.
//!
//! * A partial delta (numeric `timestamp_ms`, no `model_call_id`) is appended as it is.
//! * Anything else is a snapshot, reconciled against two references: the text emitted on its
//!   channel since the last reset, and the last snapshot emitted whole (with what followed it).
//!   If it extends either, only the suffix is new; if either already starts with it, nothing
//!   is; otherwise the whole snapshot is emitted and becomes the second reference (no
//!   longest-common-prefix guessing). So a rewrite that is later extended ("Hello", "Bye",
//!   "Bye now") and a mis-shaped delta that is later recapped ("Hello", " world",
//!   "Hello world!") both show each character once.
//! * Text and thinking have separate buffers; a tool call start resets both.
//! * Cursor's interaction/retry flush is shaped like a delta but repeats the whole pending
//!   segment. A delta equal to the whole non-empty text emitted since the reset is therefore
//!   held until the next record: dropped if that record is an `interaction_query` or `retry`,
//!   kept held over a `connection` record (Cursor reconnecting before its retry), emitted
//!   otherwise (and at the end of the stream). A short delta that merely repeats ("ha",
//!   "ha") is held for one record and then emitted, so it survives.
//!
//! Every operation costs O(size of the event's own text): a snapshot is compared with at most
//! its own length of a reference, and only new text is appended.
//!
//! Memory is bounded by `limit` (the framing's `maxLineBytes`) per reference: an event is one
//! record, so no snapshot or delta is longer than that. A reference longer than the limit can
//! never be extended or equalled by one, and whether it starts with one needs only its first
//! `limit` bytes; so only those are kept, however long the answer grows.

use crate::core::stream::event::Channel;

/// The first `limit` bytes (rounded up to a character boundary) of a text, and whether more
/// followed.
#[derive(Debug, Default)]
struct Prefix {
    text: String,
    cut: bool,
}

impl Prefix {
    fn push(&mut self, more: &str, limit: usize) {
        if self.cut {
            return;
        }
        let room = limit.saturating_sub(self.text.len());
        if more.len() <= room {
            self.text.push_str(more);
            return;
        }
        let end = (room..=more.len())
            .find(|&at| more.is_char_boundary(at))
            .unwrap_or(more.len());
        self.text.push_str(&more[..end]);
        self.cut = true;
    }

    fn set(&mut self, text: &str, limit: usize) {
        self.clear();
        self.push(text, limit);
    }

    fn clear(&mut self) {
        self.text.clear();
        self.cut = false;
    }

    fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// The rest of `text` when it extends the whole of this text.
    fn extended_by<'t>(&self, text: &'t str) -> Option<&'t str> {
        if self.cut {
            return None;
        }
        text.strip_prefix(self.text.as_str())
    }

    fn starts_with(&self, text: &str) -> bool {
        self.text.starts_with(text)
    }

    fn equals(&self, text: &str) -> bool {
        !self.cut && self.text == text
    }
}

/// One channel's references since the last reset.
#[derive(Debug, Default)]
struct Segment {
    /// Everything emitted.
    emitted: Prefix,
    /// The last snapshot emitted whole, and everything emitted after it; empty before one.
    rewrite: Prefix,
}

impl Segment {
    fn append(&mut self, text: &str, limit: usize) {
        self.emitted.push(text, limit);
        if !self.rewrite.is_empty() {
            self.rewrite.push(text, limit);
        }
    }

    fn clear(&mut self) {
        self.emitted.clear();
        self.rewrite.clear();
    }
}

#[derive(Debug)]
pub struct MixedDeltaTracker {
    text: Segment,
    thinking: Segment,
    held: Option<(Channel, String)>,
    limit: usize,
}

impl Default for MixedDeltaTracker {
    fn default() -> Self {
        Self::new(usize::MAX)
    }
}

impl MixedDeltaTracker {
    /// `limit`: the longest record (`maxLineBytes`); see the module docs.
    pub fn new(limit: usize) -> Self {
        Self {
            text: Segment::default(),
            thinking: Segment::default(),
            held: None,
            limit,
        }
    }

    fn segment(&mut self, channel: Channel) -> &mut Segment {
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
        let limit = self.limit;
        self.segment(channel).append(&text, limit);
        Some((channel, text))
    }

    /// A partial delta. Returns the text to emit now; `None` when it is held (or empty).
    pub fn delta<'t>(&mut self, channel: Channel, delta: &'t str) -> Option<&'t str> {
        if delta.is_empty() {
            return None;
        }
        let limit = self.limit;
        let segment = self.segment(channel);
        if !segment.emitted.is_empty() && segment.emitted.equals(delta) {
            self.held = Some((channel, delta.to_owned()));
            return None;
        }
        segment.append(delta, limit);
        Some(delta)
    }

    /// A snapshot. Returns the text to emit (possibly empty).
    pub fn snapshot<'t>(&mut self, channel: Channel, snapshot: &'t str) -> &'t str {
        let limit = self.limit;
        let segment = self.segment(channel);
        let rewrite = !segment.rewrite.is_empty();
        let suffix = segment.emitted.extended_by(snapshot).or_else(|| {
            rewrite
                .then(|| segment.rewrite.extended_by(snapshot))
                .flatten()
        });
        if let Some(suffix) = suffix {
            segment.append(suffix, limit);
            suffix
        } else if segment.emitted.starts_with(snapshot)
            || (rewrite && segment.rewrite.starts_with(snapshot))
        {
            ""
        } else {
            segment.emitted.push(snapshot, limit);
            segment.rewrite.set(snapshot, limit);
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
