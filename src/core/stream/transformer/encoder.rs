//! Where a transformer's outputs go: the encoder its format chose, written as values or into a
//! batch, and whether a response answered anything before its closing outputs.

use crate::core::stream::encode::ai_sdk::{AiSdkEncoder, BatchParts};
use crate::core::stream::encode::batch::Batch;
use crate::core::stream::encode::completion::CompletionEncoder;
use crate::core::stream::encode::sse::SseEncoder;
use crate::core::stream::encode::Output;
use crate::core::stream::part::Part;

/// The encoder chosen by [`Format`].
#[derive(Debug)]
pub(super) enum Encoder {
    /// SSE frames, and with [`TransformerOptions::completions`] each response's completion after
    /// them.
    Sse(SseEncoder, Option<CompletionEncoder>),
    AiSdk(AiSdkEncoder),
}

/// Where outputs go: values, or a [`Batch`] for a host that makes a batch's outputs in one go.
pub(super) enum Sink<'o> {
    Outputs(&'o mut Vec<Output>),
    Batch(&'o mut Batch),
}

impl Sink<'_> {
    /// How many outputs are in the sink: what a part or a record added, by difference.
    pub(super) fn count(&self) -> usize {
        match self {
            Self::Outputs(out) => out.len(),
            Self::Batch(batch) => batch.outputs(),
        }
    }
}

impl Encoder {
    pub(super) fn encode(&mut self, part: &Part<'_>, sink: &mut Sink<'_>) {
        match (self, sink) {
            (Self::Sse(e, completions), Sink::Outputs(out)) => {
                e.encode(part, out);
                if let Some(completions) = completions {
                    completions.encode(part, out);
                }
            }
            (Self::AiSdk(e), Sink::Outputs(out)) => e.encode(part, *out),
            (Self::AiSdk(e), Sink::Batch(batch)) => e.encode(part, &mut BatchParts(batch)),
            (Self::Sse(e, completions), Sink::Batch(batch)) => {
                let mut outputs = Vec::new();
                e.encode(part, &mut outputs);
                if let Some(completions) = completions {
                    completions.encode(part, &mut outputs);
                }
                for output in outputs {
                    match output {
                        Output::Frame(frame) => batch.frame(&frame),
                        Output::Part(completion) => batch.json(&completion),
                    }
                }
            }
        }
    }
}

/// Whether responses put out anything before their closing outputs.
#[derive(Debug, Default)]
pub(super) struct Answers {
    /// The response under way did.
    pub(super) current: bool,
    /// The response that ended last did.
    pub(super) last: bool,
    /// Cursor did anything at all in the stream (text, thinking, a tool call started or ran),
    /// whether or not the format puts it out (a format without Cursor's own calls leaves them
    /// out).
    pub(super) acted: bool,
}

impl Answers {
    /// Encodes `part`, noting whether it answered something or ended the response.
    pub(super) fn encode(&mut self, encoder: &mut Encoder, part: &Part<'_>, sink: &mut Sink<'_>) {
        let before = sink.count();
        encoder.encode(part, sink);
        if let Part::Finish { .. } = part {
            self.last = std::mem::take(&mut self.current);
        } else {
            self.acted = true;
            self.current |= sink.count() > before;
        }
    }
}
