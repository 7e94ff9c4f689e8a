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
        Ok((0, _) | (_, 0)) => Some("its width or height is zero"),
        Ok(_) => None,
        Err(fault) => Some(fault),
    }
}

fn at<const N: usize>(bytes: &[u8], at: usize) -> Result<[u8; N], Fault> {
    let end = at.checked_add(N).ok_or(SHORT)?;
    bytes
        .get(at..end)
        .and_then(|b| b.try_into().ok())
        .ok_or(SHORT)
}
fn be32(bytes: &[u8], offset: usize) -> Result<u32, Fault> {
    at(bytes, offset).map(u32::from_be_bytes)
}
fn be16(bytes: &[u8], offset: usize) -> Result<u32, Fault> {
    at(bytes, offset).map(|b| u32::from(u16::from_be_bytes(b)))
}
fn le32(bytes: &[u8], offset: usize) -> Result<u32, Fault> {
    at(bytes, offset).map(u32::from_le_bytes)
}
fn le16(bytes: &[u8], offset: usize) -> Result<u32, Fault> {
    at(bytes, offset).map(|b| u32::from(u16::from_le_bytes(b)))
}
/// A length read from the bytes, as an index (never past them, so sums of it cannot overflow).
fn length(value: u32, bytes: &[u8]) -> Result<usize, Fault> {
    usize::try_from(value)
        .ok()
        .filter(|&n| n <= bytes.len())
        .ok_or(SHORT)
}

/// The CRC-32 of PNG's chunks (ISO 3309, the table computed once at build time).
pub(super) fn crc32(bytes: &[u8]) -> u32 {
    const TABLE: [u32; 256] = {
        let mut table = [0u32; 256];
        let mut n = 0;
        while n < 256 {
            let mut c = n as u32;
            let mut k = 0;
            while k < 8 {
                c = if c & 1 == 1 {
                    0xedb8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
                k += 1;
            }
            table[n] = c;
            n += 1;
        }
        table
    };
    !bytes.iter().fold(!0u32, |c, &b| {
        TABLE[((c ^ u32::from(b)) & 0xff) as usize] ^ (c >> 8)
    })
}

/// After the signature, chunks (length, type, data, CRC) up to `IEND`, each whole and its CRC
/// right: `IHDR` first (13 bytes, the size), an `IDAT` before the end.
fn png(bytes: &[u8]) -> Result<(u32, u32), Fault> {
    let (mut offset, mut size, mut data) = (8, None, false);
    loop {
        let len = length(be32(bytes, offset)?, bytes)?;
        let chunk = bytes.get(offset + 4..offset + 8 + len).ok_or(SHORT)?;
        if crc32(chunk) != be32(bytes, offset + 8 + len)? {
            return Err("a chunk's checksum is wrong");
        }
        match (&chunk[..4], size) {
            (b"IHDR", None) if len == 13 => size = Some((be32(chunk, 4)?, be32(chunk, 8)?)),
            (_, None) => return Err("it does not begin with its header chunk (IHDR)"),
            (b"IDAT", _) => data = true,
            (b"IEND", Some(size)) if data => return Ok(size),
            (b"IEND", _) => return Err("it has no image data"),
            _ => {}
        }
        offset += 12 + len;
    }
}

/// After SOI, marker segments, each whole, up to a frame header (SOF0 to SOF15 but DHT, JPG and
/// DAC), which gives the size; a scan or the end before it means there is no picture.
fn jpeg(bytes: &[u8]) -> Result<(u32, u32), Fault> {
    let mut offset = 2;
    loop {
        let [mark, marker] = at(bytes, offset)?;
        match (mark, marker) {
            (0xff, 0xff) => offset += 1, // fill
            (0xff, 0x01 | 0xd0..=0xd8) => offset += 2,
            (0xff, 0xd9 | 0xda) => return Err("it has no frame header (SOF)"),
            (0xff, _) => {
                let len = length(be16(bytes, offset + 2)?, bytes)?;
                if len < 2 || offset + 2 + len > bytes.len() {
                    return Err(SHORT);
                }
                if matches!(marker, 0xc0..=0xcf) && !matches!(marker, 0xc4 | 0xc8 | 0xcc) {
                    let frame = &bytes[offset + 4..offset + 2 + len];
                    return Ok((be16(frame, 3)?, be16(frame, 1)?));
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
    let [flags] = at(bytes, 10)?;
    let table = if flags & 0x80 == 0 {
        0
    } else {
        3 << ((flags & 7) + 1)
    };
    match at(bytes, 13 + table)? {
        [0x2c | 0x21 | 0x3b] => Ok((le16(bytes, 6)?, le16(bytes, 8)?)),
        _ => Err("its first block is neither an image, an extension nor the end"),
    }
}

/// `RIFF`, a size within the bytes, `WEBP`, then a first chunk within that size: `VP8 ` (its
/// start code), `VP8L` (its signature) or `VP8X`, each giving the size.
fn webp(bytes: &[u8]) -> Result<(u32, u32), Fault> {
    let riff = length(le32(bytes, 4)?, bytes)?;
    if riff + 8 > bytes.len() || riff < 12 {
        return Err("the size its RIFF header states does not match its bytes");
    }
    let len = length(le32(bytes, 16)?, bytes)?;
    let chunk = bytes.get(20..20 + len).filter(|_| 12 + len <= riff);
    let chunk = chunk.ok_or("its first chunk goes past the size its RIFF header states")?;
    let bits = |offset| at(chunk, offset).map(|[a, b, c]| u32::from_le_bytes([a, b, c, 0]));
    match &bytes[12..16] {
        b"VP8 " if chunk.get(3..6) == Some(&[0x9d, 0x01, 0x2a]) => {
            Ok((le16(chunk, 6)? & 0x3fff, le16(chunk, 8)? & 0x3fff))
        }
        b"VP8L" if chunk.first() == Some(&0x2f) => {
            let size = le32(chunk, 1)?;
            Ok(((size & 0x3fff) + 1, ((size >> 14) & 0x3fff) + 1))
        }
        b"VP8X" if len >= 10 => Ok((bits(4)? + 1, bits(7)? + 1)),
        _ => Err("its first chunk is not a VP8, VP8L or VP8X header"),
    }
}

/// `BM`, a file size within the bytes and past the headers, a DIB header of a size BMP knows,
/// the pixels' offset past the headers and within the file, one plane and a bit depth BMP knows.
fn bmp(bytes: &[u8]) -> Result<(u32, u32), Fault> {
    let dib = le32(bytes, 14)?;
    if !matches!(dib, 12 | 40 | 52 | 56 | 64 | 108 | 124) {
        return Err("its DIB header's size is not one BMP knows");
    }
    let (size, offset) = (le32(bytes, 2)?, le32(bytes, 10)?);
    if size < 14 + dib || length(size, bytes).is_err() {
        return Err("the file size it states does not match its bytes");
    }
    if offset < 14 + dib || offset > size {
        return Err("its pixels' offset is not within the file");
    }
    let core = dib == 12;
    let (width, height) = if core {
        (le16(bytes, 18)?, le16(bytes, 20)?)
    } else {
        let signed = |offset| le32(bytes, offset).map(|v| (v as i32).unsigned_abs());
        (signed(18)?, signed(22)?)
    };
    let (planes, depth) = if core { (22, 24) } else { (26, 28) };
    if le16(bytes, planes)? != 1 || !matches!(le16(bytes, depth)?, 1 | 4 | 8 | 16 | 24 | 32) {
        return Err("its planes or bit depth are not a BMP's");
    }
    Ok((width, height))
}

/// The byte order (`II` or `MM`), the first directory's offset within the bytes, its entries
/// whole, and among them the width (tag 256) and height (tag 257).
fn tiff(bytes: &[u8]) -> Result<(u32, u32), Fault> {
    let big = bytes.starts_with(b"MM");
    let u16_at = |offset| {
        if big {
            be16(bytes, offset)
        } else {
            le16(bytes, offset)
        }
    };
    let u32_at = |offset| {
        if big {
            be32(bytes, offset)
        } else {
            le32(bytes, offset)
        }
    };
    let directory = length(u32_at(4)?, bytes)?;
    let entries = length(u16_at(directory)?, bytes)?;
    let (mut width, mut height) = (None, None);
    for entry in (0..entries).map(|n| directory + 2 + 12 * n) {
        let value = match u16_at(entry + 2)? {
            3 => u16_at(entry + 8)?,
            4 => u32_at(entry + 8)?,
            _ => continue,
        };
        match u16_at(entry)? {
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
