//! One cursor-agent run: spawn, feed the prompt, translate stdout, deliver batches, stop.
//!
//! Ordering and backpressure: every read from the child's stdout becomes at most one batch of
//! outputs, handed to an [`OutputSink`] with a [`Receipt`]. A receipt holds one of
//! [`MAX_BATCHES_IN_FLIGHT`] permits until the consumer is done with its batch, so when the
//! consumer falls behind, reading stops (and the pipe fills and pauses the child). The result
//! is published only after every permit came back: every batch was consumed before it.

use std::io;
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdout};
use tokio::sync::{mpsc, watch, Semaphore};
use tokio::time::Instant;

use super::child::{exit_parts, start_agent, sweep, terminate, RunContext, Started};
use super::command::agent_args;
use super::options::{EnvVars, RunOptions};
use super::resolve::{launcher_version, Launcher};
use super::stderr_tail::StderrTail;
use crate::core::attachments::AttachmentFolder;
use crate::core::bridge::ToolBridge;
use crate::core::capture::{Capture, EndInfo};
use crate::core::error::CoreError;
use crate::core::secrets::Secrets;
use crate::core::stream::encode::Output;
use crate::core::stream::transformer::StreamTransformer;
use crate::core::stream::translate::Outcome;
use ending::{conclude, Concluded, Ending, Rerun, TimeoutKind};
pub(crate) use handle::StopReason;
use handle::StopSender;
pub use handle::{Receipt, RunHandle, RunResult, RunStep, StepReason, ToolAnswers};
use resume_hold::Hold;
use silence::Silence;
use tool_steps::Steps;

mod capture;
mod delivery;
mod ending;
mod handle;
mod preparation;
mod resume_hold;
mod silence;
mod tool_steps;

/// Batches handed to the consumer and not yet consumed, at most.
pub const MAX_BATCHES_IN_FLIGHT: usize = 8;
const READ_BUFFER_BYTES: usize = 64 * 1024;
/// After the child exits, how long stdout may stay open and silent (held open by something it
/// started) before the run is over.
const STDOUT_DRAIN_AFTER_EXIT: Duration = Duration::from_secs(1);
/// When a run with held tool calls is stopped, how long their error answers have to reach
/// cursor-agent before its group is signalled.
const ANSWERS_BEFORE_STOP: Duration = Duration::from_millis(100);

/// Where a run's outputs go (the JS callback, in the addon).
pub trait OutputSink: Send + Sync + 'static {
    /// Hand one batch to the consumer, in order, with how its step ended when it ends one.
    /// Keep `receipt` until the consumer is done with the batch, then drop it, or call
    /// [`Receipt::callback_failed`]. Returns false when the consumer is gone (nothing will
    /// consume this or any later batch).
    fn deliver(&self, batch: Vec<Output>, step: Option<RunStep>, receipt: Receipt) -> bool;
}

/// Start a run of validated `options`; outputs go to `sink`. Never fails: every failure is
/// reported through the sink's closing outputs and the [`RunResult`].
pub fn start_run(options: RunOptions, sink: Arc<dyn OutputSink>, ctx: RunContext) -> RunHandle {
    let (stop_tx, stop_rx) = watch::channel(None);
    let stop_tx = Arc::new(stop_tx);
    let (result_tx, result_rx) = watch::channel(None);
    let (answers_tx, answers_rx) = mpsc::unbounded_channel();
    let resuming = options.resume_chat_id.is_some();
    let run = Run {
        transformer: StreamTransformer::new(options.transformer.clone()),
        options,
        sink,
        permits: Arc::new(Semaphore::new(MAX_BATCHES_IN_FLIGHT)),
        stop_tx: stop_tx.clone(),
        stop_rx,
        hold: Hold::new(resuming),
        ctx: ctx.clone(),
        bridge: None,
        answers: answers_rx,
        capture: None,
        delivered: 0,
        silence: Silence::new(),
        secrets: Secrets::default(),
        attachments: None,
    };
    ctx.runtime.spawn(async move {
        let result = run.drive().await;
        result_tx.send_replace(Some(result));
    });
    RunHandle {
        stop: stop_tx,
        result: result_rx,
        answers: answers_tx,
    }
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
    /// Outputs kept back from the consumer (see [`Hold`]).
    hold: Hold,
    ctx: RunContext,
    /// With host tools: the MCP server the child calls them through. Dropped with the run,
    /// which answers any call still held with an error.
    bridge: Option<ToolBridge>,
    answers: mpsc::UnboundedReceiver<ToolAnswers>,
    /// When the run is captured.
    capture: Option<Capture>,
    /// Outputs handed to the sink so far.
    delivered: u64,
    /// Since when stdout has been silent (long silences are logged).
    silence: Silence,
    /// The secrets this run hands its child: what cursor-agent prints is masked with them
    /// before it reaches an error message.
    secrets: Secrets,
    /// The attachments the prompt names, saved; removed when the run is over.
    attachments: Option<AttachmentFolder>,
}

impl Run {
    async fn drive(mut self) -> RunResult {
        if let Err(error) = self.save_attachments().await {
            return self.fail_without_child(error).await;
        }
        let bridged_env = match self.open_bridge().await {
            Ok(env) => env,
            Err(error) => {
                if self.options.capture.is_some() {
                    let env = self.options.env.clone();
                    self.open_capture(&agent_args(&self.options), None, None, env.as_ref());
                }
                return self.fail_without_child(error).await;
            }
        };
        let args = agent_args(&self.options);
        let started = start_agent(
            self.options.executable.as_deref(),
            self.options.env.as_ref(),
            bridged_env.as_ref().or(self.options.env.as_ref()),
            args.clone(),
            Stdio::piped(),
            Some(self.options.workspace_dir()),
            &self.ctx,
        )
        .await;
        let child_env = bridged_env.clone().or_else(|| self.options.env.clone());
        self.remember_secrets(child_env.as_ref());
        // Cursor updates itself between runs: which release ran belongs to every run's record.
        let agent_version = started
            .as_ref()
            .ok()
            .and_then(|s| launcher_version(&s.launcher));
        if self.options.capture.is_some() {
            let env = bridged_env.clone().or_else(|| self.options.env.clone());
            let launcher = started.as_ref().ok().map(|s| s.launcher.clone());
            self.open_capture(
                &args,
                launcher.as_ref(),
                agent_version.as_deref(),
                env.as_ref(),
            );
        }
        let Started {
            mut child,
            group,
            launcher,
            registration,
        } = match started {
            Ok(started) => started,
            Err(error) => return self.fail_without_child(error).await,
        };
        tracing::info!(
            pid = ?child.id(),
            program = %launcher.program.display(),
            version = agent_version.as_deref().unwrap_or("unknown"),
            version_source = if agent_version.is_some() { "path" } else { "none" },
            "cursor-agent started"
        );

        let stdin_task = child.stdin.take().map(|mut stdin| {
            let prompt = self.options.take_prompt();
            self.ctx.runtime.spawn(async move {
                // A child that exits without reading everything closes the pipe: not our error.
                let _ = stdin.write_all(prompt.as_bytes()).await;
                let _ = stdin.shutdown().await;
            })
        });
        let stderr_tail = StderrTail::spawn(&self.ctx.runtime, child.stderr.take());

        self.silence.restart();
        let (ending, exit) = match child.stdout.take() {
            Some(stdout) => self.pump(stdout, &mut child).await,
            None => (Ending::Finished, Some(child.wait().await)),
        };
        self.silence.end(ending.label());
        // Calls still held get their answer before the child is stopped.
        if let Some(bridge) = &self.bridge {
            if bridge.end_calls() > 0 && !matches!(ending, Ending::Finished) {
                tokio::time::sleep(ANSWERS_BEFORE_STOP).await;
            }
        }
        let status = match (&ending, exit) {
            (Ending::Finished, Some(status)) => status,
            (_, exit) => terminate(&mut child, group, exit).await,
        };
        // A run that did not end with a clean exit may have been cut in the middle of a record.
        let clean_exit =
            matches!(ending, Ending::Finished) && status.as_ref().is_ok_and(ExitStatus::success);
        if !clean_exit {
            self.transformer.drop_unterminated();
        }
        // However the run ended, nothing it started may outlive it.
        sweep(&self.ctx.runtime, group, registration);

        if let Some(task) = stdin_task {
            task.abort();
        }
        // What cursor-agent printed reaches error messages and the log: never with a secret.
        let stderr = self.secrets.text(&stderr_tail.finish().await).into_owned();
        let (exit_code, signal) = exit_parts(&status);
        let cancelled = matches!(ending, Ending::Stopped(StopReason::Cancel));
        let outcome = Outcome {
            exit_code,
            signal: signal.clone(),
            stderr,
            cancelled,
        };
        // Cursor's own counts, for the whole turn (hosts may report something else as usage).
        tracing::info!(
            ?ending,
            ?exit_code,
            ?signal,
            usage = ?self.transformer.usage(),
            init_version = self.transformer.agent_version().unwrap_or("none"),
            "cursor-agent ended"
        );
        let ending_label = ending.label();

        let rerun = Rerun {
            asked: self.options.rerunnable_drop,
            nothing_delivered: self.delivered == 0,
        };
        let Concluded {
            error,
            closing,
            rerunnable,
        } = conclude(
            ending,
            &outcome,
            &mut self.transformer,
            &mut self.hold,
            self.options.resume_chat_id.as_deref(),
            rerun,
        );
        if let Some(error) = &error {
            // The whole text, Cursor's words included: a front end may show only the explanation.
            tracing::warn!(code = %error.code(), "cursor-agent run failed: {error}");
        }
        let mut last = self.hold.release();
        last.extend(closing);
        self.deliver_closing(last, error.as_ref(), cancelled).await;
        self.settle().await;
        let error = self
            .late_callback_failure()
            .or(error)
            .map(|error| error.map_text(|text| self.secrets.text(text).into_owned()));
        let skipped_lines = self.transformer.skipped_lines();
        let capture = self.end_capture(EndInfo {
            ending: ending_label,
            exit_code,
            signal: signal.as_deref(),
            cancelled,
            error: error.as_ref(),
            skipped_lines,
            delivered: 0,
            agent_version: None,
        });
        if skipped_lines > 0 {
            tracing::warn!(
                skipped_lines,
                max_line_bytes = self.options.transformer.max_line_bytes,
                "cursor-agent printed records that could not be used (too long, not UTF-8 or \
                 not a JSON object); they were skipped"
            );
        }

        RunResult {
            exit_code,
            signal,
            cancelled,
            session_id: self.transformer.session_id().map(str::to_owned),
            usage: self.transformer.usage().cloned(),
            error,
            rerunnable,
            skipped_lines,
            refused_bridge_calls: self.transformer.refused_bridge_calls(),
            capture,
        }
    }

    /// Read stdout until it closes and the child exits, or until something ends the run early.
    /// With host tools, the calls of each model step are handed to the consumer once calls and
    /// stdout have both been quiet for a moment; the run then waits (neither limit counting)
    /// for the answers, keeping what stdout still brings for after them.
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
        let overall_from = Instant::now();
        let mut idle_from = Instant::now();
        let mut last_read = Instant::now();
        let mut steps = Steps::new(self.bridge.as_ref(), self.options.host_tools.as_ref());
        let mut answers_open = steps.bridged();

        enum Event {
            Stop(StopReason),
            Overall,
            Idle,
            Drained,
            Read(io::Result<usize>),
            Exited(io::Result<ExitStatus>),
            CallArrived,
            HandOver,
            Answered(Option<ToolAnswers>),
            WaitedTooLong,
        }
        loop {
            if !stdout_open && exit.is_some() {
                self.hold.keep_undelivered(steps.take_kept());
                return (Ending::Finished, exit);
            }
            // Held time counts toward neither limit; an open tool call can legitimately run
            // for long without output.
            let idle = match (steps.is_waiting(), self.transformer.open_tool_calls()) {
                (false, 0) => self.options.idle_timeout.map(|d| idle_from + d),
                _ => None,
            };
            let overall = match steps.is_waiting() {
                false => self
                    .options
                    .timeout
                    .map(|t| overall_from + t + steps.waited()),
                true => None,
            };
            let hand_over_at = steps.hand_over_at(last_read);
            let wait_ends = steps.wait_ends();
            let event = tokio::select! {
                biased;
                reason = stop_requested(&mut self.stop_rx) => Event::Stop(reason),
                () = sleep_until(overall) => Event::Overall,
                () = sleep_until(idle) => Event::Idle,
                () = sleep_until(wait_ends) => Event::WaitedTooLong,
                answers = self.answers.recv(), if answers_open => Event::Answered(answers),
                read = stdout.read(&mut buf), if stdout_open => Event::Read(read),
                status = child.wait(), if exit.is_none() => Event::Exited(status),
                () = steps.arrival() => Event::CallArrived,
                () = sleep_until(hand_over_at) => Event::HandOver,
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
                Event::WaitedTooLong => {
                    let limit = steps.wait_limit();
                    return (Ending::Timeout(TimeoutKind::ToolWait(limit)), exit);
                }
                Event::Drained => {
                    self.hold.keep_undelivered(steps.take_kept());
                    return (Ending::Finished, exit);
                }
                Event::Exited(status) => {
                    self.silence.end(silence::EXIT);
                    if let Some(capture) = &self.capture {
                        let (code, signal) = exit_parts(&status);
                        capture.exited(code, signal.as_deref());
                    }
                    exit = Some(status);
                    drain_until = Some(Instant::now() + STDOUT_DRAIN_AFTER_EXIT);
                }
                Event::CallArrived => idle_from = Instant::now(),
                Event::HandOver => {
                    let calls = steps.hand_over(&mut self.transformer, &mut outputs);
                    let step = (!calls.is_empty()).then(|| RunStep::handed_over(calls));
                    if let Err(ending) =
                        self.admit_and_deliver(&mut outputs, 0, overall, step).await
                    {
                        return (ending, exit);
                    }
                }
                Event::Answered(None) => answers_open = false,
                Event::Answered(Some(answers)) => {
                    if let Some(capture) = &self.capture {
                        capture.answered(answers.iter().map(|(id, _)| id.clone()).collect());
                    }
                    let Some(mut kept) = steps.answer(answers) else {
                        continue;
                    };
                    idle_from = Instant::now();
                    if let Err(ending) = self.admit_and_deliver(&mut kept, 0, None, None).await {
                        return (ending, exit);
                    }
                }
                Event::Read(Ok(0)) => {
                    self.silence.end(silence::STDOUT_CLOSED);
                    stdout_open = false;
                }
                Event::Read(Err(error)) => {
                    tracing::warn!(%error, "reading cursor-agent stdout failed");
                    self.silence.end(silence::STDOUT_CLOSED);
                    stdout_open = false;
                }
                Event::Read(Ok(n)) => {
                    self.silence.end(silence::OUTPUT);
                    idle_from = Instant::now();
                    last_read = idle_from;
                    if exit.is_some() {
                        drain_until = Some(idle_from + STDOUT_DRAIN_AFTER_EXIT);
                    }
                    if let Err(error) = self.transformer.push(&buf[..n], &mut outputs) {
                        tracing::warn!(%error, "the transformer refused stdout");
                    }
                    steps.announce(self.transformer.take_bridged_starts());
                    if steps.keep(&mut outputs) {
                        continue;
                    }
                    if let Err(ending) =
                        self.admit_and_deliver(&mut outputs, n, overall, None).await
                    {
                        return (ending, exit);
                    }
                    // Time spent waiting for the consumer is not the child's silence.
                    idle_from = Instant::now();
                    self.silence.restart();
                    if exit.is_some() {
                        drain_until = Some(idle_from + STDOUT_DRAIN_AFTER_EXIT);
                    }
                }
            }
        }
    }

    async fn fail_without_child(mut self, error: CoreError) -> RunResult {
        let mut closing = Vec::new();
        let noted = self.transformer.noted(error.clone());
        self.transformer.fail(error, &mut closing);
        self.deliver_closing(closing, Some(&noted), false).await;

        self.settle().await;
        let error = self.late_callback_failure().unwrap_or(noted);
        let capture = self.end_capture(EndInfo {
            ending: "not started",
            exit_code: None,
            signal: None,
            cancelled: false,
            error: Some(&error),
            skipped_lines: 0,
            delivered: 0,
            agent_version: None,
        });
        RunResult {
            error: Some(error),
            capture,
            ..RunResult::default()
        }
    }
}

#[cfg(all(test, unix))]
mod tests;
