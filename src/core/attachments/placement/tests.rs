use std::path::PathBuf;

use base64::Engine;
use serde_json::{json, Value};

use super::*;
use crate::core::prompt::{build_full_prompt, build_incremental_prompt, Conversation};

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn png(width: u32, height: u32) -> Vec<u8> {
    crate::core::attachments::picture_samples::png(width, height)
}

fn image_part(bytes: &[u8]) -> Value {
    json!({"type": "file", "mediaType": "image/png", "data": b64(bytes)})
}

fn user(parts: Vec<Value>) -> Value {
    json!({"role": "user", "content": parts})
}

fn folder() -> PathBuf {
    PathBuf::from("/tmp/run-folder")
}

fn placed(messages: Value, scope: Scope) -> (String, Option<String>, Planned) {
    placed_reading(messages, scope, LocalFiles::Read)
}

fn placed_reading(
    messages: Value,
    scope: Scope,
    local_files: LocalFiles,
) -> (String, Option<String>, Planned) {
    let conversation = Conversation::parse(&messages, None).unwrap();
    let (placed, planned) = place(&conversation, scope, local_files, &folder());
    (
        build_full_prompt(&placed, false),
        build_incremental_prompt(&placed),
        planned,
    )
}

fn decoded(file: &PlannedFile) -> Vec<u8> {
    file.data.to_vec()
}

#[test]
fn a_pasted_picture_is_saved_with_its_bytes_and_named_by_its_path() {
    let picture = png(800, 600);
    let (full, incremental, planned) = placed(
        json!([user(vec![
            json!({"type": "text", "text": "what colour?"}),
            image_part(&picture)
        ])]),
        Scope::Conversation,
    );
    assert_eq!(planned.files.len(), 1);
    let file = &planned.files[0];
    assert_eq!(decoded(file), picture);
    assert!(
        file.name.ends_with(".png") && file.name.len() == 36,
        "{}",
        file.name
    );
    let path = folder().join(&file.name);
    let line = format!(
        "[attached image (image/png, {} bytes, 800x600 px), saved for you at {}: open that file with your Read tool to see it]",
        picture.len(),
        path.display()
    );
    assert_eq!(full, format!("USER: what colour?\n{line}"));
    assert_eq!(
        incremental.as_deref(),
        Some(format!("what colour?\n{line}").as_str())
    );
    assert!(planned.warnings.is_empty());
}

#[test]
fn each_run_names_its_files_anew() {
    let messages = json!([user(vec![image_part(&png(2, 2))])]);
    let (_, _, first) = placed(messages.clone(), Scope::Newest);
    let (_, _, second) = placed(messages, Scope::Newest);
    assert_ne!(first.files[0].name, second.files[0].name);
}

#[test]
fn what_cannot_be_sent_is_said_in_the_prompt_and_to_the_user() {
    let svg = json!({"type": "file", "mediaType": "image/svg+xml", "filename": "logo.svg",
        "data": b64(b"<svg xmlns='http://www.w3.org/2000/svg'/>")});
    let corrupt =
        json!({"type": "file", "mediaType": "image/png", "data": "data:image/png;base64,%%%"});
    let not_a_picture = json!({"type": "file", "mediaType": "image/png", "data": b64(b"hello")});
    let mut huge = png(9000, 9000);
    huge.resize(PICTURE_MAX_BYTES + 1, 0);
    let oversized = json!({"type": "file", "mediaType": "image/png", "filename": "big.png", "data": b64(&huge)});
    let tiff = json!({"type": "file", "mediaType": "image/tiff", "data": b64(b"II*\0rest")});
    let audio =
        json!({"type": "input_audio", "input_audio": {"data": b64(b"RIFF"), "format": "wav"}});
    let zip =
        json!({"type": "file", "mediaType": "application/zip", "data": b64(b"PK\x03\x04\0\0")});
    let (full, _, planned) = placed(
        json!([user(vec![
            svg,
            corrupt,
            not_a_picture,
            oversized,
            tiff,
            audio,
            zip
        ])]),
        Scope::Newest,
    );
    assert!(planned.files.is_empty());
    let table = [
        "Cursor cannot decode SVG pictures",
        "its data is not valid base64",
        "its bytes are not a PNG, JPEG, GIF, WebP or BMP picture",
        &format!("it is larger than the {PICTURE_MAX_BYTES}-byte limit for a picture"),
        "Cursor's Read tool does not open TIFF pictures",
        "Cursor's models take no audio",
        "Cursor's Read tool opens pictures, PDFs and text, not application/zip",
    ];
    assert_eq!(
        planned.warnings.len(),
        table.len(),
        "{:?}",
        planned.warnings
    );
    for (reason, warning) in table.iter().zip(&planned.warnings) {
        assert!(warning.contains(reason), "{warning} / {reason}");
        assert!(
            full.contains(&format!("not sent: {reason}")),
            "{reason} in {full}"
        );
    }
    assert!(
        planned.warnings[0].starts_with("The attached image \"logo.svg\" was not sent to Cursor")
    );
    assert!(full.contains("Tell the user it did not reach you, and why"));
}

#[test]
fn a_file_that_only_begins_like_a_picture_is_not_saved_as_one() {
    let mut garbage = png(3, 2)[..33].to_vec();
    garbage.extend(b"and then anything at all");
    let text = b"BMW cars, a list:\n1. the 3 series\n2. the 5 series\n";
    let (full, _, planned) = placed(
        json!([user(vec![
            json!({"type": "file", "mediaType": "image/png", "filename": "shot.png", "data": b64(&garbage)}),
            json!({"type": "file", "mediaType": "text/plain", "filename": "cars.txt", "data": b64(text)}),
        ])]),
        Scope::Newest,
    );
    let why =
        "its bytes begin like a PNG picture but are not one: its structure runs past the end \
               of its bytes";
    assert_eq!(
        planned.warnings,
        [format!(
            "The attached image \"shot.png\" was not sent to Cursor: {why}."
        )]
    );
    assert!(
        full.contains(&format!(
            "[attached image \"shot.png\" (image/png, 57 bytes) not sent: {why}."
        )),
        "{full}"
    );
    let names: Vec<_> = planned
        .files
        .iter()
        .map(|f| f.name.rsplit('.').next().unwrap())
        .collect();
    assert_eq!(names, ["txt"], "a text that begins like a BMP is text");
}

#[test]
fn a_refusal_names_the_attachment_by_what_it_has_and_never_by_an_empty_name() {
    let part = |name: &str, media_type: &str, data: &[u8]| json!({"type": "file", "mediaType": media_type, "filename": name, "data": b64(data)});
    let (full, _, planned) = placed(
        json!([user(vec![
            part("", "image/png", b"hello"),
            part("  ", "", b"PK\x03\x04\0\0"),
            part("a.zip", "", b"PK\x03\x04\0\0"),
        ])]),
        Scope::Newest,
    );
    assert_eq!(
        planned.warnings,
        [
            "The attached image (image/png) was not sent to Cursor: its bytes are not a PNG, JPEG, \
             GIF, WebP or BMP picture (the data may be corrupt).",
            "An attached file was not sent to Cursor: Cursor's Read tool opens pictures, PDFs and \
             text, not this kind of file.",
            "The attached file \"a.zip\" was not sent to Cursor: Cursor's Read tool opens pictures, \
             PDFs and text, not this kind of file.",
        ]
    );
    assert!(!full.contains("\"\"") && !full.contains("(,"), "{full}");
}

#[test]
fn pdfs_and_text_files_are_saved_for_read_and_other_files_are_not() {
    let pdf = json!({"type": "file", "mediaType": "application/pdf", "filename": "spec.pdf", "data": b64(b"%PDF-1.7\n...")});
    let text = json!({"type": "file", "mediaType": "text/markdown", "filename": "notes.md", "data": b64("# Notes\né".as_bytes())});
    let (full, _, planned) = placed(json!([user(vec![pdf, text])]), Scope::Newest);
    let names: Vec<_> = planned
        .files
        .iter()
        .map(|f| f.name.rsplit('.').next().unwrap())
        .collect();
    assert_eq!(names, ["pdf", "txt"]);
    assert_eq!(decoded(&planned.files[1]), "# Notes\né".as_bytes());
    assert!(full.contains("[attached file \"spec.pdf\" (application/pdf, 12 bytes), saved for you at /tmp/run-folder/"));
}

#[test]
fn a_file_url_is_copied_into_the_runs_folder() {
    let dir = std::env::temp_dir().join(format!("ocn-place-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let shot = dir.join("my shot.png");
    std::fs::write(&shot, png(3, 4)).unwrap();
    let url = format!("file://{}", shot.display().to_string().replace(' ', "%20"));
    let missing = format!("file://{}/gone.png", dir.display());
    let (full, _, planned) = placed(
        json!([user(vec![
            json!({"type": "file", "mediaType": "image/png", "data": url}),
            json!({"type": "file", "mediaType": "image/png", "data": missing}),
        ])]),
        Scope::Newest,
    );
    assert_eq!(planned.files.len(), 1);
    assert_eq!(decoded(&planned.files[0]), png(3, 4));
    assert!(
        !full.contains("my shot"),
        "the user's own path is not handed on"
    );
    assert!(planned.warnings[0].contains("its file could not be read"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_file_url_from_a_client_of_the_server_is_refused_unread() {
    let dir = std::env::temp_dir().join(format!("ocn-place-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let secret = dir.join("secret.txt");
    std::fs::write(&secret, "do not send").unwrap();
    let url = format!("file://{}", secret.display());
    for part in [
        json!({"type": "file", "mediaType": "text/plain", "data": url}),
        json!({"type": "image", "image": url}),
    ] {
        let (full, _, planned) = placed_reading(
            json!([user(vec![part.clone()])]),
            Scope::Conversation,
            LocalFiles::Refuse,
        );
        assert!(planned.files.is_empty(), "{part}");
        assert!(!full.contains("do not send"), "{part}");
        assert!(!full.contains("secret.txt"), "{part}");
        assert_eq!(planned.warnings.len(), 1, "{part}");
        assert!(
            planned.warnings[0].contains("the server never reads for a client"),
            "{}",
            planned.warnings[0]
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_fresh_chat_gets_earlier_pictures_back_newest_first_within_the_limit() {
    let mut messages = Vec::new();
    for turn in 0..ATTACHMENTS_PER_RUN {
        messages.push(user(vec![
            json!({"type": "text", "text": format!("turn {turn}")}),
            image_part(&png(10 + turn as u32, 10)),
        ]));
        messages.push(json!({"role": "assistant", "content": "seen"}));
    }
    messages.push(user(vec![image_part(&png(1, 1)), image_part(&png(2, 1))]));
    let (full, _, planned) = placed(Value::Array(messages.clone()), Scope::Conversation);
    assert_eq!(planned.files.len(), ATTACHMENTS_PER_RUN);
    assert_eq!(
        decoded(&planned.files[0]),
        png(1, 1),
        "the newest message first"
    );
    assert_eq!(decoded(&planned.files[1]), png(2, 1));
    assert_eq!(
        decoded(&planned.files[2]),
        png(10 + ATTACHMENTS_PER_RUN as u32 - 1, 10)
    );
    let oldest = format!(
        "USER: turn 0\n[attached image (image/png, {} bytes) of an earlier message, not sent again]",
        png(10, 10).len()
    );
    assert!(full.contains(&oldest), "{full}");
    // The model is told to open the newest message's pictures, and earlier ones only if needed.
    assert_eq!(
        full.matches("open that file with your Read tool to see it")
            .count(),
        2
    );
    assert_eq!(
        full.matches("it belongs to an earlier message; open it with your Read tool only if you need to see it again").count(),
        ATTACHMENTS_PER_RUN - 2
    );
    assert!(full.contains("USER: turn 1\n[attached image (image/png"));
    assert!(
        planned.warnings.is_empty(),
        "earlier messages were reported when sent"
    );

    // A resumed chat: only the newest message's.
    let (_, incremental, planned) = placed(Value::Array(messages), Scope::Newest);
    assert_eq!(planned.files.len(), 2);
    assert_eq!(incremental.unwrap().matches("saved for you at").count(), 2);
}

#[test]
fn past_the_limit_the_newest_messages_extra_pictures_are_refused_with_the_reason() {
    let parts = (0..ATTACHMENTS_PER_RUN + 1)
        .map(|i| image_part(&png(i as u32 + 1, 1)))
        .collect();
    let (_, _, planned) = placed(json!([user(parts)]), Scope::Newest);
    assert_eq!(planned.files.len(), ATTACHMENTS_PER_RUN);
    assert_eq!(planned.warnings.len(), 1);
    assert!(planned.warnings[0].contains(&format!("at most {ATTACHMENTS_PER_RUN} attachments")));
}

#[test]
fn urls_and_file_ids_are_left_as_they_were() {
    let (full, _, planned) = placed(
        json!([user(vec![
            json!({"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}),
            json!({"type": "file", "file": {"file_id": "file-123"}}),
        ])]),
        Scope::Newest,
    );
    assert!(planned.files.is_empty() && planned.warnings.is_empty());
    assert!(full.contains("[attached image: https://example.com/a.png]"));
    assert!(full.contains("provider file id file-123"));
}

#[test]
fn a_request_ending_with_tool_results_warns_of_nothing_already_reported() {
    let (_, _, planned) = placed(
        json!([
            user(vec![json!({"type": "file", "mediaType": "image/svg+xml", "data": b64(b"<svg/>")})]),
            {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "c1", "toolName": "read", "input": {}}]},
            {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c1", "toolName": "read", "output": {"type": "text", "value": "ok"}}]},
        ]),
        Scope::Conversation,
    );
    assert!(planned.warnings.is_empty());
}

#[test]
fn a_resumed_chat_ending_with_tool_results_saves_nothing_again() {
    let messages = json!([
        user(vec![image_part(&png(5, 5))]),
        {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "c1", "toolName": "read", "input": {}}]},
        {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c1", "toolName": "read", "output": {"type": "text", "value": "ok"}}]},
    ]);
    let conversation = Conversation::parse(&messages, None).unwrap();
    let (resumed, planned) = place_for_run(&conversation, Scope::Newest, LocalFiles::Read);
    assert!(
        planned.is_none(),
        "the picture went with the run that sent it"
    );
    assert!(matches!(resumed, Cow::Borrowed(_)));
    let (fresh, planned) = place_for_run(&conversation, Scope::Conversation, LocalFiles::Read);
    assert_eq!(
        planned.map(|p| p.files.len()),
        Some(1),
        "a fresh chat needs it again"
    );
    assert!(matches!(fresh, Cow::Owned(_)));
}

#[test]
fn a_plan_without_files_makes_no_folder() {
    let kept = json!([user(vec![
        json!({"type": "image_url", "image_url": {"url": "https://example.com/a.png"}})
    ])]);
    let conversation = Conversation::parse(&kept, None).unwrap();
    let (_, planned) = place_for_run(&conversation, Scope::Newest, LocalFiles::Read);
    assert_eq!(planned, None, "a URL is named as it is: nothing to save");
    let refused = json!([user(vec![
        json!({"type": "file", "mediaType": "image/png", "data": "not base64!"})
    ])]);
    let conversation = Conversation::parse(&refused, None).unwrap();
    let (_, planned) = place_for_run(&conversation, Scope::Newest, LocalFiles::Read);
    let planned = planned.expect("the refusal is told");
    assert!(!planned.has_files());
    assert_eq!(planned.warnings.len(), 1);
}
