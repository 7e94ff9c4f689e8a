use super::*;

#[derive(Debug, PartialEq, Eq)]
enum Seen {
    Line(String),
    Skipped(SkipReason, Vec<u8>),
}

fn collect(framer: &mut LineFramer, chunks: &[&[u8]], finish: bool) -> Vec<Seen> {
    let mut seen = Vec::new();
    let mut sink = |r: Record<'_>| {
        seen.push(match r {
            Record::Line(l) => Seen::Line(l.to_owned()),
            Record::Skipped { reason, prefix } => Seen::Skipped(reason, prefix.to_vec()),
        })
    };
    for chunk in chunks {
        framer.push(chunk, &mut sink);
    }
    if finish {
        framer.finish(&mut sink);
    }
    seen
}

fn lines(items: &[&str]) -> Vec<Seen> {
    items.iter().map(|s| Seen::Line((*s).to_owned())).collect()
}

#[test]
fn find_lf_agrees_with_a_plain_search() {
    let mut bytes = vec![b'a'; 40];
    assert_eq!(find_lf(&bytes), None);
    for at in 0..40 {
        bytes[at] = b'\n';
        assert_eq!(find_lf(&bytes), Some(at));
        assert_eq!(find_lf(&bytes[..at]), None);
        // Bytes that differ from LF by one bit never match.
        bytes[at] = b'\n' ^ 0x80;
        assert_eq!(find_lf(&bytes), None);
        bytes[at] = b'a';
    }
}

#[test]
fn splits_on_lf_only_and_keeps_u2028_inside_a_record() {
    let input = "{\"a\":\"x\u{2028}y\"}\n{\"b\":1}\n".as_bytes();
    let mut f = LineFramer::new(1024);
    assert_eq!(
        collect(&mut f, &[input], true),
        lines(&["{\"a\":\"x\u{2028}y\"}", "{\"b\":1}"])
    );
}

#[test]
fn removes_exactly_one_trailing_cr_and_ignores_blank_records() {
    let mut f = LineFramer::new(1024);
    let got = collect(&mut f, &[b"a\r\n\n  \r\n\r\nb\r\r\n\t\n"], true);
    assert_eq!(got, lines(&["a", "b\r"]));
}

#[test]
fn a_lone_cr_is_not_a_break() {
    let mut f = LineFramer::new(1024);
    assert_eq!(collect(&mut f, &[b"a\rb\n"], true), lines(&["a\rb"]));
}

#[test]
fn reassembles_a_character_split_across_chunks() {
    let text = "{\"t\":\"h\u{e9}\u{1F600}\"}\n";
    let bytes = text.as_bytes();
    for cut in 1..bytes.len() {
        let mut f = LineFramer::new(1024);
        let got = collect(&mut f, &[&bytes[..cut], &bytes[cut..]], true);
        assert_eq!(got, lines(&[text.trim_end()]), "cut at {cut}");
    }
}

#[test]
fn every_byte_by_byte_split_gives_the_same_records() {
    let input = b"one\r\ntwo\n\nthree";
    let mut f = LineFramer::new(1024);
    let chunks: Vec<&[u8]> = input.chunks(1).collect();
    assert_eq!(
        collect(&mut f, &chunks, true),
        lines(&["one", "two", "three"])
    );
}

#[test]
fn invalid_utf8_is_a_skipped_record_and_the_next_one_survives() {
    let mut f = LineFramer::new(1024);
    let got = collect(&mut f, &[b"ok\n\xff\xfe\nnext\n"], true);
    assert_eq!(
        got,
        vec![
            Seen::Line("ok".into()),
            Seen::Skipped(SkipReason::InvalidUtf8, b"\xff\xfe".to_vec()),
            Seen::Line("next".into()),
        ]
    );
}

#[test]
fn unterminated_last_record_is_parsed_only_at_finish() {
    let mut f = LineFramer::new(1024);
    assert_eq!(collect(&mut f, &[b"a\nb"], false), lines(&["a"]));
    assert_eq!(collect(&mut f, &[], true), lines(&["b"]));
    // After finish the framer holds nothing.
    assert_eq!(collect(&mut f, &[], true), Vec::new());
}

#[test]
fn over_long_record_in_one_chunk_is_skipped_and_counted_once() {
    let mut f = LineFramer::new(4);
    let got = collect(&mut f, &[b"1234\n12345\nab\n"], true);
    assert_eq!(
        got,
        vec![
            Seen::Line("1234".into()),
            Seen::Skipped(SkipReason::TooLong, b"12345".to_vec()),
            Seen::Line("ab".into()),
        ]
    );
}

#[test]
fn over_long_record_across_chunks_is_discarded_without_buffering() {
    let mut f = LineFramer::new(4);
    let mut seen = Vec::new();
    for chunk in [&b"12"[..], b"34", b"5", b"6789", b"0000", b"x\nok\n"] {
        f.push(chunk, |r| {
            seen.push(match r {
                Record::Line(l) => Seen::Line(l.to_owned()),
                Record::Skipped { reason, prefix } => Seen::Skipped(reason, prefix.to_vec()),
            })
        });
        assert!(f.pending.len() <= 4, "buffered {} bytes", f.pending.len());
    }
    assert_eq!(
        seen,
        vec![
            Seen::Skipped(SkipReason::TooLong, b"12345".to_vec()),
            Seen::Line("ok".into()),
        ]
    );
}

#[test]
fn over_long_record_ending_at_a_boundary_is_skipped() {
    let mut f = LineFramer::new(4);
    let got = collect(&mut f, &[b"123", b"45\nok\n"], true);
    assert_eq!(
        got,
        vec![
            Seen::Skipped(SkipReason::TooLong, b"12345".to_vec()),
            Seen::Line("ok".into()),
        ]
    );
}

#[test]
fn over_long_unterminated_tail_is_not_parsed_at_finish() {
    let mut f = LineFramer::new(4);
    let got = collect(&mut f, &[b"ok\n123456"], true);
    assert_eq!(
        got,
        vec![
            Seen::Line("ok".into()),
            Seen::Skipped(SkipReason::TooLong, b"123456".to_vec()),
        ]
    );
}
