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

    /// Drops a record still waiting for its line feed (the writer died in the middle of it);
    /// returns how many of its bytes were buffered, `None` when there was none.
    pub fn drop_unterminated(&mut self) -> Option<usize> {
        let had_one = self.discarding || !self.pending.is_empty();
        let bytes = self.pending.len();
        self.clear_pending();
        self.discarding = false;
        had_one.then_some(bytes)
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

/// Position of the first LF: memchr's vectorised search (a word-at-a-time scan measured slower
/// on the benchmark's records, which run from tens of bytes to kilobytes).
fn find_lf(bytes: &[u8]) -> Option<usize> {
    memchr::memchr(b'\n', bytes)
}

/// Hand out one complete record (without its LF).
fn emit(record: &[u8], on_record: &mut impl FnMut(Record<'_>)) {
    let record = record.strip_suffix(b"\r").unwrap_or(record);
    if is_blank(record) {
        return;
    }
    // Every byte of the stream is checked here once; the vectorised check is a few times
    // faster than std's on these records (a tenth of the snapshot benchmark's time before).
    match simdutf8::basic::from_utf8(record) {
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
mod tests;
