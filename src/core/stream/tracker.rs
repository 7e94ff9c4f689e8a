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

/// What the tracker did with one piece of text, as a replay of a capture shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// A partial delta, emitted as it is.
    Appended,
    /// A delta equal to the whole segment so far, held until the next record.
    Held,
    /// A held delta emitted after all: the next record was not Cursor's flush.
    Released,
    /// A held delta dropped: the next record showed it was Cursor's interaction/retry flush.
    DroppedAsFlush,
    /// A snapshot that extends what was emitted: only its new end is emitted.
    Extended,
    /// A snapshot that adds nothing to what was emitted.
    Repeated,
    /// A snapshot that neither extends nor repeats what was emitted: emitted whole.
    Rewritten,
}

impl Decision {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Appended => "appended",
            Self::Held => "held",
            Self::Released => "released",
            Self::DroppedAsFlush => "dropped as flush",
            Self::Extended => "extended",
            Self::Repeated => "repeated",
            Self::Rewritten => "rewritten",
        }
    }
}

/// One step of the tracker, kept while its log is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrackerStep {
    Text {
        channel: Channel,
        decision: Decision,
        /// The bytes of text the record brought (for a release or a drop: the held delta's).
        input_bytes: usize,
        /// The bytes emitted because of it.
        emitted_bytes: usize,
    },
    /// A tool call started or the step was handed over: a new segment begins.
    Reset,
}

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
    /// Every step, while a replay asks for them; `None` otherwise (no cost).
    log: Option<Vec<TrackerStep>>,
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
            log: None,
        }
    }

    /// Keep a log of every decision from now on (see [`take_log`](Self::take_log)).
    pub fn keep_log(&mut self) {
        self.log.get_or_insert_with(Vec::new);
    }

    /// The steps logged since the last call; empty when the log is off.
    pub fn take_log(&mut self) -> Vec<TrackerStep> {
        self.log.as_mut().map(std::mem::take).unwrap_or_default()
    }

    fn note(&mut self, channel: Channel, decision: Decision, input: usize, emitted: usize) {
        if let Some(log) = &mut self.log {
            log.push(TrackerStep::Text {
                channel,
                decision,
                input_bytes: input,
                emitted_bytes: emitted,
            });
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
            self.note(channel, Decision::DroppedAsFlush, text.len(), 0);
            return None;
        }
        let limit = self.limit;
        self.segment(channel).append(&text, limit);
        self.note(channel, Decision::Released, text.len(), text.len());
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
            self.note(channel, Decision::Held, delta.len(), 0);
            return None;
        }
        segment.append(delta, limit);
        self.note(channel, Decision::Appended, delta.len(), delta.len());
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
        let (decision, new) = if let Some(suffix) = suffix {
            segment.append(suffix, limit);
            let decision = match suffix.is_empty() {
                true => Decision::Repeated,
                false => Decision::Extended,
            };
            (decision, suffix)
        } else if segment.emitted.starts_with(snapshot)
            || (rewrite && segment.rewrite.starts_with(snapshot))
        {
            (Decision::Repeated, "")
        } else {
            segment.emitted.push(snapshot, limit);
            segment.rewrite.set(snapshot, limit);
            (Decision::Rewritten, snapshot)
        };
        self.note(channel, decision, snapshot.len(), new.len());
        new
    }

    /// A tool call started: the next assistant phase is a new segment.
    pub fn reset(&mut self) {
        self.text.clear();
        self.thinking.clear();
        if let Some(log) = &mut self.log {
            log.push(TrackerStep::Reset);
        }
    }
}

#[cfg(test)]
mod tests;
