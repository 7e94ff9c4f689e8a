//! Each picture format read far enough to know the bytes are a picture, not just a file that
//! begins like one: its header's structure holds together with the bytes there are, and its width
//! and height are readable and not zero. The pixels are left to Cursor's decoder.

/// What is wrong with a picture's header.
type Fault = &'static str;

const SHORT: Fault = "its structure runs past the end of its bytes";

/// What is wrong with `bytes`, which begin like a picture of format `name` (a
/// [`super::PictureFormat`]'s name); `None` when nothing is.
pub fn fault(name: &str, bytes: &[u8]) -> Option<Fault> {
    let size = match name {
        "png" => png(bytes),
        "jpeg" => jpeg(bytes),
        "gif" => gif(bytes),
        "webp" => webp(bytes),
        "bmp" => bmp(bytes),
        "tiff" => tiff(bytes),
        _ => Err("its format is not one Cursor decodes"),
    };
    match size {
        Ok((width, height)) => (width == 0 || height == 0).then_some("its width or height is zero"),
        Err(fault) => Some(fault),
    }
}

/// The unsigned number in `width` bytes at `offset`, big-endian when `big`.
fn int(bytes: &[u8], offset: usize, width: usize, big: bool) -> Result<u32, Fault> {
    let field = bytes
        .get(offset..offset.saturating_add(width))
        .ok_or(SHORT)?;
    let next = |n: u32, byte: &u8| n << 8 | u32::from(*byte);
    Ok(if big {
        field.iter().fold(0, next)
    } else {
        field.iter().rev().fold(0, next)
    })
}

/// A length read from the bytes, as an index (never past them, so sums of it cannot overflow).
fn length(value: u32, bytes: &[u8]) -> Result<usize, Fault> {
    usize::try_from(value)
        .ok()
        .filter(|&n| n <= bytes.len())
        .ok_or(SHORT)
}

/// The CRC-32 of a PNG chunk (ISO 3309), bit by bit: only the header chunk's is checked.
pub(super) fn crc32(bytes: &[u8]) -> u32 {
    let bit = |c: u32, _| (c >> 1) ^ ((c & 1) * 0xedb8_8320);
    !bytes
        .iter()
        .fold(!0, |c, &b| (0..8).fold(c ^ u32::from(b), bit))
}

/// After the signature, whole chunks (length, type, data, CRC) up to `IEND`: `IHDR` first (13
/// bytes, the size, its CRC right), an `IDAT` before the end.
fn png(bytes: &[u8]) -> Result<(u32, u32), Fault> {
    let be = |bytes, offset| int(bytes, offset, 4, true);
    let (mut offset, mut size, mut data) = (8, None, false);
    loop {
        let len = length(be(bytes, offset)?, bytes)?;
        let chunk = bytes.get(offset + 4..offset + 8 + len).ok_or(SHORT)?;
        let crc = be(bytes, offset + 8 + len)?;
        match (&chunk[..4], size) {
            (b"IHDR", None) if len == 13 && crc != crc32(chunk) => {
                return Err("its header chunk's checksum is wrong");
            }
            (b"IHDR", None) if len == 13 => size = Some((be(chunk, 4)?, be(chunk, 8)?)),
            (_, None) => return Err("it does not begin with its header chunk (IHDR)"),
            (b"IDAT", _) => data = true,
            (b"IEND", Some(size)) if data => return Ok(size),
            (b"IEND", _) => return Err("it has no image data"),
            _ => {}
        }
        offset += 12 + len;
    }
}

/// After SOI, whole marker segments up to a frame header (SOF0 to SOF15 but DHT, JPG and DAC),
/// which gives the size; a scan or the end before it means there is no picture.
fn jpeg(bytes: &[u8]) -> Result<(u32, u32), Fault> {
    let be = |bytes, offset| int(bytes, offset, 2, true);
    let mut offset = 2;
    loop {
        match bytes.get(offset..offset + 2).ok_or(SHORT)? {
            [0xff, 0xff] => offset += 1, // fill
            [0xff, 0x01 | 0xd0..=0xd8] => offset += 2,
            [0xff, 0xd9 | 0xda] => return Err("it has no frame header (SOF)"),
            &[0xff, marker] => {
                let len = length(be(bytes, offset + 2)?, bytes)?;
                let segment = bytes.get(offset + 4..offset + 2 + len).ok_or(SHORT)?;
                if matches!(marker, 0xc0..=0xcf) && !matches!(marker, 0xc4 | 0xc8 | 0xcc) {
                    return Ok((be(segment, 3)?, be(segment, 1)?));
                }
                offset += 2 + len;
            }
            _ => return Err("a segment does not begin with a marker"),
        }
    }
}

/// `GIF87a` or `GIF89a`, the logical screen (the size), the global colour table it announces,
/// then a block: an image, an extension or the end.
fn gif(bytes: &[u8]) -> Result<(u32, u32), Fault> {
    if !matches!(bytes.get(..6), Some(b"GIF87a" | b"GIF89a")) {
        return Err("its version is neither 87a nor 89a");
    }
    let flags = int(bytes, 10, 1, true)?;
    let table = (flags >> 7) * (3 << ((flags & 7) + 1)); // a global colour table, if any
    match int(bytes, 13 + table as usize, 1, true)? {
        0x2c | 0x21 | 0x3b => Ok((int(bytes, 6, 2, false)?, int(bytes, 8, 2, false)?)),
        _ => Err("its first block is neither an image, an extension nor the end"),
    }
}

/// `RIFF`, a size within the bytes, `WEBP`, then a first chunk within that size: `VP8 ` (its
/// start code), `VP8L` (its signature) or `VP8X`, each giving the size.
fn webp(bytes: &[u8]) -> Result<(u32, u32), Fault> {
    let le = |bytes, offset, width| int(bytes, offset, width, false);
    let riff = bytes.get(12..length(le(bytes, 4, 4)?, bytes)? + 8);
    let riff = riff.ok_or("the size its RIFF header states does not match its bytes")?;
    let len = le(riff, 4, 4)? as usize;
    let chunk = riff.get(8..).and_then(|chunks| chunks.get(..len));
    let chunk = chunk.ok_or("its first chunk goes past the size its RIFF header states")?;
    match &riff[..4] {
        b"VP8 " if chunk.get(3..6) == Some(&[0x9d, 0x01, 0x2a]) => {
            Ok((le(chunk, 6, 2)? & 0x3fff, le(chunk, 8, 2)? & 0x3fff))
        }
        b"VP8L" if chunk.first() == Some(&0x2f) => {
            let size = le(chunk, 1, 4)?;
            Ok(((size & 0x3fff) + 1, ((size >> 14) & 0x3fff) + 1))
        }
        b"VP8X" => Ok((le(chunk, 4, 3)? + 1, le(chunk, 7, 3)? + 1)),
        _ => Err("its first chunk is not a VP8, VP8L or VP8X header"),
    }
}

/// `BM`, a file size within the bytes, a DIB header of a size BMP knows, and the pixels' offset
/// past the headers and within the file.
fn bmp(bytes: &[u8]) -> Result<(u32, u32), Fault> {
    let le = |offset, width| int(bytes, offset, width, false);
    let (size, offset, dib) = (le(2, 4)?, le(10, 4)?, le(14, 4)?);
    if !matches!(dib, 12 | 40 | 52 | 56 | 64 | 108 | 124) {
        return Err("its DIB header's size is not one BMP knows");
    }
    if length(size, bytes).is_err() {
        return Err("the file size it states does not match its bytes");
    }
    if offset < 14 + dib || offset > size {
        return Err("its pixels' offset is not within the file");
    }
    // The core header (12 bytes) has 16-bit sizes; the others signed 32-bit ones.
    let width = if dib == 12 { 2 } else { 4 };
    let side = |offset| le(offset, width).map(|v| (v as i32).unsigned_abs());
    Ok((side(18)?, side(18 + width)?))
}

/// The byte order (`II` or `MM`), the first directory's offset within the bytes, its entries
/// whole, and among them the width (tag 256) and height (tag 257).
fn tiff(bytes: &[u8]) -> Result<(u32, u32), Fault> {
    let read = |offset, width| int(bytes, offset, width, bytes.starts_with(b"MM"));
    let directory = length(read(4, 4)?, bytes)?;
    let (mut width, mut height) = (None, None);
    for entry in (0..length(read(directory, 2)?, bytes)?).map(|n| directory + 2 + 12 * n) {
        let value = match read(entry + 2, 2)? {
            3 => read(entry + 8, 2)?,
            4 => read(entry + 8, 4)?,
            _ => continue,
        };
        match read(entry, 2)? {
            256 => width = Some(value),
            257 => height = Some(value),
            _ => {}
        }
    }
    width
        .zip(height)
        .ok_or("its directory gives no width and height")
}

#[cfg(test)]
mod tests {
    use super::super::samples;
    use super::*;

    fn bmp(width: i32, height: i32, size: u32) -> Vec<u8> {
        let mut bytes = b"BM".to_vec();
        bytes.extend(size.to_le_bytes());
        bytes.extend([0; 4]);
        bytes.extend(54u32.to_le_bytes());
        bytes.extend(40u32.to_le_bytes());
        bytes.extend(width.to_le_bytes());
        bytes.extend(height.to_le_bytes());
        bytes.extend([1, 0, 24, 0]);
        bytes.resize(58, 0);
        bytes
    }

    #[test]
    fn a_picture_is_its_header_whole_not_its_first_bytes() {
        let png = samples::png(3, 2);
        let cut = |bytes: &[u8], n: usize| bytes[..bytes.len() - n].to_vec();
        let mut bad_crc = png.clone();
        bad_crc[29] ^= 1;
        let mut garbage = png[..33].to_vec();
        garbage.extend(b"and then anything at all");
        let jpeg =
            b"\xff\xd8\xff\xe0\x00\x04JF\xff\xc0\x00\x0b\x08\x00\x02\x00\x03\x01\x01\x11\x00"
                .to_vec();
        let gif = b"GIF89a\x02\x00\x03\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff\x2c".to_vec();
        let webp_lossless = b"RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x01\x40\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00";
        let webp_extended =
            b"RIFF\x16\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x02\x00\x00";
        let tiff = b"II*\x00\x08\x00\x00\x00\x02\x00\x00\x01\x03\x00\x01\x00\x00\x00\x03\x00\x00\x00\x01\x01\x04\x00\x01\x00\x00\x00\x02\x00\x00\x00";
        let table: &[(&str, &[u8], Option<&str>)] = &[
            ("png", &png, None),
            ("png", &garbage, Some("past the end")),
            ("png", &bad_crc, Some("checksum")),
            ("png", &cut(&png, 1), Some("past the end")),
            ("png", &png[..8], Some("past the end")),
            ("png", &samples::png(0, 2), Some("zero")),
            ("jpeg", &jpeg, None),
            ("jpeg", &cut(&jpeg, 3), Some("past the end")),
            ("jpeg", b"\xff\xd8\xff\xda\x00\x02", Some("no frame header")),
            ("jpeg", b"\xff\xd8\xffJFIF and text", Some("past the end")),
            ("gif", &gif, None),
            ("gif", &cut(&gif, 1), Some("past the end")),
            (
                "gif",
                b"GIF88a\x02\x00\x03\x00\x00\x00\x00\x3b",
                Some("version"),
            ),
            ("webp", webp_lossless, None),
            ("webp", webp_extended, None),
            ("webp", b"RIFF\x00\x00\x00\x00WEBPVP8 ", Some("RIFF")),
            ("webp", &webp_lossless[..30], Some("RIFF")),
            ("bmp", &bmp(1, -1, 58), None),
            ("bmp", &bmp(1, 1, 59), Some("file size")),
            ("bmp", &bmp(0, 1, 58), Some("zero")),
            (
                "bmp",
                b"BMW cars, a list:\n1. the 3 series\n2. the 5 series\n",
                Some("DIB"),
            ),
            ("tiff", tiff, None),
            ("tiff", &tiff[..20], Some("past the end")),
        ];
        for (name, bytes, expected) in table {
            let found = fault(name, bytes);
            match expected {
                None => assert_eq!(found, None, "{name} {bytes:?}"),
                Some(words) => {
                    assert!(found.is_some_and(|f| f.contains(words)), "{name} {found:?}")
                }
            }
        }
    }

    #[test]
    fn the_checksum_is_pngs() {
        // The IEND chunk's CRC, as every PNG ends.
        assert_eq!(crc32(b"IEND"), 0xae42_6082);
    }
}
