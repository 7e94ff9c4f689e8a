//! `cursor-agent models`: the models the account can use, each with what the [`catalog`] knows
//! about it.

pub mod catalog;
pub mod family;
pub mod rung;

use std::time::Duration;

pub use self::catalog::{model_spec, ModelSpec};
pub use self::family::{group_models, model_for, ModelFamily};
use super::child::RunContext;
use super::options::EnvVars;
use super::subcommand::{run_subcommand, Subcommand};
use crate::core::error::{CoreError, ErrorCode};
use crate::core::failure::classify::{classify_failure, quoted_tail, strip_ansi};

/// One model the account can use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelInfo {
    /// What `--model` takes, e.g. `gpt-5.5-high`.
    pub id: String,
    /// Cursor's label, e.g. `GPT-5.5 1M High`.
    pub name: String,
    /// Its limits and thinking, from the [`catalog`].
    pub spec: ModelSpec,
}

impl ModelInfo {
    /// The model `id` labelled `name`, described by the [`catalog`].
    pub fn new(id: impl Into<String>, name: impl Into<String>) -> Self {
        let (id, name) = (id.into(), name.into());
        let spec = model_spec(&id, &name);
        Self { id, name, spec }
    }

    /// What is known of the model `id` labelled `name` (the id when absent or blank);
    /// `E_INVALID_ARG` for a blank id.
    pub fn described(id: Option<String>, name: Option<String>) -> Result<Self, CoreError> {
        let id = id
            .filter(|id| !id.trim().is_empty())
            .ok_or_else(|| CoreError::invalid_arg("the model id must be a non-empty string"))?;
        let name = name.filter(|name| !name.trim().is_empty());
        let name = name.unwrap_or_else(|| id.clone());
        Ok(Self::new(id, name))
    }
}

/// How long `cursor-agent models` may take (it asks Cursor's servers).
pub const MODELS_TIMEOUT: Duration = Duration::from_secs(30);
const NO_MODELS: &str = "No models available for this account.";

/// Markers Cursor appends to a label; removed from names.
const LABEL_MARKERS: &[&str] = &[
    "(current, default)",
    "(default, current)",
    "(default)",
    "(current)",
];

/// Zero-width characters removed, runs of whitespace collapsed to one space, trimmed.
fn clean(text: &str) -> String {
    text.replace(['\u{200b}', '\u{feff}'], "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn is_model_id(id: &str) -> bool {
    !id.is_empty()
        && !id.starts_with('-')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-:/[]=,".contains(c))
}

/// What the output of `cursor-agent models` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelsOutput {
    Models(Vec<ModelInfo>),
    /// Cursor said `No models available for this account.`
    NoneAvailable,
    /// Nothing recognisable.
    Unrecognised,
}

/// A line that is not a model whatever else it holds: a remark under a label (`Tip:`,
/// `Note:`, `Hint`), or an example command line (`--model '<id>[context=1m]'`), which newer
/// builds append to the list.
fn is_remark(line: &str) -> bool {
    let first = line.split_whitespace().next().unwrap_or_default();
    first.ends_with(':')
        || ["tip", "note", "hint", "example", "usage"]
            .iter()
            .any(|label| first.eq_ignore_ascii_case(label))
        || line.contains("--")
}

/// Parse `<id> - <display name>` lines; headers, blank lines and remarks (`Tip:` lines, example
/// command lines) are skipped, `(current, default)`/`(default)` markers removed, double spaces
/// and U+200B cleaned, ids de-duplicated (first wins). An id may carry parameters in brackets
/// (`claude-opus-4-8[context=1m,effort=high]`), kept as they are: `--model` takes the id whole.
pub fn parse_models(stdout: &str) -> ModelsOutput {
    let mut models: Vec<ModelInfo> = Vec::new();
    let mut none_available = false;
    for raw in stdout.lines() {
        let line = clean(&strip_ansi(raw));
        if line.is_empty() {
            continue;
        }
        if line.contains(NO_MODELS) {
            none_available = true;
            continue;
        }
        if is_remark(&line) {
            continue;
        }
        let Some((id, name)) = line.split_once(" - ") else {
            continue;
        };
        let id = id.trim();
        if !is_model_id(id) {
            continue;
        }
        let mut name = name.trim().to_owned();
        for marker in LABEL_MARKERS {
            if let Some(stripped) = name.strip_suffix(marker) {
                name = stripped.trim_end().to_owned();
            }
        }
        if name.is_empty() {
            name = id.to_owned();
        }
        if !models.iter().any(|m| m.id == id) {
            models.push(ModelInfo::new(id, name));
        }
    }
    match (models.is_empty(), none_available) {
        (false, _) => ModelsOutput::Models(models),
        (true, true) => ModelsOutput::NoneAvailable,
        (true, false) => ModelsOutput::Unrecognised,
    }
}

/// Run `<cursor-agent> models` and parse it: `[]` when Cursor says no models are available;
/// an error with a stable code when the command fails.
pub async fn list_models(
    executable: Option<String>,
    env: Option<EnvVars>,
    ctx: RunContext,
) -> Result<Vec<ModelInfo>, CoreError> {
    let mut command = Subcommand::new(["models"]);
    command.executable = executable;
    command.env = env;
    command.timeout = MODELS_TIMEOUT;
    let output = run_subcommand(command, ctx).await?;
    if !output.success() {
        // Cursor prints some failures on stdout; classify both.
        let text = format!("{}\n{}", output.stderr, output.stdout);
        return Err(classify_failure(
            &text,
            output.exit_code,
            output.signal.as_deref(),
            None,
            false,
            false,
        ));
    }
    match parse_models(&output.stdout) {
        ModelsOutput::Models(models) => Ok(models),
        ModelsOutput::NoneAvailable => Ok(Vec::new()),
        ModelsOutput::Unrecognised => Err(CoreError::new(
            ErrorCode::AgentExit,
            format!(
                "`cursor-agent models` printed no model list: {}",
                quoted_tail(&format!("{}\n{}", output.stdout, output.stderr), 5, "; ")
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(id: &str, name: &str) -> ModelInfo {
        ModelInfo::new(id, name)
    }

    #[test]
    fn parses_the_documented_listing() {
        // an older build (with "(current, default)")
        let text =
            "Available models\n\nauto - Auto (current, default)\ncomposer-2.5 - Composer 2.5\n\
                    gpt-5.5-high - GPT-5.5 1M High\n\nTip: use --model <id> to switch\n";
        assert_eq!(
            parse_models(text),
            ModelsOutput::Models(vec![
                m("auto", "Auto"),
                m("composer-2.5", "Composer 2.5"),
                m("gpt-5.5-high", "GPT-5.5 1M High"),
            ])
        );
    }

    #[test]
    fn each_listed_model_carries_its_catalog_entry() {
        let ModelsOutput::Models(models) = parse_models(
            "gpt-5.5-high - GPT-5.5 1M High\nsonnet-4.6-thinking - Claude 4.6 Sonnet\n",
        ) else {
            panic!("no models parsed");
        };
        let specs: Vec<(u32, u32, bool)> = models
            .iter()
            .map(|m| {
                (
                    m.spec.context_window,
                    m.spec.max_output_tokens,
                    m.spec.reasoning,
                )
            })
            .collect();
        assert_eq!(
            specs,
            [(1_000_000, 128_000, true), (200_000, 128_000, true)]
        );
    }

    #[test]
    fn line_cleaning_table() {
        for (line, expected) in [
            ("auto - Auto (default)", Some(m("auto", "Auto"))),
            (
                "sonnet-4.6 - Claude  4.6\u{200b} Sonnet",
                Some(m("sonnet-4.6", "Claude 4.6 Sonnet")),
            ),
            ("  gpt-5 - GPT-5 (current)  ", Some(m("gpt-5", "GPT-5"))),
            ("\u{1b}[1mgrok\u{1b}[0m - Grok 4", Some(m("grok", "Grok 4"))),
            (
                "opus-4.6-thinking - Claude 4.6 Opus (Thinking)",
                Some(m("opus-4.6-thinking", "Claude 4.6 Opus (Thinking)")),
            ),
            ("Available models", None),
            ("Tip: use --model <id> - it persists", None),
            ("tip - pass parameters in brackets", None),
            ("Note: ids below - take parameters", None),
            (
                "claude-opus-4-8[context=1m,effort=high] - Claude Opus 4.8 1M High",
                Some(m(
                    "claude-opus-4-8[context=1m,effort=high]",
                    "Claude Opus 4.8 1M High",
                )),
            ),
            (
                "  --model 'claude-opus-4-8[context=1m,effort=high,fast=false]' - an example",
                None,
            ),
            ("Loading models - please wait", None),
            ("- - dash", None),
        ] {
            let got = match parse_models(line) {
                ModelsOutput::Models(v) => v.into_iter().next(),
                _ => None,
            };
            assert_eq!(got, expected, "{line:?}");
        }
    }

    #[test]
    fn a_listing_that_ends_with_tips_and_bracketed_examples() {
        // The shape of newer builds: the list, then tips naming parameterized ids.
        let text = "Available models\n\nauto - Auto (current, default)\n\
                    claude-opus-4-8 - Claude Opus 4.8\n\
                    claude-opus-4-8[context=1m,effort=high] - Claude Opus 4.8 1M High\n\n\
                    Tip: use --model <id> to switch\n\
                    Tip: models take parameters, e.g.\n\
                    \x20 agent --model 'claude-opus-4-8[context=1m,effort=high,fast=false]' - see --help\n";
        let ModelsOutput::Models(models) = parse_models(text) else {
            panic!("no models parsed");
        };
        let ids: Vec<&str> = models.iter().map(|m| m.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "auto",
                "claude-opus-4-8",
                "claude-opus-4-8[context=1m,effort=high]"
            ]
        );
        assert_eq!(models[2].spec.context_window, 1_000_000);
    }

    #[test]
    fn duplicates_keep_the_first() {
        assert_eq!(
            parse_models("a - A\nb - B\na - A again\n"),
            ModelsOutput::Models(vec![m("a", "A"), m("b", "B")])
        );
    }

    #[test]
    fn no_models_and_garbage() {
        assert_eq!(
            parse_models("No models available for this account.\n"),
            ModelsOutput::NoneAvailable
        );
        assert_eq!(
            parse_models("Available models\n\n"),
            ModelsOutput::Unrecognised
        );
        assert_eq!(parse_models(""), ModelsOutput::Unrecognised);
    }
}
