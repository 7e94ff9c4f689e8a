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
        // A character outside the BMP counts two units and is never split.
        ("x\u{1F600}y", 2, "x"),
        ("\u{e9}\u{e9}\u{e9}", 2, "\u{e9}\u{e9}"),
    ];
    for (text, limit, head) in table {
        let (got, tail) = split_units(text, limit);
        assert_eq!(got, head, "{text:?} at {limit}");
        assert_eq!(format!("{got}{tail}"), text);
    }
}

#[test]
fn a_long_text_goes_as_items_under_the_limit_and_whole() {
    let line = "0123456789".repeat(9) + "\n";
    let text = line.repeat(1_300); // 118,300 units
    let shaped = shape(ok(&[&text]), "bash", "more", || unreachable!());
    let items = texts(&shaped);
    assert!(items.len() >= 4, "{}", items.len());
    assert!(items.iter().all(|t| units(t) <= ITEM_UNITS));
    assert_eq!(items.concat(), text);
    assert_eq!(shaped.rest, None);
}

#[test]
fn beyond_the_total_the_text_says_how_to_get_the_rest() {
    let text = "y".repeat(TOTAL_UNITS + 1_000);
    let paged = shape(ok(&[&text]), "bash", "opencode_more", || 7);
    let items = texts(&paged);
    assert_eq!(items[..items.len() - 1].concat().len(), TOTAL_UNITS);
    assert!(items
        .last()
        .unwrap()
        .contains(r#"`opencode_more` with {"page": 7}"#));
    assert_eq!(paged.rest.as_deref().map(str::len), Some(1_000));

    let read = shape(ok(&[&text]), "read", "opencode_more", || unreachable!());
    assert!(texts(&read)
        .last()
        .unwrap()
        .contains("call read again with `offset`"));
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

#[test]
fn images_cursor_cannot_take_become_a_line() {
    let png = {
        let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        b.extend(640u32.to_be_bytes());
        b.extend(480u32.to_be_bytes());
        b
    };
    let encode = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
    let table = [
        (encode(&png), "image/png", None),
        (encode(b"RIFF\0\0\0\0WEBPVP8 "), "image/webp", None),
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
    assert_eq!(dimensions(&png), Some((640, 480)));
    assert_eq!(decodable_format(b"GIF89a"), Some("gif"));
    assert_eq!(decodable_format(b"<svg"), None);
}
