// What the fake cursor-agent's model "sees" in a picture: the capitals written in it, read as a
// person reads a 5x7 terminal font (any scale, black on a light ground). Decodes 8-bit PNGs (gray,
// gray+alpha, RGB, RGBA; every filter type) without a library. Anything else: it sees no text.
import { inflateSync } from 'node:zlib'

// The glyphs as a reader knows them ('#' ink, '.' paper).
const GLYPHS = {
  A: '.###. #...# #...# ##### #...# #...# #...#',
  B: '####. #...# #...# ####. #...# #...# ####.',
  C: '.###. #...# #.... #.... #.... #...# .###.',
  D: '####. #...# #...# #...# #...# #...# ####.',
  E: '##### #.... #.... ####. #.... #.... #####',
  F: '##### #.... #.... ####. #.... #.... #....',
  G: '.###. #...# #.... #.### #...# #...# .####',
  H: '#...# #...# #...# ##### #...# #...# #...#',
  I: '.###. ..#.. ..#.. ..#.. ..#.. ..#.. .###.',
  J: '..### ...#. ...#. ...#. ...#. #..#. .##..',
  K: '#...# #..#. #.#.. ##... #.#.. #..#. #...#',
  L: '#.... #.... #.... #.... #.... #.... #####',
  M: '#...# ##.## #.#.# #.#.# #...# #...# #...#',
  N: '#...# #...# ##..# #.#.# #..## #...# #...#',
  O: '.###. #...# #...# #...# #...# #...# .###.',
  P: '####. #...# #...# ####. #.... #.... #....',
  Q: '.###. #...# #...# #...# #.#.# #..#. .##.#',
  R: '####. #...# #...# ####. #.#.. #..#. #...#',
  S: '.#### #.... #.... .###. ....# ....# ####.',
  T: '##### ..#.. ..#.. ..#.. ..#.. ..#.. ..#..',
  U: '#...# #...# #...# #...# #...# #...# .###.',
  V: '#...# #...# #...# #...# #...# .#.#. ..#..',
  W: '#...# #...# #...# #.#.# #.#.# #.#.# .#.#.',
  X: '#...# #...# .#.#. ..#.. .#.#. #...# #...#',
  Y: '#...# #...# .#.#. ..#.. ..#.. ..#.. ..#..',
  Z: '##### ....# ...#. ..#.. .#... #.... #####',
}
const CELLS = Object.entries(GLYPHS).map(([letter, art]) => [letter, art.replaceAll(' ', '')])

/** The picture's pixels as ink (true) or paper, or undefined when it is not a PNG this reads. */
function inkOf(bytes) {
  if (bytes.subarray(0, 8).toString('latin1') !== '\x89PNG\r\n\x1a\n') return undefined
  let at = 8
  let header
  const data = []
  while (at + 8 <= bytes.length) {
    const length = bytes.readUInt32BE(at)
    const type = bytes.subarray(at + 4, at + 8).toString('latin1')
    const body = bytes.subarray(at + 8, at + 8 + length)
    if (type === 'IHDR') header = body
    if (type === 'IDAT') data.push(body)
    at += 12 + length
  }
  if (header === undefined || header[8] !== 8 || header[12] !== 0) return undefined
  const channels = { 0: 1, 4: 2, 2: 3, 6: 4 }[header[9]]
  if (channels === undefined) return undefined
  const [width, height] = [header.readUInt32BE(0), header.readUInt32BE(4)]
  const raw = inflateSync(Buffer.concat(data))
  const stride = width * channels
  const pixels = Buffer.alloc(stride * height)
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]
    for (let x = 0; x < stride; x++) {
      const value = raw[y * (stride + 1) + 1 + x]
      const left = x >= channels ? pixels[y * stride + x - channels] : 0
      const up = y > 0 ? pixels[(y - 1) * stride + x] : 0
      const corner = x >= channels && y > 0 ? pixels[(y - 1) * stride + x - channels] : 0
      const paeth = () => {
        const p = left + up - corner
        const [a, b, c] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - corner)]
        return a <= b && a <= c ? left : b <= c ? up : corner
      }
      const predicted = [0, left, up, (left + up) >> 1, paeth()][filter] ?? 0
      pixels[y * stride + x] = (value + predicted) & 0xff
    }
  }
  const luma = (x, y) => {
    const i = y * stride + x * channels
    return channels >= 3 ? (pixels[i] + pixels[i + 1] + pixels[i + 2]) / 3 : pixels[i]
  }
  return { width, height, ink: (x, y) => luma(x, y) < 128 }
}

/** The capitals written in a PNG, left to right; '' when it sees none. */
export function textIn(bytes) {
  const picture = inkOf(bytes)
  if (picture === undefined) return ''
  const { width, height, ink } = picture
  const columns = Array.from({ length: width }, (_, x) =>
    Array.from({ length: height }, (_, y) => ink(x, y)).some(Boolean),
  )
  const rows = Array.from({ length: height }, (_, y) => columns.some((inked, x) => inked && ink(x, y)))
  const top = rows.indexOf(true)
  const bottom = rows.lastIndexOf(true)
  if (top === -1) return ''
  const scale = (bottom - top + 1) / 7
  // Letters are runs of inked columns; a blank column of the font parts them.
  const runs = []
  for (let x = 0; x < width; x++) {
    if (!columns[x]) continue
    if (runs.length > 0 && runs.at(-1)[1] === x - 1) runs.at(-1)[1] = x
    else runs.push([x, x])
  }
  let text = ''
  for (const [from, to] of runs) {
    const span = Math.round((to - from + 1) / scale)
    let best = ['', Number.POSITIVE_INFINITY]
    for (let offset = 0; offset + span <= 5; offset++) {
      const seen = Array.from({ length: 35 }, (_, i) => {
        const [row, column] = [Math.floor(i / 5), (i % 5) - offset]
        if (column < 0 || column >= span) return '.'
        const x = Math.floor(from + (column + 0.5) * scale)
        const y = Math.floor(top + (row + 0.5) * scale)
        return ink(x, y) ? '#' : '.'
      }).join('')
      for (const [letter, cells] of CELLS) {
        let distance = 0
        for (let i = 0; i < 35; i++) if (cells[i] !== seen[i]) distance += 1
        if (distance < best[1]) best = [letter, distance]
      }
    }
    if (best[1] <= 3) text += best[0]
  }
  return text
}
