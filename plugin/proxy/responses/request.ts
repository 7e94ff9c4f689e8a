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
  effortObject,
  MODEL,
  named,
  promptCall,
  readBy,
  STREAM,
  TYPED_PARTS,
  toolList,
} from '../request-fields.js'
import type { Api } from '../respond.js'
import { ResponsesEncoder } from './encoder.js'
import { HELD_RESPONSES, type HeldResponse, heldResponse } from './held.js'

const ROLES = ['user', 'assistant', 'system', 'developer'] as const
const PARTS_OR_TEXT = named('must be a string or an array of content parts.')
const TEXT = v.string(named('must be a string.'))
const NO_TEXT = v.optional(TEXT)
const OUTPUT = v.union([v.string(), TYPED_PARTS], PARTS_OR_TEXT)
const FILE = { file_data: NO_TEXT, file_url: NO_TEXT, file_id: NO_TEXT, filename: NO_TEXT }

/** A picture or a file, made the prompt's `image_url` or `file` part; any other part is the addon's to read. */
const PART = v.variant(
  'type',
  [
    v.looseObject({ type: v.literal('input_image'), image_url: TEXT }),
    v.looseObject({ type: v.literal('input_file'), ...FILE }),
    v.looseObject({ type: v.pipe(TEXT, v.notValues(['input_image', 'input_file'])) }),
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
    v.looseObject({ type: v.literal('function_call'), call_id: TEXT, name: TEXT, arguments: NO_TEXT }),
    v.looseObject({ type: v.literal('function_call_output'), call_id: TEXT, output: OUTPUT }),
    v.looseObject({ type: v.literal('reasoning') }),
  ],
  named('must be an input item of type message, function_call, function_call_output, reasoning.'),
)

const RESPONSES_REQUEST = v.object(
  {
    model: MODEL,
    // Codex's `model_reasoning_effort` arrives as `reasoning.effort`.
    reasoning: effortObject('reasoning'),
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
  const given = Object.entries({ file_data: file_data ?? file_url, file_id, filename }).filter(([, value]) => value)
  return { type: 'file', file: Object.fromEntries(given) }
}

/** A function call's output as text. */
function outputText(output: string | Array<{ type: string; text?: unknown }>): string {
  if (typeof output === 'string') return output
  return output.map((part) => (typeof part.text === 'string' ? part.text : `[${part.type} omitted]`)).join('\n')
}

/** One input item as the prompt's message, or none (earlier reasoning; a call the one before takes). */
function itemMessage(item: Item, before: PromptMessage | undefined): PromptMessage | undefined {
  if (item.type === 'function_call') {
    const call = promptCall(item.call_id, item.name, item.arguments ?? '{}')
    // Calls of one step follow each other: they are one assistant message's calls.
    if (!Array.isArray(before?.tool_calls)) return { role: 'assistant', content: null, tool_calls: [call] }
    before.tool_calls.push(call)
  } else if (item.type === 'function_call_output') {
    return { role: 'tool', tool_call_id: item.call_id, content: outputText(item.output) }
  } else if (item.type !== 'reasoning') {
    const content = typeof item.content === 'string' ? item.content : (item.content ?? []).map(promptPart)
    return { role: item.role ?? 'user', content }
  }
  return undefined
}

/** The request as a turn, after the conversation it continues, and the client's name of its fields. */
function responsesTurn(read: ResponsesRequest, previous: HeldResponse | undefined) {
  const messages: PromptMessage[] = []
  const origins: string[] = []
  const add = (message: PromptMessage, at: string): PromptMessage => {
    messages.push(message)
    origins.push(at)
    return message
  }
  if (read.instructions != null && read.instructions !== '')
    add({ role: 'system', content: read.instructions }, 'instructions')
  // A held conversation's own instructions are its first message: the new ones replace them.
  const replaced = messages.length > 0
  for (const message of previous?.messages ?? [])
    if (!replaced || message.role !== 'system') add(message, 'previous_response_id')
  const items = typeof read.input === 'string' ? [{ role: 'user' as const, content: read.input }] : read.input
  let last: PromptMessage | undefined
  for (const [index, item] of items.entries()) {
    const message = itemMessage(item, last?.role === 'assistant' ? last : undefined)
    if (message !== undefined) last = add(message, typeof read.input === 'string' ? 'input' : `input[${index}]`)
  }
  const request: TurnRequest = { model: read.model, messages }
  // Only function tools are offered; the addon's `tools[0]` is the client's first of them.
  const functions = (read.tools ?? []).flatMap((tool, index) => (tool.type === 'function' ? [index] : []))
  if (functions.length > 0) request.tools = functions.map((index) => read.tools?.[index] as ToolDefinition)
  // A field the addon names (`messages[2].content`) as the client wrote it (`input[3].content`).
  const clientField = (field: string): string =>
    field
      .replace(/^messages\[(\d+)\]/, (whole, at: string) => origins[Number(at)] ?? whole)
      .replace(/^tools\[(\d+)\]/, (_, at: string) => `tools[${functions[Number(at)] ?? at}]`)
  return { request, clientField }
}

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
    // A conversation it continues is read with it: together they keep to a body's limits.
    const carried = { ...size, bytes: (previous?.bytes ?? 0) + size.bytes, parts: (previous?.parts ?? 0) + size.parts }
    const { request, clientField } = responsesTurn(read, previous)
    // A response's first continuation goes on in its conversation (Cursor's chat, a run waiting for
    // tool results); any other is a branch: two of them at once never see each other's tool calls.
    // A request that continues none is named by its history, as on the other APIs (Codex CLI sends
    // the whole conversation every turn, never `previous_response_id`).
    const conversationId =
      previous?.continued === false ? previous.conversationId : previous && `responses-${randomUUID()}`
    if (conversationId !== undefined) request.conversationId = conversationId
    const encoder = new ResponsesEncoder(read, request, carried)
    const fields = '`input` and the conversation `previous_response_id` continues'
    const continued = previous && { fields, carried, claim: () => Object.assign(previous, { continued: true }) }
    const effort = read.reasoning?.effort ?? undefined
    const served = { request, stream: read.stream === true, encoder, clientField, continued }
    return { ...served, continuable: read.store !== false, ...(effort === undefined ? {} : { effort }) }
  },
  errors: openAiError,
}
