//! Time for the resume cache: milliseconds on a monotonic clock, injectable so tests never
//! sleep.

use std::time::Instant;

pub trait Clock: Send {
    fn now_ms(&self) -> u64;
}

/// The process's monotonic clock.
pub struct MonotonicClock(Instant);

impl MonotonicClock {
    pub fn new() -> Self {
        Self(Instant::now())
    }
}

impl Default for MonotonicClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for MonotonicClock {
    fn now_ms(&self) -> u64 {
        u64::try_from(self.0.elapsed().as_millis()).unwrap_or(u64::MAX)
    }
}
