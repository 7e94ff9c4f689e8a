//! Where a transformer's outputs go: the encoder its format chose, written as values or as JSON
//! text, and whether a response answered anything before its closing outputs.

use crate::core::stream::encode::ai_sdk::{AiSdkEncoder, JsonParts};
use crate::core::stream::encode::completion::CompletionEncoder;
use crate::core::stream::encode::sse::SseEncoder;
use crate::core::stream::encode::{push_json_str, Output};
use crate::core::stream::part::Part;

/// The encoder chosen by [`Format`].
#[derive(Debug)]
pub(super) enum Encoder {
    /// SSE frames, and with [`TransformerOptions::completions`] each response's completion after
    /// them.
    Sse(SseEncoder, Option<CompletionEncoder>),
    AiSdk(AiSdkEncoder),
}

/// Where outputs go: values, or JSON text for a host that parses a batch in one go.
pub(super) enum Sink<'o> {
    Outputs(&'o mut Vec<Output>),
    Json(&'o mut String),
}

impl Sink<'_> {
    /// How much the sink holds (outputs, or bytes of text): what a part added, by difference.
    pub(super) fn size(&self) -> usize {
        match self {
            Self::Outputs(out) => out.len(),
            Self::Json(text) => text.len(),
        }
    }

    /// How many outputs are in the sink (a trace counts what each record added); text sinks
    /// are not traced.
    pub(super) fn count(&self) -> usize {
        match self {
            Self::Outputs(out) => out.len(),
            Self::Json(_) => 0,
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
            (Self::AiSdk(e), Sink::Json(text)) => e.encode(part, &mut JsonParts(text)),
            (Self::Sse(e, completions), Sink::Json(text)) => {
                let mut outputs = Vec::new();
                e.encode(part, &mut outputs);
                if let Some(completions) = completions {
                    completions.encode(part, &mut outputs);
                }
                for output in outputs {
                    match output {
                        Output::Frame(frame) => push_json_str(text, &frame),
                        Output::Part(completion) => text.push_str(&completion.to_string()),
                    }
                    text.push(',');
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
}

impl Answers {
    /// Encodes `part`, noting whether it answered something or ended the response.
    pub(super) fn encode(&mut self, encoder: &mut Encoder, part: &Part<'_>, sink: &mut Sink<'_>) {
        let before = sink.size();
        encoder.encode(part, sink);
        if let Part::Finish { .. } = part {
            self.last = std::mem::take(&mut self.current);
        } else if sink.size() > before {
            self.current = true;
        }
    }
}

/// Outputs as a caller keeps them: values, or JSON text (each output followed by a comma; see
/// [`StreamTransformer::push_json`](super::StreamTransformer::push_json)).
#[derive(Debug)]
pub enum Written {
    Outputs(Vec<Output>),
    Json(String),
}

impl Written {
    /// The cheaper form for outputs of `format` that go to JS in one batch: SSE frames as
    /// values (strings), V3 parts as JSON text (parsed in one go).
    pub fn for_format(format: super::Format) -> Self {
        match format {
            super::Format::AiSdk => Self::Json(String::new()),
            super::Format::OpenAiSse => Self::Outputs(Vec::new()),
        }
    }
}
