// `POST /v1/responses` (OpenAI's Responses API, what Codex CLI and newer OpenAI clients speak): the
// request read in one schema, its input items as the prompt's (OpenAI's chat) messages after the
// conversation a `previous_response_id` continues (`held.ts`); its parts encoded by `encoder.ts`.
import { randomUUID } from 'node:crypto'
import * as v from 'valibot'
import type { PromptMessage, ToolDefinition } from '../../turn/native.js'
import type { TurnRequest } from '../../turn/turn.js'
import { openAiError, refusalFor } from '../refusal.js'
import { BODY_NEEDED, MODEL, named, promptCall, readBy, STREAM, TYPED_PARTS, toolList } from '../request-fields.js'
import type { Api } from '../respond.js'
import { ResponsesEncoder } from './encoder.js'
import { HELD_RESPONSES, type HeldResponse, heldResponse } from './held.js'

const ROLES = ['user', 'assistant', 'system', 'developer'] as const
const ITEM_TYPES = ['message', 'function_call', 'function_call_output', 'reasoning'] as const

const ITEM = v.looseObject(
  {
    type: v.optional(v.picklist(ITEM_TYPES, named(`must be one of ${ITEM_TYPES.join(', ')}.`))),
    role: v.optional(v.picklist(ROLES, named(`must be one of ${ROLES.join(', ')}.`))),
    content: v.optional(v.union([v.string(), TYPED_PARTS], named('must be a string or an array of content parts.'))),
  },
  named('must be an input item object.'),
)

const RESPONSES_REQUEST = v.object(
  {
    model: MODEL,
    input: v.union(
      [
        v.pipe(v.string(), v.nonEmpty('`input` must not be empty.')),
        v.pipe(v.array(ITEM), v.nonEmpty('`input` must not be empty.')),
      ],
      '`input` must be a string or an array of input items.',
    ),
    instructions: v.nullish(v.string('`instructions` must be a string.')),
    previous_response_id: v.nullish(v.string('`previous_response_id` must be a string.')),
    store: v.nullish(v.boolean('`store` must be true or false.')),
    stream: STREAM,
    tools: toolList('type'),
  },
  BODY_NEEDED,
)

export type ResponsesRequest = v.InferOutput<typeof RESPONSES_REQUEST>
type Item = v.InferOutput<typeof ITEM>

/** One content part of an input message as the prompt reads it. */
function promptPart(part: Record<string, unknown>): unknown {
  if (part.type === 'input_image') return { type: 'image_url', image_url: { url: String(part.image_url ?? '') } }
  if (part.type === 'input_file') {
    const file: Record<string, unknown> = {}
    const data = part.file_data ?? part.file_url
    if (data !== undefined) file.file_data = String(data)
    if (part.file_id !== undefined) file.file_id = String(part.file_id)
    if (part.filename !== undefined) file.filename = String(part.filename)
    return { type: 'file', file }
  }
  return part
}

/** A function call's output as text. */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output
  if (Array.isArray(output))
    return output
      .map((part) => (typeof part?.text === 'string' ? part.text : `[${part?.type ?? 'part'} omitted]`))
      .join('\n')
  return JSON.stringify(output ?? '')
}

/** The input items as the prompt's messages. */
function promptMessages(input: ResponsesRequest['input']): PromptMessage[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }]
  const messages: PromptMessage[] = []
  for (const item of input as Item[]) {
    const record = item as Record<string, unknown>
    if (item.type === 'function_call') {
      const call = promptCall(String(record.call_id ?? ''), String(record.name ?? ''), String(record.arguments ?? '{}'))
      const last = messages.at(-1) as Record<string, unknown> | undefined
      // Calls of one step follow each other: they are one assistant message's calls.
      if (last?.role === 'assistant' && Array.isArray(last.tool_calls)) last.tool_calls.push(call)
      else messages.push({ role: 'assistant', content: null, tool_calls: [call] } as PromptMessage)
    } else if (item.type === 'function_call_output') {
      messages.push({ role: 'tool', tool_call_id: String(record.call_id ?? ''), content: outputText(record.output) })
    } else if (item.type === 'reasoning') {
      // Earlier reasoning is left out of the prompt.
    } else {
      const content = typeof item.content === 'string' ? item.content : (item.content ?? []).map(promptPart)
      messages.push({ role: item.role ?? 'user', content } as PromptMessage)
    }
  }
  return messages
}

/** The request as a turn, after the conversation it continues, if it continues one. */
function responsesTurn(read: ResponsesRequest, previous: HeldResponse | undefined): TurnRequest {
  const messages: PromptMessage[] = []
  if (read.instructions != null && read.instructions !== '')
    messages.push({ role: 'system', content: read.instructions })
  // A held conversation's own instructions are its first message: the new ones replace them.
  const earlier = previous?.messages ?? []
  messages.push(...(messages.length > 0 ? earlier.filter((message) => message.role !== 'system') : earlier))
  messages.push(...promptMessages(read.input))
  const request: TurnRequest = { model: read.model, messages }
  const functions = (read.tools ?? []).filter((tool) => tool.type === 'function')
  if (functions.length > 0) request.tools = functions as ToolDefinition[]
  if (previous !== undefined) request.conversationId = previous.conversationId
  return request
}

export const RESPONSES: Api = {
  read: (body) => {
    const read = readBy(RESPONSES_REQUEST, body)
    if ('status' in read) return read
    const previousId = read.previous_response_id
    const previous = previousId == null ? undefined : heldResponse(previousId)
    if (previousId != null && previous === undefined)
      return refusalFor(
        'E_NOT_FOUND',
        `\`previous_response_id\` ${JSON.stringify(previousId)} is not held by this server: it keeps the last ` +
          `${HELD_RESPONSES} responses (not those with \`store: false\`) for an hour, in memory. Send the whole conversation instead.`,
      )
    const request = responsesTurn(read, previous)
    const conversationId = previous?.conversationId ?? `responses-${randomUUID()}`
    request.conversationId = conversationId
    return { request, stream: read.stream === true, encoder: new ResponsesEncoder(read, request, conversationId) }
  },
  errors: openAiError,
}
