//! Live children, so the host can stop them all when it exits.
//!
//! Each entry is a child's process group (the child leads its own group), tagged with an
//! owner (one per JS environment, so a worker thread exiting stops only its own children).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use super::process::ProcessGroup;

struct Entry {
    owner: u64,
    group: ProcessGroup,
}

static LIVE: Mutex<BTreeMap<u64, Entry>> = Mutex::new(BTreeMap::new());
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Removes its child from the registry when dropped (the run is over).
#[derive(Debug)]
pub struct Registration {
    id: u64,
}

impl Drop for Registration {
    fn drop(&mut self) {
        LIVE.lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.id);
    }
}

/// Record a live child's group.
pub fn register(owner: u64, group: ProcessGroup) -> Registration {
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    LIVE.lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(id, Entry { owner, group });
    Registration { id }
}

/// SIGKILL the process group of every live child of `owner` (or of everyone). Used when the
/// host is exiting: there is no time for a grace period. Returns how many groups were signalled.
pub fn kill_all(owner: Option<u64>) -> usize {
    let live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    let mut signalled = 0;
    for entry in live.values().filter(|e| owner.is_none_or(|o| o == e.owner)) {
        if entry.group.kill() {
            signalled += 1;
        }
    }
    signalled
}
