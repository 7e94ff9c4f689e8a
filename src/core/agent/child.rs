//! One cursor-agent child from start to end: found, spawned in its own process group and tied
//! to the host, registered while its group lives; stopped with SIGTERM, then SIGKILL; and once
//! it has ended, however it ended, whatever is left of its group is stopped the same way.

use std::ffi::OsString;
use std::io;
use std::path::Path;
use std::process::{ExitStatus, Stdio};

use std::time::Duration;

use tokio::process::{Child, Command};
use tokio::runtime::Handle;

use super::options::EnvVars;
use super::process::{self, ProcessGroup};
use super::registry::{self, Registration};
use super::resolve::{not_found_message, resolve_agent, Launcher};
use super::watchdog;
use crate::core::error::{CoreError, ErrorCode};

/// Between SIGTERM and SIGKILL when a child is stopped.
pub const KILL_GRACE: Duration = Duration::from_secs(2);

/// Where a child runs: the runtime its tasks and pipes live on, and an owner tag for the
/// live-child registry.
#[derive(Debug, Clone)]
pub struct RunContext {
    pub runtime: Handle,
    pub owner: u64,
}

/// A started cursor-agent child and what it was started as.
pub(crate) struct Started {
    pub child: Child,
    pub group: Option<ProcessGroup>,
    pub launcher: Launcher,
    /// Keeps the child in the live-child registry until dropped.
    pub registration: Option<Registration>,
}

/// Variables no child gets, whatever environment it is handed or inherits: cursor-agent's
/// bundled Node refuses to start when `NODE_OPTIONS` holds a flag it does not allow
/// (`--use-env-proxy`, say), and a host's Node flags are never meant for it; the server's token
/// (`CURSOR_ACP_PROXY_TOKEN`) is the host's secret, and no command the model runs may use the
/// server with it.
pub(crate) const NEVER_PASSED: &[&str] = &["NODE_OPTIONS", "CURSOR_ACP_PROXY_TOKEN"];

/// Find cursor-agent against the user's environment `lookup_env` (never the child's: a bridged
/// run's `HOME` is its private folder, where `~/.local/bin` holds nothing) and start it with
/// `args` after the launcher's own, stdout and stderr piped, `env` (when given) as its whole
/// environment: in its own process group, tied to the
/// host ([`process::prepare`]) and registered under `ctx.owner`. A binary that is missing or
/// cannot be executed is `E_AGENT_NOT_FOUND`; any other failure to start (out of descriptors
/// or memory) is the system's, `E_AGENT_EXIT` naming the OS error.
pub(crate) async fn start_agent(
    executable: Option<&str>,
    lookup_env: Option<&EnvVars>,
    env: Option<&EnvVars>,
    args: Vec<OsString>,
    stdin: Stdio,
    cwd: Option<&Path>,
    ctx: &RunContext,
) -> Result<Started, CoreError> {
    let resolution = resolve_agent(executable, lookup_env);
    let Some(launcher) = resolution.launcher else {
        return Err(CoreError::new(
            ErrorCode::AgentNotFound,
            not_found_message(&resolution.tried),
        ));
    };
    let mut command = Command::new(&launcher.program);
    command
        .args(&launcher.leading_args)
        .args(args)
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(cwd) = cwd {
        command.current_dir(cwd);
    }
    if let Some(env) = env {
        command.env_clear().envs(env);
    }
    for name in NEVER_PASSED {
        command.env_remove(name);
    }
    process::prepare(&mut command);
    watchdog::ensure_running();
    let owner = ctx.owner;
    let (child, registration) = process::spawn(command, &ctx.runtime, move |group| {
        (group, registry::register(owner, group))
    })
    .await
    .map_err(|e| start_failure(&launcher, &e, env))?;
    let (group, registration) = registration.unzip();
    Ok(Started {
        child,
        group,
        launcher,
        registration,
    })
}

/// Spawn failures that say the binary itself is unusable, so reinstalling it helps; any other
/// comes from the system (`EMFILE`, `ENOMEM`, `EAGAIN`, ...) and says nothing about the binary.
const UNUSABLE_BINARY: &[io::ErrorKind] =
    &[io::ErrorKind::NotFound, io::ErrorKind::PermissionDenied];

/// The error of a failed spawn of an existing cursor-agent.
pub(crate) fn start_failure(
    launcher: &Launcher,
    error: &io::Error,
    env: Option<&EnvVars>,
) -> CoreError {
    if UNUSABLE_BINARY.contains(&error.kind()) {
        return CoreError::new(
            ErrorCode::AgentNotFound,
            start_failure_message(launcher, error, env),
        );
    }
    CoreError::new(
        ErrorCode::AgentExit,
        format!(
            "cursor-agent at {} could not be started: the system refused ({error}). This is not a \
         problem of cursor-agent: free the resource (close other programs, raise `ulimit -n`) \
         and try again.",
            launcher.program.display()
        ),
    )
}

/// Why an existing cursor-agent could not be started, and what to do.
pub(crate) fn start_failure_message(
    launcher: &Launcher,
    error: &io::Error,
    env: Option<&EnvVars>,
) -> String {
    // An existing script whose interpreter (`#!/usr/bin/env bash`) cannot be found fails
    // with "not found" too; the usual cause is an `env` without PATH.
    let hint = match env {
        Some(env) if error.kind() == io::ErrorKind::NotFound && !env.contains_key("PATH") => {
            " The `env` option has no PATH, so the interpreter of cursor-agent's launcher \
             script cannot be found: pass the host's PATH in `env`."
        }
        _ => "",
    };
    format!(
        "cursor-agent at {} could not be started: {error}.{hint} Reinstall it with \
         `curl https://cursor.com/install -fsS | bash`, or point CURSOR_AGENT_EXECUTABLE at a \
         working binary.",
        launcher.program.display()
    )
}

/// SIGTERM the group, SIGKILL it after [`KILL_GRACE`] (or at once once the leader is gone, for
/// anything it left behind), and reap the child.
pub(crate) async fn terminate(
    child: &mut Child,
    group: Option<ProcessGroup>,
    exit: Option<io::Result<ExitStatus>>,
) -> io::Result<ExitStatus> {
    let signalled = group.is_some_and(|g| g.terminate());
    if !signalled {
        let _ = child.start_kill();
    }
    let status = match exit {
        Some(status) => status,
        None => match tokio::time::timeout(KILL_GRACE, child.wait()).await {
            Ok(status) => status,
            Err(_) => {
                if !group.is_some_and(|g| g.kill()) {
                    let _ = child.start_kill();
                }
                child.wait().await
            }
        },
    };
    if let Some(group) = group {
        group.kill();
    }
    status
}

/// How often [`sweep`] looks whether a group is gone.
const SWEEP_POLL: Duration = Duration::from_millis(20);

/// Stop what is left of a group whose leader has exited and been reaped: SIGTERM, then SIGKILL
/// once [`KILL_GRACE`] passes with members left. Runs on `runtime` without holding up the run's
/// result; `registration` (the registry's and the watchdog's entry) goes when the group does.
pub(crate) fn sweep(
    runtime: &Handle,
    group: Option<ProcessGroup>,
    registration: Option<Registration>,
) {
    let Some(group) = group else {
        return;
    };
    if let Some(registration) = &registration {
        registration.leader_reaped();
    }
    if !group.exists() {
        // Nothing left (the common case): the group is gone already.
        return;
    }
    // Named before they are stopped: a user who asked for a server "in the background" finds
    // in the log why it is gone (what a run starts ends with its answer, on purpose).
    let left = group.member_commands();
    if !group.terminate() {
        // Nothing left (the common case): the group is gone already.
        return;
    }
    tracing::info!(
        pgid = group.id(),
        stopped = ?left,
        "stopped what cursor-agent left running: everything a run starts ends with its answer"
    );
    runtime.spawn(async move {
        let deadline = tokio::time::Instant::now() + KILL_GRACE;
        // Members that exited but are not reaped yet keep the group existing; their SIGKILL is
        // harmless, so the loop only ever ends early, never wrongly.
        while group.exists() && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(SWEEP_POLL).await;
        }
        if group.kill() {
            tracing::debug!(pgid = group.id(), "killed what cursor-agent left running");
        }
        drop(registration);
    });
}

pub(crate) fn exit_parts(status: &io::Result<ExitStatus>) -> (Option<i32>, Option<String>) {
    match status {
        Ok(status) => (status.code(), process::exit_signal(status)),
        Err(_) => (None, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn each_spawn_failure_gets_the_code_of_its_cause() {
        let launcher = Launcher {
            program: "/opt/cursor-agent".into(),
            leading_args: vec![],
        };
        let cases = [
            (
                io::Error::from(io::ErrorKind::NotFound),
                "E_AGENT_NOT_FOUND",
                "Reinstall",
            ),
            (
                io::Error::from_raw_os_error(libc::EACCES),
                "E_AGENT_NOT_FOUND",
                "Reinstall",
            ),
            (
                io::Error::from_raw_os_error(libc::EMFILE),
                "E_AGENT_EXIT",
                "Too many open files",
            ),
            (
                io::Error::from_raw_os_error(libc::ENFILE),
                "E_AGENT_EXIT",
                "Too many open files",
            ),
            (
                io::Error::from_raw_os_error(libc::ENOMEM),
                "E_AGENT_EXIT",
                "memory",
            ),
            (
                io::Error::from_raw_os_error(libc::EAGAIN),
                "E_AGENT_EXIT",
                "unavailable",
            ),
        ];
        for (error, code, said) in cases {
            let failure = start_failure(&launcher, &error, None);
            assert_eq!(failure.code(), code, "{error}");
            let message = failure.to_string();
            assert!(message.contains(said), "{error}: {message}");
            if code != "E_AGENT_NOT_FOUND" {
                assert!(!message.contains("Reinstall"), "{message}");
            }
        }
    }

    #[test]
    fn start_failure_names_a_missing_path_in_env() {
        let launcher = Launcher {
            program: "/opt/cursor-agent".into(),
            leading_args: vec![],
        };
        let not_found = io::Error::from(io::ErrorKind::NotFound);
        let without_path = EnvVars::from([("HOME".into(), "/h".into())]);
        let with_path = EnvVars::from([("PATH".into(), "/bin".into())]);
        let m = start_failure_message(&launcher, &not_found, Some(&without_path));
        assert!(
            m.contains("/opt/cursor-agent") && m.contains("has no PATH"),
            "{m}"
        );
        for env in [Some(&with_path), None] {
            let m = start_failure_message(&launcher, &not_found, env);
            assert!(!m.contains("has no PATH"), "{m}");
            assert!(m.contains("curl https://cursor.com/install -fsS | bash"));
        }
        let denied = io::Error::from(io::ErrorKind::PermissionDenied);
        assert!(!start_failure_message(&launcher, &denied, Some(&without_path)).contains("PATH"));
    }

    #[cfg(unix)]
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn stopping_an_owner_kills_its_groups_and_reaps_its_children_only() {
        use super::process::tests::running;
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("ocn-registry-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let agent = dir.join("family.sh");
        std::fs::write(&agent, "#!/bin/sh\nsleep 300 &\necho $!\nexec sleep 300\n").unwrap();
        std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755)).unwrap();
        let executable = agent.to_string_lossy().into_owned();
        let start = |owner| {
            let ctx = RunContext {
                runtime: tokio::runtime::Handle::current(),
                owner,
            };
            let executable = executable.clone();
            async move {
                let started = start_agent(
                    Some(&executable),
                    None,
                    None,
                    vec![],
                    Stdio::null(),
                    None,
                    &ctx,
                )
                .await
                .unwrap();
                let mut started = started;
                let mut out = started.child.stdout.take().unwrap();
                let mut line = Vec::new();
                let mut byte = [0u8; 1];
                while tokio::io::AsyncReadExt::read(&mut out, &mut byte)
                    .await
                    .unwrap()
                    == 1
                {
                    if byte[0] == b'\n' {
                        break;
                    }
                    line.push(byte[0]);
                }
                let background: u32 = String::from_utf8(line).unwrap().trim().parse().unwrap();
                (started, background)
            }
        };
        // Owners unique to this test: other tests register children too.
        let (owner, bystander) = (u64::MAX - 7, u64::MAX - 8);
        let (stopped, stopped_background) = start(owner).await;
        let (mut spared, spared_background) = start(bystander).await;
        let leader = stopped.child.id().unwrap();

        assert_eq!(registry::stop_owner(owner), 1);
        // Reaped, not a zombie: its /proc entry is gone.
        assert!(!std::path::Path::new(&format!("/proc/{leader}")).exists());
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while running(stopped_background) {
            assert!(
                std::time::Instant::now() < deadline,
                "the background child runs on"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(
            matches!(spared.child.try_wait(), Ok(None)),
            "another owner's child is spared"
        );
        assert!(std::path::Path::new(&format!("/proc/{spared_background}")).exists());

        spared.group.unwrap().kill();
        let _ = spared.child.wait().await;
        drop(stopped);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
