//! One cursor-agent run: spawn, feed the prompt, translate stdout, deliver batches, stop.
//!
//! Ordering and backpressure: every read from the child's stdout becomes at most one batch of
//! outputs, handed to an [`OutputSink`] with a [`Receipt`]. A receipt holds one of
//! [`MAX_BATCHES_IN_FLIGHT`] permits until the consumer is done with its batch, so when the
//! consumer falls behind, reading stops (and the pipe fills and pauses the child). The result
//! is published only after every permit came back: every batch was consumed before it.

use std::ffi::OsString;
use std::io;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdout, Command};
use tokio::runtime::Handle;
use tokio::sync::{watch, OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

use super::command::agent_args;
use super::options::{EnvVars, RunOptions};
use super::process::{self, ProcessGroup};
use super::registry::{self, Registration};
use super::resolve::{not_found_message, resolve_agent, Launcher};
use super::tail::StderrTail;
use crate::core::error::CoreError;
use crate::core::failure::resume::is_resume_specific;
use crate::core::stream::encode::Output;
use crate::core::stream::transformer::StreamTransformer;
use crate::core::stream::translate::Outcome;
use crate::core::stream::usage::CursorUsage;

/// Batches handed to the consumer and not yet consumed, at most.
pub const MAX_BATCHES_IN_FLIGHT: usize = 8;
/// Between SIGTERM and SIGKILL when a run is stopped.
pub const KILL_GRACE: Duration = Duration::from_secs(2);
const READ_BUFFER_BYTES: usize = 64 * 1024;
/// After the child exits, how long stdout may stay open and silent (held open by something it
/// started) before the run is over.
const STDOUT_DRAIN_AFTER_EXIT: Duration = Duration::from_secs(1);

/// Where a run's outputs go (the JS callback, in the addon).
pub trait OutputSink: Send + Sync + 'static {
    /// Hand one batch to the consumer, in order. Keep `receipt` until the consumer is done with
    /// the batch, then drop it, or call [`Receipt::callback_failed`]. Returns false when the
    /// consumer is gone (nothing will consume this or any later batch).
    fn deliver(&self, batch: Vec<Output>, receipt: Receipt) -> bool;
}

/// Why a run was asked to stop.
#[derive(Debug, Clone, PartialEq, Eq)]
enum StopReason {
    Cancel,
    Callback(String),
    ConsumerGone,
}

type StopSender = Arc<watch::Sender<Option<StopReason>>>;

/// The first reason wins.
fn request_stop(stop: &watch::Sender<Option<StopReason>>, reason: StopReason) {
    stop.send_if_modified(|current| {
        if current.is_none() {
            *current = Some(reason);
            true
        } else {
            false
        }
    });
}

/// Proof that a batch is in the consumer's hands; dropping it frees a place in the queue.
#[derive(Debug)]
pub struct Receipt {
    _permit: OwnedSemaphorePermit,
    stop: StopSender,
}

impl Receipt {
    /// The consumer failed on this batch (the JS callback threw): the run stops and reports
    /// `E_CALLBACK` with `message`.
    pub fn callback_failed(self, message: impl Into<String>) {
        request_stop(&self.stop, StopReason::Callback(message.into()));
    }
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunResult {
    pub exit_code: Option<i32>,
    /// e.g. `SIGTERM`.
    pub signal: Option<String>,
    pub cancelled: bool,
    pub session_id: Option<String>,
    pub usage: Option<CursorUsage>,
    /// `None` on success, on cancel, and on quota after output.
    pub error: Option<CoreError>,
}

/// Where a run executes: the runtime its tasks and pipes live on, and an owner tag for the
/// live-child registry.
#[derive(Debug, Clone)]
pub struct RunContext {
    pub runtime: Handle,
    pub owner: u64,
}

/// Control of a started run. Cloning gives another handle to the same run.
#[derive(Debug, Clone)]
pub struct RunHandle {
    stop: StopSender,
    result: watch::Receiver<Option<RunResult>>,
}

impl RunHandle {
    /// Stop the run: SIGTERM to the child's process group, SIGKILL after [`KILL_GRACE`].
    /// Reading stops at once; the run finishes as cancelled. No effect once it has ended.
    pub fn cancel(&self) {
        request_stop(&self.stop, StopReason::Cancel);
    }

    /// The result, once every batch has been consumed. May be awaited any number of times.
    pub async fn wait(&self) -> RunResult {
        let mut result = self.result.clone();
        let settled = result.wait_for(Option::is_some).await.map(|r| (*r).clone());
        match settled {
            Ok(Some(result)) => result,
            _ => RunResult {
                error: Some(CoreError::AgentExit(
                    "the run ended without a result".into(),
                )),
                ..RunResult::default()
            },
        }
    }
}

/// Start a run of validated `options`; outputs go to `sink`. Never fails: every failure is
/// reported through the sink's closing outputs and the [`RunResult`].
pub fn start_run(options: RunOptions, sink: Arc<dyn OutputSink>, ctx: RunContext) -> RunHandle {
    let (stop_tx, stop_rx) = watch::channel(None);
    let stop_tx = Arc::new(stop_tx);
    let (result_tx, result_rx) = watch::channel(None);
    let run = Run {
        transformer: StreamTransformer::new(options.transformer.clone()),
        options,
        sink,
        permits: Arc::new(Semaphore::new(MAX_BATCHES_IN_FLIGHT)),
        stop_tx: stop_tx.clone(),
        stop_rx,
        held: None,
        ctx: ctx.clone(),
    };
    ctx.runtime.spawn(async move {
        let result = run.drive().await;
        result_tx.send_replace(Some(result));
    });
    RunHandle {
        stop: stop_tx,
        result: result_rx,
    }
}

#[derive(Debug)]
enum TimeoutKind {
    Idle(Duration),
    Overall(Duration),
}

#[derive(Debug)]
enum Ending {
    /// stdout closed (or stayed open past the drain time) and the child exited.
    Finished,
    Stopped(StopReason),
    Timeout(TimeoutKind),
    /// A resumed run reported another chat id.
    ResumeReplaced(String),
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

async fn stop_requested(stop: &mut watch::Receiver<Option<StopReason>>) -> StopReason {
    let reason = stop.wait_for(Option::is_some).await.map(|r| (*r).clone());
    match reason {
        Ok(Some(reason)) => reason,
        // The sender lives as long as the run; treat its loss as a cancel.
        _ => StopReason::Cancel,
    }
}

struct Run {
    options: RunOptions,
    transformer: StreamTransformer,
    sink: Arc<dyn OutputSink>,
    permits: Arc<Semaphore>,
    stop_tx: StopSender,
    stop_rx: watch::Receiver<Option<StopReason>>,
    /// While a resumed run's chat id is unconfirmed, outputs wait here.
    held: Option<Vec<Output>>,
    ctx: RunContext,
}

impl Run {
    async fn drive(mut self) -> RunResult {
        let started = start_agent(
            self.options.executable.as_deref(),
            self.options.env.as_ref(),
            agent_args(&self.options),
            Stdio::piped(),
            Some(&self.options.workspace),
            &self.ctx,
        )
        .await;
        let Started {
            mut child,
            group,
            launcher,
            registration: _registration,
        } = match started {
            Ok(started) => started,
            Err(error) => return self.fail_without_child(error).await,
        };
        tracing::debug!(pid = ?child.id(), program = %launcher.program.display(), "cursor-agent started");

        let stdin_task = child.stdin.take().map(|mut stdin| {
            let prompt = std::mem::take(&mut self.options.prompt);
            self.ctx.runtime.spawn(async move {
                // A child that exits without reading everything closes the pipe: not our error.
                let _ = stdin.write_all(prompt.as_bytes()).await;
                let _ = stdin.shutdown().await;
            })
        });
        let stderr_tail = StderrTail::spawn(&self.ctx.runtime, child.stderr.take());

        self.held = self.options.resume_chat_id.is_some().then(Vec::new);
        let (ending, exit) = match child.stdout.take() {
            Some(stdout) => self.pump(stdout, &mut child).await,
            None => (Ending::Finished, Some(child.wait().await)),
        };
        let status = match (&ending, exit) {
            (Ending::Finished, Some(status)) => status,
            (_, exit) => terminate(&mut child, group, exit).await,
        };

        if let Some(task) = stdin_task {
            task.abort();
        }
        let stderr = stderr_tail.finish().await;
        let (exit_code, signal) = exit_parts(&status);
        let cancelled = matches!(ending, Ending::Stopped(StopReason::Cancel));
        let outcome = Outcome {
            exit_code,
            signal: signal.clone(),
            stderr,
            cancelled,
        };
        tracing::debug!(?ending, ?exit_code, ?signal, "cursor-agent ended");

        let mut closing = Vec::new();
        let error = match ending {
            Ending::Stopped(StopReason::Callback(message)) => {
                self.transformer.finish(&outcome, &mut closing);
                closing.clear();
                self.held = None;
                Some(CoreError::Callback(format!(
                    "the onOutput callback threw, so the run was stopped: {message}"
                )))
            }
            Ending::Stopped(StopReason::ConsumerGone) => {
                self.transformer.finish(&outcome, &mut closing);
                closing.clear();
                self.held = None;
                Some(CoreError::Callback(
                    "the onOutput callback is no longer reachable".into(),
                ))
            }
            Ending::ResumeReplaced(other) => {
                self.held = None;
                Some(CoreError::Resume(format!(
                    "cursor-agent did not resume chat {} (it reported chat {other}); the chat is \
                     gone: start a fresh chat with the full prompt",
                    self.options.resume_chat_id.as_deref().unwrap_or_default()
                )))
            }
            Ending::Timeout(kind) => {
                let error = CoreError::Timeout(match kind {
                    TimeoutKind::Idle(d) => format!(
                        "cursor-agent produced no output for {} ms (idleTimeoutMs) and was stopped",
                        d.as_millis()
                    ),
                    TimeoutKind::Overall(d) => format!(
                        "cursor-agent ran longer than {} ms (timeoutMs) and was stopped",
                        d.as_millis()
                    ),
                });
                // The closing outputs carry the same code as `RunResult.error`, not the
                // signal-death classification of the killed process.
                self.transformer.fail(error.clone(), &mut closing);
                Some(error)
            }
            Ending::Stopped(StopReason::Cancel) | Ending::Finished => {
                let summary = self.transformer.finish(&outcome, &mut closing);
                let unconfirmed_resume = self.held.is_some();
                match summary.error {
                    Some(_) if unconfirmed_resume && is_resume_specific(&outcome.stderr) => {
                        self.held = None;
                        closing.clear();
                        Some(CoreError::Resume(format!(
                            "cursor-agent could not resume chat {}: {}",
                            self.options.resume_chat_id.as_deref().unwrap_or_default(),
                            last_lines(&outcome.stderr, 5)
                        )))
                    }
                    error => error,
                }
            }
        };
        let mut last = self.held.take().unwrap_or_default();
        last.append(&mut closing);
        self.deliver_closing(last).await;
        self.settle().await;

        RunResult {
            exit_code,
            signal,
            cancelled,
            session_id: self.transformer.session_id().map(str::to_owned),
            usage: self.transformer.usage().cloned(),
            error,
        }
    }

    /// Read stdout until it closes and the child exits, or until something ends the run early.
    async fn pump(
        &mut self,
        mut stdout: ChildStdout,
        child: &mut Child,
    ) -> (Ending, Option<io::Result<ExitStatus>>) {
        let mut buf = vec![0u8; READ_BUFFER_BYTES];
        let mut outputs = Vec::new();
        let mut stdout_open = true;
        let mut exit: Option<io::Result<ExitStatus>> = None;
        let mut drain_until: Option<Instant> = None;
        let overall = self.options.timeout.map(|t| Instant::now() + t);
        let mut idle_from = Instant::now();

        enum Event {
            Stop(StopReason),
            Overall,
            Idle,
            Drained,
            Read(io::Result<usize>),
            Exited(io::Result<ExitStatus>),
        }
        loop {
            if !stdout_open && exit.is_some() {
                return (Ending::Finished, exit);
            }
            // An open tool call can legitimately run for long without output.
            let idle = match self.transformer.open_tool_calls() {
                0 => self.options.idle_timeout.map(|d| idle_from + d),
                _ => None,
            };
            let event = tokio::select! {
                biased;
                reason = stop_requested(&mut self.stop_rx) => Event::Stop(reason),
                () = sleep_until(overall) => Event::Overall,
                () = sleep_until(idle) => Event::Idle,
                read = stdout.read(&mut buf), if stdout_open => Event::Read(read),
                status = child.wait(), if exit.is_none() => Event::Exited(status),
                () = sleep_until(drain_until) => Event::Drained,
            };
            match event {
                Event::Stop(reason) => return (Ending::Stopped(reason), exit),
                Event::Overall => {
                    let limit = self.options.timeout.unwrap_or_default();
                    return (Ending::Timeout(TimeoutKind::Overall(limit)), exit);
                }
                Event::Idle => {
                    let limit = self.options.idle_timeout.unwrap_or_default();
                    return (Ending::Timeout(TimeoutKind::Idle(limit)), exit);
                }
                Event::Drained => return (Ending::Finished, exit),
                Event::Exited(status) => {
                    exit = Some(status);
                    drain_until = Some(Instant::now() + STDOUT_DRAIN_AFTER_EXIT);
                }
                Event::Read(Ok(0)) => stdout_open = false,
                Event::Read(Err(error)) => {
                    tracing::warn!(%error, "reading cursor-agent stdout failed");
                    stdout_open = false;
                }
                Event::Read(Ok(n)) => {
                    idle_from = Instant::now();
                    if exit.is_some() {
                        drain_until = Some(idle_from + STDOUT_DRAIN_AFTER_EXIT);
                    }
                    if let Err(error) = self.transformer.push(&buf[..n], &mut outputs) {
                        tracing::warn!(%error, "the transformer refused stdout");
                    }
                    if let Some(held) = self.held.as_mut() {
                        held.append(&mut outputs);
                        if let Some(seen) = self.transformer.session_id() {
                            if Some(seen) != self.options.resume_chat_id.as_deref() {
                                return (Ending::ResumeReplaced(seen.to_owned()), exit);
                            }
                            outputs = self.held.take().unwrap_or_default();
                        }
                    }
                    if !outputs.is_empty() {
                        if let Err(ending) = self.deliver(&mut outputs, overall).await {
                            // Undelivered outputs go out ahead of the closing ones, so the
                            // consumer never sees a block closed that it did not see opened.
                            self.held = Some(std::mem::take(&mut outputs));
                            return (ending, exit);
                        }
                        // Time spent waiting for the consumer is not the child's silence.
                        idle_from = Instant::now();
                        if exit.is_some() {
                            drain_until = Some(idle_from + STDOUT_DRAIN_AFTER_EXIT);
                        }
                    }
                }
            }
        }
    }

    /// Wait for a place in the queue (a stop or the overall deadline interrupts), then deliver
    /// `batch` (taking it; after an interruption it is left in place).
    async fn deliver(
        &mut self,
        batch: &mut Vec<Output>,
        overall: Option<Instant>,
    ) -> Result<(), Ending> {
        let permit = tokio::select! {
            biased;
            reason = stop_requested(&mut self.stop_rx) => return Err(Ending::Stopped(reason)),
            () = sleep_until(overall) => {
                let limit = self.options.timeout.unwrap_or_default();
                return Err(Ending::Timeout(TimeoutKind::Overall(limit)));
            }
            permit = Arc::clone(&self.permits).acquire_owned() => permit,
        };
        let Ok(permit) = permit else {
            return Err(Ending::Stopped(StopReason::ConsumerGone));
        };
        let receipt = Receipt {
            _permit: permit,
            stop: Arc::clone(&self.stop_tx),
        };
        if self.sink.deliver(std::mem::take(batch), receipt) {
            Ok(())
        } else {
            request_stop(&self.stop_tx, StopReason::ConsumerGone);
            Err(Ending::Stopped(StopReason::ConsumerGone))
        }
    }

    /// The last batch: delivered even if a cancel arrives meanwhile (the run is over anyway).
    async fn deliver_closing(&mut self, batch: Vec<Output>) {
        if batch.is_empty() {
            return;
        }
        let Ok(permit) = Arc::clone(&self.permits).acquire_owned().await else {
            return;
        };
        let receipt = Receipt {
            _permit: permit,
            stop: Arc::clone(&self.stop_tx),
        };
        self.sink.deliver(batch, receipt);
    }

    /// Returns once every delivered batch has been consumed.
    async fn settle(&self) {
        let all = u32::try_from(MAX_BATCHES_IN_FLIGHT).unwrap_or(u32::MAX);
        let _ = self.permits.acquire_many(all).await;
    }

    async fn fail_without_child(mut self, error: CoreError) -> RunResult {
        let mut closing = Vec::new();
        self.transformer.fail(error.clone(), &mut closing);
        self.deliver_closing(closing).await;
        self.settle().await;
        RunResult {
            error: Some(error),
            ..RunResult::default()
        }
    }
}

/// A started cursor-agent child and what it was started as.
pub(crate) struct Started {
    pub child: Child,
    pub group: Option<ProcessGroup>,
    pub launcher: Launcher,
    /// Keeps the child in the live-child registry until dropped.
    pub registration: Option<Registration>,
}

/// Find cursor-agent and start it with `args` after the launcher's own, stdout and stderr
/// piped, `env` (when given) as its whole environment: in its own process group, tied to the
/// host ([`process::prepare`]) and registered under `ctx.owner`. Failures are
/// `E_AGENT_NOT_FOUND`.
pub(crate) async fn start_agent(
    executable: Option<&str>,
    env: Option<&EnvVars>,
    args: Vec<OsString>,
    stdin: Stdio,
    cwd: Option<&Path>,
    ctx: &RunContext,
) -> Result<Started, CoreError> {
    let resolution = resolve_agent(executable, env);
    let Some(launcher) = resolution.launcher else {
        return Err(CoreError::AgentNotFound(not_found_message(
            &resolution.tried,
        )));
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
    process::prepare(&mut command);
    let child = process::spawn(command, &ctx.runtime)
        .await
        .map_err(|e| CoreError::AgentNotFound(start_failure_message(&launcher, &e, env)))?;
    let group = child.id().map(ProcessGroup::of_leader);
    let registration = group.map(|g| registry::register(ctx.owner, g));
    Ok(Started {
        child,
        group,
        launcher,
        registration,
    })
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
async fn terminate(
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

fn exit_parts(status: &io::Result<ExitStatus>) -> (Option<i32>, Option<String>) {
    match status {
        Ok(status) => (status.code(), process::exit_signal(status)),
        Err(_) => (None, None),
    }
}

/// The last `n` non-empty lines of `text`, joined with `; `.
pub(crate) fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    lines[lines.len().saturating_sub(n)..].join("; ")
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::core::agent::options::RunRequest;
    use std::os::unix::fs::PermissionsExt;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Mutex;

    /// Keeps receipts (the consumer is "behind") until told to let go.
    #[derive(Default)]
    struct SlowConsumer {
        holding: AtomicBool,
        batches: Mutex<Vec<Vec<Output>>>,
        receipts: Mutex<Vec<Receipt>>,
    }

    impl OutputSink for SlowConsumer {
        fn deliver(&self, batch: Vec<Output>, receipt: Receipt) -> bool {
            self.batches.lock().unwrap().push(batch);
            if self.holding.load(Ordering::SeqCst) {
                self.receipts.lock().unwrap().push(receipt);
            }
            true
        }
    }

    fn delta_line(text: &str) -> String {
        format!(
            r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"text","text":"{text}"}}]}},"session_id":"s1","timestamp_ms":1}}"#
        )
    }

    #[test]
    fn start_failure_names_a_missing_path_in_env() {
        let launcher = Launcher {
            program: "/opt/cursor-agent".into(),
            leading_args: vec![],
        };
        let not_found = io::Error::from(io::ErrorKind::NotFound);
        let without_path = crate::core::agent::EnvVars::from([("HOME".into(), "/h".into())]);
        let with_path = crate::core::agent::EnvVars::from([("PATH".into(), "/bin".into())]);
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

    fn paced_agent(dir: &std::path::Path, name: &str, body: &str) -> RunOptions {
        std::fs::create_dir_all(dir).unwrap();
        let agent = dir.join(name);
        std::fs::write(&agent, format!("#!/bin/sh\ncat > /dev/null\n{body}")).unwrap();
        std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755)).unwrap();
        RunRequest {
            prompt: "hi".into(),
            model: "auto".into(),
            workspace: dir.to_string_lossy().into_owned(),
            executable: Some(agent.to_string_lossy().into_owned()),
            ..RunRequest::default()
        }
        .validate()
        .unwrap()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_result_waits_until_every_batch_is_consumed() {
        let dir = std::env::temp_dir().join(format!("ocn-run-settle-{}", std::process::id()));
        let body = format!(
            "echo '{}'\necho '{}'\n",
            r#"{"type":"system","subtype":"init","session_id":"s1","model":"Auto"}"#,
            delta_line("hello")
        );
        let options = paced_agent(&dir, "quick-agent.sh", &body);
        let consumer = Arc::new(SlowConsumer::default());
        consumer.holding.store(true, Ordering::SeqCst);
        let ctx = RunContext {
            runtime: Handle::current(),
            owner: 0,
        };
        let run = start_run(options, consumer.clone(), ctx);

        // The agent is done quickly and every batch (the text, then the closing outputs) is in
        // the consumer's hands, but not consumed: no result yet.
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let last_is_finish = consumer
                .batches
                .lock()
                .unwrap()
                .iter()
                .flatten()
                .last()
                .is_some_and(|o| matches!(o, Output::Part(p) if p["type"] == "finish"));
            if last_is_finish {
                break;
            }
            assert!(Instant::now() < deadline, "the closing outputs never came");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert!(tokio::time::timeout(Duration::from_millis(300), run.wait())
            .await
            .is_err());

        consumer.receipts.lock().unwrap().clear();
        let result = tokio::time::timeout(Duration::from_secs(5), run.wait())
            .await
            .unwrap();
        assert_eq!(result.exit_code, Some(0));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn reading_pauses_while_the_consumer_is_behind() {
        let dir = std::env::temp_dir().join(format!("ocn-run-{}", std::process::id()));
        let mut body = String::from(
            "echo '{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s1\",\"model\":\"Auto\"}'\n",
        );
        for i in 0..30 {
            // one line per write, 10 ms apart: one read, one batch each
            body.push_str(&format!(
                "echo '{}'\nsleep 0.01\n",
                delta_line(&format!("t{i} "))
            ));
        }
        body.push_str(
            "echo '{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"\",\"session_id\":\"s1\"}'\n",
        );
        let options = paced_agent(&dir, "paced-agent.sh", &body);
        let consumer = Arc::new(SlowConsumer::default());
        consumer.holding.store(true, Ordering::SeqCst);
        let ctx = RunContext {
            runtime: Handle::current(),
            owner: 0,
        };
        let run = start_run(options, consumer.clone(), ctx);

        let deadline = Instant::now() + Duration::from_secs(20);
        while consumer.batches.lock().unwrap().len() < MAX_BATCHES_IN_FLIGHT {
            assert!(Instant::now() < deadline, "the first batches never came");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        // The agent would have written everything by now; nothing more arrives while every
        // place in the queue is taken.
        tokio::time::sleep(Duration::from_millis(600)).await;
        assert_eq!(
            consumer.batches.lock().unwrap().len(),
            MAX_BATCHES_IN_FLIGHT
        );

        consumer.holding.store(false, Ordering::SeqCst);
        consumer.receipts.lock().unwrap().clear();
        let result = run.wait().await;
        assert_eq!(result.error, None);
        assert_eq!(result.session_id.as_deref(), Some("s1"));

        let text: String = consumer
            .batches
            .lock()
            .unwrap()
            .iter()
            .flatten()
            .filter_map(|o| match o {
                Output::Part(p) if p["type"] == "text-delta" => {
                    p["delta"].as_str().map(str::to_owned)
                }
                _ => None,
            })
            .collect();
        let expected: String = (0..30).map(|i| format!("t{i} ")).collect();
        assert_eq!(text, expected);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
