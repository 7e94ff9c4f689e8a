//! Calls cursor-agent made over MCP, each held open until the host answers it.
//!
//! A call is *waiting* from its arrival until the runner hands it to the host with the rest of
//! its model step ([`HeldCalls::take_step`]), then *handed over* until the host's answer (or
//! the run's end) completes the MCP request. Calls of one step may arrive concurrently or one
//! after another; holding one never blocks the arrival of the next.
//!
//! An MCP request carries no call id. Each call takes the model's id from the oldest unmatched
//! `tool_call` started record of Cursor's stream with the same tool and arguments (compared as
//! JSON values, so key order does not matter), normalised by [`host_call_id`]; a call whose
//! record has not come by the hand-over keeps the bridge's own id.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use serde_json::Value;

use tokio::sync::{oneshot, Notify};
use tokio::time::Instant;

use crate::core::call_id::host_call_id;
use crate::core::stream::translate::BridgedStart;

/// Started records kept for calls not yet made, at most (the oldest are dropped).
const STARTS_KEPT: usize = 64;

impl<'a> From<&'a HostCall> for crate::core::stream::translate::HandedCall<'a> {
    fn from(call: &'a HostCall) -> Self {
        Self {
            id: &call.id,
            name: &call.name,
            input: &call.input,
        }
    }
}

crate::core::wire::wire_struct! {
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
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: vec![AnswerContent::Text(text.into())],
            is_error: false,
        }
    }

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
    args: Value,
    /// The model's id, once a started record matched.
    model_id: Option<String>,
    arrived: Instant,
}

#[derive(Debug, Default)]
struct State {
    waiting: Vec<Waiting>,
    /// Started records no call has matched yet, oldest first.
    starts: VecDeque<BridgedStart>,
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
        let args: Value = serde_json::from_str(&input).unwrap_or(Value::Null);
        let model_id = state
            .starts
            .iter()
            .position(|start| start.tool == name && start.args == args)
            .and_then(|at| state.starts.remove(at))
            .map(|start| start.call_id);
        state.waiting.push(Waiting {
            call: HostCall {
                id: id.clone(),
                name: name.to_owned(),
                input,
            },
            job,
            args,
            model_id,
            arrived: Instant::now(),
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

    /// Cursor's stream reported these calls started: each names the oldest waiting call of
    /// the same tool and arguments that has no model id yet, or waits for its call.
    pub fn announce(&self, starts: Vec<BridgedStart>) {
        let mut state = self.lock();
        for start in starts {
            let matched = state.waiting.iter_mut().find(|w| {
                w.model_id.is_none() && w.call.name == start.tool && w.args == start.args
            });
            match matched {
                Some(waiting) => waiting.model_id = Some(start.call_id),
                None => {
                    if state.starts.len() == STARTS_KEPT {
                        state.starts.pop_front();
                    }
                    state.starts.push_back(start);
                }
            }
        }
    }

    /// When the oldest waiting call without a model id arrived; `None` when every waiting call
    /// has one.
    pub fn unmatched_since(&self) -> Option<Instant> {
        let state = self.lock();
        state
            .waiting
            .iter()
            .filter(|w| w.model_id.is_none())
            .map(|w| w.arrived)
            .min()
    }

    /// Every waiting call, in arrival order, now handed over under the model's id when one
    /// matched (else the bridge's own).
    pub fn take_step(&self) -> Vec<HostCall> {
        let mut state = self.lock();
        let waiting = std::mem::take(&mut state.waiting);
        waiting
            .into_iter()
            .map(|w| {
                let mut call = w.call;
                let host_id = w.model_id.as_deref().map(host_call_id);
                match host_id {
                    Some(id) if !state.open.contains_key(&id) => {
                        if let Some(tx) = state.open.remove(&call.id) {
                            state.open.insert(id.clone(), tx);
                        }
                        call.id = id;
                    }
                    _ => tracing::info!(
                        id = %call.id,
                        tool = %call.name,
                        "no started record of Cursor's matched this tool call: handed over under the bridge's own id"
                    ),
                }
                call
            })
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

    fn start(id: &str, tool: &str, args: Value) -> BridgedStart {
        BridgedStart {
            call_id: id.into(),
            tool: tool.into(),
            args,
        }
    }

    #[tokio::test]
    async fn calls_take_the_model_ids_first_in_first_out_by_tool_and_arguments() {
        use serde_json::json;
        let held = HeldCalls::new();
        // Records before the requests, arguments in another key order.
        held.announce(vec![
            start("m1\nfc_1", "read", json!({"filePath": "/a", "offset": 1})),
            start("m2", "read", json!({"filePath": "/a", "offset": 1})),
            start("m3", "glob", json!({"pattern": "*"})),
        ]);
        let _a = held.hold("read", r#"{"offset":1,"filePath":"/a"}"#.into());
        let _b = held.hold("read", r#"{"filePath":"/a","offset":1}"#.into());
        // A request before its record; and one no record ever matches.
        let _c = held.hold("bash", r#"{"command":"ls"}"#.into());
        let _d = held.hold("bash", r#"{"command":"pwd"}"#.into());
        assert!(held.unmatched_since().is_some());
        held.announce(vec![start("m4", "bash", json!({"command": "ls"}))]);
        let ids: Vec<String> = held.take_step().into_iter().map(|c| c.id).collect();
        assert_eq!(ids[..3], ["m1_fc_1", "m2", "m4"]);
        assert!(ids[3].starts_with("cursor_mcp_"), "{}", ids[3]);
        assert!(held.unmatched_since().is_none());
        // The glob record waits for its call.
        let _e = held.hold("glob", r#"{"pattern":"*"}"#.into());
        assert_eq!(held.take_step()[0].id, "m3");
        held.answer(vec![("m1_fc_1".into(), Answer::error("x"))])
            .unwrap();
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
