//! NDJSON framing: stdout bytes in any chunking -> complete records.
//!
//! Records end at LF only (a raw U+2028 inside a JSON string is part of the record), one
//! trailing CR is removed, blank records are ignored. A record is only decoded as UTF-8 once it
//! is complete, so a character split across chunks is reassembled. Bytes are scanned once: a
//! chunk is searched from where the previous search stopped, and records that lie entirely
//! inside one chunk are handed out without copying.

/// Why a non-blank record was not handed out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkipReason {
    /// Longer than `max_line_bytes`; its bytes were discarded, not buffered.
    TooLong,
    /// Not valid UTF-8.
    InvalidUtf8,
}

/// What the framer hands to its consumer.
#[derive(Debug, PartialEq, Eq)]
pub enum Record<'a> {
    /// A complete, non-blank, valid UTF-8 record without its LF and trailing CR.
    Line(&'a str),
    /// A non-blank record that cannot be used; `prefix` is at most its first bytes.
    Skipped {
        reason: SkipReason,
        prefix: &'a [u8],
    },
}

/// Splits a byte stream into records.
#[derive(Debug)]
pub struct LineFramer {
    /// Bytes of the current, unterminated record (never more than `max_line_bytes`).
    pending: Vec<u8>,
    /// Inside an over-long record: drop bytes until the next LF.
    discarding: bool,
    max_line_bytes: usize,
}

/// Buffer capacity kept between records; a longer record's buffer is released after it.
const RETAINED_CAPACITY: usize = 1 << 20;

/// How many leading bytes of a skipped record are kept for logs.
pub const SKIPPED_PREFIX_BYTES: usize = 100;

impl LineFramer {
    pub fn new(max_line_bytes: usize) -> Self {
        Self {
            pending: Vec::new(),
            discarding: false,
            max_line_bytes,
        }
    }

    /// Feed a chunk; `on_record` is called for every record completed by it, in order.
    pub fn push(&mut self, mut chunk: &[u8], mut on_record: impl FnMut(Record<'_>)) {
        // Finish the record that straddles the previous chunk boundary, if any.
        if self.discarding || !self.pending.is_empty() {
            match find_lf(chunk) {
                None => {
                    self.extend_pending(chunk, &mut on_record);
                    return;
                }
                Some(at) => {
                    if self.discarding {
                        self.discarding = false;
                    } else if self.pending.len() + at > self.max_line_bytes {
                        let (prefix, len) = joined_prefix(&self.pending, &chunk[..at]);
                        on_record(Record::Skipped {
                            reason: SkipReason::TooLong,
                            prefix: &prefix[..len],
                        });
                    } else {
                        self.pending.extend_from_slice(&chunk[..at]);
                        emit(&self.pending, &mut on_record);
                    }
                    self.clear_pending();
                    chunk = &chunk[at + 1..];
                }
            }
        }
        // Records wholly inside this chunk: no copy.
        while let Some(at) = find_lf(chunk) {
            let record = &chunk[..at];
            if record.len() > self.max_line_bytes {
                on_record(Record::Skipped {
                    reason: SkipReason::TooLong,
                    prefix: &record[..SKIPPED_PREFIX_BYTES.min(record.len())],
                });
            } else {
                emit(record, &mut on_record);
            }
            chunk = &chunk[at + 1..];
        }
        self.extend_pending(chunk, &mut on_record);
    }

    /// End of stream: the unterminated last record, if any, is handed out.
    pub fn finish(&mut self, mut on_record: impl FnMut(Record<'_>)) {
        if !self.discarding && !self.pending.is_empty() {
            emit(&self.pending, &mut on_record);
        }
        self.pending = Vec::new();
        self.discarding = false;
    }

    /// Forget the buffered record, releasing the memory a very long one needed.
    fn clear_pending(&mut self) {
        self.pending.clear();
        if self.pending.capacity() > RETAINED_CAPACITY {
            self.pending.shrink_to(RETAINED_CAPACITY);
        }
    }

    /// Buffer the start of a record, or start discarding it once it exceeds the cap.
    fn extend_pending(&mut self, bytes: &[u8], on_record: &mut impl FnMut(Record<'_>)) {
        if self.discarding || bytes.is_empty() {
            return;
        }
        if self.pending.len() + bytes.len() > self.max_line_bytes {
            let (prefix, len) = joined_prefix(&self.pending, bytes);
            on_record(Record::Skipped {
                reason: SkipReason::TooLong,
                prefix: &prefix[..len],
            });
            self.pending = Vec::new();
            self.discarding = true;
            return;
        }
        self.pending.extend_from_slice(bytes);
    }
}

/// The first bytes of `head` followed by `tail`, for the log line of a skipped record.
fn joined_prefix(head: &[u8], tail: &[u8]) -> ([u8; SKIPPED_PREFIX_BYTES], usize) {
    let mut prefix = [0u8; SKIPPED_PREFIX_BYTES];
    let from_head = head.len().min(SKIPPED_PREFIX_BYTES);
    prefix[..from_head].copy_from_slice(&head[..from_head]);
    let from_tail = (SKIPPED_PREFIX_BYTES - from_head).min(tail.len());
    prefix[from_head..from_head + from_tail].copy_from_slice(&tail[..from_tail]);
    (prefix, from_head + from_tail)
}

/// Position of the first LF, eight bytes at a time (a word has an LF byte when the classic
/// "has zero byte" test fires on the word XOR-ed with LFs).
fn find_lf(bytes: &[u8]) -> Option<usize> {
    const LF: u64 = u64::from_ne_bytes([b'\n'; 8]);
    const LOW: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    let mut words = bytes.chunks_exact(8);
    let mut offset = 0;
    for word in words.by_ref() {
        let mut array = [0u8; 8];
        array.copy_from_slice(word);
        let x = u64::from_ne_bytes(array) ^ LF;
        if (x.wrapping_sub(LOW) & !x & HIGH) != 0 {
            return word.iter().position(|&b| b == b'\n').map(|i| offset + i);
        }
        offset += 8;
    }
    words
        .remainder()
        .iter()
        .position(|&b| b == b'\n')
        .map(|i| offset + i)
}

/// Hand out one complete record (without its LF).
fn emit(record: &[u8], on_record: &mut impl FnMut(Record<'_>)) {
    let record = record.strip_suffix(b"\r").unwrap_or(record);
    if is_blank(record) {
        return;
    }
    match std::str::from_utf8(record) {
        Ok(line) => on_record(Record::Line(line)),
        Err(_) => on_record(Record::Skipped {
            reason: SkipReason::InvalidUtf8,
            prefix: &record[..SKIPPED_PREFIX_BYTES.min(record.len())],
        }),
    }
}

fn is_blank(record: &[u8]) -> bool {
    record
        .iter()
        .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Eq)]
    enum Seen {
        Line(String),
        Skipped(SkipReason, Vec<u8>),
    }

    fn collect(framer: &mut LineFramer, chunks: &[&[u8]], finish: bool) -> Vec<Seen> {
        let mut seen = Vec::new();
        let mut sink = |r: Record<'_>| {
            seen.push(match r {
                Record::Line(l) => Seen::Line(l.to_owned()),
                Record::Skipped { reason, prefix } => Seen::Skipped(reason, prefix.to_vec()),
            })
        };
        for chunk in chunks {
            framer.push(chunk, &mut sink);
        }
        if finish {
            framer.finish(&mut sink);
        }
        seen
    }

    fn lines(items: &[&str]) -> Vec<Seen> {
        items.iter().map(|s| Seen::Line((*s).to_owned())).collect()
    }

    #[test]
    fn find_lf_agrees_with_a_plain_search() {
        let mut bytes = vec![b'a'; 40];
        assert_eq!(find_lf(&bytes), None);
        for at in 0..40 {
            bytes[at] = b'\n';
            assert_eq!(find_lf(&bytes), Some(at));
            assert_eq!(find_lf(&bytes[..at]), None);
            // Bytes that differ from LF by one bit never match.
            bytes[at] = b'\n' ^ 0x80;
            assert_eq!(find_lf(&bytes), None);
            bytes[at] = b'a';
        }
    }

    #[test]
    fn splits_on_lf_only_and_keeps_u2028_inside_a_record() {
        let input = "{\"a\":\"x\u{2028}y\"}\n{\"b\":1}\n".as_bytes();
        let mut f = LineFramer::new(1024);
        assert_eq!(
            collect(&mut f, &[input], true),
            lines(&["{\"a\":\"x\u{2028}y\"}", "{\"b\":1}"])
        );
    }

    #[test]
    fn removes_exactly_one_trailing_cr_and_ignores_blank_records() {
        let mut f = LineFramer::new(1024);
        let got = collect(&mut f, &[b"a\r\n\n  \r\n\r\nb\r\r\n\t\n"], true);
        assert_eq!(got, lines(&["a", "b\r"]));
    }

    #[test]
    fn a_lone_cr_is_not_a_break() {
        let mut f = LineFramer::new(1024);
        assert_eq!(collect(&mut f, &[b"a\rb\n"], true), lines(&["a\rb"]));
    }

    #[test]
    fn reassembles_a_character_split_across_chunks() {
        let text = "{\"t\":\"h\u{e9}\u{1F600}\"}\n";
        let bytes = text.as_bytes();
        for cut in 1..bytes.len() {
            let mut f = LineFramer::new(1024);
            let got = collect(&mut f, &[&bytes[..cut], &bytes[cut..]], true);
            assert_eq!(got, lines(&[text.trim_end()]), "cut at {cut}");
        }
    }

    #[test]
    fn every_byte_by_byte_split_gives_the_same_records() {
        let input = b"one\r\ntwo\n\nthree";
        let mut f = LineFramer::new(1024);
        let chunks: Vec<&[u8]> = input.chunks(1).collect();
        assert_eq!(
            collect(&mut f, &chunks, true),
            lines(&["one", "two", "three"])
        );
    }

    #[test]
    fn invalid_utf8_is_a_skipped_record_and_the_next_one_survives() {
        let mut f = LineFramer::new(1024);
        let got = collect(&mut f, &[b"ok\n\xff\xfe\nnext\n"], true);
        assert_eq!(
            got,
            vec![
                Seen::Line("ok".into()),
                Seen::Skipped(SkipReason::InvalidUtf8, b"\xff\xfe".to_vec()),
                Seen::Line("next".into()),
            ]
        );
    }

    #[test]
    fn unterminated_last_record_is_parsed_only_at_finish() {
        let mut f = LineFramer::new(1024);
        assert_eq!(collect(&mut f, &[b"a\nb"], false), lines(&["a"]));
        assert_eq!(collect(&mut f, &[], true), lines(&["b"]));
        // After finish the framer holds nothing.
        assert_eq!(collect(&mut f, &[], true), Vec::new());
    }

    #[test]
    fn over_long_record_in_one_chunk_is_skipped_and_counted_once() {
        let mut f = LineFramer::new(4);
        let got = collect(&mut f, &[b"1234\n12345\nab\n"], true);
        assert_eq!(
            got,
            vec![
                Seen::Line("1234".into()),
                Seen::Skipped(SkipReason::TooLong, b"12345".to_vec()),
                Seen::Line("ab".into()),
            ]
        );
    }

    #[test]
    fn over_long_record_across_chunks_is_discarded_without_buffering() {
        let mut f = LineFramer::new(4);
        let mut seen = Vec::new();
        for chunk in [&b"12"[..], b"34", b"5", b"6789", b"0000", b"x\nok\n"] {
            f.push(chunk, |r| {
                seen.push(match r {
                    Record::Line(l) => Seen::Line(l.to_owned()),
                    Record::Skipped { reason, prefix } => Seen::Skipped(reason, prefix.to_vec()),
                })
            });
            assert!(f.pending.len() <= 4, "buffered {} bytes", f.pending.len());
        }
        assert_eq!(
            seen,
            vec![
                Seen::Skipped(SkipReason::TooLong, b"12345".to_vec()),
                Seen::Line("ok".into()),
            ]
        );
    }

    #[test]
    fn over_long_record_ending_at_a_boundary_is_skipped() {
        let mut f = LineFramer::new(4);
        let got = collect(&mut f, &[b"123", b"45\nok\n"], true);
        assert_eq!(
            got,
            vec![
                Seen::Skipped(SkipReason::TooLong, b"12345".to_vec()),
                Seen::Line("ok".into()),
            ]
        );
    }

    #[test]
    fn over_long_unterminated_tail_is_not_parsed_at_finish() {
        let mut f = LineFramer::new(4);
        let got = collect(&mut f, &[b"ok\n123456"], true);
        assert_eq!(
            got,
            vec![
                Seen::Line("ok".into()),
                Seen::Skipped(SkipReason::TooLong, b"123456".to_vec()),
            ]
        );
    }
}
