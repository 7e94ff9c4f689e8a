//! Answering every request before Cursor's MCP client gives up on it.
//!
//! Cursor's client fails any `tools/call` after 60 s (the MCP SDK's default, no progress
//! token, no reset) and cancels it with `notifications/cancelled`. So a call is answered
//! within [`DEFAULT_DEADLINE`]: with the host's result when it came in time, else with a short
//! "still running" text telling the model to call [`WAIT_TOOL`]. The call is *parked*: the
//! host still runs it once, and its result waits here for the model's next wait call, which
//! long-polls under the same deadline. A long result's rest is kept as a page for
//! [`MORE_TOOL`]. Neither tool is ever handed to the host.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use tokio::sync::oneshot;

use super::held::Answer;
use super::RUN_ENDED;

/// Cursor's limit is 60 s; 15 s of room for a loaded machine and the answer's way back.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(45);
/// The tool the model calls for a parked call's result.
pub const WAIT_TOOL: &str = "opencode_wait";
/// The tool the model calls for the rest of a long result.
pub const MORE_TOOL: &str = "opencode_more";

/// How a wait for the host's answer ended.
#[derive(Debug)]
pub enum Waited {
    Answered(Answer),
    /// The deadline came first: the call is parked as this job.
    StillRunning(u64),
    /// Cursor cancelled the request: the call is parked as this job (the caller may withdraw it).
    Cancelled(u64),
}

#[derive(Debug)]
enum Slot {
    Pending(oneshot::Receiver<Answer>),
    /// A wait call holds the receiver now.
    Watched,
}

/// The run's parked calls and kept pages.
#[derive(Debug)]
pub struct Parked {
    deadline_ms: AtomicU64,
    /// Each parked job's tool and answer to come.
    jobs: Mutex<HashMap<u64, (String, Slot)>>,
    pages: Mutex<(u64, HashMap<u64, String>)>,
}

impl Default for Parked {
    fn default() -> Self {
        Self {
            deadline_ms: AtomicU64::new(millis(DEFAULT_DEADLINE)),
            jobs: Mutex::default(),
            pages: Mutex::default(),
        }
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // The maps stay usable whatever a panicking holder left: a lost entry only loses a result.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Parked {
    pub fn deadline(&self) -> Duration {
        Duration::from_millis(self.deadline_ms.load(Ordering::Relaxed))
    }

    pub fn set_deadline(&self, deadline: Duration) {
        self.deadline_ms.store(millis(deadline), Ordering::Relaxed);
    }

    /// Wait for job `job`'s answer until the deadline or `cancelled`, parking it if it has not
    /// come.
    pub async fn answer_within(
        &self,
        job: u64,
        tool: &str,
        mut answer: oneshot::Receiver<Answer>,
        cancelled: impl Future<Output = ()>,
    ) -> Waited {
        tokio::select! {
            got = &mut answer => Waited::Answered(got.unwrap_or_else(|_| Answer::error(RUN_ENDED))),
            () = tokio::time::sleep(self.deadline()) => {
                lock(&self.jobs).insert(job, (tool.to_owned(), Slot::Pending(answer)));
                tracing::info!(job, tool, deadline = ?self.deadline(), "tool call parked: the host has not answered by the deadline");
                Waited::StillRunning(job)
            }
            () = cancelled => {
                lock(&self.jobs).insert(job, (tool.to_owned(), Slot::Pending(answer)));
                tracing::info!(job, tool, "Cursor cancelled a tool call");
                Waited::Cancelled(job)
            }
        }
    }

    /// Forget a parked job (it was withdrawn before the host saw it).
    pub fn forget(&self, job: u64) {
        lock(&self.jobs).remove(&job);
    }

    /// The wait tool: job `job`'s answer when it comes by the deadline, and the job's tool.
    pub async fn wait(&self, job: u64, cancelled: impl Future<Output = ()>) -> (Waited, String) {
        let taken = {
            let mut jobs = lock(&self.jobs);
            match jobs.get_mut(&job) {
                Some((tool, slot @ Slot::Pending(_))) => {
                    Ok((tool.clone(), std::mem::replace(slot, Slot::Watched)))
                }
                Some((_, Slot::Watched)) => Err(format!(
                    "Job {job} is already being waited for by another {WAIT_TOOL} call."
                )),
                None => Err(format!(
                    "There is no running job {job}: its result was given already, or it never \
existed."
                )),
            }
        };
        let (tool, answer) = match taken {
            Ok((tool, Slot::Pending(answer))) => (tool, answer),
            Ok((tool, Slot::Watched)) => return (Waited::Answered(Answer::error(RUN_ENDED)), tool),
            Err(why) => return (Waited::Answered(Answer::error(why)), WAIT_TOOL.to_owned()),
        };
        let waited = self.answer_within(job, &tool, answer, cancelled).await;
        if let Waited::Answered(_) = waited {
            lock(&self.jobs).remove(&job);
        }
        (waited, tool)
    }

    /// The page's text (given once).
    pub fn take_page(&self, page: u64) -> Option<String> {
        lock(&self.pages).1.remove(&page)
    }

    /// A page's number, reserved before its text is known.
    pub fn next_page(&self) -> u64 {
        let mut pages = lock(&self.pages);
        pages.0 += 1;
        pages.0
    }

    /// Keep `rest` as page `page` (reserved with [`Self::next_page`]).
    pub fn put_page(&self, page: u64, rest: String) {
        lock(&self.pages).1.insert(page, rest);
    }
}

/// The "still running" answer of a parked call of tool `tool`.
pub fn still_running(tool: &str, job: u64, deadline: Duration) -> String {
    format!(
        "The tool `{tool}` is still running in OpenCode (job {job}); its result is not lost. \
Call the tool `{WAIT_TOOL}` with {{\"job\": {job}}} to get it (each call waits up to {} s; \
call it again while it says the job is still running). Do not call `{tool}` again for this: \
it would run twice.",
        deadline.as_secs()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::bridge::held::AnswerContent;

    fn text(waited: &Waited) -> &str {
        match waited {
            Waited::Answered(answer) => match &answer.content[0] {
                AnswerContent::Text(t) => t,
                AnswerContent::Image { .. } => "image",
            },
            _ => "not answered",
        }
    }

    #[tokio::test]
    async fn a_late_answer_is_parked_then_given_to_the_wait_call() {
        let parked = Parked::default();
        parked.set_deadline(Duration::from_millis(20));
        let (tx, rx) = oneshot::channel();
        let first = parked
            .answer_within(3, "bash", rx, std::future::pending())
            .await;
        assert!(matches!(first, Waited::StillRunning(3)));
        // The wait call runs out too: still parked.
        let (again, tool) = parked.wait(3, std::future::pending()).await;
        assert!(matches!(again, Waited::StillRunning(3)));
        assert_eq!(tool, "bash");
        tx.send(Answer::error("late but whole")).unwrap();
        let (got, _) = parked.wait(3, std::future::pending()).await;
        assert_eq!(text(&got), "late but whole");
        // Given once.
        let (gone, _) = parked.wait(3, std::future::pending()).await;
        assert!(text(&gone).contains("no running job 3"));
    }

    #[tokio::test]
    async fn a_cancelled_call_is_parked_and_can_be_forgotten() {
        let parked = Parked::default();
        let (_tx, rx) = oneshot::channel();
        let waited = parked.answer_within(1, "read", rx, async {}).await;
        assert!(matches!(waited, Waited::Cancelled(1)));
        parked.forget(1);
        let (gone, _) = parked.wait(1, std::future::pending()).await;
        assert!(text(&gone).contains("no running job"));
    }

    #[test]
    fn pages_are_given_once() {
        let parked = Parked::default();
        let page = parked.next_page();
        parked.put_page(page, "rest".into());
        assert_eq!(parked.take_page(page).as_deref(), Some("rest"));
        assert_eq!(parked.take_page(page), None);
        assert_ne!(parked.next_page(), page);
    }
}
