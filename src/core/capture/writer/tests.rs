use super::*;
use crate::core::capture::record::Line;
use crate::core::capture::store::fresh_name;
use crate::core::stream::transformer::{Format, StreamTransformer};

fn read_lines(path: &Path) -> Vec<Line> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_record_split_over_reads_is_kept_with_the_read_that_completed_it() {
    let dir = std::env::temp_dir().join(format!("ocn-writer-{}", fresh_name()));
    let mut options = CaptureOptions::new(&dir);
    options.include_prompt = true;
    let capture = Capture::create(&options, "cap-test").unwrap();
    let mut transformer = StreamTransformer::new(TransformerOptions {
        format: Format::AiSdk,
        ..TransformerOptions::default()
    });
    capture.start(StartInfo {
        argv: vec!["agent".into(), "--token=bridge_token_123".into()],
        workspace: &dir,
        env: vec![("PATH", "/bin"), ("HOME", "/home/me")],
        prompt: "hello",
        transformer: transformer.options(),
        resume_chat_id: Some("chat-1"),
        host_tools: Some(vec!["read".into()]),
        agent_version: Some(AgentVersionRecord::from_path("2026.09.18-9a7762b")),
        secrets: vec![("tool bridge token", "bridge_token_123")],
    });
    transformer.set_tap(capture.tap());
    let mut out = Vec::new();
    let record = "{\"type\":\"system\",\"session_id\":\"s\"}\n";
    let (head, rest) = record.split_at(10);
    for chunk in [head, rest, "{\"type\":"] {
        transformer.push(chunk.as_bytes(), &mut out).unwrap();
    }
    transformer.drop_unterminated();
    capture.exited(Some(0), None);
    capture.answered(vec!["call-1".into()]);
    capture.end(EndInfo {
        ending: "finished",
        exit_code: Some(0),
        signal: None,
        cancelled: false,
        error: None,
        skipped_lines: 1,
        delivered: 0,
        agent_version: Some(AgentVersionRecord::from_init("2026.10.01-e373342")),
    });
    let lines = read_lines(&dir.join("cap-test.ndjson"));
    let Line::Start(start) = &lines[0] else {
        panic!("start first")
    };
    assert_eq!(start.env, ["HOME", "PATH"], "names only, sorted");
    assert_eq!(start.argv[1], "--token=[masked tool bridge token]");
    assert_eq!(start.prompt.text.as_deref(), Some("hello"));
    assert_eq!(start.masked.secrets, ["tool bridge token"]);
    assert_eq!(
        start.agent_version,
        Some(AgentVersionRecord::from_path("2026.09.18-9a7762b"))
    );
    let raw = std::fs::read_to_string(dir.join("cap-test.ndjson")).unwrap();
    assert!(
        raw.lines()
            .next()
            .unwrap()
            .contains(r#""agentVersion":{"value":"2026.09.18-9a7762b","source":"path"}"#),
        "{raw}"
    );
    assert!(
        raw.lines()
            .last()
            .unwrap()
            .contains(r#""agentVersion":{"value":"2026.10.01-e373342","source":"init"}"#),
        "the version the stream named is on the end line: {raw}"
    );
    assert!(!start.masked.prompt);
    let kept: Vec<(usize, Option<String>)> = lines
        .iter()
        .filter_map(|l| match l {
            Line::Stdout { read, data, .. } => Some((*read, data.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        kept,
        [
            (10, None),
            (rest.len(), Some(record.to_owned())),
            (8, None),
            (0, Some("{\"type\":".to_owned())),
        ],
        "the cut-off record is kept before the cut-off line"
    );
    assert!(matches!(lines[5], Line::CutOff { .. }));
    assert!(matches!(
        lines[6],
        Line::Exit {
            exit_code: Some(0),
            ..
        }
    ));
    assert!(matches!(&lines[7], Line::Answers { ids, .. } if ids == &["call-1"]));
    let Line::End(end) = &lines[8] else {
        panic!("end last")
    };
    assert_eq!(end.stdout_bytes, record.len() as u64 + 8);
    assert!(end.first_stdout_ms.is_some());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_capture_that_cannot_be_created_is_given_up() {
    let file = std::env::temp_dir().join(format!("ocn-not-a-folder-{}", fresh_name()));
    std::fs::write(&file, "x").unwrap();
    assert!(Capture::create(&CaptureOptions::new(&file), "cap-x").is_none());
    std::fs::remove_file(file).unwrap();
}

fn folder_size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.metadata().unwrap().len())
        .sum()
}

#[test]
fn captures_written_side_by_side_are_pruned_when_one_ends() {
    let dir = std::env::temp_dir().join(format!("ocn-writer-{}", fresh_name()));
    let mut options = CaptureOptions::new(&dir);
    options.max_bytes = 8 * 1024;
    let transformer_options = TransformerOptions::default();
    let record = format!(
        "{{\"type\":\"assistant\",\"message\":{{\"content\":[{{\"type\":\"text\",\"text\":\"{}\"}}]}}}}\n",
        "x".repeat(200)
    );
    let captures: Vec<Capture> = ["cap-one", "cap-two", "cap-three", "cap-four", "cap-five"]
        .iter()
        .map(|name| {
            let capture = Capture::create(&options, name).unwrap();
            capture.start(StartInfo {
                argv: vec!["agent".into()],
                workspace: &dir,
                env: Vec::new(),
                prompt: "p",
                transformer: &transformer_options,
                resume_chat_id: None,
                host_tools: None,
                agent_version: None,
                secrets: Vec::new(),
            });
            capture
        })
        .collect();
    // Each grows to its own limit (a quarter of the folder's) while the others run.
    for capture in &captures {
        let mut transformer = StreamTransformer::new(TransformerOptions::default());
        transformer.set_tap(capture.tap());
        let mut out = Vec::new();
        for _ in 0..20 {
            transformer.push(record.as_bytes(), &mut out).unwrap();
        }
    }
    assert!(
        folder_size(&dir) > options.max_bytes,
        "over the limit while they run"
    );
    let last = captures.last().unwrap();
    last.end(EndInfo {
        ending: "finished",
        exit_code: Some(0),
        signal: None,
        cancelled: false,
        error: None,
        skipped_lines: 0,
        delivered: 0,
        agent_version: None,
    });
    assert!(
        folder_size(&dir) <= options.max_bytes,
        "within the limit once one has ended"
    );
    assert!(
        capture_path(&dir, last.name()).exists(),
        "the capture that ended is kept"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[test]
fn a_capture_and_its_folder_are_private_and_a_planted_link_is_not_followed() {
    use std::os::unix::fs::{symlink, PermissionsExt};
    let mode = |p: &Path| std::fs::symlink_metadata(p).unwrap().permissions().mode() & 0o777;
    let root = std::env::temp_dir().join(format!("ocn-private-capture-{}", fresh_name()));
    let dir = root.join("captures");
    let options = CaptureOptions::new(&dir);
    let capture = Capture::create(&options, "cap-mode").unwrap();
    assert_eq!(mode(&capture_path(&dir, capture.name())), 0o600);
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(mode(&root), 0o700);

    // A link planted where the next capture goes: refused, its target untouched.
    let victim = root.join("victim");
    std::fs::write(&victim, "precious").unwrap();
    symlink(&victim, capture_path(&dir, "cap-link")).unwrap();
    assert!(Capture::create(&options, "cap-link").is_none());
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    // A link planted as the folder itself: refused.
    let elsewhere = root.join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let linked = root.join("linked-captures");
    symlink(&elsewhere, &linked).unwrap();
    assert!(Capture::create(&CaptureOptions::new(&linked), "cap-x").is_none());
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
    drop(capture);
    let _ = std::fs::remove_dir_all(root);
}
