// `POST /v1/messages` (Anthropic's Messages API, what Claude Code and Anthropic's SDKs speak): the
// request read into a turn (`request.ts`), its parts encoded as Anthropic's message and its stream
// events (`encoder.ts`). `POST /v1/messages/count_tokens` answers at once (`count-tokens.ts`).
import { anthropicError } from '../refusal.js'
import { readBy } from '../request-fields.js'
import type { Api } from '../respond.js'
import { titleParts } from '../title-outputs.js'
import { MessagesEncoder } from './encoder.js'
import { MESSAGES_REQUEST, messagesTurn } from './request.js'

export const MESSAGES: Api = {
  read: (body) => {
    const read = readBy(MESSAGES_REQUEST, body)
    if ('status' in read) return read
    return { request: messagesTurn(read), stream: read.stream === true, encoder: new MessagesEncoder(read.model) }
  },
  errors: anthropicError,
  titleOutputs: titleParts,
}
