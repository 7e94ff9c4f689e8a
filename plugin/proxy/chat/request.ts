// `POST /v1/chat/completions`: OpenAI's Chat Completions, the request read in one schema (the
// fields a turn needs, each refusal naming its field) and encoded by the addon's `openai-sse`
// format (`encoder.ts`), served through the server's one response path (`respond.ts`).
import * as v from 'valibot'
import type { PromptMessage, ToolDefinition } from '../../turn/native.js'
import type { TurnRequest } from '../../turn/turn.js'
import { openAiError, type Refusal } from '../refusal.js'
import { BODY_NEEDED, effortField, MODEL, messageList, readBy, STREAM, TOOLS_NEEDED } from '../request-fields.js'
import type { Api } from '../respond.js'
import { chatEncoder } from './encoder.js'

/**
 * The fields of an OpenAI chat request the server reads; every other field is ignored. Each
 * refusal names its field. The messages are the addon's to read (as every API's become): a
 * malformed one is refused by the addon, naming its field (`messages[1].content`).
 */
const CHAT_REQUEST = v.object(
  {
    model: MODEL,
    reasoning_effort: effortField('reasoning_effort'),
    messages: messageList(v.unknown()),
    tools: v.nullish(v.array(v.record(v.string(), v.unknown(), TOOLS_NEEDED), TOOLS_NEEDED)),
    stream: STREAM,
    stream_options: v.nullish(
      v.pipe(
        v.custom<Record<string, unknown>>(
          (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
          '`stream_options` must be an object.',
        ),
        v.looseObject({
          include_usage: v.nullish(v.boolean('`stream_options.include_usage` must be true or false.')),
        }),
      ),
    ),
    // One choice per request: the server runs one agent for it, so asking for more is refused.
    n: v.nullish(v.literal(1, '`n` must be 1: the server answers with one choice.')),
  },
  BODY_NEEDED,
)

/** The request body as a turn, or why not (400). */
export function readChatRequest(
  body: unknown,
): { request: TurnRequest; stream: boolean; includeUsage: boolean; effort?: string } | Refusal {
  const read = readBy(CHAT_REQUEST, body)
  if ('status' in read) return read
  const { model, messages, tools, stream, stream_options: options, reasoning_effort: effort } = read
  const request: TurnRequest = { model, messages: messages as PromptMessage[] }
  if (tools != null && tools.length > 0) request.tools = tools as ToolDefinition[]
  const chat = { request, stream: stream === true, includeUsage: options?.include_usage === true }
  return effort == null ? chat : { ...chat, effort }
}

export const CHAT_COMPLETIONS: Api = {
  list: 'messages',
  read: (body) => {
    const read = readChatRequest(body)
    if ('status' in read) return read
    // A stream's usage chunk comes only when asked for; a completion always carries its usage.
    const encoder = chatEncoder(!read.stream || read.includeUsage)
    const chat = { request: read.request, stream: read.stream, encoder }
    return read.effort === undefined ? chat : { ...chat, effort: read.effort }
  },
  errors: openAiError,
}
