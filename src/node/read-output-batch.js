// @ts-check
// How a batch of outputs becomes JS values (`src/core/stream/encode/batch.rs` writes it). The
// addon compiles this module once per JS environment, as a script whose value is its
// `module.exports`, and calls that with each piece kind's wire value, from the core's own enum,
// so the numbers have one owner.
//
// A batch is two strings, `narrow` (characters below U+0100) and `wide` (the others), and a
// `Uint32Array` of `kind, end` pairs: each piece is its text from where the previous piece of the
// same string ended. A frame is its piece; a text or thinking delta is a part built around its
// piece, with the block id the last `blockId` piece gave (the properties in the order the core's
// `StreamPart` has them: type, id, delta); a JSON piece is parsed.

/**
 * @param {{frame: number, json: number, text: number, reasoning: number, blockId: number, wide: number}} kinds
 * @returns {(narrow: string, wide: string, pieces: Uint32Array) => unknown[]}
 */
module.exports = function outputBatchReader(kinds) {
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
