// `POST /v1/responses` (OpenAI's Responses API, what Codex CLI and newer OpenAI clients speak): the
// request read into a turn (`request.ts`), continuing a conversation the server holds when it names
// a `previous_response_id` (`held.ts`), its parts encoded as a response object and its stream
// events (`encoder.ts`).
import { randomUUID } from 'node:crypto'
import { openAiError } from '../refusal.js'
import { readBy } from '../request-fields.js'
import type { Api } from '../respond.js'
import { titleParts } from '../title-outputs.js'
import { ResponsesEncoder } from './encoder.js'
import { HELD_RESPONSES, heldResponse } from './held.js'
import { RESPONSES_REQUEST, responsesTurn } from './request.js'

export const RESPONSES: Api = {
  read: (body) => {
    const read = readBy(RESPONSES_REQUEST, body)
    if ('status' in read) return read
    const previousId = read.previous_response_id
    const previous = previousId == null ? undefined : heldResponse(previousId)
    if (previousId != null && previous === undefined)
      return {
        status: 404,
        code: 'E_NOT_FOUND',
        message:
          `\`previous_response_id\` ${JSON.stringify(previousId)} is not held by this server: it keeps the last ` +
          `${HELD_RESPONSES} responses (not those with \`store: false\`) for an hour, in memory. Send the whole conversation instead.`,
      }
    const request = responsesTurn(read, previous)
    const conversationId = previous?.conversationId ?? `responses-${randomUUID()}`
    request.conversationId = conversationId
    return { request, stream: read.stream === true, encoder: new ResponsesEncoder(read, request, conversationId) }
  },
  errors: openAiError,
  titleOutputs: titleParts,
}
