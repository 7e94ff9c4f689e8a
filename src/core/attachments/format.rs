//! What Cursor's code opens: the picture formats it decodes, how it tells them (by their first
//! bytes, then their header: [`not_a_picture`]), the file name extensions its Read tool takes as
//! pictures, and the limits one picture is held to, wherever it comes from (pasted by the user,
//! or returned by a host tool).
//!
//! Sources (`@cursor/sdk` 1.0.32, `dist/esm/34.js`): the Read tool treats a file as a picture by
//! its extension (`/\.(png|jpg|jpeg|gif|webp|ico|bmp|svg)$/i`) and then shrinks it
//! (`resizeImageIfNeeded`, with a 3,000 ms budget) to at most 1024 px on the long side and 1 MiB
//! (`zn=1048576`); PDFs are read as data (`readPdfBinary`); anything else is read as text. MCP
//! results' pictures are decoded the same way; SVG is not decodable.

mod header;

/// Bytes at an offset that a format's files begin with.
pub type Mark = (usize, &'static [u8]);

/// A picture format Cursor decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PictureFormat {
    /// Its short name (`png`).
    pub name: &'static str,
    /// Its media type.
    pub media_type: &'static str,
    /// The bytes its files start with (all must match).
    pub marks: &'static [Mark],
    /// The extension Cursor's Read tool takes as a picture, when it takes one: a file saved for
    /// the model is named with it; `None`: Read would not open such a file as a picture.
    pub read_extension: Option<&'static str>,
}

/// The picture formats Cursor decodes, each with the bytes that identify it.
pub const PICTURE_FORMATS: &[PictureFormat] = &[
    PictureFormat {
        name: "png",
        media_type: "image/png",
        marks: &[(0, b"\x89PNG\r\n\x1a\n")],
        read_extension: Some("png"),
    },
    PictureFormat {
        name: "jpeg",
        media_type: "image/jpeg",
        marks: &[(0, b"\xff\xd8\xff")],
        read_extension: Some("jpg"),
    },
    PictureFormat {
        name: "gif",
        media_type: "image/gif",
        marks: &[(0, b"GIF8")],
        read_extension: Some("gif"),
    },
    PictureFormat {
        name: "webp",
        media_type: "image/webp",
        marks: &[(0, b"RIFF"), (8, b"WEBP")],
        read_extension: Some("webp"),
    },
    PictureFormat {
        name: "bmp",
        media_type: "image/bmp",
        marks: &[(0, b"BM")],
        read_extension: Some("bmp"),
    },
    PictureFormat {
        name: "tiff",
        media_type: "image/tiff",
        marks: &[(0, b"II*\0")],
        read_extension: None,
    },
    PictureFormat {
        name: "tiff",
        media_type: "image/tiff",
        marks: &[(0, b"MM\0*")],
        read_extension: None,
    },
];

/// The largest picture handed to Cursor, pasted or returned by a tool. Cursor shrinks every
/// picture to 1 MiB anyway, within a 3-second budget for reading and shrinking it; a 5K
/// screenshot is well under this, a camera's raw export is not.
pub const PICTURE_MAX_BYTES: usize = 10 * 1024 * 1024;

/// The largest other file (a PDF, a text file) saved for Cursor's Read tool.
pub const FILE_MAX_BYTES: usize = 10 * 1024 * 1024;

/// The most attachments saved for one run; the rest are named, not sent. Each picture costs the
/// model about 1,600 tokens once Cursor shrank it.
pub const ATTACHMENTS_PER_RUN: usize = 8;

/// Which of [`PICTURE_FORMATS`] `bytes` are, by their first bytes (as Cursor tells them).
pub fn picture_format(bytes: &[u8]) -> Option<&'static PictureFormat> {
    PICTURE_FORMATS.iter().find(|format| {
        format
            .marks
            .iter()
            .all(|(at, mark)| bytes.get(*at..*at + mark.len()) == Some(*mark))
    })
}

/// Why `bytes`, which begin like a `format` picture, are not one (its header does not hold
/// together with the bytes there are, or gives no width and height), worded for the user; `None`
/// when they are one.
pub fn not_a_picture(format: &PictureFormat, bytes: &[u8]) -> Option<String> {
    let fault = header::fault(format.name, bytes)?;
    let name = format.name.to_ascii_uppercase();
    Some(format!(
        "its bytes begin like a {name} picture but are not one: {fault}"
    ))
}

/// Width and height when the header says them simply (PNG, GIF, BMP).
pub fn dimensions(bytes: &[u8]) -> Option<(u32, u32)> {
    let be = |at: usize| Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
    let le16 = |at: usize| Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?));
    let le = |at: usize| Some(i32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
    match picture_format(bytes)?.name {
        "png" => Some((be(16)?, be(20)?)),
        "gif" => Some((u32::from(le16(6)?), u32::from(le16(8)?))),
        "bmp" => Some((le(18)?.unsigned_abs(), le(22)?.unsigned_abs())),
        _ => None,
    }
}

/// `bytes` are a PDF (`%PDF-`).
pub fn is_pdf(bytes: &[u8]) -> bool {
    bytes.starts_with(b"%PDF-")
}

/// `bytes` read as text: valid UTF-8 without NUL (what Cursor's Read shows as text as it is).
pub fn is_text(bytes: &[u8]) -> bool {
    !bytes.contains(&0) && std::str::from_utf8(bytes).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_told_by_their_first_bytes() {
        let table: &[(&[u8], Option<&str>)] = &[
            (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", Some("png")),
            (b"\xff\xd8\xff\xe0\0\x10JFIF", Some("jpeg")),
            (b"GIF89a\x01\0\x01\0", Some("gif")),
            (b"RIFF\0\0\0\0WEBPVP8 ", Some("webp")),
            (b"RIFF\0\0\0\0WAVEfmt ", None),
            (b"BM\0\0", Some("bmp")),
            (b"II*\0", Some("tiff")),
            (b"<svg xmlns=", None),
            (b"%PDF-1.7", None),
            (b"", None),
        ];
        for (bytes, expected) in table {
            assert_eq!(
                picture_format(bytes).map(|f| f.name),
                *expected,
                "{bytes:?}"
            );
        }
    }

    #[test]
    fn every_format_cursors_read_opens_has_an_extension_its_read_takes_as_a_picture() {
        // `@cursor/sdk` 1.0.32: `/\.(png|jpg|jpeg|gif|webp|ico|bmp|svg)$/i`.
        let read_takes = ["png", "jpg", "jpeg", "gif", "webp", "ico", "bmp", "svg"];
        for format in PICTURE_FORMATS {
            if let Some(extension) = format.read_extension {
                assert!(read_takes.contains(&extension), "{}", format.name);
            }
        }
    }

    #[test]
    fn sizes_from_headers() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        png.extend(640u32.to_be_bytes());
        png.extend(480u32.to_be_bytes());
        assert_eq!(dimensions(&png), Some((640, 480)));
        assert_eq!(dimensions(b"GIF89a\x02\0\x03\0"), Some((2, 3)));
        assert_eq!(dimensions(b"\xff\xd8\xff"), None);
    }

    #[test]
    fn text_and_pdf() {
        assert!(is_pdf(b"%PDF-1.4\n"));
        assert!(!is_pdf(b"PDF"));
        assert!(is_text("héllo\n".as_bytes()));
        assert!(!is_text(b"a\0b"));
        assert!(!is_text(b"\xff\xfe"));
    }
}

/// Pictures for tests, whose headers hold together.
#[cfg(test)]
pub(crate) mod samples {
    /// A PNG of `width` x `height` (its image data is not a real image's).
    pub fn png(width: u32, height: u32) -> Vec<u8> {
        let mut header = [width.to_be_bytes(), height.to_be_bytes()].concat();
        header.extend([8, 6, 0, 0, 0]);
        let chunks = [
            (b"IHDR", header),
            (b"IDAT", vec![0x78, 0x9c, 0x03, 0, 0, 0, 0, 1]),
            (b"IEND", Vec::new()),
        ];
        let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
        for (kind, data) in chunks {
            let chunk = [kind.as_slice(), &data].concat();
            bytes.extend(u32::try_from(data.len()).unwrap().to_be_bytes());
            bytes.extend(&chunk);
            bytes.extend(super::header::crc32(&chunk).to_be_bytes());
        }
        bytes
    }
}
