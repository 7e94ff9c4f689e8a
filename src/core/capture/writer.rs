//! Writing one run's capture as it happens. A capture that cannot be written is given up
//! (with a warning in the log); it never fails the run.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use base64::Engine;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::mask::{is_secret_name, Masker};
use super::record::{
    AgentVersionRecord, ClosingRecord, End, ErrorRecord, HandedCallRecord, Line, Masked,
    PromptRecord, Start, CAPTURE_VERSION,
};
use super::store::{capture_path, per_capture_limit, prune, DEFAULT_MAX_BYTES};
use crate::core::error::CoreError;
use crate::core::hex::hex;
use crate::core::private_file;
use crate::core::stream::encode::Output;
use crate::core::stream::transformer::tap::{Fed, Tap};
use crate::core::stream::transformer::TransformerOptions;
use crate::core::stream::translate::Outcome;

/// Where and how runs are captured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureOptions {
    /// The capture folder (created when missing).
    pub folder: PathBuf,
    /// The folder's total size; default [`DEFAULT_MAX_BYTES`]. One capture keeps at most a
    /// quarter of it.
    pub max_bytes: u64,
    /// Keep the prompt's text (in the start line and in its echo); default false: only its
    /// size and hash.
    pub include_prompt: bool,
}

impl CaptureOptions {
    pub fn new(folder: impl Into<PathBuf>) -> Self {
        Self {
            folder: folder.into(),
            max_bytes: DEFAULT_MAX_BYTES,
            include_prompt: false,
        }
    }
}

/// What the start line records.
pub struct StartInfo<'a> {
    pub argv: Vec<String>,
    pub workspace: &'a Path,
    /// The child's environment: names recorded, secret values masked.
    pub env: Vec<(&'a str, &'a str)>,
    pub prompt: &'a str,
    pub transformer: &'a TransformerOptions,
    pub resume_chat_id: Option<&'a str>,
    pub host_tools: Option<Vec<String>>,
    /// Which cursor-agent runs, when its start tells.
    pub agent_version: Option<AgentVersionRecord>,
    /// Further secrets (name, value) the child knows without its environment.
    pub secrets: Vec<(&'a str, &'a str)>,
}

/// What the end line records.
#[derive(Default)]
pub struct EndInfo<'a> {
    pub ending: &'static str,
    pub exit_code: Option<i32>,
    pub signal: Option<&'a str>,
    pub cancelled: bool,
    pub error: Option<&'a CoreError>,
    pub skipped_lines: u64,
    pub delivered: u64,
    /// The version the run's own stream named (`system/init`), when it did.
    pub agent_version: Option<AgentVersionRecord>,
}

/// One run's capture. Clones write to the same file.
#[derive(Clone)]
pub struct Capture {
    writer: Arc<Mutex<Writer>>,
    name: String,
}

struct Writer {
    file: Option<BufWriter<File>>,
    path: PathBuf,
    /// The folder's total size.
    max_bytes: u64,
    started: Instant,
    masker: Masker,
    /// Stdout bytes of a record not yet complete (its masked spans are not known yet).
    pending: Vec<u8>,
    /// Past this, a record that is still incomplete is kept as it is (masked of secrets only).
    pending_limit: usize,
    written: u64,
    limit: u64,
    truncated: bool,
    stdout_bytes: u64,
    first_stdout: Option<f64>,
}

impl Capture {
    /// Creates capture `name` in the folder (after pruning the oldest); `None` when the file
    /// cannot be created.
    pub fn create(options: &CaptureOptions, name: &str) -> Option<Self> {
        let path = capture_path(&options.folder, name);
        let created = private_file::create_folder(&options.folder).and_then(|()| {
            prune(&options.folder, options.max_bytes, None);
            private_file::create_new(&path)
        });
        let file = match created {
            Ok(file) => file,
            Err(error) => {
                tracing::warn!(%error, path = %path.display(), "the run's capture could not be created");
                return None;
            }
        };
        tracing::info!(capture = name, path = %path.display(), "capturing the run");
        let writer = Writer {
            file: Some(BufWriter::new(file)),
            path,
            max_bytes: options.max_bytes,
            started: Instant::now(),
            masker: Masker::new(!options.include_prompt),
            pending: Vec::new(),
            pending_limit: 0,
            written: 0,
            limit: per_capture_limit(options.max_bytes),
            truncated: false,
            stdout_bytes: 0,
            first_stdout: None,
        };
        Some(Self {
            writer: Arc::new(Mutex::new(writer)),
            name: name.to_owned(),
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    fn lock(&self) -> MutexGuard<'_, Writer> {
        self.writer.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The observer to set on the run's transformer.
    pub fn tap(&self) -> Box<dyn Tap> {
        Box::new(CaptureTap(Arc::clone(&self.writer)))
    }

    /// The start line. Secrets are learnt here, before anything else is written.
    pub fn start(&self, info: StartInfo<'_>) {
        let mut w = self.lock();
        let mut names = Vec::new();
        for (name, value) in info.env {
            if is_secret_name(name) {
                w.masker.add_secret(name, value);
            }
            names.push(name.to_owned());
        }
        names.sort();
        for (name, value) in info.secrets {
            w.masker.add_secret(name, value);
        }
        w.pending_limit = info.transformer.max_line_bytes;
        let keep_prompt = !w.masker.masks_prompt();
        let start = Start {
            capture: CAPTURE_VERSION,
            name: self.name.clone(),
            started_at_ms: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
            package: env!("CARGO_PKG_VERSION").to_owned(),
            argv: info.argv.iter().map(|a| w.masker.text(a)).collect(),
            workspace: info.workspace.to_string_lossy().into_owned(),
            env: names,
            prompt: PromptRecord {
                bytes: info.prompt.len(),
                sha256: hex(&Sha256::digest(info.prompt.as_bytes())),
                text: keep_prompt.then(|| w.masker.text(info.prompt)),
            },
            masked: Masked {
                prompt: !keep_prompt,
                secrets: w.masker.secret_names().to_vec(),
            },
            transformer: info.transformer.clone(),
            resume_chat_id: info.resume_chat_id.map(str::to_owned),
            host_tools: info.host_tools,
            agent_version: info.agent_version,
        };
        w.write(&Line::Start(Box::new(start)), false);
    }

    pub fn exited(&self, exit_code: Option<i32>, signal: Option<&str>) {
        let mut w = self.lock();
        let t = w.now();
        let signal = signal.map(str::to_owned);
        w.write(
            &Line::Exit {
                t,
                exit_code,
                signal,
            },
            false,
        );
    }

    pub fn answered(&self, ids: Vec<String>) {
        let mut w = self.lock();
        let t = w.now();
        w.write(&Line::Answers { t, ids }, false);
    }

    /// The end line; the file is flushed and closed. The folder is pruned again: runs
    /// captured side by side may each have grown to their limit after their start's pruning.
    pub fn end(&self, info: EndInfo<'_>) {
        let mut w = self.lock();
        let error = info.error.map(|e| w.masked_error(e));
        let end = End {
            t: w.now(),
            ending: info.ending.to_owned(),
            exit_code: info.exit_code,
            signal: info.signal.map(str::to_owned),
            cancelled: info.cancelled,
            error,
            skipped_lines: info.skipped_lines,
            delivered: info.delivered,
            stdout_bytes: w.stdout_bytes,
            first_stdout_ms: w.first_stdout,
            truncated: w.truncated,
            agent_version: info.agent_version,
        };
        w.write(&Line::End(Box::new(end)), false);
        if let Some(mut file) = w.file.take() {
            let _ = file.flush();
            if let Some(folder) = w.path.parent() {
                prune(folder, w.max_bytes, Some(&w.path));
            }
        }
    }
}

struct CaptureTap(Arc<Mutex<Writer>>);

impl Tap for CaptureTap {
    fn fed(&mut self, fed: Fed<'_>, outputs: &[Output]) {
        let mut w = self.0.lock().unwrap_or_else(|e| e.into_inner());
        w.fed(fed, outputs);
    }
}

impl Writer {
    fn now(&self) -> f64 {
        let micros = u64::try_from(self.started.elapsed().as_micros()).unwrap_or(u64::MAX);
        // Microseconds are exact in an f64 for centuries.
        micros as f64 / 1000.0
    }

    fn fed(&mut self, fed: Fed<'_>, outputs: &[Output]) {
        let t = self.now();
        let outputs = self.outputs(outputs);
        match fed {
            Fed::Stdout(bytes) => {
                self.stdout_bytes += bytes.len() as u64;
                self.first_stdout.get_or_insert(t);
                self.pending.extend_from_slice(bytes);
                let complete = match self.pending.iter().rposition(|&b| b == b'\n') {
                    Some(last) => last + 1,
                    None if self.pending.len() > self.pending_limit => self.pending.len(),
                    None => 0,
                };
                let kept: Vec<u8> = self.pending.drain(..complete).collect();
                self.stdout(t, bytes.len(), &kept, outputs);
            }
            Fed::HandOver(calls) => {
                let calls = calls
                    .iter()
                    .map(|c| HandedCallRecord {
                        id: c.id.to_owned(),
                        name: c.name.to_owned(),
                        input: self.masker.text(c.input),
                    })
                    .collect();
                self.write(&Line::HandOver { t, calls, outputs }, true);
            }
            Fed::CutOff => {
                self.flush_pending(t);
                self.write(&Line::CutOff { t }, false);
            }
            Fed::Finish(outcome) => {
                let stderr = self.masker.text(&outcome.stderr);
                let closing = ClosingRecord::Outcome(Outcome {
                    stderr,
                    ..outcome.clone()
                });
                self.close(t, closing, outputs);
            }
            Fed::Fail(error) => {
                let closing = ClosingRecord::Failure(self.masked_error(error));
                self.close(t, closing, outputs);
            }
        }
    }

    /// The stream's close, after whatever record was left without its line feed.
    fn close(&mut self, t: f64, closing: ClosingRecord, outputs: Vec<Value>) {
        self.flush_pending(t);
        let line = Line::Close {
            t,
            closing,
            outputs,
        };
        self.write(&line, true);
    }

    /// A record left without its line feed goes into the capture as it is (masked), ahead of
    /// what the stream does with it.
    fn flush_pending(&mut self, t: f64) {
        if !self.pending.is_empty() {
            let kept = std::mem::take(&mut self.pending);
            self.stdout(t, 0, &kept, Vec::new());
        }
    }

    fn stdout(&mut self, t: f64, read: usize, kept: &[u8], outputs: Vec<Value>) {
        let masked = self.masker.records(kept);
        let (data, base64) = match std::str::from_utf8(&masked) {
            _ if masked.is_empty() => (None, None),
            Ok(text) => (Some(text.to_owned()), None),
            Err(_) => (
                None,
                Some(base64::engine::general_purpose::STANDARD.encode(&masked)),
            ),
        };
        let line = Line::Stdout {
            t,
            read,
            data,
            base64,
            outputs,
        };
        self.write(&line, true);
    }

    fn outputs(&self, outputs: &[Output]) -> Vec<Value> {
        outputs
            .iter()
            .map(|output| {
                let mut value = Value::from(output.clone());
                self.masker.value(&mut value);
                value
            })
            .collect()
    }

    fn masked_error(&self, error: &CoreError) -> ErrorRecord {
        let mut record = ErrorRecord::from(error);
        record.message = self.masker.text(&record.message);
        record.agent_output = record.agent_output.map(|o| self.masker.text(&o));
        record
    }

    /// Appends `line`. A data line (`data`) past the size limit is replaced, once, by a
    /// `truncated` line; nothing after it holds data.
    fn write(&mut self, line: &Line, data: bool) {
        let Some(file) = &mut self.file else { return };
        if data && self.truncated {
            return;
        }
        let mut text = match serde_json::to_vec(line) {
            Ok(text) => text,
            Err(error) => {
                tracing::warn!(%error, "a capture line could not be encoded");
                return;
            }
        };
        text.push(b'\n');
        if data && self.written + text.len() as u64 > self.limit {
            self.truncated = true;
            let t = self.now();
            tracing::warn!(path = %self.path.display(), "the capture reached its size limit; the rest of the run is not kept");
            self.write(&Line::Truncated { t }, false);
            return;
        }
        let wrote = file.write_all(&text).and_then(|()| file.flush());
        match wrote {
            Ok(()) => self.written += text.len() as u64,
            Err(error) => {
                tracing::warn!(%error, path = %self.path.display(), "writing the capture failed; it is given up");
                self.file = None;
            }
        }
    }
}

#[cfg(test)]
mod tests;
