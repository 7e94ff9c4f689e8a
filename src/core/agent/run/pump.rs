//! The loop of a run: what comes first of a stop, a limit, stdout, the child's exit, a tool
//! call or the host's answers, and what each does, until one of them ends the run.
//!
//! With host tools, the calls of each model step are handed to the consumer once calls and
//! stdout have both been quiet for a moment; the run then waits (neither limit counting) for
//! the answers, keeping what stdout still brings for after them.

use std::io;
use std::process::ExitStatus;

use tokio::io::AsyncReadExt;
use tokio::process::{Child, ChildStdout};
use tokio::time::Instant;

use super::ending::{Ending, TimeoutKind};
use super::tool_steps::Steps;
use super::{silence, sleep_until, stop_requested, Run, RunStep, ToolAnswers};
use super::{READ_BUFFER_BYTES, STDOUT_DRAIN_AFTER_EXIT};
use crate::core::agent::child::exit_parts;
use crate::core::stream::encode::Output;

/// What the loop keeps from one event to the next.
struct Pump {
    buf: Vec<u8>,
    outputs: Vec<Output>,
    stdout_open: bool,
    exit: Option<io::Result<ExitStatus>>,
    /// After the child exited: when stdout, still open, is given up.
    drain_until: Option<Instant>,
    overall_from: Instant,
    /// Since when the child has said nothing (a call's arrival counts as saying something).
    idle_from: Instant,
    last_read: Instant,
    steps: Steps,
    answers_open: bool,
}

impl Pump {
    /// The child said something now: the idle limit starts over, and so does the drain.
    fn heard(&mut self) {
        self.idle_from = Instant::now();
        if self.exit.is_some() {
            self.drain_until = Some(self.idle_from + STDOUT_DRAIN_AFTER_EXIT);
        }
    }
}

enum Event {
    /// A stop or a limit.
    End(Ending),
    Drained,
    Read(io::Result<usize>),
    Exited(io::Result<ExitStatus>),
    CallArrived,
    HandOver,
    Answered(Option<ToolAnswers>),
}

impl Run {
    /// Read stdout until it closes and the child exits, or until something ends the run early.
    pub(super) async fn pump(
        &mut self,
        mut stdout: ChildStdout,
        child: &mut Child,
    ) -> (Ending, Option<io::Result<ExitStatus>>) {
        let steps = Steps::new(self.bridge.as_ref(), self.options.host_tools.as_ref());
        let now = Instant::now();
        let mut pump = Pump {
            buf: vec![0u8; READ_BUFFER_BYTES],
            outputs: Vec::new(),
            stdout_open: true,
            exit: None,
            drain_until: None,
            overall_from: now,
            idle_from: now,
            last_read: now,
            answers_open: steps.bridged(),
            steps,
        };
        loop {
            if !pump.stdout_open && pump.exit.is_some() {
                return (self.finish_reading(&mut pump), pump.exit);
            }
            // Held time counts toward neither limit; an open tool call can legitimately run
            // for long without output.
            let overall = match pump.steps.is_waiting() {
                false => self
                    .options
                    .timeout
                    .map(|t| pump.overall_from + t + pump.steps.waited()),
                true => None,
            };
            let event = self
                .next_event(&mut pump, overall, &mut stdout, child)
                .await;
            if let Err(ending) = self.handle(event, &mut pump, overall).await {
                return (ending, pump.exit);
            }
        }
    }

    async fn next_event(
        &mut self,
        pump: &mut Pump,
        overall: Option<Instant>,
        stdout: &mut ChildStdout,
        child: &mut Child,
    ) -> Event {
        let idle = match (pump.steps.is_waiting(), self.transformer.open_tool_calls()) {
            (false, 0) => self.options.idle_timeout.map(|d| pump.idle_from + d),
            _ => None,
        };
        let hand_over_at = pump.steps.hand_over_at(pump.last_read);
        let wait_ends = pump.steps.wait_ends();
        let limit = |kind| Event::End(Ending::Timeout(kind));
        let overall_limit = self.options.timeout.unwrap_or_default();
        let idle_limit = self.options.idle_timeout.unwrap_or_default();
        tokio::select! {
            biased;
            reason = stop_requested(&mut self.stop_rx) => Event::End(Ending::Stopped(reason)),
            () = sleep_until(overall) => limit(TimeoutKind::Overall(overall_limit)),
            () = sleep_until(idle) => limit(TimeoutKind::Idle(idle_limit)),
            () = sleep_until(wait_ends) => limit(TimeoutKind::ToolWait(pump.steps.wait_limit())),
            answers = self.answers.recv(), if pump.answers_open => Event::Answered(answers),
            read = stdout.read(&mut pump.buf), if pump.stdout_open => Event::Read(read),
            status = child.wait(), if pump.exit.is_none() => Event::Exited(status),
            () = pump.steps.arrival() => Event::CallArrived,
            () = sleep_until(hand_over_at) => Event::HandOver,
            () = sleep_until(pump.drain_until) => Event::Drained,
        }
    }

    /// What `event` does; an ending stops the loop.
    async fn handle(
        &mut self,
        event: Event,
        pump: &mut Pump,
        overall: Option<Instant>,
    ) -> Result<(), Ending> {
        match event {
            Event::End(ending) => return Err(ending),
            Event::Drained => return Err(self.finish_reading(pump)),
            Event::Exited(status) => self.exited(pump, status),
            Event::CallArrived => pump.idle_from = Instant::now(),
            Event::HandOver => self.hand_over(pump, overall).await?,
            Event::Answered(None) => pump.answers_open = false,
            Event::Answered(Some(answers)) => self.answered(pump, answers).await?,
            Event::Read(Ok(0)) => self.stdout_closed(pump),
            Event::Read(Err(error)) => {
                tracing::warn!(%error, "reading cursor-agent stdout failed");
                self.stdout_closed(pump);
            }
            Event::Read(Ok(n)) => self.read(pump, n, overall).await?,
        }
        Ok(())
    }

    /// The run ends as it should; what was kept for after answers never came goes out last.
    fn finish_reading(&mut self, pump: &mut Pump) -> Ending {
        self.hold.keep_undelivered(pump.steps.take_kept());
        Ending::Finished
    }

    /// The child exited: stdout has a moment to drain.
    fn exited(&mut self, pump: &mut Pump, status: io::Result<ExitStatus>) {
        self.silence.end(silence::EXIT);
        if let Some(capture) = &self.capture {
            let (code, signal) = exit_parts(&status);
            capture.exited(code, signal.as_deref());
        }
        pump.exit = Some(status);
        pump.drain_until = Some(Instant::now() + STDOUT_DRAIN_AFTER_EXIT);
    }

    fn stdout_closed(&mut self, pump: &mut Pump) {
        self.silence.end(silence::STDOUT_CLOSED);
        pump.stdout_open = false;
    }

    /// Calls and stdout were quiet: the step's calls go to the consumer with its end.
    async fn hand_over(&mut self, pump: &mut Pump, overall: Option<Instant>) -> Result<(), Ending> {
        let calls = pump
            .steps
            .hand_over(&mut self.transformer, &mut pump.outputs);
        let step = (!calls.is_empty()).then(|| RunStep::handed_over(calls));
        self.admit_and_deliver(&mut pump.outputs, 0, overall, step)
            .await
    }

    /// The host's answers; once every call is answered, what stdout brought meanwhile goes out.
    async fn answered(&mut self, pump: &mut Pump, answers: ToolAnswers) -> Result<(), Ending> {
        if let Some(capture) = &self.capture {
            capture.answered(answers.iter().map(|(id, _)| id.clone()).collect());
        }
        let Some(mut kept) = pump.steps.answer(answers) else {
            return Ok(());
        };
        pump.idle_from = Instant::now();
        self.admit_and_deliver(&mut kept, 0, None, None).await
    }

    /// `n` bytes of stdout: translated, then kept while the host answers, else delivered.
    async fn read(
        &mut self,
        pump: &mut Pump,
        n: usize,
        overall: Option<Instant>,
    ) -> Result<(), Ending> {
        self.silence.end(silence::OUTPUT);
        pump.heard();
        pump.last_read = pump.idle_from;
        if let Err(error) = self.transformer.push(&pump.buf[..n], &mut pump.outputs) {
            tracing::warn!(%error, "the transformer refused stdout");
        }
        pump.steps.announce(self.transformer.take_bridged_starts());
        if pump.steps.keep(&mut pump.outputs) {
            return Ok(());
        }
        self.admit_and_deliver(&mut pump.outputs, n, overall, None)
            .await?;
        // Time spent waiting for the consumer is not the child's silence.
        pump.heard();
        self.silence.restart();
        Ok(())
    }
}
