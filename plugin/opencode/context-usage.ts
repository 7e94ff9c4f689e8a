// The usage the OpenCode provider reports for each step: an estimate of the conversation's size,
// never Cursor's own counts. OpenCode 1.18 reads a step's usage as the size of the context
// (`input + cache.read + output` against the model's window, less a reserve) and compacts the
// session when it looks full; Cursor's `result.usage` adds up every model request of its turn (an
// agentic turn of 15 tool steps reported 623,821 input and 1,200,640 cache-read tokens), so handing
// it over made OpenCode compact, continue and compact again in a loop. Cursor's counts stay in the
// finish part's `providerMetadata.cursor.usage`, in the log and in captures.
import type { LanguageModelV3Prompt, LanguageModelV3Usage } from '@ai-sdk/provider'

/**
 * The estimator: UTF-8 bytes ÷ 4 (there is no tokenizer for Cursor's models). English prose and
 * code run at 3.5–4.5 bytes per token for the tokenizers of the models Cursor serves, so the
 * estimate is within about ±15% for such text, lower for text in scripts of 3 bytes per letter.
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
const IMAGE_BYTES = 1_600 * BYTES_PER_TOKEN

const encoder = new TextEncoder()

/** UTF-8 bytes of a string. */
export function utf8Bytes(text: string): number {
  return encoder.encode(text).byteLength
}

function jsonBytes(value: unknown): number {
  if (value === undefined) return 0
  try {
    return utf8Bytes(typeof value === 'string' ? value : JSON.stringify(value))
  } catch {
    return 0
  }
}

/** A file part's share: a picture at a fixed cost, any other file by the bytes of its data. */
function fileBytes(mediaType: string, data: unknown): number {
  if (mediaType.startsWith('image/')) return IMAGE_BYTES
  if (data instanceof Uint8Array) return data.byteLength
  // Base64 text holds 3 bytes in every 4 characters; a URL is read by Cursor, at an unknown cost.
  if (typeof data === 'string') return Math.floor((data.length * 3) / 4)
  return IMAGE_BYTES
}

type ToolResultOutput = Extract<LanguageModelV3Prompt[number]['content'][number], { type: 'tool-result' }>['output']

function toolResultBytes(output: ToolResultOutput): number {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return utf8Bytes(output.value)
    case 'content':
      return output.value.reduce(
        (sum, item) =>
          sum +
          (item.type === 'text'
            ? utf8Bytes(item.text)
            : fileBytes(
                'mediaType' in item ? (item.mediaType ?? '') : 'image/',
                'data' in item ? item.data : undefined,
              )),
        0,
      )
    case 'execution-denied':
      return utf8Bytes(output.reason ?? '')
    default:
      return jsonBytes(output.value)
  }
}

/**
 * The bytes of what a fresh chat of this conversation would send Cursor: every message's text,
 * reasoning, tool calls and results, files, and the tool definitions when Cursor is given them.
 */
export function conversationBytes(prompt: LanguageModelV3Prompt, tools?: unknown): number {
  let bytes = jsonBytes(tools)
  for (const message of prompt) {
    if (message.role === 'system') {
      bytes += utf8Bytes(message.content)
      continue
    }
    for (const part of message.content) {
      switch (part.type) {
        case 'text':
        case 'reasoning':
          bytes += utf8Bytes(part.text)
          break
        case 'file':
          bytes += fileBytes(part.mediaType, part.data)
          break
        case 'tool-call':
          bytes += utf8Bytes(part.toolName) + jsonBytes(part.input)
          break
        case 'tool-result':
          bytes += utf8Bytes(part.toolName) + toolResultBytes(part.output)
          break
        default:
          bytes += jsonBytes(part)
      }
    }
  }
  return bytes
}

/** Tokens for `bytes` by the estimator (rounded up: a non-empty text is at least one token). */
export function tokensOf(bytes: number): number {
  return Math.ceil(Math.max(0, bytes) / BYTES_PER_TOKEN)
}

/**
 * A step's usage as OpenCode reads it: the conversation (with Cursor's own base) as input, this
 * response's output as output; no cache counts, since OpenCode adds them to the context again.
 */
export function contextUsage(promptBytes: number, outputBytes: number): LanguageModelV3Usage {
  const input = CURSOR_BASE_TOKENS + tokensOf(promptBytes)
  const output = tokensOf(outputBytes)
  return {
    inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: output, text: output, reasoning: undefined },
  }
}
