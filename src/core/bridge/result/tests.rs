use super::*;

fn ok(texts: &[&str]) -> Answer {
    Answer {
        content: texts
            .iter()
            .map(|t| AnswerContent::Text((*t).to_owned()))
            .collect(),
        is_error: false,
    }
}

fn texts(shaped: &Shaped) -> Vec<&str> {
    shaped
        .content
        .iter()
        .filter_map(|c| match c {
            AnswerContent::Text(t) => Some(t.as_str()),
            AnswerContent::Image { .. } => None,
        })
        .collect()
}

#[test]
fn split_table() {
    let table: [(&str, usize, &str); 6] = [
        ("abcdef", 10, "abcdef"),
        ("abcdef", 3, "abc"),
        ("ab\ncdef", 5, "ab\n"),
        ("a\nbcdefgh", 5, "a\nbcd"),
        // Bytes are counted, and a character is never split: four bytes, then two.
        ("x\u{1F600}y", 4, "x"),
        ("\u{e9}\u{e9}\u{e9}", 5, "\u{e9}\u{e9}"),
    ];
    for (text, limit, head) in table {
        let (got, tail) = split_bytes(text, limit);
        assert_eq!(got, head, "{text:?} at {limit}");
        assert_eq!(format!("{got}{tail}"), text);
    }
}

/// What each Cursor client does with a result's text items: whether it moves them to a file.
fn spilled_by_1_0_18(items: &[&str]) -> bool {
    items.iter().any(|t| t.encode_utf16().count() > 40_000)
}
fn spilled_by_1_0_32(items: &[&str]) -> bool {
    items.join("\n\n").len() > 40_000
}

#[test]
fn every_result_stays_under_both_clients_limits_in_utf8_bytes() {
    // (what, one piece of text, pieces): ASCII, CJK (3 bytes a character), emoji (4 bytes,
    // 2 UTF-16 units), many small items, each past the limits in bytes and not in characters.
    let table: [(&str, String, usize); 5] = [
        ("ascii", "0123456789".repeat(9) + "\n", 1_300),
        ("cjk", "漢字かな交じり文\n".to_owned(), 5_000),
        ("emoji", "\u{1F600}\u{1F680} ok\n".to_owned(), 8_000),
        ("many items", "x".repeat(9_000), 6),
        ("one long line", "z".repeat(120_000), 1),
    ];
    for (what, piece, count) in table {
        let pieces: Vec<String> = vec![piece.clone(); count];
        let whole: Vec<&str> = pieces.iter().map(String::as_str).collect();
        assert!(
            spilled_by_1_0_32(&whole),
            "{what}: the case must pass 40,000 bytes"
        );
        let shaped = shape(ok(&whole), "bash", "opencode_more", || 3);
        let items = texts(&shaped);
        assert_eq!(items.len(), 1, "{what}: one item");
        assert!(
            items[0].len() <= BUDGET_BYTES,
            "{what}: {} bytes",
            items[0].len()
        );
        assert!(
            !spilled_by_1_0_18(&items) && !spilled_by_1_0_32(&items),
            "{what}"
        );
        assert!(
            items[0].contains(r#"`opencode_more` with {"page": 3}"#),
            "{what}"
        );
        // Nothing is lost: what was shown, then the kept rest, is the whole text.
        let shown = &items[0][..items[0].rfind("\n\n[This result was cut").unwrap()];
        assert_eq!(
            format!("{shown}{}", shaped.rest.as_deref().unwrap()),
            whole.join(ITEM_SEPARATOR),
            "{what}"
        );
    }
}

#[test]
fn a_result_within_the_budget_goes_whole_as_one_item() {
    let shaped = shape(ok(&["first", "second"]), "bash", "m", || unreachable!());
    assert_eq!(texts(&shaped), ["first\n\nsecond"]);
    assert_eq!(shaped.rest, None);
    let full = "a".repeat(BUDGET_BYTES);
    assert_eq!(
        texts(&shape(ok(&[&full]), "bash", "m", || unreachable!())),
        [full.as_str()]
    );
}

#[test]
fn a_read_says_how_to_read_on_and_keeps_nothing() {
    let text = "line of a file\n".repeat(8_000);
    let read = shape(ok(&[&text]), "read", "opencode_more", || unreachable!());
    let items = texts(&read);
    assert_eq!(items.len(), 1);
    assert!(
        items[0].contains("call read again with `offset`"),
        "{}",
        items[0]
    );
    assert!(items[0].len() <= BUDGET_BYTES);
    assert_eq!(read.rest, None);
}

#[test]
fn a_failure_says_so_in_its_text() {
    let table = [
        (vec!["exit 1: no such file"], "Error: exit 1: no such file"),
        (vec!["Error: already said"], "Error: already said"),
        (vec![], "Error: the tool failed and said nothing."),
    ];
    for (content, first) in table {
        let mut answer = ok(&content);
        answer.is_error = true;
        let shaped = shape(answer, "bash", "more", || 0);
        assert_eq!(texts(&shaped)[0], first);
    }
    assert_eq!(texts(&shape(ok(&["fine"]), "bash", "m", || 0)), ["fine"]);
}

/// A 2 x 2 lossless WebP's header.
const WEBP: &[u8] = b"RIFF\x1a\0\0\0WEBPVP8L\x0d\0\0\0\x2f\x01\x40\0\0\0\0\0\0\0\0\0\0\0";

#[test]
fn images_cursor_cannot_take_become_a_line() {
    let png = crate::core::attachments::picture_samples::png(640, 480);
    let encode = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
    let table = [
        (encode(&png), "image/png", None),
        (encode(WEBP), "image/webp", None),
        (
            encode(b"<svg xmlns='http://www.w3.org/2000/svg'/>"),
            "image/svg+xml",
            Some("Cursor cannot decode this format): type image/svg+xml, 41 bytes, dimensions unknown"),
        ),
        ("%%%".to_owned(), "image/png", Some("not valid base64")),
    ];
    for (data, mime, line) in table {
        let answer = Answer {
            content: vec![AnswerContent::Image {
                data: data.clone(),
                mime_type: mime.to_owned(),
            }],
            is_error: false,
        };
        let shaped = shape(answer, "read", "m", || 0);
        match line {
            None => assert!(
                matches!(&shaped.content[0], AnswerContent::Image { .. }),
                "{mime}"
            ),
            Some(words) => assert!(texts(&shaped)[0].contains(words), "{:?}", texts(&shaped)),
        }
    }
}

#[test]
fn a_tools_picture_is_held_to_the_limit_of_a_pasted_one() {
    let mut png = crate::core::attachments::picture_samples::png(1, 1);
    png.resize(crate::core::attachments::PICTURE_MAX_BYTES, 0);
    let answer = |bytes: &[u8]| Answer {
        content: vec![AnswerContent::Image {
            data: base64::engine::general_purpose::STANDARD.encode(bytes),
            mime_type: "image/png".to_owned(),
        }],
        is_error: false,
    };
    let at_limit = shape(answer(&png), "read", "m", || 0);
    assert!(matches!(&at_limit.content[0], AnswerContent::Image { .. }));
    png.push(0);
    let over = shape(answer(&png), "read", "m", || 0);
    assert!(
        texts(&over)[0].contains(&format!(
            "it is larger than {} bytes",
            crate::core::attachments::PICTURE_MAX_BYTES
        )),
        "{:?}",
        texts(&over)
    );
}

#[test]
fn a_tools_picture_is_held_to_the_header_rule_of_a_pasted_one() {
    let mut garbage = crate::core::attachments::picture_samples::png(3, 2)[..33].to_vec();
    garbage.extend(b"and then anything at all");
    let answer = Answer {
        content: vec![AnswerContent::Image {
            data: base64::engine::general_purpose::STANDARD.encode(&garbage),
            mime_type: "image/png".to_owned(),
        }],
        is_error: false,
    };
    assert_eq!(
        texts(&shape(answer, "read", "m", || 0)),
        [
            "[An image was left out (its bytes begin like a PNG picture but are not one: its \
          structure runs past the end of its bytes): type image/png, 57 bytes, 3x2 px.]"
        ]
    );
}
