//! Records the translator does not know (a newer cursor-agent's types and subtypes, or a
//! `text` record of an unexpected shape): never fatal, counted per kind for a replay's report,
//! and the first of each kind logged with its keys, so a new shape is noticed without a flood.

use serde_json::{Map, Value};

use crate::core::json;
use crate::core::stream::event::UnknownRecord;

/// How many kinds are told apart; any further kind is counted under [`OTHER_KINDS`], so a
/// stream of ever new types cannot grow the table or the log without bound.
const MAX_KINDS: usize = 32;
/// The label of the kinds past [`MAX_KINDS`].
pub const OTHER_KINDS: &str = "(other kinds)";
/// The longest label kept (a type and subtype are Cursor's short names; anything longer is cut).
const MAX_LABEL_CHARS: usize = 64;

/// Unknown records so far, by kind (`type`, or `type/subtype`), in the order first seen.
#[derive(Debug, Default)]
pub struct UnknownRecords {
    counts: Vec<(String, u64)>,
}

impl UnknownRecords {
    /// Count `record`; the first of its kind is logged with its keys.
    pub fn note(&mut self, record: &UnknownRecord<'_>) {
        let mut label = label_of(record);
        let known = self.counts.iter().any(|(l, _)| *l == label);
        if !known && self.counts.len() >= MAX_KINDS {
            label = OTHER_KINDS.to_owned();
        }
        if let Some((_, count)) = self.counts.iter_mut().find(|(l, _)| *l == label) {
            *count += 1;
            return;
        }
        tracing::info!(
            kind = %label,
            keys = %keys_of(record.record),
            "cursor-agent wrote a record of a kind this version does not know; it is ignored \
             (logged once per kind)"
        );
        self.counts.push((label, 1));
    }

    /// Each kind with its count, in the order first seen.
    pub fn counts(&self) -> &[(String, u64)] {
        &self.counts
    }
}

fn label_of(record: &UnknownRecord<'_>) -> String {
    let label = match &record.subtype {
        Some(subtype) => format!("{}/{subtype}", record.kind),
        None => record.kind.clone().into_owned(),
    };
    match label.char_indices().nth(MAX_LABEL_CHARS) {
        Some((at, _)) => label[..at].to_owned(),
        None => label,
    }
}

/// The record's top-level keys, comma-separated (values are not logged: they may be long or
/// private).
fn keys_of(record: &str) -> String {
    json::from_str::<Map<String, Value>>(record)
        .map(|object| object.keys().cloned().collect::<Vec<_>>().join(","))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;

    fn record<'a>(kind: &'a str, subtype: Option<&'a str>, line: &'a str) -> UnknownRecord<'a> {
        UnknownRecord {
            kind: Cow::Borrowed(kind),
            subtype: subtype.map(Cow::Borrowed),
            record: line,
        }
    }

    #[test]
    fn kinds_are_counted_in_the_order_first_seen() {
        let mut unknown = UnknownRecords::default();
        let line = r#"{"type":"x"}"#;
        for (kind, subtype) in [
            ("heartbeat", None),
            ("system", Some("compaction")),
            ("heartbeat", None),
            ("text", None),
            ("system", Some("compaction")),
            ("heartbeat", None),
        ] {
            unknown.note(&record(kind, subtype, line));
        }
        let expected = [("heartbeat", 3), ("system/compaction", 2), ("text", 1)];
        let expected: Vec<(String, u64)> = expected
            .iter()
            .map(|(l, c)| ((*l).to_owned(), *c))
            .collect();
        assert_eq!(unknown.counts(), expected.as_slice());
    }

    #[test]
    fn kinds_past_the_limit_share_one_count_and_labels_are_cut() {
        let mut unknown = UnknownRecords::default();
        let names: Vec<String> = (0..MAX_KINDS + 5).map(|i| format!("kind{i}")).collect();
        for name in &names {
            unknown.note(&record(name, None, "{}"));
        }
        assert_eq!(unknown.counts().len(), MAX_KINDS + 1);
        assert_eq!(unknown.counts()[MAX_KINDS], (OTHER_KINDS.to_owned(), 5));
        let long = "t".repeat(500);
        let mut unknown = UnknownRecords::default();
        unknown.note(&record(&long, None, "{}"));
        assert_eq!(unknown.counts()[0].0.chars().count(), MAX_LABEL_CHARS);
    }

    #[test]
    fn keys_are_listed_without_values() {
        assert_eq!(keys_of(r#"{"type":"x","secret":"s3"}"#), "secret,type");
        assert_eq!(keys_of("not json"), "");
    }
}
