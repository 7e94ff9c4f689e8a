//! Run options: what the caller may pass, the validated form, and the cursor-agent command line.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::core::cursor_id::{cursor_model_id, is_valid_chat_id, MAX_CHAT_ID_LEN};
use crate::core::error::CoreError;
use crate::core::stream::encode::sse::ToolCallMode;
use crate::core::stream::transformer::{whole_number_option, Format, TransformerOptions};

/// The child's complete environment, when the caller gives one.
pub type EnvVars = HashMap<String, String>;

/// Default for [`RunRequest::idle_timeout_ms`]: five minutes without stdout output.
pub const DEFAULT_IDLE_TIMEOUT_MS: u64 = 300_000;

/// Options as the caller gives them; every field optional, merged with the defaults by
/// [`RunRequest::validate`].
#[derive(Debug, Clone, Default)]
pub struct RunRequest {
    pub prompt: Option<String>,
    pub model: Option<String>,
    pub workspace: Option<String>,
    pub resume_chat_id: Option<String>,
    /// `'openai-sse'` or `'ai-sdk'`; default `'ai-sdk'`.
    pub format: Option<String>,
    pub executable: Option<String>,
    /// Default true: `--force`; false: `--trust`.
    pub force: Option<bool>,
    pub extra_args: Option<Vec<String>>,
    pub env: Option<EnvVars>,
    /// Default [`DEFAULT_IDLE_TIMEOUT_MS`]; 0 disables the idle limit.
    pub idle_timeout_ms: Option<f64>,
    /// Default 0: no overall limit.
    pub timeout_ms: Option<f64>,
    /// `'emit'` (default) or `'omit'`.
    pub tool_calls: Option<String>,
    pub include_usage: Option<bool>,
    pub id: Option<String>,
    pub created: Option<f64>,
    pub max_line_bytes: Option<f64>,
}

/// Validated options of one run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub prompt: String,
    /// Cursor's model id (the `cursor-acp/` prefix removed).
    pub model: String,
    /// Absolute workspace: `--workspace` and the child's cwd.
    pub workspace: PathBuf,
    pub resume_chat_id: Option<String>,
    pub executable: Option<String>,
    pub force: bool,
    pub extra_args: Vec<String>,
    pub env: Option<EnvVars>,
    pub idle_timeout: Option<Duration>,
    pub timeout: Option<Duration>,
    pub transformer: TransformerOptions,
}

fn invalid(message: impl Into<String>) -> CoreError {
    CoreError::InvalidArg(message.into())
}

fn no_nul(what: &str, value: &str) -> Result<(), CoreError> {
    if value.contains('\0') {
        return Err(invalid(format!("{what} must not contain a NUL character")));
    }
    Ok(())
}

fn millis(what: &str, value: Option<f64>, default: u64) -> Result<Option<Duration>, CoreError> {
    let ms = match value {
        None => default,
        Some(v) if v.is_finite() && v >= 0.0 && v <= u64::MAX as f64 => v as u64,
        Some(v) => {
            return Err(invalid(format!(
                "{what} must be a non-negative number, got {v}"
            )))
        }
    };
    Ok((ms > 0).then(|| Duration::from_millis(ms)))
}

pub fn parse_format(value: Option<&str>) -> Result<Format, CoreError> {
    match value {
        None | Some("ai-sdk") => Ok(Format::AiSdk),
        Some("openai-sse") => Ok(Format::OpenAiSse),
        Some(other) => Err(invalid(format!(
            "format must be 'openai-sse' or 'ai-sdk', got '{other}'"
        ))),
    }
}

pub fn parse_tool_calls(value: Option<&str>) -> Result<ToolCallMode, CoreError> {
    match value {
        None | Some("emit") => Ok(ToolCallMode::Emit),
        Some("omit") => Ok(ToolCallMode::Omit),
        Some(other) => Err(invalid(format!(
            "toolCalls must be 'emit' or 'omit', got '{other}'"
        ))),
    }
}

fn required<'a>(what: &str, value: &'a Option<String>) -> Result<&'a str, CoreError> {
    match value.as_deref() {
        Some(v) if !v.trim().is_empty() => Ok(v),
        _ => Err(invalid(format!("{what} is required and must not be empty"))),
    }
}

impl RunRequest {
    /// Merge with the defaults and check everything that can be checked before spawning.
    /// Every refusal is `E_INVALID_ARG`. An empty (or all-whitespace) prompt is refused:
    /// cursor-agent has nothing to answer and would fail after a full start-up.
    pub fn validate(self) -> Result<RunOptions, CoreError> {
        required("prompt", &self.prompt)?;
        let model = cursor_model_id(required("model", &self.model)?).to_owned();
        if model.is_empty() || model.starts_with('-') || model.chars().any(char::is_whitespace) {
            return Err(invalid(format!("model '{model}' is not a Cursor model id")));
        }
        let workspace_text = required("workspace", &self.workspace)?;
        no_nul("workspace", workspace_text)?;
        let workspace = std::path::absolute(Path::new(workspace_text))
            .map_err(|e| invalid(format!("workspace '{workspace_text}': {e}")))?;
        if !workspace.is_dir() {
            return Err(invalid(format!(
                "workspace '{}' does not exist or is not a directory",
                workspace.display()
            )));
        }
        if let Some(id) = &self.resume_chat_id {
            if !is_valid_chat_id(id) {
                return Err(invalid(format!(
                    "resumeChatId '{id}' must match ^[A-Za-z0-9][A-Za-z0-9_-]*$ and be at most {MAX_CHAT_ID_LEN} characters"
                )));
            }
        }
        if let Some(exe) = &self.executable {
            if exe.is_empty() {
                return Err(invalid("executable must not be empty"));
            }
            no_nul("executable", exe)?;
        }
        let extra_args = self.extra_args.unwrap_or_default();
        for arg in &extra_args {
            no_nul("extraArgs", arg)?;
        }
        if let Some(env) = &self.env {
            for (k, v) in env {
                if k.is_empty() || k.contains('=') {
                    return Err(invalid(format!("env has an invalid variable name '{k}'")));
                }
                no_nul("env", k)?;
                no_nul("env", v)?;
            }
        }
        let idle_timeout = millis(
            "idleTimeoutMs",
            self.idle_timeout_ms,
            DEFAULT_IDLE_TIMEOUT_MS,
        )?;
        let timeout = millis("timeoutMs", self.timeout_ms, 0)?;

        let mut transformer = TransformerOptions {
            format: parse_format(self.format.as_deref())?,
            model: model.clone(),
            tool_calls: parse_tool_calls(self.tool_calls.as_deref())?,
            ..TransformerOptions::default()
        };
        if let Some(include) = self.include_usage {
            transformer.include_usage = include;
        }
        transformer.id = self.id;
        if let Some(created) = self.created {
            transformer.created = Some(whole_number_option(created, "created", 0.0)? as i64);
        }
        if let Some(max) = self.max_line_bytes {
            transformer.max_line_bytes = whole_number_option(max, "maxLineBytes", 1.0)? as usize;
        }

        Ok(RunOptions {
            prompt: self.prompt.unwrap_or_default(),
            model,
            workspace,
            resume_chat_id: self.resume_chat_id,
            executable: self.executable,
            force: self.force.unwrap_or(true),
            extra_args,
            env: self.env,
            idle_timeout,
            timeout,
            transformer,
        })
    }
}

/// cursor-agent's arguments for a run (after the launcher's own leading arguments).
pub fn agent_args(options: &RunOptions) -> Vec<OsString> {
    let mut args: Vec<OsString> = [
        "--print",
        "--output-format",
        "stream-json",
        "--stream-partial-output",
        "--workspace",
    ]
    .into_iter()
    .map(OsString::from)
    .collect();
    args.push(options.workspace.clone().into_os_string());
    args.push("--model".into());
    args.push(options.model.clone().into());
    if let Some(id) = &options.resume_chat_id {
        args.push("--resume".into());
        args.push(id.into());
    }
    args.push(if options.force { "--force" } else { "--trust" }.into());
    args.extend(options.extra_args.iter().map(OsString::from));
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(workspace: &Path) -> RunRequest {
        RunRequest {
            prompt: Some("hi".into()),
            model: Some("cursor-acp/gpt-5".into()),
            workspace: Some(workspace.to_string_lossy().into_owned()),
            ..RunRequest::default()
        }
    }

    fn strings(args: &[OsString]) -> Vec<String> {
        args.iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn default_command_line() {
        let ws = std::env::temp_dir();
        let ws_abs = std::path::absolute(&ws).unwrap();
        let opts = request(&ws).validate().unwrap();
        assert_eq!(
            strings(&agent_args(&opts)),
            [
                "--print",
                "--output-format",
                "stream-json",
                "--stream-partial-output",
                "--workspace",
                &ws_abs.to_string_lossy(),
                "--model",
                "gpt-5",
                "--force",
            ]
        );
        assert_eq!(opts.idle_timeout, Some(Duration::from_millis(300_000)));
        assert_eq!(opts.timeout, None);
        assert_eq!(opts.transformer.format, Format::AiSdk);
        assert_eq!(opts.transformer.model, "gpt-5");
    }

    #[test]
    fn resume_trust_and_extra_args_in_order() {
        let ws = std::env::temp_dir();
        let mut r = request(&ws);
        r.resume_chat_id = Some("4f1c-aa_9".into());
        r.force = Some(false);
        r.extra_args = Some(vec!["--sandbox".into(), "enabled".into()]);
        let args = strings(&agent_args(&r.validate().unwrap()));
        assert_eq!(
            args[6..],
            [
                "--model",
                "gpt-5",
                "--resume",
                "4f1c-aa_9",
                "--trust",
                "--sandbox",
                "enabled"
            ]
        );
    }

    #[test]
    fn refusals_are_invalid_arg() {
        let ws = std::env::temp_dir();
        let missing = ws.join("definitely-not-here-7f3a9");
        type Mutation = Box<dyn Fn(&mut RunRequest)>;
        let cases: Vec<(&str, Mutation)> = vec![
            ("empty prompt", Box::new(|r| r.prompt = Some("  \n".into()))),
            ("no prompt", Box::new(|r| r.prompt = None)),
            ("no model", Box::new(|r| r.model = None)),
            (
                "flag-like model",
                Box::new(|r| r.model = Some("--help".into())),
            ),
            (
                "prefix only",
                Box::new(|r| r.model = Some("cursor-acp/".into())),
            ),
            (
                "missing workspace",
                Box::new(move |r| r.workspace = Some(missing.to_string_lossy().into())),
            ),
            (
                "bad chat id",
                Box::new(|r| r.resume_chat_id = Some("-1".into())),
            ),
            ("bad format", Box::new(|r| r.format = Some("sse".into()))),
            (
                "bad toolCalls",
                Box::new(|r| r.tool_calls = Some("none".into())),
            ),
            (
                "negative idle",
                Box::new(|r| r.idle_timeout_ms = Some(-1.0)),
            ),
            ("NaN timeout", Box::new(|r| r.timeout_ms = Some(f64::NAN))),
            (
                "NUL arg",
                Box::new(|r| r.extra_args = Some(vec!["a\0b".into()])),
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
            let mut r = request(&ws);
            mutate(&mut r);
            let err = r.validate().expect_err(name);
            assert_eq!(err.code(), "E_INVALID_ARG", "{name}");
        }
    }

    #[test]
    fn zero_idle_timeout_disables_it() {
        let mut r = request(&std::env::temp_dir());
        r.idle_timeout_ms = Some(0.0);
        r.timeout_ms = Some(1500.0);
        let o = r.validate().unwrap();
        assert_eq!(o.idle_timeout, None);
        assert_eq!(o.timeout, Some(Duration::from_millis(1500)));
    }
}
