//! A process that outlives the host on purpose, to kill what the host's children started when
//! the host is gone, however it ended (SIGKILL included).
//!
//! The addon ships as a lone `.node` file and the host's executable is OpenCode (or Node) itself,
//! so the watchdog is `/bin/sh` running [`SCRIPT`]. Its stdin is one end of a socket pair whose
//! other end only the host holds (close-on-exec, so no child inherits it). The host writes one
//! line per change: `+ <pgid>` when a child's process group starts, `- <pgid>` once it is gone.
//! When the host ends, the kernel closes its end; `read` sees end-of-file and the watchdog sends
//! SIGTERM to every group still listed, SIGKILL a second later, and exits.
//!
//! * It runs in its own process group and ignores SIGINT, SIGHUP, SIGTERM and SIGQUIT, so a
//!   Ctrl+C or a hang-up that stops the host's terminal group does not stop it first.
//! * A socket, not a pipe: writing to a watchdog that died fails with `EPIPE` instead of raising
//!   SIGPIPE in the host, even a host that keeps SIGPIPE's default action (std's socket writes
//!   pass `MSG_NOSIGNAL` on Linux; Apple's systems need `SO_NOSIGPIPE` on the socket).
//! * One watchdog per host process, started just before the first child. If it dies (someone
//!   killed it), the next spawn starts a new one and tells it every group still watched.
//! * It waits for nothing but its stdin: it never holds the host's stdout or stderr open, and it
//!   exits as soon as it has signalled the groups.

use std::collections::BTreeSet;

use super::process::ProcessGroup;

/// The watchdog's program (see the module docs). Groups are kept as ` 12 34 ` so one is removed
/// with two pattern expansions, without starting a process per line.
pub const SCRIPT: &str = r#"trap '' INT HUP TERM QUIT
groups=' '
while read -r op pgid; do
  case $pgid in ''|*[!0-9]*) continue ;; esac
  case $op in
    +) groups="$groups$pgid " ;;
    -) case $groups in *" $pgid "*) groups="${groups%% $pgid *} ${groups#* $pgid }" ;; esac ;;
  esac
done
[ "$groups" = ' ' ] && exit 0
for pgid in $groups; do kill -s TERM -- "-$pgid" 2>/dev/null; done
sleep 1
for pgid in $groups; do kill -s KILL -- "-$pgid" 2>/dev/null; done
exit 0
"#;

/// The line that tells the watchdog about a change of `group`.
fn line(op: char, group: ProcessGroup) -> String {
    format!("{op} {}\n", group.id())
}

#[cfg(unix)]
mod imp {
    use std::io::{self, Write};
    use std::os::fd::OwnedFd;
    use std::os::unix::net::UnixStream;
    use std::os::unix::process::CommandExt;
    use std::process::{Child, Command, Stdio};
    use std::sync::Mutex;

    use super::{line, BTreeSet, ProcessGroup, SCRIPT};

    /// The running watchdog and the groups it was told about.
    pub(super) struct Watchdog {
        process: Option<(Child, UnixStream)>,
        watched: BTreeSet<ProcessGroup>,
    }

    pub(super) static WATCHDOG: Mutex<Watchdog> = Mutex::new(Watchdog::new());

    /// Start a watchdog; returns it and the host's end of its input.
    pub(super) fn start() -> io::Result<(Child, UnixStream)> {
        let (host_end, watchdog_end) = UnixStream::pair()?;
        #[cfg(target_vendor = "apple")]
        no_sigpipe(&host_end)?;
        let mut command = Command::new("/bin/sh");
        command
            .arg("-c")
            .arg(SCRIPT)
            .stdin(Stdio::from(OwnedFd::from(watchdog_end)))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0);
        let child = command.spawn()?;
        // `command` holds the watchdog's end until dropped: only the watchdog may keep it, or
        // the host's end of the socket never reads as closed.
        drop(command);
        Ok((child, host_end))
    }

    /// Apple's sockets raise SIGPIPE on a write to a closed peer unless told not to.
    #[cfg(target_vendor = "apple")]
    fn no_sigpipe(stream: &UnixStream) -> io::Result<()> {
        use std::os::fd::AsRawFd;
        let on: libc::c_int = 1;
        // SAFETY: setsockopt reads `size_of::<c_int>()` bytes from `on`, which lives across the
        // call; the descriptor is owned by `stream`.
        let set = unsafe {
            libc::setsockopt(
                stream.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_NOSIGPIPE,
                (&on as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            )
        };
        if set == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }

    impl Watchdog {
        pub(super) const fn new() -> Self {
            Self {
                process: None,
                watched: BTreeSet::new(),
            }
        }

        /// The running watchdog's input; a watchdog that died is reaped and replaced, and the
        /// new one told every group still watched.
        fn input(&mut self) -> Option<&mut UnixStream> {
            let exited = match self.process.as_mut() {
                Some((child, _)) => !matches!(child.try_wait(), Ok(None)),
                None => true,
            };
            if exited {
                self.process = None;
                match start() {
                    Ok((child, mut input)) => {
                        let replay: String = self.watched.iter().map(|g| line('+', *g)).collect();
                        if input.write_all(replay.as_bytes()).is_ok() {
                            tracing::debug!(pid = child.id(), "watchdog started");
                            self.process = Some((child, input));
                        }
                    }
                    Err(error) => {
                        tracing::warn!(%error, "could not start the watchdog (/bin/sh)");
                    }
                }
            }
            self.process.as_mut().map(|(_, input)| input)
        }

        /// Start the watchdog unless one runs.
        pub(super) fn ensure_running(&mut self) {
            let _ = self.input();
        }

        pub(super) fn watch(&mut self, group: ProcessGroup) {
            self.watched.insert(group);
            if let Some(input) = self.input() {
                if let Err(error) = input.write_all(line('+', group).as_bytes()) {
                    tracing::warn!(%error, "could not tell the watchdog about a child");
                    self.process = None;
                }
            }
        }

        pub(super) fn forget(&mut self, group: ProcessGroup) {
            if !self.watched.remove(&group) {
                return;
            }
            // A watchdog that is gone has nothing to forget; never start one for this.
            if let Some((_, input)) = self.process.as_mut() {
                let _ = input.write_all(line('-', group).as_bytes());
            }
        }

        /// The watchdog's pid, if one runs.
        #[cfg_attr(not(test), expect(dead_code, reason = "tests signal the watchdog"))]
        pub(super) fn pid(&self) -> Option<u32> {
            self.process.as_ref().map(|(child, _)| child.id())
        }
    }
}

/// Start the watchdog unless one runs. Called before a child is spawned: registering the child's
/// group right after the spawn is then one write, instead of starting `/bin/sh` while the child
/// already runs. A host killed in that gap (a Ctrl+C as the first run starts) would leave the
/// child's own children behind: `PR_SET_PDEATHSIG` reaches the child alone.
pub fn ensure_running() {
    #[cfg(unix)]
    imp::WATCHDOG
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .ensure_running();
}

/// Tell the watchdog (starting it if needed) that `group` must not outlive the host.
pub fn watch(group: ProcessGroup) {
    #[cfg(unix)]
    imp::WATCHDOG
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .watch(group);
    #[cfg(not(unix))]
    let _ = group;
}

/// `group` is gone: the watchdog must not signal it any more (its id may be reused).
pub fn forget(group: ProcessGroup) {
    #[cfg(unix)]
    imp::WATCHDOG
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .forget(group);
    #[cfg(not(unix))]
    let _ = group;
}

#[cfg(all(test, unix))]
mod tests;
