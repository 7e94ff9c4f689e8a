// The usage the OpenCode provider reports for each step: an estimate of the conversation's size,
// never Cursor's own counts. OpenCode 1.18 reads a step's usage as the size of the context
// (`input + cache.read + output` against the model's window, less a reserve) and compacts the
// session when it looks full; Cursor's `result.usage` adds up every model request of its turn (an
// agentic turn of 15 tool steps reported 623,821 input and 1,200,640 cache-read tokens), so handing
// it over made OpenCode compact, continue and compact again in a loop. Cursor's counts stay in the
// finish part's `providerMetadata.cursor.usage`, in the log and in captures.
import type { LanguageModelV3Prompt, LanguageModelV3Usage } from '@ai-sdk/provider'
import {
  BYTES_PER_TOKEN,
  CURSOR_BASE_TOKENS,
  IMAGE_BYTES,
  inputTokensOf,
  jsonBytes,
  tokensOf,
  utf8Bytes,
} from '../turn/context-estimate.js'

export { BYTES_PER_TOKEN, CURSOR_BASE_TOKENS, tokensOf, utf8Bytes }

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

/**
 * A step's usage as OpenCode reads it: the conversation (with Cursor's own base) as input, this
 * response's output as output; no cache counts, since OpenCode adds them to the context again.
 */
export function contextUsage(promptBytes: number, outputBytes: number): LanguageModelV3Usage {
  const input = inputTokensOf(promptBytes)
  const output = tokensOf(outputBytes)
  return {
    inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: output, text: output, reasoning: undefined },
  }
}
