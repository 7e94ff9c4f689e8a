// Pictures for tests: what a user would paste.
import { encodePng } from '../../plugin/cli/word-picture.ts'

/** A real PNG: `width` x `height` pixels of one colour. */
export function png(width: number, height: number, rgb: [number, number, number]): Buffer {
  const row = Buffer.from(Array.from({ length: width }, () => rgb).flat())
  return encodePng(
    width,
    'rgb',
    Array.from({ length: height }, () => row),
  )
}
