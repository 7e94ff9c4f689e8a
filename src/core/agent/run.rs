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

use tokio::io::AsyncWriteExt;
use tokio::process::Child;
use tokio::sync::{mpsc, watch, Semaphore};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::child::{exit_parts, start_agent, sweep, terminate, RunContext, Started};
use super::command::agent_args;
use super::options::{EnvVars, RunOptions};
use super::process::ProcessGroup;
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
use ending::{conclude, Concluded, Ending, Rerun};
pub(crate) use handle::StopReason;
use handle::StopSender;
pub use handle::{Receipt, RunHandle, RunResult, RunStep, StepReason, ToolAnswers};
use resume_hold::Hold;
use silence::Silence;

mod capture;
mod delivery;
mod ending;
mod handle;
mod preparation;
mod pump;
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
    /// The run's steps: prepare, start the child, feed it the prompt, read it until it ends,
    /// stop what is left of it, conclude.
    async fn drive(mut self) -> RunResult {
        let bridged_env = match self.prepare().await {
            Ok(env) => env,
            Err(error) => return self.fail_without_child(error).await,
        };
        let Started {
            mut child,
            group,
            launcher: _,
            registration,
        } = match self.start_child(bridged_env).await {
            Ok(started) => started,
            Err(error) => return self.fail_without_child(error).await,
        };
        let stdin_task = self.feed_prompt(&mut child);
        let stderr_tail = StderrTail::spawn(&self.ctx.runtime, child.stderr.take());
        let (ending, exit) = self.read_until_ending(&mut child).await;
        let status = self.stop_child(&ending, exit, &mut child, group).await;
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
        let outcome = self.outcome(&ending, &status, stderr_tail).await;
        self.report(ending, outcome).await
    }

    /// Saves the attachments and, with host tools, opens the bridge; returns the environment
    /// that points the child at the bridge. A run whose bridge fails is captured all the same.
    async fn prepare(&mut self) -> Result<Option<EnvVars>, CoreError> {
        self.save_attachments().await?;
        let opened = self.open_bridge().await;
        if opened.is_err() && self.options.capture.is_some() {
            let env = self.options.env.clone();
            self.open_capture(&agent_args(&self.options), None, None, env.as_ref());
        }
        opened
    }

    /// Starts cursor-agent in its environment (`bridged_env` when the bridge gave one); its
    /// secrets are remembered and the capture opened whether or not it started.
    async fn start_child(&mut self, bridged_env: Option<EnvVars>) -> Result<Started, CoreError> {
        let args = agent_args(&self.options);
        let child_env = bridged_env.or_else(|| self.options.env.clone());
        let started = start_agent(
            self.options.executable.as_deref(),
            self.options.env.as_ref(),
            child_env.as_ref(),
            args.clone(),
            Stdio::piped(),
            Some(self.options.workspace_dir()),
            &self.ctx,
        )
        .await;
        self.remember_secrets(child_env.as_ref());
        // Cursor updates itself between runs: which release ran belongs to every run's record.
        let launcher = started.as_ref().ok().map(|s| &s.launcher);
        let agent_version = launcher.and_then(launcher_version);
        self.open_capture(
            &args,
            launcher,
            agent_version.as_deref(),
            child_env.as_ref(),
        );
        let started = started?;
        tracing::info!(
            pid = ?started.child.id(),
            program = %started.launcher.program.display(),
            version = agent_version.as_deref().unwrap_or("unknown"),
            version_source = if agent_version.is_some() { "path" } else { "none" },
            "cursor-agent started"
        );
        Ok(started)
    }

    /// Writes the prompt to the child's stdin and closes it, on a task of its own.
    fn feed_prompt(&mut self, child: &mut Child) -> Option<JoinHandle<()>> {
        let mut stdin = child.stdin.take()?;
        let prompt = self.options.take_prompt();
        Some(self.ctx.runtime.spawn(async move {
            // A child that exits without reading everything closes the pipe: not our error.
            let _ = stdin.write_all(prompt.as_bytes()).await;
            let _ = stdin.shutdown().await;
        }))
    }

    /// Reads stdout until the run ends; the child's exit status when it was seen.
    async fn read_until_ending(
        &mut self,
        child: &mut Child,
    ) -> (Ending, Option<io::Result<ExitStatus>>) {
        self.silence.restart();
        let (ending, exit) = match child.stdout.take() {
            Some(stdout) => self.pump(stdout, child).await,
            None => (Ending::Finished, Some(child.wait().await)),
        };
        self.silence.end(ending.label());
        (ending, exit)
    }

    /// The child's exit status: the one it exited with when it finished, else after it was
    /// stopped (calls still held get their answers first).
    async fn stop_child(
        &mut self,
        ending: &Ending,
        exit: Option<io::Result<ExitStatus>>,
        child: &mut Child,
        group: Option<ProcessGroup>,
    ) -> io::Result<ExitStatus> {
        if let Some(bridge) = &self.bridge {
            if bridge.end_calls() > 0 && !matches!(ending, Ending::Finished) {
                tokio::time::sleep(ANSWERS_BEFORE_STOP).await;
            }
        }
        match (ending, exit) {
            (Ending::Finished, Some(status)) => status,
            (_, exit) => terminate(child, group, exit).await,
        }
    }

    /// What the child left: its exit, and its stderr with every secret masked (it reaches error
    /// messages and the log).
    async fn outcome(
        &self,
        ending: &Ending,
        status: &io::Result<ExitStatus>,
        stderr_tail: StderrTail,
    ) -> Outcome {
        let stderr = self.secrets.text(&stderr_tail.finish().await).into_owned();
        let (exit_code, signal) = exit_parts(status);
        // Cursor's own counts, for the whole turn (hosts may report something else as usage).
        tracing::info!(
            ?ending,
            ?exit_code,
            ?signal,
            usage = ?self.transformer.usage(),
            init_version = self.transformer.agent_version().unwrap_or("none"),
            "cursor-agent ended"
        );
        Outcome {
            exit_code,
            signal,
            stderr,
            cancelled: matches!(ending, Ending::Stopped(StopReason::Cancel)),
        }
    }

    /// Concludes the ending, delivers the closing outputs, waits until every batch is consumed
    /// and ends the capture: the run's result.
    async fn report(&mut self, ending: Ending, outcome: Outcome) -> RunResult {
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
        let error = self
            .deliver_last(last, error, outcome.cancelled)
            .await
            .map(|error| error.map_text(|text| self.secrets.text(text).into_owned()));
        let skipped_lines = self.transformer.skipped_lines();
        let capture = self.end_capture(EndInfo {
            ending: ending_label,
            exit_code: outcome.exit_code,
            signal: outcome.signal.as_deref(),
            cancelled: outcome.cancelled,
            error: error.as_ref(),
            skipped_lines,
            ..EndInfo::default()
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
            exit_code: outcome.exit_code,
            signal: outcome.signal,
            cancelled: outcome.cancelled,
            session_id: self.transformer.session_id().map(str::to_owned),
            usage: self.transformer.usage().cloned(),
            error,
            rerunnable,
            skipped_lines,
            refused_bridge_calls: self.transformer.refused_bridge_calls(),
            capture,
        }
    }

    async fn fail_without_child(mut self, error: CoreError) -> RunResult {
        let mut closing = Vec::new();
        let noted = self.transformer.noted(error.clone());
        self.transformer.fail(error, &mut closing);
        let error = self.deliver_last(closing, Some(noted), false).await;
        let capture = self.end_capture(EndInfo {
            ending: "not started",
            error: error.as_ref(),
            ..EndInfo::default()
        });
        RunResult {
            error,
            capture,
            ..RunResult::default()
        }
    }
}

#[cfg(all(test, unix))]
mod tests;
