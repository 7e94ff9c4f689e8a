// `POST /v1/chat/completions`: OpenAI's Chat Completions, encoded by the addon's own `openai-sse`
// format (its frames as they come, and each response's `chat.completion` after them), served
// through the server's one response path (`respond.ts`).
import { randomUUID } from 'node:crypto'
import type { StreamOutput } from 'opencode-cursor-native'
import { readChatRequest } from './chat-request.js'
import { KEEP_ALIVE_COMMENT } from './keep-alive.js'
import { openAiError } from './refusal.js'
import type { Api, ApiRequest, ResponseEncoder } from './respond.js'
import { sseFrame } from './sse.js'

/** The addon's frames pass through; the completion among the outputs is the whole response. */
function chatEncoder(includeUsage: boolean): ResponseEncoder {
  let completion: StreamOutput | undefined
  return {
    format: { format: 'openai-sse', includeUsage },
    keepAlive: KEEP_ALIVE_COMMENT,
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

/** A title request answered without cursor-agent: the frames a run would stream, or its completion. */
function titleOutputs(title: string, { request, stream }: ApiRequest): StreamOutput[] {
  const head = { id: `chatcmpl-${randomUUID()}`, created: Math.floor(Date.now() / 1000), model: request.model }
  if (!stream) {
    const message = { role: 'assistant' as const, content: title }
    return [{ ...head, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: 'stop' }] }]
  }
  const chunk = { ...head, object: 'chat.completion.chunk' }
  return [
    sseFrame({ ...chunk, choices: [{ index: 0, delta: { role: 'assistant', content: title }, finish_reason: null }] }),
    sseFrame({ ...chunk, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
    'data: [DONE]\n\n',
  ]
}

export const CHAT_COMPLETIONS: Api = {
  read: (body) => {
    const read = readChatRequest(body)
    if ('status' in read) return read
    // A stream's usage chunk comes only when asked for; a completion always carries its usage.
    return { request: read.request, stream: read.stream, encoder: chatEncoder(!read.stream || read.includeUsage) }
  },
  errors: openAiError,
  titleOutputs,
}
