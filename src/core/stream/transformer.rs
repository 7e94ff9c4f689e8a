//! The whole translation pipeline behind one type: bytes in any chunking -> outputs.
//!
//! INTERFACE CONTRACT (used by `agent` and `node`): keep these signatures.

use crate::core::error::{CoreError, ErrorCode};
use crate::core::json;
use crate::core::stream::encode::ai_sdk::AiSdkEncoder;
use crate::core::stream::encode::batch::Batch;
use crate::core::stream::encode::completion::CompletionEncoder;
use crate::core::stream::encode::sse::SseEncoder;
use crate::core::stream::encode::Output;
use crate::core::stream::event::{parse_fragment, parse_general, Parsed};
use crate::core::stream::framing::{LineFramer, Record, SKIPPED_PREFIX_BYTES};
use encoder::{Answers, Encoder, Sink};
use options::{generated_id, now};
pub use options::{Format, TransformerOptions, DEFAULT_MAX_LINE_BYTES};
use tap::{Fed, Tap};

mod encoder;
mod options;
pub mod tap;
use crate::core::stream::trace::{read_of, RecordRead, Skip, TraceAt, TraceEntry};
use crate::core::stream::translate::{
    BridgedStart, Closing, FinishSummary, HandedCall, Outcome, Translator,
};
use crate::core::stream::unknown::UnknownRecords;
use crate::core::stream::usage::CursorUsage;

/// Stateful translator of one cursor-agent stdout stream.
pub struct StreamTransformer {
    options: TransformerOptions,
    framer: LineFramer,
    stages: Stages,
    /// Sees the inputs of the output-vector methods (the runner's path), with their outputs.
    tap: Option<Box<dyn Tap>>,
}

/// What a framed record passes through: parsing, translation, encoding.
struct Stages {
    translator: Translator,
    encoder: Encoder,
    /// Whether the response under way, and the one that ended last, put out anything before
    /// its closing outputs.
    answers: Answers,
    skipped: u64,
    /// Records of a kind the translator does not know, by kind.
    unknown: UnknownRecords,
    /// Kept only on request ([`StreamTransformer::keep_trace`]).
    trace: Option<Vec<TraceEntry>>,
    /// Non-blank records framed so far (numbers the trace's entries).
    records: u64,
}

/// Log a skipped record with a short prefix (never the whole record).
fn log_skipped(what: &str, prefix: &[u8]) {
    tracing::debug!(prefix = %shown_prefix(prefix), "skipped cursor-agent record: {what}");
}

impl Stages {
    /// Hand one framed record down the pipeline.
    fn record(&mut self, record: Record<'_>, sink: &mut Sink<'_>) {
        self.records += 1;
        let before = sink.count();
        let (read, bytes, prefix) = match record {
            Record::Line(line) => {
                // Most records are fragments, read without serde: no depth to bound.
                if let Some(parsed) = parse_fragment(line) {
                    let read = self.parsed(line, parsed, sink);
                    let prefix = matches!(read, RecordRead::Skipped(_)).then_some(line.as_bytes());
                    (read, line.len(), prefix)
                } else {
                    self.general(line, sink)
                }
            }
            Record::Skipped { reason, prefix } => {
                self.skip(Skip::Framing(reason), prefix);
                (
                    RecordRead::Skipped(Skip::Framing(reason)),
                    prefix.len(),
                    Some(prefix),
                )
            }
        };
        if self.trace.is_some() {
            let mut entry = TraceEntry::new(TraceAt::Record(self.records), Some(read), bytes);
            entry.prefix = prefix.map(shown_prefix);
            self.traced(entry, sink.count() - before);
        }
    }

    /// A record serde reads, once its nesting is known to be within bounds (with the stack
    /// that depth needs).
    fn general<'l>(
        &mut self,
        line: &'l str,
        sink: &mut Sink<'_>,
    ) -> (RecordRead, usize, Option<&'l [u8]>) {
        let depth = json::depth_bound(line);
        if depth > json::MAX_DEPTH {
            self.skip(Skip::TooDeep, line.as_bytes());
            return (
                RecordRead::Skipped(Skip::TooDeep),
                line.len(),
                Some(line.as_bytes()),
            );
        }
        let read = json::with_stack_for(depth, || self.parsed(line, parse_general(line), sink));
        let prefix = matches!(read, RecordRead::Skipped(_)).then_some(line.as_bytes());
        (read, line.len(), prefix)
    }

    fn skip(&mut self, why: Skip, prefix: &[u8]) {
        self.skipped += 1;
        log_skipped(why.as_str(), prefix);
    }

    /// What the pipeline does with a parsed record (`line` is its text, for a skip's log).
    fn parsed(&mut self, line: &str, parsed: Parsed<'_>, sink: &mut Sink<'_>) -> RecordRead {
        let read = if self.trace.is_some() {
            read_of(&parsed)
        } else {
            RecordRead::Ignored
        };
        match &parsed {
            Parsed::Invalid => {
                self.skip(Skip::NotAnObject, line.as_bytes());
                return RecordRead::Skipped(Skip::NotAnObject);
            }
            Parsed::Ignored {
                unknown: Some(record),
                ..
            } => self.unknown.note(record),
            _ => {}
        }
        let (encoder, answers) = (&mut self.encoder, &mut self.answers);
        self.translator
            .record(parsed, &mut |part| answers.encode(encoder, &part, sink));
        read
    }

    fn close(&mut self, closing: Closing<'_>, sink: &mut Sink<'_>) -> FinishSummary {
        let before = sink.count();
        let (encoder, answers) = (&mut self.encoder, &mut self.answers);
        let summary = self
            .translator
            .close(closing, &mut |part| answers.encode(encoder, &part, sink));
        self.traced(
            TraceEntry::new(TraceAt::Close, None, 0),
            sink.count() - before,
        );
        summary
    }

    /// Completes `entry` with the tracker's decisions and keeps it, when tracing.
    fn traced(&mut self, mut entry: TraceEntry, outputs: usize) {
        if let Some(trace) = &mut self.trace {
            entry.tracker = self.translator.take_tracker_log();
            entry.outputs = outputs;
            trace.push(entry);
        }
    }
}

/// A skipped record's first bytes as text, for a trace.
fn shown_prefix(prefix: &[u8]) -> String {
    String::from_utf8_lossy(&prefix[..prefix.len().min(SKIPPED_PREFIX_BYTES)]).into_owned()
}

impl StreamTransformer {
    /// With SSE, the options kept (see [`options`](Self::options)) have the chunk id and
    /// `created` that were generated, so a second transformer can repeat this one exactly.
    pub fn new(mut options: TransformerOptions) -> Self {
        let encoder = match options.format {
            Format::OpenAiSse => {
                let id = options.id.get_or_insert_with(generated_id).clone();
                let created = *options
                    .created
                    .get_or_insert_with(|| i64::try_from(now().as_secs()).unwrap_or(i64::MAX));
                let (model, tools, usage) =
                    (&options.model, options.tool_calls, options.include_usage);
                let completions = options
                    .completions
                    .then(|| CompletionEncoder::new(&id, created, model, tools, usage));
                Encoder::Sse(
                    SseEncoder::new(&id, created, model, tools, usage),
                    completions,
                )
            }
            Format::AiSdk => {
                Encoder::AiSdk(AiSdkEncoder::with(&options.warnings, options.tool_calls))
            }
        };

        Self {
            framer: LineFramer::new(options.max_line_bytes),
            stages: Stages {
                translator: Translator::with_line_limit(options.max_line_bytes)
                    .hosting_tools_on(options.host_tool_server.clone())
                    .keeping_cursor_data_in(options.cursor_data_dir.as_ref().map(Into::into))
                    .reading_attachments_in(options.attachments_dir.as_ref().map(Into::into))
                    .noting_failures_with(options.failure_note.clone()),
                encoder,
                answers: Answers::default(),
                skipped: 0,
                unknown: UnknownRecords::default(),
                trace: None,
                records: 0,
            },
            options,
            tap: None,
        }
    }

    /// From now on, `tap` sees every input of [`push`](Self::push),
    /// [`hand_over`](Self::hand_over), [`drop_unterminated`](Self::drop_unterminated),
    /// [`finish`](Self::finish) and [`fail`](Self::fail) with the outputs it produced.
    pub fn set_tap(&mut self, tap: Box<dyn Tap>) {
        self.tap = Some(tap);
    }

    fn tapped(&mut self, fed: Fed<'_>, outputs: &[Output]) {
        if let Some(tap) = &mut self.tap {
            tap.fed(fed, outputs);
        }
    }

    pub fn options(&self) -> &TransformerOptions {
        &self.options
    }

    /// Feed stdout bytes; appends outputs to `out`. `E_INVALID_ARG` after `finish`.
    pub fn push(&mut self, bytes: &[u8], out: &mut Vec<Output>) -> Result<(), CoreError> {
        let before = out.len();
        self.push_to(bytes, &mut Sink::Outputs(out))?;
        self.tapped(Fed::Stdout(bytes), &out[before..]);
        Ok(())
    }

    /// Like [`push`](Self::push), but writes the outputs into `out` (the same outputs, as a
    /// [`Batch`]). Cheaper for a host that makes a whole batch's outputs at once.
    pub fn push_batch(&mut self, bytes: &[u8], out: &mut Batch) -> Result<(), CoreError> {
        self.push_to(bytes, &mut Sink::Batch(out))
    }

    fn push_to(&mut self, bytes: &[u8], sink: &mut Sink<'_>) -> Result<(), CoreError> {
        if self.is_finished() {
            return Err(CoreError::new(
                ErrorCode::InvalidArg,
                "push after finish: the stream is already closed",
            ));
        }
        let stages = &mut self.stages;
        self.framer
            .push(bytes, |record| stages.record(record, sink));
        Ok(())
    }

    /// End the current step by handing the host `calls` to run (see [`Translator::hand_over`]);
    /// records buffered in the framing are not flushed, since the stream goes on.
    pub fn hand_over(&mut self, calls: &[HandedCall<'_>], out: &mut Vec<Output>) {
        let before = out.len();
        let sink = &mut Sink::Outputs(out);
        let (encoder, answers) = (&mut self.stages.encoder, &mut self.stages.answers);
        self.stages
            .translator
            .hand_over(calls, &mut |part| answers.encode(encoder, &part, sink));
        let added = out.len() - before;
        self.stages
            .traced(TraceEntry::new(TraceAt::HandOver, None, 0), added);
        if !calls.is_empty() {
            self.tapped(Fed::HandOver(calls), &out[before..]);
        }
    }

    /// Keep a [`TraceEntry`] of every record, hand-over and close from now on: what framing
    /// read, what the delta tracker decided, how many outputs followed. Costs a little per
    /// record; meant for replaying a capture.
    pub fn keep_trace(&mut self) {
        self.stages.trace.get_or_insert_with(Vec::new);
        self.stages.translator.keep_tracker_log();
    }

    /// The trace entries since the last call; empty when no trace is kept.
    pub fn take_trace(&mut self) -> Vec<TraceEntry> {
        self.stages
            .trace
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// Close the stream per the finish table; a second call appends nothing.
    pub fn finish(&mut self, outcome: &Outcome, out: &mut Vec<Output>) -> FinishSummary {
        let (before, open) = (out.len(), !self.is_finished());
        let summary = self.close(Closing::Outcome(outcome), &mut Sink::Outputs(out));
        if open {
            self.tapped(Fed::Finish(outcome), &out[before..]);
        }
        summary
    }

    /// [`finish`](Self::finish) into a [`Batch`], as [`push_batch`](Self::push_batch).
    pub fn finish_batch(&mut self, outcome: &Outcome, out: &mut Batch) -> FinishSummary {
        self.close(Closing::Outcome(outcome), &mut Sink::Batch(out))
    }

    /// Ends the stream as a run of Cursor's that answered `text` and nothing else would have
    /// ended it, writing that run's outputs into `out`: for a request answered without
    /// cursor-agent (a session title), in whatever format the caller reads. `E_INVALID_ARG`
    /// after `finish`.
    pub fn answer(&mut self, text: &str, out: &mut Batch) -> Result<(), CoreError> {
        let records = serde_json::json!([
            {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": text}]}},
            {"type": "result", "subtype": "success", "is_error": false, "result": text},
        ]);
        let mut stdout = String::new();
        for record in records.as_array().into_iter().flatten() {
            stdout.push_str(&record.to_string());
            stdout.push('\n');
        }
        self.push_batch(stdout.as_bytes(), out)?;
        let answered = Outcome {
            exit_code: Some(0),
            ..Outcome::default()
        };
        self.finish_batch(&answered, out);
        Ok(())
    }

    /// Close the stream with a failure the caller determined (`E_TIMEOUT`, `E_CALLBACK`, ...)
    /// instead of classifying the process outcome: pending records are flushed, open blocks
    /// closed, open tool calls interrupted, then the error and the finish. Like `finish`, a
    /// call after the stream is closed appends nothing; `push` afterwards is `E_INVALID_ARG`.
    pub fn fail(&mut self, error: CoreError, out: &mut Vec<Output>) -> FinishSummary {
        let (before, open) = (out.len(), !self.is_finished());
        let fed = (self.tap.is_some() && open).then(|| error.clone());
        let summary = self.close(Closing::Failure(error), &mut Sink::Outputs(out));
        if let Some(error) = fed {
            self.tapped(Fed::Fail(&error), &out[before..]);
        }
        summary
    }

    fn close(&mut self, closing: Closing<'_>, sink: &mut Sink<'_>) -> FinishSummary {
        if self.is_finished() {
            return FinishSummary::default();
        }
        let stages = &mut self.stages;
        self.framer.finish(|record| stages.record(record, sink));
        stages.close(closing, sink)
    }

    /// Drops a last record that has no line feed, counting it as skipped: a writer that died
    /// in the middle of a record left it cut, and a cut record may still parse (a snapshot cut
    /// short reads as shorter text). [`finish`](Self::finish) would otherwise translate it.
    pub fn drop_unterminated(&mut self) {
        if let Some(bytes) = self.framer.drop_unterminated() {
            self.stages.records += 1;
            self.stages.skip(Skip::CutOff, &[]);
            let at = TraceAt::Record(self.stages.records);
            let entry = TraceEntry::new(at, Some(RecordRead::Skipped(Skip::CutOff)), bytes);
            self.stages.traced(entry, 0);
            self.tapped(Fed::CutOff, &[]);
        }
    }

    /// `error` with the [`TransformerOptions::failure_note`], as the stream reports it.
    pub fn noted(&self, error: CoreError) -> CoreError {
        error.with_note(self.options.failure_note.as_deref())
    }

    /// The starts of calls to the host's MCP server read since the last take (see
    /// [`Translator::take_bridged_starts`]).
    pub fn take_bridged_starts(&mut self) -> Vec<BridgedStart> {
        self.stages.translator.take_bridged_starts()
    }

    /// Whether the stream is closed (`finish` or `fail` was called).
    pub fn is_finished(&self) -> bool {
        self.stages.translator.is_finished()
    }

    /// The cursor chat id seen in the stream.
    pub fn session_id(&self) -> Option<&str> {
        self.stages.translator.session_id()
    }

    /// Calls to the host's tool server that Cursor itself refused.
    pub fn refused_bridge_calls(&self) -> u64 {
        self.stages.translator.refused_bridge_calls()
    }

    /// Non-blank records that were skipped (bad UTF-8, bad JSON, not an object, too long).
    pub fn skipped_lines(&self) -> u64 {
        self.stages.skipped
    }

    /// Records of a kind this version does not know (a newer cursor-agent's type, `system` or
    /// `tool_call` subtype, or a `text` record none of whose carriers it could read), ignored:
    /// each kind (`type` or `type/subtype`) with its count, in the order first seen.
    pub fn unknown_records(&self) -> &[(String, u64)] {
        self.stages.unknown.counts()
    }

    /// The cursor-agent version its `system/init` record gave, if it gave one.
    pub fn agent_version(&self) -> Option<&str> {
        self.stages.translator.agent_version()
    }

    /// Usage from `result.usage`, after the validity filter.
    pub fn usage(&self) -> Option<&CursorUsage> {
        self.stages.translator.usage().map(|r| &r.counts)
    }

    /// Cursor tool calls started and not yet completed (the idle timer pauses while > 0).
    pub fn open_tool_calls(&self) -> usize {
        self.stages.translator.open_tool_calls()
    }

    /// Whether the response that ended last (at a hand-over or the finish) put out anything
    /// before its closing outputs: text, reasoning, a tool call.
    pub fn answered(&self) -> bool {
        self.stages.answers.last
    }

    /// Whether Cursor did anything in the stream so far (text, thinking, a tool call started or
    /// ran), in whatever format and whether or not it was put out: what must not be done twice.
    pub fn acted(&self) -> bool {
        self.stages.answers.acted
    }
}

#[cfg(test)]
mod tests;
