//! The silences of a captured run: the gaps between its start, each read of stdout and the
//! child's exit or the stream's close. Cursor is silent for a while in a healthy turn (while it
//! compacts its context, or while the model writes a long reply before its record appears), so
//! the long gaps, and the longest whatever its length, show how close a run came to the idle
//! limit, and where a stuck one stopped speaking.

use serde::Serialize;

use crate::core::capture::record::Line;

/// A gap at least this long is listed.
pub const LONG_GAP_MS: f64 = 60_000.0;

/// One silence of stdout.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Gap {
    /// Milliseconds since the start, when it began and ended, and how long it lasted.
    pub from_ms: f64,
    pub to_ms: f64,
    pub ms: f64,
    /// What came before it: `start` or `stdout`, or `exit` (stdout still open).
    pub after: &'static str,
    /// What ended it: `stdout` (a read), `exit`, `close` (the stream's end, however the run
    /// ended), or `truncated` (the capture kept nothing after).
    pub until: &'static str,
}

/// The gaps worth a look.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StdoutGaps {
    /// Every gap of [`LONG_GAP_MS`] or more, in order.
    pub long: Vec<Gap>,
    /// The longest gap, whatever its length; `None` when the capture holds no time after its start.
    pub longest: Option<Gap>,
}

/// The moment a line marks, and its name as a gap's end; `None` for a line that says nothing of
/// stdout.
fn moment(line: &Line) -> Option<(f64, &'static str)> {
    match line {
        Line::Stdout { t, read, .. } if *read > 0 => Some((*t, "stdout")),
        Line::Exit { t, .. } => Some((*t, "exit")),
        Line::Close { t, .. } => Some((*t, "close")),
        Line::Truncated { t } => Some((*t, "truncated")),
        _ => None,
    }
}

/// The gaps of a capture's lines (its start line first).
pub fn stdout_gaps(lines: &[Line]) -> StdoutGaps {
    let mut gaps = StdoutGaps::default();
    let mut previous = (0.0, "start");
    for (t, what) in lines.iter().filter_map(moment) {
        let gap = Gap {
            from_ms: previous.0,
            to_ms: t,
            ms: t - previous.0,
            after: previous.1,
            until: what,
        };
        if gap.ms >= LONG_GAP_MS {
            gaps.long.push(gap.clone());
        }
        if gaps
            .longest
            .as_ref()
            .is_none_or(|longest| gap.ms > longest.ms)
        {
            gaps.longest = Some(gap);
        }
        // Nothing after a truncation is kept: its gaps are not known.
        if what == "truncated" {
            break;
        }
        previous = (t, what);
    }
    gaps
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::capture::record::{ClosingRecord, ErrorRecord};

    fn stdout(t: f64, read: usize) -> Line {
        Line::Stdout {
            t,
            read,
            data: None,
            base64: None,
            outputs: Vec::new(),
        }
    }

    fn exit(t: f64) -> Line {
        Line::Exit {
            t,
            exit_code: Some(0),
            signal: None,
        }
    }

    fn close(t: f64) -> Line {
        Line::Close {
            t,
            closing: ClosingRecord::Failure(ErrorRecord {
                code: "E_TIMEOUT".into(),
                message: "idle".into(),
                agent_output: None,
            }),
            outputs: Vec::new(),
        }
    }

    fn gap(from_ms: f64, to_ms: f64, after: &'static str, until: &'static str) -> Gap {
        Gap {
            from_ms,
            to_ms,
            ms: to_ms - from_ms,
            after,
            until,
        }
    }

    #[test]
    fn long_gaps_and_the_longest_whatever_its_length() {
        let table: Vec<(Vec<Line>, Vec<Gap>, Option<Gap>)> = vec![
            // nothing after the start
            (vec![], vec![], None),
            // a quick run: nothing long, the longest still named
            (
                vec![
                    stdout(120.0, 10),
                    stdout(900.0, 10),
                    exit(950.0),
                    close(960.0),
                ],
                vec![],
                Some(gap(120.0, 900.0, "stdout", "stdout")),
            ),
            // a 757 s generation between two reads, then a compaction of 30 s
            (
                vec![
                    stdout(1_000.0, 10),
                    stdout(758_358.0, 10),
                    stdout(788_358.0, 10),
                    exit(788_400.0),
                    close(788_410.0),
                ],
                vec![gap(1_000.0, 758_358.0, "stdout", "stdout")],
                Some(gap(1_000.0, 758_358.0, "stdout", "stdout")),
            ),
            // silent from the start until the idle limit closed the stream; a flushed record
            // (read 0) is no read
            (
                vec![stdout(61_000.0, 0), close(1_800_000.0)],
                vec![gap(0.0, 1_800_000.0, "start", "close")],
                Some(gap(0.0, 1_800_000.0, "start", "close")),
            ),
            // two long ones, the later the longest; exit ends one
            (
                vec![stdout(70_000.0, 5), exit(200_000.0), close(200_500.0)],
                vec![
                    gap(0.0, 70_000.0, "start", "stdout"),
                    gap(70_000.0, 200_000.0, "stdout", "exit"),
                ],
                Some(gap(70_000.0, 200_000.0, "stdout", "exit")),
            ),
            // nothing is known after a truncation
            (
                vec![
                    stdout(10.0, 5),
                    Line::Truncated { t: 20.0 },
                    close(500_000.0),
                ],
                vec![],
                Some(gap(0.0, 10.0, "start", "stdout")),
            ),
        ];
        for (lines, long, longest) in table {
            let found = stdout_gaps(&lines);
            assert_eq!(found.long, long, "{lines:?}");
            assert_eq!(found.longest, longest, "{lines:?}");
        }
    }
}
