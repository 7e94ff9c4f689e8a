//! How the stream closes: a held delta flushed, open tool calls interrupted, the finish with
//! the failure (if any) the ending reports.

use serde_json::{Map, Value};

use super::{Closing, FinishSummary, Outcome, Translator};
use crate::core::error::CoreError;
use crate::core::failure::classify::classify_failure;
use crate::core::stream::part::{FinishReason, Part};
use crate::core::stream::tool::INTERRUPTED_MESSAGE;

impl Translator {
    /// Close the stream: flush a held delta, interrupt open tool calls, show a plan no text
    /// followed, then the finish; a call after the stream is closed emits nothing.
    pub fn close(
        &mut self,
        closing: Closing<'_>,
        emit: &mut impl FnMut(Part<'_>),
    ) -> FinishSummary {
        if self.finished {
            return FinishSummary::default();
        }
        self.finished = true;
        self.release_held(false, emit);
        let interrupted = Value::Object(Map::from_iter([
            ("status".to_owned(), Value::from("interrupted")),
            ("message".to_owned(), Value::from(INTERRUPTED_MESSAGE)),
        ]));
        for call in std::mem::take(&mut self.open_calls) {
            emit(Part::ToolCompleted {
                id: &call.id,
                name: &call.name,
                kind: &call.kind,
                server: call.server.as_deref(),
                result: &interrupted,
                is_error: true,
            });
        }
        self.show_pending_plan(emit);
        let (error, cancelled) = match closing {
            Closing::Outcome(outcome) => (self.closing_error(outcome), outcome.cancelled),
            Closing::Failure(error) => (Some(error), false),
        };
        let error = error.map(|error| error.with_note(self.failure_note.as_deref()));
        // Every call in this stream was Cursor's own and is done: nothing waits for the host.
        let reason = FinishReason::of(error.as_ref(), cancelled, false);
        emit(Part::Finish {
            reason,
            usage: self.usage.as_ref(),
        });
        FinishSummary { error }
    }

    /// The failure to report, in the table's order: cancelled, success, failure. A failure
    /// after output is reported too (a usage limit hit mid-answer among them): the output
    /// stays, and the error says the answer was cut off and why.
    fn closing_error(&self, outcome: &Outcome) -> Option<CoreError> {
        if outcome.cancelled {
            return None;
        }
        let failing_exit = outcome.exit_code.is_some_and(|c| c != 0) || outcome.signal.is_some();
        if self.saw_result && self.result_error.is_none() && !failing_exit {
            return None;
        }
        Some(classify_failure(
            &outcome.stderr,
            outcome.exit_code,
            outcome.signal.as_deref(),
            self.result_error.as_deref(),
            self.saw_result,
            self.has_content,
        ))
    }
}
