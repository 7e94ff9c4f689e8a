// `POST /v1/responses` (OpenAI's Responses API, what Codex CLI and newer OpenAI clients speak): the
// request read in one schema, its input items as the prompt's (OpenAI's chat) messages after the
// conversation a `previous_response_id` continues (`held.ts`); its parts encoded by `encoder.ts`.
import { randomUUID } from 'node:crypto'
import * as v from 'valibot'
import type { PromptMessage, ToolDefinition } from '../../turn/native.js'
import type { TurnRequest } from '../../turn/turn.js'
import { openAiError, refusalFor } from '../refusal.js'
import {
  BODY_NEEDED,
  clientField,
  MAX_PARTS,
  MODEL,
  named,
  promptCall,
  readBy,
  STREAM,
  STRING_FIELD,
  TYPED_PARTS,
  toolList,
  tooManyParts,
} from '../request-fields.js'
import type { Api } from '../respond.js'
import { ResponsesEncoder } from './encoder.js'
import { HELD_RESPONSES, type HeldResponse, heldResponse } from './held.js'

const ROLES = ['user', 'assistant', 'system', 'developer'] as const
const ITEM_TYPES = ['message', 'function_call', 'function_call_output', 'reasoning'] as const
const PARTS_OR_TEXT = named('must be a string or an array of content parts.')
const OPTIONAL_TEXT = v.optional(STRING_FIELD)

/** A picture or a file, made the prompt's `image_url` or `file` part; any other part is the addon's to read. */
const PART = v.variant(
  'type',
  [
    v.looseObject({ type: v.literal('input_image'), image_url: STRING_FIELD }),
    v.looseObject({
      type: v.literal('input_file'),
      ...{ file_data: OPTIONAL_TEXT, file_url: OPTIONAL_TEXT, file_id: OPTIONAL_TEXT, filename: OPTIONAL_TEXT },
    }),
    v.looseObject({ type: v.pipe(STRING_FIELD, v.notValues(['input_image', 'input_file'])) }),
  ],
  named('must be a content part object.'),
)

const ITEM = v.variant(
  'type',
  [
    v.looseObject({
      type: v.optional(v.literal('message')),
      role: v.optional(v.picklist(ROLES, named(`must be one of ${ROLES.join(', ')}.`))),
      content: v.optional(v.union([v.string(), v.array(PART)], PARTS_OR_TEXT)),
    }),
    v.looseObject({
      type: v.literal('function_call'),
      call_id: STRING_FIELD,
      name: STRING_FIELD,
      arguments: OPTIONAL_TEXT,
    }),
    v.looseObject({
      type: v.literal('function_call_output'),
      call_id: STRING_FIELD,
      output: v.union([v.string(), TYPED_PARTS], PARTS_OR_TEXT),
    }),
    v.looseObject({ type: v.literal('reasoning') }),
  ],
  named(`must be an input item of type ${ITEM_TYPES.join(', ')}.`),
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
type Item = Exclude<ResponsesRequest['input'], string>[number]
type Part = v.InferOutput<typeof PART>

/** One content part of an input message as the prompt reads it. */
function promptPart(part: Part): unknown {
  if (part.type === 'input_image') return { type: 'image_url', image_url: { url: part.image_url } }
  if (part.type !== 'input_file') return part
  const { file_data, file_url, file_id, filename } = part as Extract<Part, { type: 'input_file' }>
  // What the client left empty is not named: the addon's line then says what the file is.
  const given = Object.entries({ file_data: file_data ?? file_url, file_id, filename })
  return { type: 'file', file: Object.fromEntries(given.filter(([, value]) => value !== undefined && value !== '')) }
}

/** A function call's output as text. */
function outputText(output: string | Array<{ type: string; text?: unknown }>): string {
  if (typeof output === 'string') return output
  return output.map((part) => (typeof part.text === 'string' ? part.text : `[${part.type} omitted]`)).join('\n')
}

/** One input item as the prompt's messages (appended to `messages`), each message's origin beside it. */
function addItem(item: Item, at: string, messages: PromptMessage[], origins: string[]): void {
  if (item.type === 'reasoning') return // Earlier reasoning is left out of the prompt.
  if (item.type === 'function_call') {
    const call = promptCall(item.call_id, item.name, item.arguments ?? '{}')
    const last = messages.at(-1)
    // Calls of one step follow each other: they are one assistant message's calls (never one the
    // held conversation holds).
    if (last?.role === 'assistant' && Array.isArray(last.tool_calls) && origins.at(-1)?.startsWith('input')) {
      last.tool_calls.push(call)
      return
    }
    messages.push({ role: 'assistant', content: null, tool_calls: [call] })
  } else if (item.type === 'function_call_output') {
    messages.push({ role: 'tool', tool_call_id: item.call_id, content: outputText(item.output) })
  } else {
    const content = typeof item.content === 'string' ? item.content : (item.content ?? []).map(promptPart)
    messages.push({ role: item.role ?? 'user', content })
  }
  origins.push(at)
}

/**
 * The request as a turn, after the conversation it continues, if it continues one; and the
 * client's name of each field of it the addon may refuse.
 */
function responsesTurn(read: ResponsesRequest, previous: HeldResponse | undefined) {
  const messages: PromptMessage[] = []
  const origins: string[] = []
  const add = (message: PromptMessage, at: string): void => {
    messages.push(message)
    origins.push(at)
  }
  if (read.instructions != null && read.instructions !== '')
    add({ role: 'system', content: read.instructions }, 'instructions')
  // A held conversation's own instructions are its first message: the new ones replace them.
  const replaced = messages.length > 0
  for (const message of previous?.messages ?? [])
    if (!replaced || message.role !== 'system') add(message, 'previous_response_id')
  if (typeof read.input === 'string') add({ role: 'user', content: read.input }, 'input')
  else for (const [index, item] of read.input.entries()) addItem(item, `input[${index}]`, messages, origins)
  const request: TurnRequest = { model: read.model, messages }
  // Only function tools are offered; the addon's `tools[0]` is the client's first of them.
  const functions = (read.tools ?? []).flatMap((tool, index) => (tool.type === 'function' ? [index] : []))
  if (functions.length > 0) request.tools = functions.map((index) => read.tools?.[index] as ToolDefinition)
  return { request, clientField: (field: string) => clientField(field, origins, functions) }
}

const CHAINED = '`input` and the conversation `previous_response_id` continues'

export const RESPONSES: Api = {
  list: 'input',
  read: (body, size) => {
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
    // A conversation it continues is read with it: together they stay within a body's limits.
    const carried = { bytes: (previous?.bytes ?? 0) + size.bytes, parts: (previous?.parts ?? 0) + size.parts }
    if (carried.parts > MAX_PARTS) return tooManyParts(CHAINED, carried.parts)
    if (carried.bytes > size.maxBytes)
      return refusalFor(
        'E_PAYLOAD_TOO_LARGE',
        `${CHAINED}: ${carried.bytes} bytes, over the body limit of ${size.maxBytes} bytes.`,
      )
    const { request, clientField } = responsesTurn(read, previous)
    // A response's first continuation goes on in its conversation (Cursor's chat, a run waiting for
    // tool results); any other is a branch: two of them at once never see each other's tool calls.
    const conversationId =
      previous !== undefined && !previous.continued ? previous.conversationId : `responses-${randomUUID()}`
    if (previous !== undefined) previous.continued = true
    request.conversationId = conversationId
    const encoder = new ResponsesEncoder(read, request, conversationId, carried)
    return { request, stream: read.stream === true, encoder, clientField, continuable: read.store !== false }
  },
  errors: openAiError,
}
