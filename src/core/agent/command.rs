//! The cursor-agent command line of a run.

use std::ffi::OsString;

use super::options::RunOptions;

/// When the host runs the tools: trust the private workspace without `--force` (so a shell
/// command of Cursor's own is refused even if the other guards fail), approve the configured
/// MCP server (a headless run can hang on approval otherwise), and ask Cursor's server for the
/// MCP tool kinds only.
const HOST_TOOL_ARGS: &[&str] = &[
    "--trust",
    "--approve-mcps",
    "--allowed-tools",
    "mcp_tool_call,get_mcp_tools_tool_call",
];

/// cursor-agent's arguments for a run (after the launcher's own leading arguments). A read-only
/// [`CursorMode`](super::mode::CursorMode) adds `--mode <mode>` and trusts the workspace instead
/// of `--force`; the default mode adds nothing.
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
    args.push(options.workspace_dir().as_os_str().to_owned());
    args.push("--model".into());
    args.push(options.model.clone().into());
    if let Some(id) = &options.resume_chat_id {
        args.push("--resume".into());
        args.push(id.into());
    }
    if options.host_tools.is_some() {
        args.extend(HOST_TOOL_ARGS.iter().map(OsString::from));
    } else {
        // A read-only mode never gets `--force`, whatever `force` says.
        let force = options.force && !options.mode.is_read_only();
        args.push(if force { "--force" } else { "--trust" }.into());
    }
    if let Some(mode) = options.mode.flag() {
        args.push("--mode".into());
        args.push(mode.into());
    }
    args.extend(options.extra_args.iter().map(OsString::from));
    args
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::agent::options::test_request as request;

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
    }

    #[test]
    fn host_tools_trust_the_private_workspace_and_allow_only_mcp() {
        let root = std::env::temp_dir().join(format!("ocn-cmd-{}", std::process::id()));
        std::fs::create_dir_all(&root).unwrap();
        let mut r = request(&root);
        r.host_tools = Some(crate::core::agent::options::HostTools::new(
            Vec::new(),
            root.join("conversation").to_string_lossy(),
        ));
        let args = strings(&agent_args(&r.validate().unwrap()));
        let private = root.join("conversation").join("workspace");
        assert_eq!(args[5], private.to_string_lossy());
        assert_eq!(
            args[8..],
            [
                "--trust",
                "--approve-mcps",
                "--allowed-tools",
                "mcp_tool_call,get_mcp_tools_tool_call"
            ]
        );
        assert!(!args.iter().any(|a| a == "--force"));
    }

    /// The arguments after `--model <id>` for each mode, force and tool mode.
    #[test]
    fn a_read_only_mode_never_forces() {
        use crate::core::agent::mode::CursorMode;
        use crate::core::agent::options::HostTools;
        let root = std::env::temp_dir().join(format!("ocn-mode-{}", std::process::id()));
        std::fs::create_dir_all(&root).unwrap();
        let host = || Some(HostTools::new(Vec::new(), root.join("c").to_string_lossy()));
        let bridge = &HOST_TOOL_ARGS;
        let with = |tail: &[&str]| bridge.iter().chain(tail).map(|a| a.to_string()).collect();
        let cases: Vec<(CursorMode, bool, Option<HostTools>, Vec<String>)> = vec![
            (CursorMode::Agent, true, None, vec!["--force".into()]),
            (CursorMode::Agent, false, None, vec!["--trust".into()]),
            (
                CursorMode::Plan,
                true,
                None,
                strings_of(&["--trust", "--mode", "plan"]),
            ),
            (
                CursorMode::Plan,
                false,
                None,
                strings_of(&["--trust", "--mode", "plan"]),
            ),
            (
                CursorMode::Ask,
                true,
                None,
                strings_of(&["--trust", "--mode", "ask"]),
            ),
            (CursorMode::Agent, true, host(), with(&[])),
            (CursorMode::Plan, true, host(), with(&["--mode", "plan"])),
            (CursorMode::Ask, true, host(), with(&["--mode", "ask"])),
        ];
        for (mode, force, host_tools, tail) in cases {
            let mut r = request(&root);
            (r.mode, r.force, r.host_tools) = (mode, force, host_tools);
            let args = strings(&agent_args(&r.validate().unwrap()));
            assert_eq!(args[8..], tail, "{mode:?} force {force}");
            assert!(mode == CursorMode::Agent || !args.iter().any(|a| a == "--force"));
        }
    }

    fn strings_of(list: &[&str]) -> Vec<String> {
        list.iter().map(|a| a.to_string()).collect()
    }

    #[test]
    fn a_model_id_with_parameters_reaches_model_unchanged() {
        let ws = std::env::temp_dir();
        for (given, passed) in [
            (
                "claude-opus-4-8[context=1m,effort=high]",
                "claude-opus-4-8[context=1m,effort=high]",
            ),
            (
                "cursor-acp/claude-opus-4-8[context=1m,effort=high,fast=false]",
                "claude-opus-4-8[context=1m,effort=high,fast=false]",
            ),
        ] {
            let mut r = request(&ws);
            r.model = given.into();
            let args = strings(&agent_args(&r.validate().unwrap()));
            assert_eq!(args[6..8], ["--model", passed], "{given}");
        }
    }

    #[test]
    fn resume_trust_and_extra_args_in_order() {
        let ws = std::env::temp_dir();
        let mut r = request(&ws);
        r.resume_chat_id = Some("4f1c-aa_9".into());
        r.force = false;
        r.extra_args = vec!["--sandbox".into(), "enabled".into()];
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
}
