//! The last bytes of a stream (cursor-agent's stderr), kept for error classification.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::process::ChildStderr;
use tokio::runtime::Handle;
use tokio::task::JoinHandle;

/// How much of stderr is kept: enough for every known error text, bounded under a flood.
pub const STDERR_TAIL_BYTES: usize = 64 * 1024;

/// How long to wait, once the child has exited, for the rest of its stderr (a grandchild may
/// still hold the pipe open).
pub const STDERR_DRAIN_AFTER_EXIT: Duration = Duration::from_millis(500);

/// A child's stderr, read concurrently into a bounded tail so that a flood never blocks it.
pub struct StderrTail {
    tail: Arc<Mutex<TailBuffer>>,
    task: Option<JoinHandle<()>>,
}

impl StderrTail {
    pub fn spawn(runtime: &Handle, stderr: Option<ChildStderr>) -> Self {
        let tail = Arc::new(Mutex::new(TailBuffer::new(STDERR_TAIL_BYTES)));
        let task = stderr.map(|mut stderr| {
            let tail = Arc::clone(&tail);
            runtime.spawn(async move {
                let mut buf = vec![0u8; 16 * 1024];
                while let Ok(n) = stderr.read(&mut buf).await {
                    if n == 0 {
                        break;
                    }
                    tail.lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(&buf[..n]);
                }
            })
        });
        Self { tail, task }
    }

    /// The kept text, after waiting at most [`STDERR_DRAIN_AFTER_EXIT`] for the rest.
    pub async fn finish(mut self) -> String {
        if let Some(mut task) = self.task.take() {
            if tokio::time::timeout(STDERR_DRAIN_AFTER_EXIT, &mut task)
                .await
                .is_err()
            {
                task.abort();
            }
        }
        let text = self.tail.lock().unwrap_or_else(|e| e.into_inner()).text();
        text
    }
}

/// A byte ring that keeps only the newest `capacity` bytes written to it.
#[derive(Debug)]
pub struct TailBuffer {
    bytes: VecDeque<u8>,
    capacity: usize,
    dropped: u64,
}

impl TailBuffer {
    pub fn new(capacity: usize) -> Self {
        Self {
            bytes: VecDeque::with_capacity(capacity.min(8 * 1024)),
            capacity,
            dropped: 0,
        }
    }

    pub fn push(&mut self, chunk: &[u8]) {
        let chunk = if chunk.len() > self.capacity {
            let skip = chunk.len() - self.capacity;
            self.dropped += skip as u64;
            &chunk[skip..]
        } else {
            chunk
        };
        let overflow = (self.bytes.len() + chunk.len()).saturating_sub(self.capacity);
        if overflow > 0 {
            self.bytes.drain(..overflow);
            self.dropped += overflow as u64;
        }
        self.bytes.extend(chunk);
    }

    /// The kept bytes as text. When bytes were dropped the window may start inside a line or
    /// a UTF-8 sequence, so it starts after the first line break it holds (if any).
    pub fn text(&self) -> String {
        let (a, b) = self.bytes.as_slices();
        let mut all = Vec::with_capacity(a.len() + b.len());
        all.extend_from_slice(a);
        all.extend_from_slice(b);
        let start = if self.dropped > 0 {
            all.iter().position(|&c| c == b'\n').map_or(0, |i| i + 1)
        } else {
            0
        };
        String::from_utf8_lossy(&all[start..]).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::TailBuffer;

    #[test]
    fn keeps_everything_below_capacity() {
        let mut t = TailBuffer::new(16);
        t.push(b"Error: ");
        t.push(b"auth\n");
        assert_eq!(t.text(), "Error: auth\n");
        assert_eq!(t.dropped, 0);
    }

    #[test]
    fn keeps_only_the_newest_bytes_and_starts_at_a_line() {
        let mut t = TailBuffer::new(10);
        t.push(b"aaaa\nbbbb\n");
        t.push(b"cc\nd");
        // the 4 oldest bytes ("aaaa") fall out; the window "\nbbbb\ncc\nd" starts after its first break
        assert_eq!(t.dropped, 4);
        assert_eq!(t.text(), "bbbb\ncc\nd");
    }

    #[test]
    fn a_single_chunk_larger_than_capacity_keeps_its_tail() {
        let mut t = TailBuffer::new(4);
        t.push(b"0123456789");
        assert_eq!(t.dropped, 6);
        assert_eq!(t.text(), "6789");
    }

    #[test]
    fn a_flood_stays_bounded() {
        let mut t = TailBuffer::new(1024);
        for _ in 0..10_000 {
            t.push(b"retrying connection...\n");
        }
        t.push(b"Error: You've hit your usage limit\n");
        let text = t.text();
        assert!(text.len() <= 1024);
        assert!(text.ends_with("Error: You've hit your usage limit\n"));
        assert!(text.starts_with("retrying"));
    }

    #[test]
    fn split_utf8_at_the_window_edge_is_not_fatal() {
        let mut t = TailBuffer::new(3);
        t.push("é€".as_bytes()); // 2 + 3 bytes: the window holds only the euro sign
        assert_eq!(t.text(), "€");
    }
}
