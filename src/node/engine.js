// @ts-check
// The binding's work that the JS engine does best in its own language. The addon compiles this
// module once per JS environment and global object, as a script whose value is its
// `module.exports`, and calls that with each output piece kind's wire value, from the core's own
// enum, so the numbers have one owner. What it gives back the binding keeps and calls:
//
// * `readOutputBatch`: a batch of outputs as JS values (`src/core/stream/encode/batch.rs` writes
//   it). A batch is two strings, `narrow` (characters below U+0100) and `wide` (the others), and
//   a `Uint32Array` of `kind, end` pairs: each piece is its text from where the previous piece
//   of the same string ended. A frame is its piece; a text or thinking delta is a part built
//   around its piece, with the block id the last `blockId` piece gave (the properties in the
//   order the core's `StreamPart` has them: type, id, delta); a JSON piece is parsed.
// * `jsonText`: the JSON text of an argument the core reads as JSON data (a conversation).
// * `constructedAs`: whether a class's constructor runs under `new`.

/**
 * @param {{frame: number, json: number, text: number, reasoning: number, blockId: number, wide: number}} kinds
 * @returns {(narrow: string, wide: string, pieces: Uint32Array) => unknown[]}
 */
function outputBatchReader(kinds) {
  const parse = JSON.parse
  const { frame, json, text, reasoning, blockId, wide: wideFlag } = kinds
  const kindMask = wideFlag - 1
  return function readOutputBatch(narrow, wide, pieces) {
    const outputs = []
    let narrowFrom = 0
    let wideFrom = 0
    let id = ''
    for (let i = 0; i < pieces.length; i += 2) {
      const end = pieces[i + 1]
      let piece
      if (pieces[i] & wideFlag) {
        piece = wide.slice(wideFrom, end)
        wideFrom = end
      } else {
        piece = narrow.slice(narrowFrom, end)
        narrowFrom = end
      }
      switch (pieces[i] & kindMask) {
        case frame:
          outputs.push(piece)
          break
        case json:
          outputs.push(parse(piece))
          break
        case text:
          outputs.push({ type: 'text-delta', id, delta: piece })
          break
        case reasoning:
          outputs.push({ type: 'reasoning-delta', id, delta: piece })
          break
        case blockId:
          id = piece
          break
      }
    }
    return outputs
  }
}

/** Elements of an array stringified at a time. */
const ELEMENTS_PER_SLICE = 16

/**
 * The JSON text `JSON.stringify` makes of `value`; of an object, each property's key and text
 * apart (`[key, text, key, text, ...]`, properties `JSON.stringify` leaves out left out), so
 * that the binding can name the field a limit refuses. A long array is written in slices: a
 * whole conversation as one string is hundreds of kilobytes, which V8 keeps in its large-object
 * space until a full collection, and those collections were the slow tail of every call that
 * reads a request; slices are small strings the young generation frees cheaply, and the text is
 * the same. A value that cannot be written (a cycle) gives the field it is in and why.
 * @param {unknown} value
 * @returns {string | string[] | {field: string | null, reason: string}}
 */
function jsonText(value) {
  /** @param {unknown} item */
  const sliced = (item) => {
    if (!Array.isArray(item) || item.length <= ELEMENTS_PER_SLICE) return JSON.stringify(item)
    const parts = []
    for (let start = 0; start < item.length; start += ELEMENTS_PER_SLICE) {
      const part = JSON.stringify(item.slice(start, start + ELEMENTS_PER_SLICE))
      if (part.length > 2) parts.push(part.slice(1, -1))
    }
    return `[${parts.join(',')}]`
  }
  /** @type {string | null} */
  let field = null
  try {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return sliced(value)
    const fields = []
    for (const key in value) {
      const item = /** @type {Record<string, unknown>} */ (value)[key]
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue
      field = key
      fields.push(key, sliced(item))
    }
    return fields
  } catch (error) {
    return { field, reason: error instanceof Error ? error.message : String(error) }
  }
}

/** Prototype links followed before giving up: far more than any real subclass chain. */
const MAX_CHAIN = 64

/**
 * Whether `self` inherits from a prototype whose constructor is named `name`: napi hands a
 * constructor whatever `this` the call had, so a class called without `new` on the module would
 * otherwise turn the module's exports into an instance.
 * @param {unknown} self
 * @param {string} name
 */
function constructedAs(self, name) {
  let current = self
  for (let link = 0; link < MAX_CHAIN; link++) {
    if ((typeof current !== 'object' && typeof current !== 'function') || current === null) return false
    current = Object.getPrototypeOf(current)
    if (current !== null && typeof current === 'object' && current.constructor?.name === name) return true
  }
  return false
}

/**
 * @param {{frame: number, json: number, text: number, reasoning: number, blockId: number, wide: number}} kinds
 */
module.exports = function bindingHelpers(kinds) {
  return { readOutputBatch: outputBatchReader(kinds), jsonText, constructedAs }
}
