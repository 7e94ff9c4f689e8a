// The estimate of a conversation's size in tokens that every front end reports the same way: the
// OpenCode provider as each step's context usage, the server as the Messages API's token count.
// There is no tokenizer for Cursor's models: UTF-8 bytes ÷ 4, plus what Cursor itself adds.

/**
 * The estimator: UTF-8 bytes ÷ 4. English prose and code run at 3.5–4.5 bytes per token for the
 * tokenizers of the models Cursor serves, so the estimate is within about ±15% for such text,
 * lower for text in scripts of 3 bytes per letter.
 */
export const BYTES_PER_TOKEN = 4

/**
 * What every Cursor model request carries before the conversation: Cursor's own system prompt
 * and tool definitions. Measured in the real captures: a one-request turn with a 34-byte prompt
 * reported 20,369 prompt tokens (input + cache read); the per-request average of the four
 * multi-request captures is 20,452–22,261 (`__test__/context-usage.spec.ts` checks the estimate
 * against every capture).
 */
export const CURSOR_BASE_TOKENS = 20_000

/** A picture counts as much as a large image costs the models Cursor serves (about 1,600 tokens). */
export const IMAGE_BYTES = 1_600 * BYTES_PER_TOKEN

const encoder = new TextEncoder()

/** UTF-8 bytes of a string. */
export function utf8Bytes(text: string): number {
  return encoder.encode(text).byteLength
}

/** UTF-8 bytes of a value's JSON text (a string as itself); 0 for what has none. */
export function jsonBytes(value: unknown): number {
  if (value === undefined) return 0
  try {
    return utf8Bytes(typeof value === 'string' ? value : JSON.stringify(value))
  } catch {
    return 0
  }
}

/** Tokens for `bytes` by the estimator (rounded up: a non-empty text is at least one token). */
export function tokensOf(bytes: number): number {
  return Math.ceil(Math.max(0, bytes) / BYTES_PER_TOKEN)
}

/** The input tokens of a request whose conversation has `conversationBytes`: Cursor's base included. */
export function inputTokensOf(conversationBytes: number): number {
  return CURSOR_BASE_TOKENS + tokensOf(conversationBytes)
}
