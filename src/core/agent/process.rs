//! Spawning children so they never outlive the host, and signalling their process groups.
//!
//! * Every child leads its own process group, so stopping it stops whatever it started.
//! * On Linux every child gets `PR_SET_PDEATHSIG(SIGKILL)`. The kernel sends that signal when
//!   the *thread* that forked the child exits, so children are forked from one dedicated thread
//!   that lives as long as the host process, never from a runtime worker that may be torn down.
//! * PDEATHSIG reaches only the child itself, and exists only on Linux: what the child started
//!   (its whole group) is covered by the [`watchdog`](super::watchdog), on every unix.

use std::io;
use std::process::ExitStatus;
use std::sync::mpsc;
use std::sync::{Mutex, OnceLock};

use tokio::process::{Child, Command};
use tokio::runtime::Handle;

#[cfg(unix)]
use crate::core::process_alive::signal_zero;

/// A child's process group (its pid: the child is the group leader).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct ProcessGroup {
    #[cfg_attr(
        not(unix),
        allow(dead_code, reason = "process groups are a unix concept")
    )]
    pgid: u32,
}

impl ProcessGroup {
    pub fn of_leader(pid: u32) -> Self {
        Self { pgid: pid }
    }

    /// The group id (the leader's pid).
    pub fn id(&self) -> u32 {
        self.pgid
    }

    #[cfg(unix)]
    fn signal(&self, signal: libc::c_int) -> bool {
        let Ok(pgid) = libc::pid_t::try_from(self.pgid) else {
            return false;
        };
        if pgid <= 1 {
            return false;
        }
        // SAFETY: kill(2) with a negative pid signals that process group; no memory is touched.
        unsafe { libc::kill(-pgid, signal) == 0 }
    }

    /// Ask the whole group to stop (SIGTERM). Returns whether any process was signalled.
    #[cfg(unix)]
    pub fn terminate(&self) -> bool {
        self.signal(libc::SIGTERM)
    }

    /// Kill the whole group (SIGKILL). Returns whether any process was signalled.
    #[cfg(unix)]
    pub fn kill(&self) -> bool {
        self.signal(libc::SIGKILL)
    }

    /// Whether the group still has members. Zombies count: a group whose members all exited is
    /// gone only once they are reaped (by their parent, or by init for orphans).
    #[cfg(unix)]
    pub fn exists(&self) -> bool {
        let Ok(pgid) = libc::pid_t::try_from(self.pgid) else {
            return false;
        };
        pgid > 1 && signal_zero(-pgid)
    }

    /// What the group's members run, as `pid command line` (Linux reads `/proc`; elsewhere the
    /// list is empty and only the group is named), for the log of what a sweep stopped.
    pub fn member_commands(&self) -> Vec<String> {
        #[cfg(target_os = "linux")]
        {
            let Ok(entries) = std::fs::read_dir("/proc") else {
                return Vec::new();
            };
            let mut found: Vec<(u32, String)> = entries
                .flatten()
                .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
                .filter(|pid| {
                    std::fs::read_to_string(format!("/proc/{pid}/stat"))
                        .ok()
                        .and_then(|stat| group_of_stat(&stat))
                        == Some(self.pgid)
                })
                .map(|pid| {
                    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                    let line = String::from_utf8_lossy(&raw).replace('\0', " ");
                    (pid, line.trim().to_owned())
                })
                .collect();
            found.sort();
            found
                .into_iter()
                .map(|(pid, line)| format!("{pid} {line}"))
                .collect()
        }
        #[cfg(not(target_os = "linux"))]
        Vec::new()
    }

    /// Reap the group leader (a child of this process) once it has exited, waiting at most
    /// `limit`. For a leader no runtime will wait for any more (its task is gone); returns
    /// whether it was reaped or was no longer this process's child.
    #[cfg(unix)]
    pub fn reap_leader(&self, limit: std::time::Duration) -> bool {
        let Ok(pid) = libc::pid_t::try_from(self.pgid) else {
            return true;
        };
        let deadline = std::time::Instant::now() + limit;
        loop {
            let mut status = 0;
            // SAFETY: waitpid writes the exit status into `status`, a live local.
            let reaped = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
            if reaped != 0 {
                // The pid (reaped now), or -1: not our child any more (reaped elsewhere).
                return true;
            }
            if std::time::Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }

    #[cfg(not(unix))]
    pub fn terminate(&self) -> bool {
        false
    }

    #[cfg(not(unix))]
    pub fn exists(&self) -> bool {
        false
    }

    #[cfg(not(unix))]
    pub fn reap_leader(&self, _limit: std::time::Duration) -> bool {
        true
    }

    #[cfg(not(unix))]
    pub fn kill(&self) -> bool {
        false
    }
}

type SpawnJob = Box<dyn FnOnce() + Send>;

/// The long-lived thread children are forked from (see the module docs for why).
fn spawner() -> &'static Mutex<mpsc::Sender<SpawnJob>> {
    static SPAWNER: OnceLock<Mutex<mpsc::Sender<SpawnJob>>> = OnceLock::new();
    SPAWNER.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<SpawnJob>();
        let started = std::thread::Builder::new()
            .name("cursor-agent-spawner".into())
            .spawn(move || {
                // The sender lives in a static, so this loop (and the thread) lasts as long as
                // the process.
                while let Ok(job) = rx.recv() {
                    job();
                }
            });
        if let Err(error) = started {
            tracing::error!(%error, "could not start the spawner thread");
        }
        Mutex::new(tx)
    })
}

/// Put the child in its own process group and, on Linux, tie its life to the host's.
pub fn prepare(command: &mut Command) {
    #[cfg(unix)]
    command.process_group(0);
    #[cfg(target_os = "linux")]
    {
        // SAFETY: getpid is always safe to call.
        let host = unsafe { libc::getpid() };
        // SAFETY: the closure runs in the forked child before exec and only makes
        // async-signal-safe calls (prctl, getppid); it allocates nothing.
        unsafe {
            command.pre_exec(move || {
                if libc::prctl(
                    libc::PR_SET_PDEATHSIG,
                    libc::SIGKILL as libc::c_ulong,
                    0,
                    0,
                    0,
                ) != 0
                {
                    return Err(io::Error::last_os_error());
                }
                // The host may have died between fork and prctl: then nobody would signal us.
                // (No allocation here: another thread may have held the allocator's lock.)
                if libc::getppid() != host {
                    return Err(io::Error::from_raw_os_error(libc::ESRCH));
                }
                Ok(())
            });
        }
    }
    command.kill_on_drop(true);
}

/// Held while a child is being spawned and its group recorded, so that one who stops every
/// child ([`between_spawns`]) never misses a child that exists but is not recorded yet.
static SPAWNING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Runs `f` while no child is between its start and `on_start` (see [`spawn`]): a host exiting
/// right after a child wrote its first output waits for that child to be recorded, then stops it.
pub fn between_spawns<R>(f: impl FnOnce() -> R) -> R {
    let _no_spawn = SPAWNING.lock().unwrap_or_else(|e| e.into_inner());
    f()
}

/// Spawn `command` (already [`prepare`]d) from the spawner thread; its pipes are registered with
/// `runtime`. `on_start` runs on that thread as soon as the child exists, with its group, so the
/// group is known (to the watchdog) before anything awaits.
pub async fn spawn<T: Send + 'static>(
    mut command: Command,
    runtime: &Handle,
    on_start: impl FnOnce(ProcessGroup) -> T + Send + 'static,
) -> io::Result<(Child, Option<T>)> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let runtime = runtime.clone();
    let job: SpawnJob = Box::new(move || {
        let _entered = runtime.enter();
        let started = between_spawns(|| {
            command.spawn().map(|child| {
                let started = child.id().map(|pid| on_start(ProcessGroup::of_leader(pid)));
                (child, started)
            })
        });
        let _ = tx.send(started);
    });
    let sent = spawner()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .send(job);
    if sent.is_err() {
        return Err(io::Error::other("the spawner thread is not running"));
    }
    rx.await
        .map_err(|_| io::Error::other("the spawner thread dropped the request"))?
}

/// The process group field of a `/proc/<pid>/stat` line: the fifth field, counted after the
/// command name's closing parenthesis (the name itself may hold spaces and parentheses).
#[cfg_attr(
    not(target_os = "linux"),
    allow(dead_code, reason = "only Linux has /proc")
)]
fn group_of_stat(stat: &str) -> Option<u32> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(2)?.parse().ok()
}

/// The name of the signal that ended a child (`SIGTERM`), if a signal did.
pub fn exit_signal(status: &ExitStatus) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        status.signal().map(signal_name)
    }
    #[cfg(not(unix))]
    {
        let _ = status;
        None
    }
}

/// Name of a signal number (`SIGTERM`), or the number as text when unknown.
pub fn signal_name(signal: i32) -> String {
    #[cfg(unix)]
    {
        let name = match signal {
            libc::SIGHUP => "SIGHUP",
            libc::SIGINT => "SIGINT",
            libc::SIGQUIT => "SIGQUIT",
            libc::SIGILL => "SIGILL",
            libc::SIGABRT => "SIGABRT",
            libc::SIGBUS => "SIGBUS",
            libc::SIGFPE => "SIGFPE",
            libc::SIGKILL => "SIGKILL",
            libc::SIGSEGV => "SIGSEGV",
            libc::SIGPIPE => "SIGPIPE",
            libc::SIGALRM => "SIGALRM",
            libc::SIGTERM => "SIGTERM",
            libc::SIGUSR1 => "SIGUSR1",
            libc::SIGUSR2 => "SIGUSR2",
            _ => return signal.to_string(),
        };
        name.to_owned()
    }
    #[cfg(not(unix))]
    {
        signal.to_string()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Whether `pid` runs; a zombie (exited, waiting for its parent or init to reap it) does not.
    /// For tests that wait for processes to go.
    #[cfg(unix)]
    pub(crate) fn running(pid: u32) -> bool {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Ok(stat) => stat
                .rsplit_once(") ")
                .is_some_and(|(_, rest)| !rest.starts_with('Z')),
            Err(_) => {
                let pid = libc::pid_t::try_from(pid).unwrap();
                // SAFETY: signal 0 only checks the process.
                unsafe { libc::kill(pid, 0) == 0 }
            }
        }
    }

    #[test]
    fn the_group_field_of_a_stat_line() {
        let table: &[(&str, Option<u32>)] = &[
            ("4242 (sleep) S 4240 4241 4240 0 -1", Some(4241)),
            // A command name with spaces and parentheses of its own.
            ("77 (my (odd) name) R 1 77 77 0 -1", Some(77)),
            ("77 (cut", None),
            ("77 (x) S 1 notanumber", None),
        ];
        for (stat, group) in table {
            assert_eq!(group_of_stat(stat), *group, "{stat}");
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_members_of_a_group_are_named_with_their_command_lines() {
        use std::os::unix::process::CommandExt;
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .process_group(0)
            .spawn()
            .unwrap();
        let group = ProcessGroup::of_leader(child.id());
        let members = group.member_commands();
        let _ = child.kill();
        let _ = child.wait();
        assert_eq!(members, [format!("{} sleep 30", child.id())]);
    }
}
