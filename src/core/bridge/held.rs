//! Calls cursor-agent made over MCP, each held open until the host answers it.
//!
//! A call is *waiting* from its arrival until the runner hands it to the host with the rest of
//! its model step ([`HeldCalls::take_step`]), then *handed over* until the host's answer (or
//! the run's end) completes the MCP request. Calls of one step may arrive concurrently or one
//! after another; holding one never blocks the arrival of the next.

use std::collections::HashMap;
use std::sync::Mutex;

use tokio::sync::{oneshot, Notify};
use tokio::time::Instant;

impl<'a> From<&'a HostCall> for crate::core::stream::translate::HandedCall<'a> {
    fn from(call: &'a HostCall) -> Self {
        Self {
            id: &call.id,
            name: &call.name,
            input: &call.input,
        }
    }
}

crate::core::api::wire::wire_struct! {
    /// A tool call handed to the host, exactly as Cursor sent it.
    pub struct HostCall as named (derive(serde::Serialize, Eq)) {
        /// The call's id, which its answer names.
        id "id": String,
        /// The host's tool.
        name "name": String,
        /// The arguments, as JSON text.
        input "input": String,
    }
}

/// One piece of a tool's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnswerContent {
    Text(String),
    /// Base64 data and its media type.
    Image {
        data: String,
        mime_type: String,
    },
}

/// The host's result of one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub content: Vec<AnswerContent>,
    /// The tool failed or was refused; the content says why.
    pub is_error: bool,
}

impl Answer {
    pub fn error(message: impl Into<String>) -> Self {
        Self {
            content: vec![AnswerContent::Text(message.into())],
            is_error: true,
        }
    }
}

/// A call held for the host: its job number (how the model asks for it again after the
/// deadline, see [`super::parked`]) and the host's answer to come.
#[derive(Debug)]
pub struct Held {
    pub job: u64,
    pub answer: oneshot::Receiver<Answer>,
}

#[derive(Debug)]
struct Waiting {
    call: HostCall,
    job: u64,
}

#[derive(Debug, Default)]
struct State {
    waiting: Vec<Waiting>,
    open: HashMap<String, oneshot::Sender<Answer>>,
    last_arrival: Option<Instant>,
    next: u64,
    /// Why new calls are refused at once (the run is over).
    closed: Option<String>,
}

/// The held calls of one run.
#[derive(Debug, Default)]
pub struct HeldCalls {
    state: Mutex<State>,
    arrived: Notify,
}

/// What the host answered that did not match a handed-over call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownCalls(pub Vec<String>);

impl HeldCalls {
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave the maps half-updated in a way that
        // matters more than losing the calls: keep serving.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Hold a new call; its receiver completes with the host's answer (or an error answer once
    /// the run ends).
    pub fn hold(&self, name: &str, input: String) -> Held {
        let (tx, rx) = oneshot::channel();
        let mut state = self.lock();
        state.next += 1;
        let job = state.next;
        if let Some(reason) = &state.closed {
            let _ = tx.send(Answer::error(reason.clone()));
            return Held { job, answer: rx };
        }
        let id = format!("cursor_mcp_{job}_{}", uuid::Uuid::new_v4().simple());
        tracing::debug!(%id, tool = name, "tool call held for the host");
        state.waiting.push(Waiting {
            call: HostCall {
                id: id.clone(),
                name: name.to_owned(),
                input,
            },
            job,
        });
        state.open.insert(id, tx);
        state.last_arrival = Some(Instant::now());
        drop(state);
        self.arrived.notify_one();
        Held { job, answer: rx }
    }

    /// Take back call `job` if it was not handed over yet (Cursor cancelled it): the host
    /// never sees it. False when it was handed over already (its answer is still to come).
    pub fn withdraw(&self, job: u64) -> bool {
        let mut state = self.lock();
        let Some(at) = state.waiting.iter().position(|w| w.job == job) else {
            return false;
        };
        let withdrawn = state.waiting.remove(at);
        state.open.remove(&withdrawn.call.id);
        tracing::debug!(id = %withdrawn.call.id, "tool call withdrawn before it was handed over");
        true
    }

    /// When the latest waiting call arrived; `None` when no call waits.
    pub fn waiting_since(&self) -> Option<Instant> {
        let state = self.lock();
        if state.waiting.is_empty() {
            None
        } else {
            state.last_arrival
        }
    }

    /// Resolves when a call arrives (a permit is kept when none was awaiting it).
    pub async fn arrival(&self) {
        self.arrived.notified().await;
    }

    /// Every waiting call, in arrival order, now handed over.
    pub fn take_step(&self) -> Vec<HostCall> {
        std::mem::take(&mut self.lock().waiting)
            .into_iter()
            .map(|w| w.call)
            .collect()
    }

    /// Calls handed over and not answered yet.
    pub fn unanswered(&self) -> usize {
        let state = self.lock();
        state.open.len() - state.waiting.len()
    }

    /// Answer handed-over calls by id. Ids that match no open call are returned (and nothing
    /// is answered) so the caller can tell a stale continuation from a real one.
    pub fn answer(&self, answers: Vec<(String, Answer)>) -> Result<(), UnknownCalls> {
        let mut state = self.lock();
        let unknown: Vec<String> = answers
            .iter()
            .filter(|(id, _)| {
                !state.open.contains_key(id) || state.waiting.iter().any(|w| &w.call.id == id)
            })
            .map(|(id, _)| id.clone())
            .collect();
        if !unknown.is_empty() {
            return Err(UnknownCalls(unknown));
        }
        for (id, answer) in answers {
            if let Some(tx) = state.open.remove(&id) {
                // Cursor may have given up on the request meanwhile: nothing to tell.
                let _ = tx.send(answer);
            }
        }
        Ok(())
    }

    /// Refuse new calls and answer every open one with `reason`; returns how many were open.
    pub fn close(&self, reason: &str) -> usize {
        let mut state = self.lock();
        if state.closed.is_none() {
            state.closed = Some(reason.to_owned());
        }
        state.waiting.clear();
        let open = state.open.len();
        for (_, tx) in state.open.drain() {
            let _ = tx.send(Answer::error(reason));
        }
        open
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(answer: &Answer) -> &str {
        match &answer.content[0] {
            AnswerContent::Text(t) => t,
            AnswerContent::Image { .. } => panic!("image"),
        }
    }

    #[tokio::test]
    async fn calls_wait_until_taken_then_until_answered() {
        let held = HeldCalls::new();
        let first = held.hold("read", r#"{"filePath":"/a"}"#.into());
        let second = held.hold("glob", r#"{"pattern":"*"}"#.into());
        assert!(held.waiting_since().is_some());
        let step = held.take_step();
        assert_eq!(step.len(), 2);
        assert_eq!(step[0].name, "read");
        assert_ne!(step[0].id, step[1].id);
        assert!(held.waiting_since().is_none());
        assert_eq!(held.unanswered(), 2);
        held.answer(vec![
            (step[1].id.clone(), Answer::error("denied")),
            (
                step[0].id.clone(),
                Answer {
                    content: vec![AnswerContent::Text("content".into())],
                    is_error: false,
                },
            ),
        ])
        .unwrap();
        assert_eq!(text(&first.answer.await.unwrap()), "content");
        let refused = second.answer.await.unwrap();
        assert!(refused.is_error);
        assert_eq!(held.unanswered(), 0);
    }

    #[tokio::test]
    async fn answers_for_unknown_or_not_yet_handed_calls_change_nothing() {
        let held = HeldCalls::new();
        let _rx = held.hold("read", "{}".into());
        let waiting_id = {
            let state = held.lock();
            state.waiting[0].call.id.clone()
        };
        let result = held.answer(vec![(waiting_id.clone(), Answer::error("x"))]);
        assert_eq!(result, Err(UnknownCalls(vec![waiting_id])));
        assert_eq!(
            held.answer(vec![("nope".into(), Answer::error("x"))]),
            Err(UnknownCalls(vec!["nope".into()]))
        );
        assert_eq!(held.take_step().len(), 1);
    }

    #[tokio::test]
    async fn a_call_cancelled_before_the_hand_over_is_never_handed_over() {
        let held = HeldCalls::new();
        let first = held.hold("read", "{}".into());
        let second = held.hold("glob", "{}".into());
        assert!(held.withdraw(first.job));
        let step = held.take_step();
        assert_eq!(step.len(), 1);
        assert_eq!(step[0].name, "glob");
        assert!(!held.withdraw(second.job), "handed over already");
        assert_eq!(held.unanswered(), 1);
    }

    #[tokio::test]
    async fn closing_answers_open_calls_and_refuses_new_ones() {
        let held = HeldCalls::new();
        let open = held.hold("read", "{}".into());
        held.take_step();
        held.close("over");
        assert_eq!(text(&open.answer.await.unwrap()), "over");
        let late = held.hold("read", "{}".into());
        assert!(late.answer.await.unwrap().is_error);
        assert!(held.take_step().is_empty());
    }
}
