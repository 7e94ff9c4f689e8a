use super::imp::{start, Watchdog};
use super::*;
use crate::core::agent::process::tests::running;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn within_30s(mut condition: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if condition() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    condition()
}

/// A process group like an agent's: a shell leader with a background child.
struct Family {
    leader: Child,
    background: u32,
}

impl Family {
    fn start() -> Self {
        let mut leader = Command::new("/bin/sh")
            .arg("-c")
            .arg("sleep 300 </dev/null >/dev/null 2>&1 & echo $!; exec sleep 300")
            .stdout(Stdio::piped())
            .process_group(0)
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(leader.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let background = line.trim().parse().unwrap();
        Self { leader, background }
    }

    fn group(&self) -> ProcessGroup {
        ProcessGroup::of_leader(self.leader.id())
    }

    fn running(&mut self) -> bool {
        matches!(self.leader.try_wait(), Ok(None)) || running(self.background)
    }

    fn gone(&mut self) -> bool {
        !matches!(self.leader.try_wait(), Ok(None)) && !running(self.background)
    }
}

impl Drop for Family {
    fn drop(&mut self) {
        self.group().kill();
        let _ = self.leader.wait();
    }
}

#[test]
fn closing_its_input_kills_every_listed_group_and_no_other() {
    let (mut watchdog, mut input) = start().unwrap();
    let mut watched = Family::start();
    let mut other_watched = Family::start();
    let mut forgotten = Family::start();
    let lines = [
        line('+', watched.group()),
        line('+', forgotten.group()),
        line('+', other_watched.group()),
        // Lines the host never writes change nothing.
        "+ not-a-group\n".to_owned(),
        "- 1x\n".to_owned(),
        line('-', forgotten.group()),
    ];
    input.write_all(lines.concat().as_bytes()).unwrap();
    // Still listening: nothing is signalled while the host lives.
    std::thread::sleep(Duration::from_millis(300));
    assert!(watched.running() && other_watched.running());
    assert!(matches!(watchdog.try_wait(), Ok(None)));

    drop(input);
    assert!(within_30s(|| watched.gone() && other_watched.gone()));
    assert!(within_30s(|| !matches!(watchdog.try_wait(), Ok(None))));
    assert!(forgotten.running(), "a forgotten group is left alone");
}

#[test]
fn a_watchdog_with_nothing_listed_exits_when_its_input_closes() {
    let (mut watchdog, input) = start().unwrap();
    drop(input);
    assert!(within_30s(|| !matches!(watchdog.try_wait(), Ok(None))));
}

#[test]
fn a_watchdog_that_died_is_replaced_and_told_every_watched_group() {
    let mut watchdog = Watchdog::new();
    let mut first = Family::start();
    let mut second = Family::start();
    watchdog.watch(first.group());
    let killed = watchdog.pid().unwrap();
    // SAFETY: signals the watchdog this test started.
    unsafe { libc::kill(libc::pid_t::try_from(killed).unwrap(), libc::SIGKILL) };
    assert!(within_30s(|| !running(killed)));

    watchdog.watch(second.group());
    let replacement = watchdog.pid().unwrap();
    assert_ne!(replacement, killed);
    // The host "dies": its end of the input closes.
    drop(watchdog);
    assert!(within_30s(|| first.gone() && second.gone()));
    assert!(within_30s(|| !running(replacement)));
}

/// Set in the copy of the test binary that runs [`telling_a_dead_watchdog_raises_no_sigpipe`]
/// with SIGPIPE at its default action, apart from the other tests' threads.
const SIGPIPE_PROBE: &str = "OCN_WATCHDOG_SIGPIPE_PROBE";

#[test]
fn telling_a_dead_watchdog_raises_no_sigpipe() {
    if std::env::var_os(SIGPIPE_PROBE).is_none() {
        // A host that keeps SIGPIPE's default action (not every JS runtime ignores it) must
        // survive a write to a watchdog that is gone; a copy of this binary stands in for it.
        let probe = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "core::agent::watchdog::tests::telling_a_dead_watchdog_raises_no_sigpipe",
            ])
            .env(SIGPIPE_PROBE, "1")
            .output()
            .unwrap();
        assert!(
            probe.status.success(),
            "the probe died ({:?}): {}",
            probe.status,
            String::from_utf8_lossy(&probe.stdout)
        );
        return;
    }
    // SAFETY: this process runs only this test; the default action is what is under test.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    let mut watchdog = Watchdog::new();
    let family = Family::start();
    watchdog.watch(family.group());
    let killed = watchdog.pid().unwrap();
    // SAFETY: signals the watchdog this test started.
    unsafe { libc::kill(libc::pid_t::try_from(killed).unwrap(), libc::SIGKILL) };
    assert!(within_30s(|| !running(killed)));
    // The peer is gone and not yet noticed: this write meets a closed socket.
    watchdog.forget(family.group());
}
