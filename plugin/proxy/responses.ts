// `POST /v1/responses` (OpenAI's Responses API, what Codex CLI and newer OpenAI clients speak): the
// request read into a turn, the addon's `ai-sdk` parts encoded as a response object and its stream
// events. Thinking is a `reasoning` output item, never `output_text`. `previous_response_id`
// continues a conversation the server still holds (`store` not false), in memory for an hour.
import { randomUUID } from 'node:crypto'
import type { RunError, StreamOutput } from 'opencode-cursor-native'
import * as v from 'valibot'
import type { PromptMessage, ToolDefinition } from '../turn/native.js'
import type { TurnRequest } from '../turn/turn.js'
import { invalid, MODEL, named, STREAM, toolList } from './chat-request.js'
import { openAiError, type Refusal, refusalOf } from './refusal.js'
import type { Api, ApiRequest, ResponseEncoder } from './respond.js'
import { clientParts, countsOf, SEGMENT_SEPARATOR, titleParts } from './parts.js'
import { sseFrame } from './sse.js'

const ROLES = ['user', 'assistant', 'system', 'developer'] as const
const ITEM_TYPES = ['message', 'function_call', 'function_call_output', 'reasoning'] as const

const ITEM = v.looseObject(
  {
    type: v.optional(v.picklist(ITEM_TYPES, named(`must be one of ${ITEM_TYPES.join(', ')}.`))),
    role: v.optional(v.picklist(ROLES, named(`must be one of ${ROLES.join(', ')}.`))),
    content: v.optional(
      v.union(
        [
          v.string(),
          v.array(v.looseObject({ type: v.string(named('must be a string.')) }, named('must be an object.'))),
        ],
        named('must be a string or an array of content parts.'),
      ),
    ),
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
  'The body must be a JSON object.',
)

type ResponsesRequest = v.InferOutput<typeof RESPONSES_REQUEST>
type Item = ResponsesRequest['input'] extends infer I ? (I extends (infer E)[] ? E : never) : never

/** A conversation the server holds for `previous_response_id`. */
interface HeldResponse {
  messages: PromptMessage[]
  conversationId: string
  model: string
  at: number
}

/** How many responses are held, and for how long (as the session-resume cache holds its chats). */
export const HELD_RESPONSES = 256
export const HELD_RESPONSE_MS = 60 * 60 * 1000
const held = new Map<string, HeldResponse>()

function hold(id: string, response: HeldResponse): void {
  held.delete(id)
  held.set(id, response)
  while (held.size > HELD_RESPONSES) held.delete(held.keys().next().value as string)
}

function heldResponse(id: string, now = Date.now()): HeldResponse | undefined {
  const found = held.get(id)
  if (found === undefined || now - found.at > HELD_RESPONSE_MS) {
    held.delete(id)
    return undefined
  }
  return found
}

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

/** The input items as the prompt's messages (OpenAI's chat shape, which the prompt reads). */
function promptMessages(input: ResponsesRequest['input']): PromptMessage[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }]
  const messages: PromptMessage[] = []
  for (const item of input as Item[]) {
    const record = item as Record<string, unknown>
    if (item.type === 'function_call') {
      const call = {
        id: String(record.call_id ?? ''),
        type: 'function',
        function: { name: String(record.name ?? ''), arguments: String(record.arguments ?? '{}') },
      }
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

function toTurn(read: ResponsesRequest, previous: HeldResponse | undefined): TurnRequest {
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

type OutputItem =
  | { id: string; type: 'reasoning'; summary: []; content: Array<{ type: 'reasoning_text'; text: string }> }
  | {
      id: string
      type: 'message'
      role: 'assistant'
      status: string
      content: Array<{ type: 'output_text'; text: string; annotations: [] }>
    }
  | { id: string; type: 'function_call'; call_id: string; name: string; arguments: string; status: string }

const itemId = (prefix: string): string => `${prefix}_${randomUUID().replaceAll('-', '')}`

/** OpenAI's response object and its stream events, gathered from one response's parts. */
export function responsesEncoder(
  read: ResponsesRequest,
  request: TurnRequest,
  conversationId: string,
): ResponseEncoder {
  const id = itemId('resp')
  const createdAt = Math.floor(Date.now() / 1000)
  const output: OutputItem[] = []
  let open: OutputItem | undefined
  let status: 'in_progress' | 'completed' | 'failed' = 'in_progress'
  let usage: Record<string, unknown> | null = null
  let error: { code: string; message: string } | null = null
  let sequence = 0
  let begun = false
  const response = (): Record<string, unknown> => ({
    id,
    object: 'response',
    created_at: createdAt,
    status,
    model: read.model,
    output,
    usage,
    error,
    incomplete_details: null,
    instructions: read.instructions ?? null,
    previous_response_id: read.previous_response_id ?? null,
    store: read.store !== false,
    parallel_tool_calls: false,
    tool_choice: 'auto',
    tools: read.tools ?? [],
    metadata: {},
    text: { format: { type: 'text' } },
  })
  const event = (type: string, data: Record<string, unknown>): string =>
    sseFrame({ type, sequence_number: sequence++, ...data }, type)
  const index = (): number => output.length - 1
  const closeItem = (frames: string[]): void => {
    const item = open
    if (item === undefined) return
    open = undefined
    const at = { item_id: item.id, output_index: index(), content_index: 0 }
    if (item.type === 'message') {
      item.status = 'completed'
      const part = item.content[0]
      frames.push(event('response.output_text.done', { ...at, text: part?.text ?? '', logprobs: [] }))
      frames.push(event('response.content_part.done', { ...at, part }))
    } else if (item.type === 'reasoning') {
      const part = item.content[0]
      frames.push(event('response.reasoning_text.done', { ...at, text: part?.text ?? '' }))
      frames.push(event('response.content_part.done', { ...at, part }))
    }
    frames.push(event('response.output_item.done', { output_index: index(), item }))
  }
  const openItem = (frames: string[], kind: 'message' | 'reasoning'): void => {
    if (open?.type === kind) {
      append(frames, SEGMENT_SEPARATOR)
      return
    }
    closeItem(frames)
    const item: OutputItem =
      kind === 'message'
        ? { id: itemId('msg'), type: 'message', role: 'assistant', status: 'in_progress', content: [] }
        : { id: itemId('rs'), type: 'reasoning', summary: [], content: [] }
    output.push(item)
    open = item
    frames.push(event('response.output_item.added', { output_index: index(), item: { ...item, content: [] } }))
    const part =
      kind === 'message'
        ? { type: 'output_text' as const, text: '', annotations: [] as [] }
        : { type: 'reasoning_text' as const, text: '' }
    frames.push(
      event('response.content_part.added', {
        item_id: item.id,
        output_index: index(),
        content_index: 0,
        part: { ...part },
      }),
    )
    ;(item.content as Array<typeof part>).push(part)
  }
  const append = (frames: string[], delta: string): void => {
    if (open === undefined || open.type === 'function_call') return
    const part = open.content[0]
    if (part === undefined) return
    part.text += delta
    const at = { item_id: open.id, output_index: index(), content_index: 0, delta }
    frames.push(
      open.type === 'message'
        ? event('response.output_text.delta', { ...at, logprobs: [] })
        : event('response.reasoning_text.delta', at),
    )
  }
  const remember = (): void => {
    if (read.store === false) return
    const answer = output.flatMap((item) => (item.type === 'message' ? item.content.map((part) => part.text) : []))
    const calls = output.flatMap((item) =>
      item.type === 'function_call'
        ? [{ id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } }]
        : [],
    )
    const reply: Record<string, unknown> = { role: 'assistant', content: answer.join(SEGMENT_SEPARATOR) }
    if (calls.length > 0) reply.tool_calls = calls
    hold(id, {
      messages: [...request.messages, reply as PromptMessage],
      conversationId,
      model: read.model,
      at: Date.now(),
    })
  }
  const failed = (frames: string[], failure: RunError): void => {
    closeItem(frames)
    status = 'failed'
    const refusal = refusalOf(failure)
    error = { code: refusal.code, message: refusal.message }
    frames.push(event('response.failed', { response: response() }))
  }
  return {
    format: 'ai-sdk',
    keepAlive: ': keep-alive\n\n',
    frames: (outputs: StreamOutput[]) => {
      const frames: string[] = []
      if (!begun) {
        begun = true
        frames.push(event('response.created', { response: response() }))
        frames.push(event('response.in_progress', { response: response() }))
      }
      for (const part of clientParts(outputs)) {
        if (status !== 'in_progress') break
        switch (part.type) {
          case 'text-start':
            openItem(frames, 'message')
            break
          case 'reasoning-start':
            openItem(frames, 'reasoning')
            break
          case 'text-delta':
          case 'reasoning-delta':
            append(frames, part.delta)
            break
          case 'tool-call': {
            closeItem(frames)
            const item: OutputItem = {
              id: itemId('fc'),
              type: 'function_call',
              call_id: part.toolCallId,
              name: part.toolName,
              arguments: part.input,
              status: 'completed',
            }
            output.push(item)
            frames.push(
              event('response.output_item.added', { output_index: index(), item: { ...item, arguments: '' } }),
            )
            frames.push(
              event('response.function_call_arguments.delta', {
                item_id: item.id,
                output_index: index(),
                delta: part.input,
              }),
            )
            frames.push(
              event('response.function_call_arguments.done', {
                item_id: item.id,
                output_index: index(),
                arguments: part.input,
              }),
            )
            frames.push(event('response.output_item.done', { output_index: index(), item }))
            break
          }
          case 'finish': {
            closeItem(frames)
            const counts = countsOf(part.usage)
            const input = counts.input + counts.cacheRead + counts.cacheWrite
            usage = {
              input_tokens: input,
              input_tokens_details: { cached_tokens: counts.cacheRead },
              output_tokens: counts.output,
              output_tokens_details: { reasoning_tokens: counts.reasoning ?? 0 },
              total_tokens: input + counts.output,
            }
            status = 'completed'
            remember()
            frames.push(event('response.completed', { response: response() }))
            break
          }
          case 'error':
            failed(frames, part.error)
            break
          default:
            break
        }
      }
      return frames
    },
    close: () => [],
    whole: () => response(),
  }
}

export const RESPONSES: Api = {
  read: (body): ApiRequest | Refusal => {
    const parsed = v.safeParse(RESPONSES_REQUEST, body)
    if (!parsed.success) return invalid(parsed.issues)
    const read = parsed.output
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
    const request = toTurn(read, previous)
    const conversationId = previous?.conversationId ?? `responses-${randomUUID()}`
    request.conversationId = conversationId
    return { request, stream: read.stream === true, encoder: responsesEncoder(read, request, conversationId) }
  },
  errors: openAiError,
  titleOutputs: (title) => titleParts(title),
}
