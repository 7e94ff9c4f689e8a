//! Cursor's plan document. In `--mode plan` the model may put its findings into a plan
//! (`createPlanToolCall`, arguments `{name, overview, plan, todos}` in Cursor's shipped client)
//! and answer with a preamble or nothing at all. The plan is kept as it comes, and shown as the
//! answer's text when the stream ends with no text after it.

use std::borrow::Cow;

use serde::Deserialize;

use super::Translator;
use crate::core::json;
use crate::core::stream::event::{Channel, ToolCallBody};
use crate::core::stream::part::Part;

/// The tool kind whose arguments carry Cursor's plan.
pub(super) const PLAN_KIND: &str = "createPlanToolCall";

/// The fields of a plan's arguments that say what it is: its Markdown, else its overview.
#[derive(Deserialize)]
struct PlanArgs<'a> {
    #[serde(borrow, default)]
    plan: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    overview: Option<Cow<'a, str>>,
}

/// Whether the call is Cursor's plan (not a tool acting on anything of the user's).
pub(super) fn is_plan(call: &ToolCallBody<'_>) -> bool {
    call.kind.as_deref() == Some(PLAN_KIND)
}

/// What a plan call says: its Markdown, or its overview when the Markdown is empty or absent.
fn plan_text(call: &ToolCallBody<'_>) -> Option<String> {
    let args: PlanArgs<'_> = json::from_str(call.args?.get()).ok()?;
    [args.plan, args.overview]
        .into_iter()
        .flatten()
        .find(|text| !text.trim().is_empty())
        .map(Cow::into_owned)
}

impl Translator {
    /// A plan call: its text waits to be shown, replacing an earlier one.
    pub(super) fn keep_plan(&mut self, call: &ToolCallBody<'_>) {
        if let Some(text) = plan_text(call) {
            self.pending_plan = Some(text);
        }
    }

    /// The stream ends: a plan with no answer text after it is the answer.
    pub(super) fn show_pending_plan(&mut self, emit: &mut impl FnMut(Part<'_>)) {
        if let Some(plan) = self.pending_plan.take() {
            self.emit_text(Channel::Text, &plan, emit);
        }
    }
}
