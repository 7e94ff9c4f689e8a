// Chat Completions' encoder: the addon's own `openai-sse` frames pass through as they come, and the
// response's `chat.completion` among the outputs is the whole response.
import type { StreamOutput } from 'opencode-cursor-native'
import { KEEP_ALIVE_COMMENT } from '../keep-alive.js'
import type { ResponseEncoder } from '../respond.js'

export function chatEncoder(includeUsage: boolean): ResponseEncoder {
  let completion: StreamOutput | undefined
  return {
    format: { format: 'openai-sse', includeUsage, toolCalls: 'omit', completions: true },
    keepAlive: () => [KEEP_ALIVE_COMMENT],
    failsInStream: false,
    frames: (outputs) => {
      const frames: string[] = []
      for (const output of outputs) {
        if (typeof output === 'string') frames.push(output)
        else if ('object' in output) completion = output
      }
      return frames
    },
    close: () => [],
    whole: () => completion ?? null,
  }
}
