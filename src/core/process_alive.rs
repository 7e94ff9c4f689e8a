//! Whether a process or a process group still exists, asked without signalling it: the runner
//! asks it of its children's groups, the attachments' cleanup of the hosts that made folders.

/// Whether process `pid` exists.
#[cfg(unix)]
pub fn process_exists(pid: u32) -> bool {
    libc::pid_t::try_from(pid).is_ok_and(|pid| pid > 0 && signal_zero(pid))
}

/// Without a cheap check, a process is taken to exist.
#[cfg(not(unix))]
pub fn process_exists(_: u32) -> bool {
    true
}

/// Whether `target` (a pid, or a group as `-pgid`) exists: kill(2) with signal 0 checks
/// without sending anything, and EPERM means it exists but is not ours to signal.
#[cfg(unix)]
pub fn signal_zero(target: libc::pid_t) -> bool {
    // SAFETY: kill(2) with signal 0 only checks the target; no memory is touched.
    let probed = unsafe { libc::kill(target, 0) };
    probed == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn this_process_is_running_and_a_reaped_child_is_not() {
        assert!(process_exists(std::process::id()));
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        assert!(!process_exists(pid));
    }
}
