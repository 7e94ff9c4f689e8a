//! Live children, so the host can stop them all when it exits or a JS environment goes away.
//!
//! Each entry is a child's process group (the child leads its own group), tagged with an
//! owner (one per JS environment, so a worker thread exiting stops only its own children). An
//! entry lives from the spawn until the group is gone, not just until the child exits: what the
//! child left behind is still the run's. Every entry is also known to the
//! [`watchdog`](super::watchdog), which covers a host that dies without running any code.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use super::process::ProcessGroup;
use super::watchdog;

struct Entry {
    owner: u64,
    group: ProcessGroup,
    /// The leader was reaped by its run: its pid is free, never wait for it again.
    leader_reaped: bool,
}

static LIVE: Mutex<BTreeMap<u64, Entry>> = Mutex::new(BTreeMap::new());
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// How long [`stop_owner`] waits for each SIGKILLed leader to be reapable.
const REAP_LIMIT: Duration = Duration::from_millis(500);

fn live() -> std::sync::MutexGuard<'static, BTreeMap<u64, Entry>> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Removes its group from the registry and the watchdog when dropped (the group is gone).
#[derive(Debug)]
pub struct Registration {
    id: u64,
}

impl Registration {
    /// The leader has exited and was reaped; the group may live on.
    pub fn leader_reaped(&self) {
        if let Some(entry) = live().get_mut(&self.id) {
            entry.leader_reaped = true;
        }
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        let removed = live().remove(&self.id);
        if let Some(entry) = removed {
            // Dropped before its run saw the leader end (the run's task was dropped): the
            // group may be running, and once forgotten nothing else would stop it.
            if !entry.leader_reaped {
                entry.group.kill();
            }
            watchdog::forget(entry.group);
        }
    }
}

/// Record a live child's group, and hand it to the watchdog.
pub fn register(owner: u64, group: ProcessGroup) -> Registration {
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    live().insert(
        id,
        Entry {
            owner,
            group,
            leader_reaped: false,
        },
    );
    watchdog::watch(group);
    Registration { id }
}

/// SIGKILL the process group of every live child of `owner` (or of everyone). Used when the
/// host is exiting: there is no time for a grace period. Returns how many groups were signalled.
pub fn kill_all(owner: Option<u64>) -> usize {
    // A child already started but not yet recorded would be missed: wait for its record.
    super::process::between_spawns(|| kill_recorded(owner))
}

fn kill_recorded(owner: Option<u64>) -> usize {
    let live = live();
    let mut signalled = 0;
    for entry in live.values().filter(|e| owner.is_none_or(|o| o == e.owner)) {
        if entry.group.kill() {
            signalled += 1;
        }
    }
    signalled
}

/// SIGKILL every group of `owner` and reap the leaders still unreaped. For a JS environment
/// that is going away (a worker being terminated): its runs' tasks may be dropped with the
/// runtime, and then nobody else would wait for their children, which would stay zombies.
pub fn stop_owner(owner: u64) -> usize {
    let groups: Vec<(ProcessGroup, bool)> = live()
        .values()
        .filter(|e| e.owner == owner)
        .map(|e| (e.group, e.leader_reaped))
        .collect();
    for (group, _) in &groups {
        group.kill();
    }
    for (group, leader_reaped) in &groups {
        if !leader_reaped {
            group.reap_leader(REAP_LIMIT);
        }
    }
    groups.len()
}

/// Owners whose going away is watched (an environment's cleanup hook is in place).
static WATCHED: Mutex<BTreeSet<u64>> = Mutex::new(BTreeSet::new());

fn watched() -> std::sync::MutexGuard<'static, BTreeSet<u64>> {
    WATCHED.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether `owner` is new: true the first time (the caller then arranges for
/// [`owner_gone`] when it goes away), false after.
pub fn watch_owner(owner: u64) -> bool {
    watched().insert(owner)
}

/// `owner` is not watched after all: a later call with its id is new again.
pub fn unwatch_owner(owner: u64) {
    watched().remove(&owner);
}

/// `owner` went away: its groups are stopped, and a later owner with the same id is new again.
pub fn owner_gone(owner: u64) -> usize {
    unwatch_owner(owner);
    stop_owner(owner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_owner_is_new_once_until_it_is_gone_or_unwatched() {
        // Ids no other test registers groups under (child.rs uses MAX - 7 and MAX - 8).
        let (gone, unwatched) = (u64::MAX - 101, u64::MAX - 102);
        assert!(watch_owner(gone));
        assert!(!watch_owner(gone), "already watched");
        assert_eq!(owner_gone(gone), 0, "it started nothing");
        assert!(watch_owner(gone), "new again once gone");
        assert!(watch_owner(unwatched));
        unwatch_owner(unwatched);
        assert!(watch_owner(unwatched), "new again once unwatched");
        owner_gone(gone);
        owner_gone(unwatched);
    }

    /// A host exiting while a child already runs but is not yet recorded (a loaded machine may
    /// pause the spawner thread there) still stops that child.
    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn stopping_every_child_waits_for_one_being_recorded() {
        use std::os::unix::process::ExitStatusExt;
        let owner = u64::MAX - 103;
        let (began, begun) = std::sync::mpsc::channel();
        let stopper = std::thread::spawn(move || {
            begun.recv().unwrap();
            kill_all(Some(owner))
        });
        let mut command = tokio::process::Command::new("sleep");
        command.arg("30");
        super::super::process::prepare(&mut command);
        let runtime = tokio::runtime::Handle::current();
        let (mut child, registration) =
            super::super::process::spawn(command, &runtime, move |group| {
                began.send(()).unwrap();
                std::thread::sleep(Duration::from_millis(300));
                register(owner, group)
            })
            .await
            .unwrap();
        assert_eq!(
            stopper.join().unwrap(),
            1,
            "the child being recorded was stopped"
        );
        let status = child.wait().await.unwrap();
        assert_eq!(status.signal(), Some(libc::SIGKILL));
        drop(registration);
    }
}
