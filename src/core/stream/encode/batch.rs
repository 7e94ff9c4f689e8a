//! A batch of outputs as two texts and the kind and end of each piece of them, for a host that
//! makes many small values at once.
//!
//! A JS host turns a batch into its outputs by slicing the texts: a frame is its piece, a text or
//! thinking delta is a part built around its piece, anything else is its piece parsed as JSON.
//! A long answer's outputs are mostly deltas of a few words, and the engine builds such an
//! object from its piece far faster than it parses the object's JSON or than a native call
//! per property makes it.
//!
//! The texts are the two forms a JS string has, so they become strings by a copy, without
//! decoding: `narrow` holds the pieces whose characters are all below U+0100, a byte each
//! (Latin-1: every ASCII piece, JSON included); `wide` holds the others in UTF-16.

use super::{write_ascii_json, Output};

/// What a piece of a [`Batch`] is, and so how a host reads it. The values are the wire form
/// (the numbers in [`Batch::pieces`], with [`WIDE`] added for a piece of the wide text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum PieceKind {
    /// An SSE frame: the piece as it is.
    Frame = 0,
    /// An output written as JSON: the piece parsed.
    Json = 1,
    /// A V3 `text-delta` part: `{type, id, delta}` with the last [`PieceKind::BlockId`] and the
    /// piece as its delta.
    TextDelta = 2,
    /// A V3 `reasoning-delta` part, as [`PieceKind::TextDelta`].
    ReasoningDelta = 3,
    /// Not an output: the block id of the deltas that follow.
    BlockId = 4,
}

/// Added to a piece's kind when the piece is cut from the wide text.
pub const WIDE: u32 = 0x100;

/// Outputs as two texts and, per piece, its kind and where it ends in its text (each starts
/// where the one before it in the same text ended).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Batch {
    /// Pieces of characters below U+0100, a byte each.
    narrow: Vec<u8>,
    /// The other pieces, in UTF-16.
    wide: Vec<u16>,
    /// `kind, end` pairs.
    pieces: Vec<u32>,
    /// How many pieces are outputs (block ids are not).
    outputs: usize,
    /// The block id the last delta carried.
    block_id: Option<String>,
}

impl Batch {
    pub fn new() -> Self {
        Self::default()
    }

    /// `kind, end` pairs, one per piece, in order.
    pub fn pieces(&self) -> &[u32] {
        &self.pieces
    }

    /// How many outputs the batch holds (block ids are not outputs).
    pub fn outputs(&self) -> usize {
        self.outputs
    }

    pub fn is_empty(&self) -> bool {
        self.pieces.is_empty()
    }

    /// The narrow text (Latin-1), the wide text (UTF-16) and the pieces, taken apart.
    pub fn into_parts(self) -> (Vec<u8>, Vec<u16>, Vec<u32>) {
        (self.narrow, self.wide, self.pieces)
    }

    /// `outputs` as a batch: each frame as its piece, each part as JSON.
    pub fn of_outputs(outputs: &[Output]) -> Self {
        let mut batch = Self::new();
        for output in outputs {
            match output {
                Output::Frame(frame) => batch.frame(frame),
                Output::Part(part) => batch.json(part),
            }
        }
        batch
    }

    /// An SSE frame.
    pub fn frame(&mut self, frame: &str) {
        self.piece(PieceKind::Frame, frame);
    }

    /// An output written as JSON, in ASCII ([`AsciiJson`](super::AsciiJson)).
    pub fn json<T: serde::Serialize + ?Sized>(&mut self, value: &T) {
        let start = self.narrow.len();
        match write_ascii_json(&mut self.narrow, value) {
            Ok(()) => self.end_piece(PieceKind::Json, false),
            Err(error) => {
                // Unreachable for the outputs written here (every object has string keys); a
                // piece cut short would break the whole batch.
                self.narrow.truncate(start);
                tracing::error!(%error, "an output could not be written");
            }
        }
    }

    /// A text or thinking delta of the block `id`.
    pub fn delta(&mut self, kind: PieceKind, id: &str, delta: &str) {
        debug_assert!(matches!(
            kind,
            PieceKind::TextDelta | PieceKind::ReasoningDelta
        ));
        if self.block_id.as_deref() != Some(id) {
            self.piece(PieceKind::BlockId, id);
            self.block_id = Some(id.to_owned());
        }
        self.piece(kind, delta);
    }

    /// `text` as a piece of the narrow text when every character fits a byte, else of the
    /// wide one.
    fn piece(&mut self, kind: PieceKind, text: &str) {
        let wide = if text.is_ascii() {
            self.narrow.extend_from_slice(text.as_bytes());
            false
        } else if self.push_latin1(text) {
            false
        } else {
            self.wide.extend(text.encode_utf16());
            true
        };
        self.end_piece(kind, wide);
    }

    /// Appends `text` to the narrow text when every character is below U+0100; else leaves it
    /// as it was and returns false.
    fn push_latin1(&mut self, text: &str) -> bool {
        let start = self.narrow.len();
        for c in text.chars() {
            match u8::try_from(u32::from(c)) {
                Ok(byte) => self.narrow.push(byte),
                Err(_) => {
                    self.narrow.truncate(start);
                    return false;
                }
            }
        }
        true
    }

    fn end_piece(&mut self, kind: PieceKind, wide: bool) {
        let (end, flag) = if wide {
            (self.wide.len(), WIDE)
        } else {
            (self.narrow.len(), 0)
        };
        // A JS string is far shorter than 2^32 code units (V8's limit is under 2^30), so a
        // text that crosses into JS never needs more; one that long fails there.
        let end = u32::try_from(end).unwrap_or(u32::MAX);
        self.pieces.extend([kind as u32 | flag, end]);
        self.outputs += usize::from(kind != PieceKind::BlockId);
    }
}

#[cfg(test)]
mod tests;
