//! A consumer that takes one batch at a time: the next is handed over only once the consumer is
//! done with the last (and, for a JS callback, once its event loop has gone round). What comes
//! meanwhile waits, in order; once the consumer failed, nothing more is handed over.

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard};

/// The queue in front of a consumer of `T`s.
#[derive(Debug)]
pub struct OneAtATime<T> {
    state: Mutex<State<T>>,
}

#[derive(Debug)]
struct State<T> {
    /// An item is with the consumer, or its turn has not yet passed.
    busy: bool,
    waiting: VecDeque<T>,
    failed: bool,
}

impl<T> Default for OneAtATime<T> {
    fn default() -> Self {
        Self {
            state: Mutex::new(State {
                busy: false,
                waiting: VecDeque::new(),
                failed: false,
            }),
        }
    }
}

impl<T> OneAtATime<T> {
    fn state(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `item`, to hand to the consumer now; `None` when it waits its turn, or is dropped
    /// because the consumer failed.
    pub fn offer(&self, item: T) -> Option<T> {
        let mut state = self.state();
        if state.failed {
            return None;
        }
        if state.busy {
            state.waiting.push_back(item);
            return None;
        }
        state.busy = true;
        Some(item)
    }

    /// The consumer is done and its turn has passed: the next item to hand over, if any.
    pub fn next(&self) -> Option<T> {
        let mut state = self.state();
        let next = state.waiting.pop_front();
        state.busy = next.is_some();
        next
    }

    /// The consumer failed on an item: what waits is dropped, and so is all that comes.
    pub fn fail(&self) {
        let mut state = self.state();
        state.failed = true;
        state.waiting.clear();
    }

    /// Handing an item over did not work (the consumer is gone): what waits is dropped.
    pub fn gone(&self) {
        let mut state = self.state();
        state.busy = false;
        state.waiting.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::OneAtATime;

    #[test]
    fn one_item_at_a_time_in_order() {
        let queue = OneAtATime::default();
        assert_eq!(queue.offer(1), Some(1));
        assert_eq!(queue.offer(2), None, "waits while 1 is with the consumer");
        assert_eq!(queue.offer(3), None);
        assert_eq!(queue.next(), Some(2));
        assert_eq!(queue.next(), Some(3));
        assert_eq!(queue.next(), None);
        assert_eq!(queue.offer(4), Some(4), "idle again: handed over at once");
    }

    #[test]
    fn nothing_after_a_failure_and_nothing_waits_once_gone() {
        let failed = OneAtATime::default();
        assert_eq!(failed.offer(1), Some(1));
        assert_eq!(failed.offer(2), None);
        failed.fail();
        assert_eq!(failed.next(), None);
        assert_eq!(failed.offer(3), None);

        let gone = OneAtATime::default();
        assert_eq!(gone.offer(1), Some(1));
        assert_eq!(gone.offer(2), None);
        gone.gone();
        assert_eq!(gone.next(), None);
        assert_eq!(gone.offer(3), Some(3));
    }
}
