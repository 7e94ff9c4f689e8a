// `POST /v1/chat/completions`: OpenAI's Chat Completions, read by its schema (`request.ts`) and
// encoded by the addon's `openai-sse` format (`encoder.ts`), served through the server's one
// response path (`respond.ts`).
import { openAiError } from '../refusal.js'
import type { Api } from '../respond.js'
import { chatTitleOutputs } from '../title-outputs.js'
import { chatEncoder } from './encoder.js'
import { readChatRequest } from './request.js'

export const CHAT_COMPLETIONS: Api = {
  read: (body) => {
    const read = readChatRequest(body)
    if ('status' in read) return read
    // A stream's usage chunk comes only when asked for; a completion always carries its usage.
    return { request: read.request, stream: read.stream, encoder: chatEncoder(!read.stream || read.includeUsage) }
  },
  errors: openAiError,
  titleOutputs: chatTitleOutputs,
}
