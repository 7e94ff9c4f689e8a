use proptest::prelude::*;
use serde_json::json;

use super::{Batch, PieceKind, WIDE};
use crate::core::stream::encode::Output;

// The batch read back as a host's reader reads it (src/node/engine.js), for the tests here and
// of the encoders.
impl PieceKind {
    /// Every kind.
    pub const ALL: [Self; 5] = [
        Self::Frame,
        Self::Json,
        Self::TextDelta,
        Self::ReasoningDelta,
        Self::BlockId,
    ];

    /// The kind with wire value `value` ([`WIDE`] taken off).
    pub fn from_wire(value: u32) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|kind| *kind as u32 == value & !WIDE)
    }
}

impl Batch {
    /// The outputs the batch holds, as values: what a host's reader makes of it (a frame as
    /// its string, a delta as its part, a JSON piece parsed).
    pub fn to_outputs(&self) -> Vec<Output> {
        let mut outputs = Vec::with_capacity(self.outputs);
        let (mut narrow_from, mut wide_from, mut id) = (0, 0, String::new());
        for piece in self.pieces.chunks_exact(2) {
            let end = piece[1] as usize;
            let text = if piece[0] & WIDE == 0 {
                let bytes = self.narrow.get(narrow_from..end).unwrap_or_default();
                narrow_from = end;
                bytes.iter().map(|&b| char::from(b)).collect()
            } else {
                let units = self.wide.get(wide_from..end).unwrap_or_default();
                wide_from = end;
                String::from_utf16_lossy(units)
            };
            let delta = |kind: &str| serde_json::json!({ "type": kind, "id": &id, "delta": &text });
            let output = match PieceKind::from_wire(piece[0]) {
                Some(PieceKind::Frame) => Output::Frame(text),
                Some(PieceKind::Json) => {
                    Output::Part(serde_json::from_str(&text).unwrap_or_default())
                }
                Some(PieceKind::TextDelta) => Output::Part(delta("text-delta")),
                Some(PieceKind::ReasoningDelta) => Output::Part(delta("reasoning-delta")),
                Some(PieceKind::BlockId) => {
                    id = text;
                    continue;
                }
                None => continue,
            };
            outputs.push(output);
        }
        outputs
    }
}

#[test]
fn every_kind_has_its_own_wire_value() {
    for kind in PieceKind::ALL {
        assert!((kind as u32) < WIDE);
        assert_eq!(PieceKind::from_wire(kind as u32), Some(kind));
        assert_eq!(PieceKind::from_wire(kind as u32 + WIDE), Some(kind));
    }
    let mut values: Vec<u32> = PieceKind::ALL.iter().map(|k| *k as u32).collect();
    values.dedup();
    assert_eq!(values.len(), PieceKind::ALL.len());
    assert_eq!(PieceKind::from_wire(PieceKind::ALL.len() as u32), None);
}

#[test]
fn a_block_id_is_written_once_for_the_deltas_that_share_it() {
    let mut batch = Batch::new();
    batch.delta(PieceKind::TextDelta, "text-0", "one ");
    batch.delta(PieceKind::TextDelta, "text-0", "two");
    batch.json(&json!({"type": "text-end", "id": "text-0"}));
    batch.delta(PieceKind::ReasoningDelta, "reasoning-0", "hm\u{1F914}");
    batch.frame("data: caf\u{e9}\n\n");
    assert_eq!(batch.outputs(), 5);
    assert_eq!(
        batch.pieces(),
        // Narrow: text-0 (6) | "one " (4) | two (3) | {"id":"text-0","type":"text-end"} (33) |
        // reasoning-0 (11) | the frame, in Latin-1 (12). Wide: hm and a character past U+FFFF
        // (2 + 2 units).
        &[4, 6, 2, 10, 2, 13, 1, 46, 4, 57, 3 + WIDE, 4, 0, 69]
    );
    assert_eq!(
        batch.to_outputs(),
        vec![
            Output::Part(json!({"type": "text-delta", "id": "text-0", "delta": "one "})),
            Output::Part(json!({"type": "text-delta", "id": "text-0", "delta": "two"})),
            Output::Part(json!({"type": "text-end", "id": "text-0"})),
            Output::Part(
                json!({"type": "reasoning-delta", "id": "reasoning-0", "delta": "hm\u{1F914}"})
            ),
            Output::Frame("data: caf\u{e9}\n\n".to_owned()),
        ]
    );
}

#[test]
fn a_piece_is_narrow_when_every_character_fits_a_byte() {
    let table = [
        ("plain", false),
        ("caf\u{e9} \u{ff}", false),
        ("\u{100}", true),
        ("\u{4f60}\u{597d}", true),
        ("rocket \u{1F680}", true),
    ];
    for (text, wide) in table {
        let mut batch = Batch::new();
        batch.frame(text);
        assert_eq!(batch.pieces()[0] & WIDE != 0, wide, "{text:?}");
        assert_eq!(batch.to_outputs(), vec![Output::Frame(text.to_owned())]);
        let (narrow, utf16, _) = batch.into_parts();
        assert_eq!(narrow.is_empty(), wide, "{text:?}");
        assert_eq!(utf16.is_empty(), !wide, "{text:?}");
    }
}

#[test]
fn json_pieces_are_ascii() {
    let mut batch = Batch::new();
    batch.json(&json!({"text": "caf\u{e9} \u{1F680}"}));
    assert_eq!(
        batch.to_outputs(),
        vec![Output::Part(json!({"text": "caf\u{e9} \u{1F680}"}))]
    );
    let (narrow, wide, _) = batch.into_parts();
    assert!(narrow.is_ascii());
    assert!(wide.is_empty());
}

/// One output of a generated batch.
#[derive(Debug, Clone)]
enum Written {
    Frame(String),
    Json(String),
    Delta(bool, u8, String),
}

fn written() -> impl Strategy<Value = Written> {
    prop_oneof![
        any::<String>().prop_map(Written::Frame),
        any::<String>().prop_map(Written::Json),
        (any::<bool>(), 0u8..3, any::<String>()).prop_map(|(r, id, d)| Written::Delta(r, id, d)),
    ]
}

proptest! {
    #[test]
    fn a_batch_reads_back_as_the_outputs_written(outputs in proptest::collection::vec(written(), 0..40)) {
        let mut batch = Batch::new();
        let mut expected = Vec::new();
        for output in &outputs {
            match output {
                Written::Frame(frame) => {
                    batch.frame(frame);
                    expected.push(Output::Frame(frame.clone()));
                }
                Written::Json(text) => {
                    let value = json!({"type": "text-end", "id": text});
                    batch.json(&value);
                    expected.push(Output::Part(value));
                }
                Written::Delta(reasoning, id, delta) => {
                    let (kind, name) = if *reasoning {
                        (PieceKind::ReasoningDelta, "reasoning-delta")
                    } else {
                        (PieceKind::TextDelta, "text-delta")
                    };
                    let id = format!("block-{id}");
                    batch.delta(kind, &id, delta);
                    expected.push(Output::Part(json!({"type": name, "id": id, "delta": delta})));
                }
            }
        }
        prop_assert_eq!(batch.outputs(), expected.len());
        prop_assert_eq!(batch.to_outputs(), expected);
    }
}

#[test]
fn outputs_made_elsewhere_read_back_as_they_were() {
    let outputs = vec![
        Output::Frame("data: {\"x\":\"caf\u{e9}\"}\n\n".to_owned()),
        Output::Part(json!({"type": "text-delta", "id": "t", "delta": "\u{4f60}\u{597d}"})),
        Output::Frame("data: \u{1F680}\n\n".to_owned()),
        Output::Part(json!({"type": "finish", "usage": {"inputTokens": {"total": 3}}})),
    ];
    let batch = Batch::of_outputs(&outputs);
    assert_eq!(batch.outputs(), outputs.len());
    assert_eq!(batch.to_outputs(), outputs);
}
