//! A run's options: what the caller asks for (typed, with the documented defaults) and the
//! checked form the runner uses.

use std::collections::HashMap;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::mode::CursorMode;
use crate::core::attachments::{check_planned_folder, Planned};
use crate::core::bridge::workspace::{layout, PrivateWorkspace};
use crate::core::bridge::{HostTool, SERVER_NAME};
use crate::core::capture::{failure_note, fresh_name, CaptureOptions};
use crate::core::cursor_id::{cursor_model_id, is_valid_chat_id, MAX_CHAT_ID_LEN};
use crate::core::error::CoreError;
use crate::core::stream::transformer::{Format, TransformerOptions};

/// The child's complete environment, when the caller gives one.
pub type EnvVars = HashMap<String, String>;

/// Default of [`RunRequest::idle_timeout`]: thirty minutes without stdout output. Cursor's stdout
/// stays silent while the turn is healthy: 25-39 s while it compacts its context, and once 757 s
/// (over twelve minutes) while the model wrote a long reply, before the record appeared. A limit
/// a healthy turn reaches kills it and loses its work, so this one leaves more than twice that;
/// cancelling and the overall limit remain the caller's controls.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_millis(1_800_000);

/// What a caller asks for; `Default` gives the documented defaults. [`RunRequest::validate`]
/// checks what can be checked before spawning.
#[derive(Debug, Clone)]
pub struct RunRequest {
    /// Written to cursor-agent's stdin; required (not empty or all white space).
    pub prompt: String,
    /// Cursor's model id, with or without the `cursor-acp/` prefix; required.
    pub model: String,
    /// An existing folder: `--workspace` and the child's cwd; required.
    pub workspace: String,
    /// `--resume <id>`; default none (a fresh chat).
    pub resume_chat_id: Option<String>,
    /// The binary; default: resolved.
    pub executable: Option<String>,
    /// Default true: `--force`; false: `--trust`. A read-only `mode` never gets `--force`.
    pub force: bool,
    /// Cursor's mode; default [`CursorMode::Agent`] (no `--mode`).
    pub mode: CursorMode,
    /// A drop before anything was answered delivers nothing and is reported `rerunnable`;
    /// default false.
    pub rerunnable_drop: bool,
    /// After every other argument; default none.
    pub extra_args: Vec<String>,
    /// The child's complete environment; default: inherit the host's.
    pub env: Option<EnvVars>,
    /// Default [`DEFAULT_IDLE_TIMEOUT`]; `None` disables the idle limit.
    pub idle_timeout: Option<Duration>,
    /// Default `None`: no overall limit.
    pub timeout: Option<Duration>,
    /// How stdout is translated; the format defaults to [`Format::AiSdk`] here, and the model
    /// echoed in SSE chunks is always the run's model.
    pub transformer: TransformerOptions,
    /// The host runs these tools (the tool bridge); default none: Cursor runs its own.
    pub host_tools: Option<HostTools>,
    /// Capture the run (see [`crate::core::capture`]); default none.
    pub capture: Option<CaptureOptions>,
    /// Attachments the prompt names, saved for the run ([`crate::core::attachments`]); default
    /// none.
    pub attachments: Option<Planned>,
}

/// What a run needs to let the host run its own tools.
#[derive(Debug, Clone, PartialEq)]
pub struct HostTools {
    /// The tools, as the host describes them to its model.
    pub tools: Vec<HostTool>,
    /// The conversation's private folder (absolute; see [`crate::core::bridge::workspace`]):
    /// the child works there, not in `workspace`.
    pub folder: String,
    /// How long a handed-over call may wait for the host's answer before the run is stopped.
    /// Default [`DEFAULT_TOOL_WAIT`].
    pub wait: Duration,
    /// How long no new call and no stdout must have come before the calls of a step are handed
    /// over together. Default [`DEFAULT_TOOL_QUIET`].
    pub quiet: Duration,
    /// How long a call is held before Cursor is answered "still running" (the result then
    /// reaches the model through the bridge's wait tool). Default [`DEFAULT_TOOL_DEADLINE`].
    pub deadline: Duration,
    /// The host's system prompt, delivered as an always-apply Cursor rule in the private
    /// workspace ([`crate::core::bridge::workspace::write_instructions`]); `None` removes it.
    pub instructions: Option<String>,
}

/// Default of [`HostTools::wait`]: ten minutes (a permission prompt can take that long).
pub const DEFAULT_TOOL_WAIT: Duration = Duration::from_secs(600);
/// Default of [`HostTools::deadline`]: Cursor's MCP client gives up at 60 s.
pub const DEFAULT_TOOL_DEADLINE: Duration = crate::core::bridge::parked::DEFAULT_DEADLINE;
/// Default of [`HostTools::quiet`]. Cursor's stdout can lag the MCP request it belongs to.
pub const DEFAULT_TOOL_QUIET: Duration = Duration::from_millis(75);

impl HostTools {
    pub fn new(tools: Vec<HostTool>, folder: impl Into<String>) -> Self {
        Self {
            tools,
            folder: folder.into(),
            wait: DEFAULT_TOOL_WAIT,
            quiet: DEFAULT_TOOL_QUIET,
            deadline: DEFAULT_TOOL_DEADLINE,
            instructions: None,
        }
    }

    /// An absolute folder, and tools with names: `E_INVALID_ARG` otherwise.
    pub fn check(&self) -> Result<(), CoreError> {
        absolute_folder("hostTools.folder", Path::new(&self.folder))?;
        for tool in &self.tools {
            required("hostTools tool name", &tool.name)?;
            no_nul("hostTools tool name", &tool.name)?;
        }
        Ok(())
    }
}

impl Default for RunRequest {
    fn default() -> Self {
        Self {
            prompt: String::new(),
            model: String::new(),
            workspace: String::new(),
            resume_chat_id: None,
            executable: None,
            force: true,
            mode: CursorMode::Agent,
            rerunnable_drop: false,
            extra_args: Vec::new(),
            env: None,
            idle_timeout: Some(DEFAULT_IDLE_TIMEOUT),
            timeout: None,
            transformer: TransformerOptions {
                format: Format::AiSdk,
                ..TransformerOptions::default()
            },
            host_tools: None,
            capture: None,
            attachments: None,
        }
    }
}

/// A request that passed [`RunRequest::validate`], read through `Deref`: its model is Cursor's
/// id (the `cursor-acp/` prefix removed, also in the transformer options), and its workspace is
/// also known as an absolute folder.
#[derive(Debug, Clone)]
pub struct RunOptions {
    request: RunRequest,
    workspace_dir: PathBuf,
    /// With a capture: its name, which a failure's message names.
    capture_name: Option<String>,
}

impl Deref for RunOptions {
    type Target = RunRequest;

    fn deref(&self) -> &RunRequest {
        &self.request
    }
}

impl RunOptions {
    /// The attachments to save, taken: the run writes them once, and their bytes are not kept
    /// beside the folder it wrote.
    pub(crate) fn take_attachments(&mut self) -> Option<Planned> {
        self.request.attachments.take()
    }

    /// The workspace as an absolute folder: `--workspace` and the child's cwd (with host tools,
    /// the private workspace inside their folder).
    pub fn workspace_dir(&self) -> &Path {
        &self.workspace_dir
    }

    /// The name of the run's capture, when it is captured.
    pub fn capture_name(&self) -> Option<&str> {
        self.capture_name.as_deref()
    }

    /// The prompt, moved out for writing to stdin (nothing else reads it).
    pub fn take_prompt(&mut self) -> String {
        std::mem::take(&mut self.request.prompt)
    }
}

fn no_nul(what: &str, value: &str) -> Result<(), CoreError> {
    if value.contains('\0') {
        return Err(CoreError::invalid_arg(format!(
            "{what} must not contain a NUL character"
        )));
    }
    Ok(())
}

/// A folder named by an absolute path without NUL.
fn absolute_folder(what: &str, folder: &Path) -> Result<(), CoreError> {
    let text = folder.to_string_lossy();
    no_nul(what, &text)?;
    if !folder.is_absolute() {
        return Err(CoreError::invalid_arg(format!(
            "{what} '{text}' must be an absolute path"
        )));
    }
    Ok(())
}

fn required<'a>(what: &str, value: &'a str) -> Result<&'a str, CoreError> {
    if value.trim().is_empty() {
        return Err(CoreError::invalid_arg(format!(
            "{what} is required and must not be empty"
        )));
    }
    Ok(value)
}

/// Checks the options that find and start the binary (`executable`, `env`); every refusal is
/// `E_INVALID_ARG` naming the option. A NUL cannot reach a command line or an environment.
pub fn check_lookup(executable: Option<&str>, env: Option<&EnvVars>) -> Result<(), CoreError> {
    if let Some(exe) = executable {
        if exe.is_empty() {
            return Err(CoreError::invalid_arg("executable must not be empty"));
        }
        no_nul("executable", exe)?;
    }
    for (k, v) in env.into_iter().flatten() {
        if k.is_empty() || k.contains('=') {
            return Err(CoreError::invalid_arg(format!(
                "env has an invalid variable name '{k}'"
            )));
        }
        no_nul("env", k)?;
        no_nul("env", v)?;
    }
    Ok(())
}

impl RunRequest {
    /// Checks everything that can be checked before spawning; every refusal is
    /// `E_INVALID_ARG`. An empty (or all-whitespace) prompt is refused: cursor-agent has nothing
    /// to answer and would fail after a full start-up. The prompt may hold any character, NUL
    /// included: it is written to stdin, never to a command line, and a conversation that
    /// quotes a binary file must still go on.
    pub fn validate(mut self) -> Result<RunOptions, CoreError> {
        required("prompt", &self.prompt)?;
        let model = self.checked_model()?;
        let workspace = self.checked_workspace()?;
        self.check_arguments()?;
        if let Some(host) = &self.host_tools {
            host.check()?;
        }
        let capture_name = match &self.capture {
            Some(capture) => {
                absolute_folder("capture.folder", &capture.folder)?;
                Some(fresh_name())
            }
            None => None,
        };
        let private = self
            .host_tools
            .as_ref()
            .map(|host| layout(Path::new(&host.folder)));
        self.model = model;
        self.settle_transformer(private.as_ref(), capture_name.as_deref());
        Ok(RunOptions {
            request: self,
            workspace_dir: private.map_or(workspace, |private| private.workspace),
            capture_name,
        })
    }

    /// Cursor's id of the model asked for.
    fn checked_model(&self) -> Result<String, CoreError> {
        no_nul("model", &self.model)?;
        let model = cursor_model_id(required("model", &self.model)?).to_owned();
        if model.is_empty() || model.starts_with('-') || model.chars().any(char::is_whitespace) {
            return Err(CoreError::invalid_arg(format!(
                "model '{model}' is not a Cursor model id"
            )));
        }
        Ok(model)
    }

    /// The workspace, an existing folder, made absolute.
    fn checked_workspace(&self) -> Result<PathBuf, CoreError> {
        let workspace_text = required("workspace", &self.workspace)?;
        no_nul("workspace", workspace_text)?;
        let workspace = std::path::absolute(Path::new(workspace_text))
            .map_err(|e| CoreError::invalid_arg(format!("workspace '{workspace_text}': {e}")))?;
        if !workspace.is_dir() {
            return Err(CoreError::invalid_arg(format!(
                "workspace '{}' does not exist or is not a directory",
                workspace.display()
            )));
        }
        Ok(workspace)
    }

    /// What reaches the command line, the environment and the attachments' folder.
    fn check_arguments(&self) -> Result<(), CoreError> {
        if let Some(id) = &self.resume_chat_id {
            if !is_valid_chat_id(id) {
                return Err(CoreError::invalid_arg(format!(
                    "resumeChatId '{id}' must match ^[A-Za-z0-9][A-Za-z0-9_-]*$ and be at most \
                     {MAX_CHAT_ID_LEN} characters"
                )));
            }
        }
        check_lookup(self.executable.as_deref(), self.env.as_ref())?;
        for arg in &self.extra_args {
            no_nul("extraArgs", arg)?;
        }
        self.mode.check_extra_args(&self.extra_args)?;
        if let Some(planned) = &self.attachments {
            check_planned_folder(Path::new(&planned.folder), &planned.files)
                .map_err(|error| CoreError::invalid_arg(format!("attachments: {error}")))?;
        }
        match &self.transformer.id {
            Some(id) => no_nul("id", id),
            None => Ok(()),
        }
    }

    /// The translation as the run needs it: Cursor's model id; with host tools the bridge's
    /// server and the private data folder; the saved attachments' folder and their warnings;
    /// a captured run's note.
    fn settle_transformer(&mut self, private: Option<&PrivateWorkspace>, capture: Option<&str>) {
        let options = &mut self.transformer;
        options.model = self.model.clone();
        if let Some(private) = private {
            options.cursor_data_dir = Some(private.data.to_string_lossy().into_owned());
            options.host_tool_server = Some(SERVER_NAME.to_owned());
        }
        if let Some(name) = capture {
            options.failure_note = Some(failure_note(name));
        }
        let planned = self.attachments.as_ref();
        options.attachments_dir = planned
            .filter(|planned| planned.has_files())
            .map(|planned| planned.folder.clone());
        options.warnings = planned
            .map(|planned| planned.warnings.clone())
            .unwrap_or_default();
    }
}

#[cfg(test)]
pub(crate) fn test_request(workspace: &Path) -> RunRequest {
    RunRequest {
        prompt: "hi".into(),
        model: "cursor-acp/gpt-5".into(),
        workspace: workspace.to_string_lossy().into_owned(),
        ..RunRequest::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults() {
        let opts = test_request(&std::env::temp_dir()).validate().unwrap();
        assert_eq!(opts.idle_timeout, Some(Duration::from_millis(1_800_000)));
        assert_eq!(opts.timeout, None);
        assert!(opts.force);
        assert_eq!(opts.transformer.format, Format::AiSdk);
        assert_eq!(opts.transformer.model, "gpt-5");
    }

    #[test]
    fn refusals_are_invalid_arg() {
        let ws = std::env::temp_dir();
        let missing = ws.join("definitely-not-here-7f3a9");
        type Mutation = Box<dyn Fn(&mut RunRequest)>;
        let cases: Vec<(&str, Mutation)> = vec![
            ("empty prompt", Box::new(|r| r.prompt = "  \n".into())),
            ("no prompt", Box::new(|r| r.prompt = String::new())),
            ("no model", Box::new(|r| r.model = String::new())),
            ("flag-like model", Box::new(|r| r.model = "--help".into())),
            ("prefix only", Box::new(|r| r.model = "cursor-acp/".into())),
            (
                "missing workspace",
                Box::new(move |r| r.workspace = missing.to_string_lossy().into()),
            ),
            (
                "bad chat id",
                Box::new(|r| r.resume_chat_id = Some("-1".into())),
            ),
            (
                "chat id over the length cap",
                Box::new(|r| r.resume_chat_id = Some("a".repeat(MAX_CHAT_ID_LEN + 1))),
            ),
            ("NUL arg", Box::new(|r| r.extra_args = vec!["a\0b".into()])),
            (
                "force in a read-only run",
                Box::new(|r| {
                    r.mode = CursorMode::Plan;
                    r.extra_args = vec!["--force".into()];
                }),
            ),
            ("NUL in the model", Box::new(|r| r.model = "gpt\0-5".into())),
            (
                "NUL in the executable",
                Box::new(|r| r.executable = Some("/bin/a\0b".into())),
            ),
            (
                "NUL in an env value",
                Box::new(|r| r.env = Some(EnvVars::from([("A".to_owned(), "x\0y".to_owned())]))),
            ),
            (
                "NUL in the id",
                Box::new(|r| r.transformer.id = Some("c\0".into())),
            ),
            (
                "bad env name",
                Box::new(|r| r.env = Some(EnvVars::from([("A=B".to_owned(), "1".to_owned())]))),
            ),
            (
                "empty executable",
                Box::new(|r| r.executable = Some(String::new())),
            ),
        ];
        for (name, mutate) in cases {
            let mut r = test_request(&ws);
            mutate(&mut r);
            let err = r.validate().expect_err(name);
            assert_eq!(err.code(), "E_INVALID_ARG", "{name}");
        }
    }
}
