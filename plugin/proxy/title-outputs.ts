// A title answered locally (the shared turn's `titleOf`), without cursor-agent: the outputs a run
// would have put out for an answer of just the title, in each API's encoder's format.
import { randomUUID } from 'node:crypto'
import type { StreamOutput, StreamPart } from 'opencode-cursor-native'
import type { ApiRequest } from './respond.js'
import { sseFrame } from './sse.js'

/** Chat Completions': the frames a run would stream, or its completion. */
export function chatTitleOutputs(title: string, { request, stream }: ApiRequest): StreamOutput[] {
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

/** The `ai-sdk` parts the Responses and Messages encoders read. */
export function titleParts(title: string): StreamPart[] {
  return [
    { type: 'text-start', id: 'title' },
    { type: 'text-delta', id: 'title', delta: title },
    { type: 'text-end', id: 'title' },
    { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: { inputTokens: {}, outputTokens: {} } },
  ]
}
