//! The bridge's connections, held as the server holds its own (`plugin/proxy/connections.ts`):
//! anything on the machine can connect to the loopback port, and only cursor-agent has the token.
//! At most [`LIMITS`]`.max` are open; each is closed once it has waited `idle` with no
//! authenticated request being answered. At the cap the oldest connection waiting for a request
//! makes room, and only when every one is being answered is a new one closed at once. A request
//! being answered (a held call, MCP's event stream) is never cut.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

/// How many connections may be open, and how long one may wait for an authenticated request.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max: usize,
    pub idle: Duration,
}

/// Cursor's MCP client keeps one session: a request at a time, perhaps a cancellation beside it,
/// and the session's event stream, on a few connections, each sending its request as soon as it
/// is open and closed by the client after 4 s unused (undici's keep-alive).
pub const LIMITS: Limits = Limits {
    max: 32,
    idle: Duration::from_secs(30),
};

#[derive(Debug, Clone, Copy)]
struct State {
    /// Authenticated requests being answered.
    answering: usize,
    /// Since when none has been.
    since: Instant,
    /// Made room for a newer connection: closed once nothing is being answered.
    evicted: bool,
}

/// One open connection, shared by its task and its requests; [`Connections`] counts it while it
/// lives.
#[derive(Debug)]
pub struct Slot(watch::Sender<State>);

/// An authenticated request being answered: its connection's clock stands still until this is
/// dropped, with the response's body.
#[derive(Debug)]
pub struct Answering(Arc<Slot>);

impl Drop for Answering {
    fn drop(&mut self) {
        self.0 .0.send_modify(|state| {
            state.answering -= 1;
            state.since = Instant::now();
        });
    }
}

impl Slot {
    pub fn answering(self: &Arc<Self>) -> Answering {
        self.0.send_modify(|state| state.answering += 1);
        Answering(Arc::clone(self))
    }

    /// Resolves when the connection is to be closed: nothing answered for `idle`, or evicted
    /// with nothing answered.
    pub async fn closing(&self, idle: Duration) {
        let mut changes = self.0.subscribe();
        loop {
            let state = *changes.borrow_and_update();
            let waiting = state.answering == 0;
            if waiting && state.evicted {
                return;
            }
            tokio::select! {
                _ = changes.changed() => {}
                () = tokio::time::sleep_until(state.since + idle), if waiting => return,
            }
        }
    }
}

/// The open connections, oldest first.
#[derive(Debug)]
pub struct Connections {
    max: usize,
    open: Mutex<VecDeque<Weak<Slot>>>,
}

impl Connections {
    pub fn new(max: usize) -> Self {
        Self {
            max,
            open: Mutex::default(),
        }
    }

    /// A new connection, counted while it lives; `None` (it is to be closed) when the cap is
    /// reached and every open connection is being answered.
    pub fn admit(&self) -> Option<Arc<Slot>> {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        open.retain(|slot| slot.strong_count() > 0);
        if open.len() >= self.max {
            let idle = |slot: &Weak<Slot>| {
                slot.upgrade()
                    .is_none_or(|slot| slot.0.borrow().answering == 0)
            };
            let oldest = open.iter().position(idle)?;
            if let Some(oldest) = open.remove(oldest).and_then(|slot| slot.upgrade()) {
                oldest.0.send_modify(|state| state.evicted = true);
            }
        }
        let slot = Arc::new(Slot(watch::Sender::new(State {
            answering: 0,
            since: Instant::now(),
            evicted: false,
        })));
        open.push_back(Arc::downgrade(&slot));
        Some(slot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_oldest_idle_connection_makes_room_and_one_being_answered_is_never_cut() {
        let within = |future| tokio::time::timeout(Duration::from_millis(200), future);
        let connections = Connections::new(2);
        let (first, second) = (connections.admit().unwrap(), connections.admit().unwrap());
        let (one, two) = (first.answering(), second.answering());
        assert!(
            connections.admit().is_none(),
            "every connection is being answered"
        );
        drop(two);
        let third = connections.admit().expect("the idle one made room");
        within(second.closing(Duration::from_secs(60)))
            .await
            .expect("evicted: closed at once");
        let past_its_limit = within(first.closing(Duration::ZERO)).await;
        assert!(past_its_limit.is_err(), "being answered: kept");
        drop(one);
        within(first.closing(Duration::ZERO)).await.unwrap();
        drop((first, second, third));
        let open = connections.open.lock().unwrap();
        assert!(open.iter().all(|slot| slot.strong_count() == 0));
    }
}
