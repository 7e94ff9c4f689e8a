//! Cursor's mode of a run: `agent` (the CLI's default, which may edit files and run commands) or
//! one of its read-only modes, and what each puts on the command line.

use crate::core::error::CoreError;

/// The mode cursor-agent runs in. `agent` is the CLI's default and has no flag: the CLI refuses
/// `--mode agent` ("Allowed choices are plan, ask"). `plan` ("analyze, propose plans, no edits")
/// and `ask` ("Q&A style, read-only") are read-only: such a run never gets `--force`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CursorMode {
    #[default]
    Agent,
    Ask,
    Plan,
}

/// Each mode's `--mode` value; `None` for the default, which takes no flag.
const MODE_FLAGS: &[(CursorMode, Option<&str>)] = &[
    (CursorMode::Agent, None),
    (CursorMode::Ask, Some("ask")),
    (CursorMode::Plan, Some("plan")),
];

/// The mode of a run that may not edit and asked for no read-only mode of its own: `plan`, what a
/// host's planning agent is for (OpenCode's Plan agent analyses and proposes a plan). `ask`
/// answers questions and does not plan; a caller may still ask for it.
pub const READ_ONLY_DEFAULT: CursorMode = CursorMode::Plan;

/// Arguments that let Cursor write and run anything without asking (cursor-agent's `--force`,
/// its short form and its `--yolo` alias): a read-only run refuses them among `extraArgs`.
const FORCE_ARGS: &[&str] = &["--force", "-f", "--yolo"];

impl CursorMode {
    /// The `--mode` value, or `None` for `agent`.
    pub fn flag(self) -> Option<&'static str> {
        MODE_FLAGS
            .iter()
            .find(|(mode, _)| *mode == self)
            .and_then(|(_, flag)| *flag)
    }

    /// Whether the mode may not edit files nor run commands.
    pub fn is_read_only(self) -> bool {
        self.flag().is_some()
    }

    /// The mode a run uses: this one, unless the run is `read_only` and this mode may edit, then
    /// [`READ_ONLY_DEFAULT`].
    pub fn for_run(self, read_only: bool) -> CursorMode {
        if read_only && !self.is_read_only() {
            READ_ONLY_DEFAULT
        } else {
            self
        }
    }

    /// A read-only run given an argument that would grant Cursor everything: `E_INVALID_ARG`.
    pub fn check_extra_args(self, args: &[String]) -> Result<(), CoreError> {
        let Some(flag) = self.flag() else {
            return Ok(());
        };
        match args.iter().find(|arg| FORCE_ARGS.contains(&arg.as_str())) {
            Some(arg) => Err(CoreError::invalid_arg(format!(
                "extraArgs must not hold '{arg}' in mode '{flag}': a read-only run never gets it"
            ))),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_read_only_modes_take_a_flag() {
        for (mode, flag, read_only) in [
            (CursorMode::Agent, None, false),
            (CursorMode::Ask, Some("ask"), true),
            (CursorMode::Plan, Some("plan"), true),
        ] {
            assert_eq!(mode.flag(), flag, "{mode:?}");
            assert_eq!(mode.is_read_only(), read_only, "{mode:?}");
        }
    }

    #[test]
    fn a_read_only_run_keeps_a_read_only_mode_and_plans_otherwise() {
        for (mode, read_only, used) in [
            (CursorMode::Agent, false, CursorMode::Agent),
            (CursorMode::Ask, false, CursorMode::Ask),
            (CursorMode::Agent, true, CursorMode::Plan),
            (CursorMode::Ask, true, CursorMode::Ask),
            (CursorMode::Plan, true, CursorMode::Plan),
        ] {
            assert_eq!(
                mode.for_run(read_only),
                used,
                "{mode:?} read-only {read_only}"
            );
        }
    }

    #[test]
    fn modes_read_as_their_names() {
        for (text, mode) in [
            ("\"agent\"", CursorMode::Agent),
            ("\"ask\"", CursorMode::Ask),
            ("\"plan\"", CursorMode::Plan),
        ] {
            assert_eq!(serde_json::from_str::<CursorMode>(text).unwrap(), mode);
        }
        for text in ["\"Plan\"", "\"debug\"", "\"\"", "1"] {
            assert!(serde_json::from_str::<CursorMode>(text).is_err(), "{text}");
        }
    }

    #[test]
    fn a_read_only_run_refuses_force_among_extra_args() {
        let args = |list: &[&str]| list.iter().map(|a| a.to_string()).collect::<Vec<_>>();
        for (mode, extra, refused) in [
            (CursorMode::Plan, args(&["--force"]), true),
            (CursorMode::Ask, args(&["--sandbox", "enabled", "-f"]), true),
            (CursorMode::Plan, args(&["--yolo"]), true),
            (CursorMode::Plan, args(&["--sandbox", "enabled"]), false),
            (CursorMode::Agent, args(&["--force"]), false),
        ] {
            let result = mode.check_extra_args(&extra);
            assert_eq!(result.is_err(), refused, "{mode:?} {extra:?}");
            if let Err(error) = result {
                assert_eq!(error.code(), "E_INVALID_ARG");
            }
        }
    }
}
