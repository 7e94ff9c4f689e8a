//! The cursor-agent command line of a run.

use std::ffi::OsString;

use super::options::RunOptions;

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
    args.push(options.workspace_dir().as_os_str().to_owned());
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
