use super::{Format, StreamTransformer, TransformerOptions};
use crate::core::stream::encode::batch::Batch;
use crate::core::stream::translate::Outcome;

fn options(format: Format) -> TransformerOptions {
    TransformerOptions {
        format,
        id: Some("chatcmpl-test".into()),
        created: Some(1_700_000_000),
        ..Default::default()
    }
}

#[test]
fn batched_outputs_equal_the_values_after_a_failure() {
    let input = concat!(
        r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","#,
        r#""text":"part caf\u00e9 \ud83d\ude80"}]},"session_id":"s","timestamp_ms":1}"#,
        "\n"
    );
    let failed = Outcome {
        exit_code: Some(1),
        stderr: "Error: something broke".to_owned(),
        ..Outcome::default()
    };
    for format in [Format::OpenAiSse, Format::AiSdk] {
        let mut values = Vec::new();
        let mut t = StreamTransformer::new(options(format));
        t.push(input.as_bytes(), &mut values).unwrap();
        let summary = t.finish(&failed, &mut values);
        assert!(summary.error.is_some(), "{format:?}");
        let mut batch = Batch::new();
        let mut t = StreamTransformer::new(options(format));
        t.push_batch(input.as_bytes(), &mut batch).unwrap();
        assert_eq!(t.finish_batch(&failed, &mut batch), summary);
        assert_eq!(batch.to_outputs(), values, "{format:?}");
        assert!(values.len() > 2, "the text and the failure: {values:?}");
    }
}

/// The real captures, each pushed in chunks of 97 bytes: the batch reads back as the values.
#[test]
fn batched_outputs_equal_the_values_for_every_capture() {
    let folder =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("__test__/fixtures/captures/maestro");
    let mut read = 0;
    for entry in std::fs::read_dir(folder).expect("the captures folder") {
        let path = entry.expect("a folder entry").path();
        if path
            .extension()
            .is_none_or(|extension| extension != "jsonl")
        {
            continue;
        }
        let input = std::fs::read(&path).expect("a capture");
        read += 1;
        for format in [Format::OpenAiSse, Format::AiSdk] {
            let success = Outcome {
                exit_code: Some(0),
                ..Outcome::default()
            };
            let mut values = Vec::new();
            let mut t = StreamTransformer::new(options(format));
            t.push(&input, &mut values).unwrap();
            let summary = t.finish(&success, &mut values);
            let mut t = StreamTransformer::new(options(format));
            let mut batch = Batch::new();
            for chunk in input.chunks(97) {
                t.push_batch(chunk, &mut batch).unwrap();
            }
            assert_eq!(t.finish_batch(&success, &mut batch), summary);
            assert_eq!(batch.to_outputs(), values, "{path:?} {format:?}");
            let mut after = Batch::new();
            assert_eq!(t.finish_batch(&success, &mut after), Default::default());
            assert!(after.is_empty());
            assert!(t.push_batch(b"{}", &mut after).is_err());
        }
    }
    assert_eq!(read, 5, "every capture read");
}
