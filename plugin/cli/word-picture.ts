// A picture of a word, for the doctor's check that pictures reach the model: black capitals on
// white, drawn from a 5x7 font and written as a grayscale PNG with no library.
import { randomInt } from 'node:crypto'
import { deflateSync } from 'node:zlib'

/** Each capital as 7 rows of 5 pixels (the classic 5x7 terminal font). */
const FONT: Readonly<Record<string, readonly string[]>> = Object.freeze({
  A: ['01110', '10001', '10001', '11111', '10001', '10001', '10001'],
  B: ['11110', '10001', '10001', '11110', '10001', '10001', '11110'],
  C: ['01110', '10001', '10000', '10000', '10000', '10001', '01110'],
  D: ['11110', '10001', '10001', '10001', '10001', '10001', '11110'],
  E: ['11111', '10000', '10000', '11110', '10000', '10000', '11111'],
  F: ['11111', '10000', '10000', '11110', '10000', '10000', '10000'],
  G: ['01110', '10001', '10000', '10111', '10001', '10001', '01111'],
  H: ['10001', '10001', '10001', '11111', '10001', '10001', '10001'],
  I: ['01110', '00100', '00100', '00100', '00100', '00100', '01110'],
  J: ['00111', '00010', '00010', '00010', '00010', '10010', '01100'],
  K: ['10001', '10010', '10100', '11000', '10100', '10010', '10001'],
  L: ['10000', '10000', '10000', '10000', '10000', '10000', '11111'],
  M: ['10001', '11011', '10101', '10101', '10001', '10001', '10001'],
  N: ['10001', '10001', '11001', '10101', '10011', '10001', '10001'],
  O: ['01110', '10001', '10001', '10001', '10001', '10001', '01110'],
  P: ['11110', '10001', '10001', '11110', '10000', '10000', '10000'],
  Q: ['01110', '10001', '10001', '10001', '10101', '10010', '01101'],
  R: ['11110', '10001', '10001', '11110', '10100', '10010', '10001'],
  S: ['01111', '10000', '10000', '01110', '00001', '00001', '11110'],
  T: ['11111', '00100', '00100', '00100', '00100', '00100', '00100'],
  U: ['10001', '10001', '10001', '10001', '10001', '10001', '01110'],
  V: ['10001', '10001', '10001', '10001', '10001', '01010', '00100'],
  W: ['10001', '10001', '10001', '10101', '10101', '10101', '01010'],
  X: ['10001', '10001', '01010', '00100', '01010', '10001', '10001'],
  Y: ['10001', '10001', '01010', '00100', '00100', '00100', '00100'],
  Z: ['11111', '00001', '00010', '00100', '01000', '10000', '11111'],
})

/** Words the check picks from: common, five letters, none a likely guess for "the word in this picture". */
export const PICTURE_WORDS = Object.freeze([
  'AMBER',
  'BISON',
  'CEDAR',
  'FJORD',
  'GLYPH',
  'HAVEN',
  'IVORY',
  'KAYAK',
  'LEMON',
  'MAPLE',
  'OCEAN',
  'PIXEL',
  'QUILT',
  'RAVEN',
  'TULIP',
  'WALTZ',
  'YACHT',
  'ZEBRA',
])

/** One of {@link PICTURE_WORDS}, at random. */
export function pictureWord(): string {
  return PICTURE_WORDS[randomInt(PICTURE_WORDS.length)] ?? 'MAPLE'
}

/** Pixels per font pixel, and the white border around the word. */
const SCALE = 8
const MARGIN = 24

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff
  for (const byte of bytes) c = (CRC_TABLE[(c ^ byte) & 0xff] ?? 0) ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
  const out = Buffer.alloc(12 + data.length)
  out.writeUInt32BE(data.length, 0)
  body.copy(out, 4)
  out.writeUInt32BE(crc32(body), 8 + data.length)
  return out
}

/**
 * A PNG of `rows` (each `width` pixels of one byte per channel: one for gray, three for RGB),
 * 8 bits per channel, unfiltered.
 */
export function encodePng(width: number, colour: 'gray' | 'rgb', rows: readonly Buffer[]): Buffer {
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(rows.length, 4)
  header.set([8, colour === 'gray' ? 0 : 2, 0, 0, 0], 8)
  // Each row starts with its filter type: 0, none.
  const scanlines = Buffer.concat(rows.flatMap((row) => [Buffer.from([0]), row]))
  return Buffer.concat([
    Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(scanlines)),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

/** `word` (capitals A-Z only) as a PNG: black on white, 8-bit grayscale. */
export function wordPicture(word: string): Buffer {
  const glyphs = [...word].map((letter) => {
    const glyph = FONT[letter]
    if (glyph === undefined) throw new RangeError(`no glyph for ${JSON.stringify(letter)}`)
    return glyph
  })
  const width = 2 * MARGIN + glyphs.length * 6 * SCALE - SCALE
  const height = 2 * MARGIN + 7 * SCALE
  const rows: Buffer[] = []
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(width, 255)
    const fontRow = Math.floor((y - MARGIN) / SCALE)
    if (fontRow >= 0 && fontRow < 7)
      for (let x = 0; x < width - 2 * MARGIN; x++) {
        const cell = Math.floor(x / SCALE)
        const [letter, column] = [Math.floor(cell / 6), cell % 6]
        if (column < 5 && glyphs[letter]?.[fontRow]?.[column] === '1') row[MARGIN + x] = 0
      }
    rows.push(row)
  }
  return encodePng(width, 'gray', rows)
}
