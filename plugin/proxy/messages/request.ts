// `POST /v1/messages` (Anthropic's Messages API, what Claude Code and Anthropic's SDKs speak): the
// request read in one schema, its messages as the prompt's (OpenAI's chat shape); its parts encoded
// by `encoder.ts`.
import * as v from 'valibot'
import type { PromptMessage, ToolDefinition } from '../../turn/native.js'
import type { TurnRequest } from '../../turn/turn.js'
import { anthropicError } from '../refusal.js'
import { BODY_NEEDED, MODEL, messageList, named, promptCall, readBy, STREAM, toolList } from '../request-fields.js'
import type { Api } from '../respond.js'
import { MessagesEncoder } from './encoder.js'

/** The block types a request's message may hold. */
const BLOCK_TYPES = ['text', 'image', 'document', 'tool_use', 'tool_result', 'thinking', 'redacted_thinking'] as const

const TEXT_BLOCK = v.looseObject({ type: v.literal('text'), text: v.string(named('must be a string.')) })

const BLOCK = v.looseObject(
  { type: v.picklist(BLOCK_TYPES, named(`must be one of ${BLOCK_TYPES.join(', ')}.`)) },
  named('must be a content block object.'),
)

const MESSAGE = v.looseObject(
  {
    role: v.picklist(['user', 'assistant'] as const, named('must be user or assistant.')),
    content: v.union([v.string(), v.array(BLOCK)], named('must be a string or an array of content blocks.')),
  },
  named('must be a message object.'),
)

export const MESSAGES_REQUEST = v.object(
  {
    model: MODEL,
    messages: messageList(MESSAGE),
    system: v.nullish(v.union([v.string(), v.array(TEXT_BLOCK)], '`system` must be a string or text blocks.')),
    // Required by Anthropic's API; accepted, not passed on: cursor-agent has no output limit.
    max_tokens: v.nullish(
      v.pipe(v.number('`max_tokens` must be a number.'), v.integer('`max_tokens` must be a whole number.')),
    ),
    stream: STREAM,
    tools: toolList('name'),
  },
  BODY_NEEDED,
)

export type MessagesRequest = v.InferOutput<typeof MESSAGES_REQUEST>
export type Block = Record<string, unknown> & { type: (typeof BLOCK_TYPES)[number] }

/** A tool result's content as text: a string, or its text blocks (other blocks named by type). */
export function resultText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content
    .map((block) =>
      typeof block === 'object' && block !== null && (block as Block).type === 'text'
        ? String((block as Block).text ?? '')
        : `[${String((block as Block)?.type ?? 'block')} omitted]`,
    )
    .join('\n')
}

/** Where a block's bytes are: a data URL of its base64 `source`, or the URL it names. */
function sourceUrl(block: Block): string {
  const source = (block.source ?? {}) as Record<string, unknown>
  return source.type === 'base64'
    ? `data:${String(source.media_type ?? '')};base64,${String(source.data ?? '')}`
    : String(source.url ?? '')
}

/** A document block (a PDF or a text file) as an OpenAI part: a file with its bytes, or its text. */
function documentPart(block: Block): unknown {
  const source = (block.source ?? {}) as Record<string, unknown>
  if (source.type === 'text') return { type: 'text', text: String(source.data ?? '') }
  const file: Record<string, unknown> = { file_data: sourceUrl(block) }
  if (typeof block.title === 'string') file.filename = block.title
  return { type: 'file', file }
}

/** One Anthropic message as the prompt's messages. */
function promptMessages(message: MessagesRequest['messages'][number]): PromptMessage[] {
  if (typeof message.content === 'string') return [{ role: message.role, content: message.content }]
  const parts: unknown[] = []
  const toolCalls: unknown[] = []
  const results: PromptMessage[] = []
  for (const block of message.content as Block[]) {
    if (block.type === 'text') parts.push({ type: 'text', text: String(block.text ?? '') })
    // An image as an OpenAI image part (a data URL, or the URL it names).
    else if (block.type === 'image') parts.push({ type: 'image_url', image_url: { url: sourceUrl(block) } })
    else if (block.type === 'document') parts.push(documentPart(block))
    else if (block.type === 'tool_use')
      toolCalls.push(promptCall(String(block.id ?? ''), String(block.name ?? ''), JSON.stringify(block.input ?? {})))
    else if (block.type === 'tool_result')
      results.push({ role: 'tool', tool_call_id: String(block.tool_use_id ?? ''), content: resultText(block.content) })
    // Thinking blocks sent back are earlier reasoning, which the prompt leaves out.
  }
  const own: PromptMessage[] = []
  if (parts.length > 0 || toolCalls.length > 0) {
    const shaped: Record<string, unknown> = { role: message.role, content: parts.length > 0 ? parts : null }
    if (toolCalls.length > 0) shaped.tool_calls = toolCalls
    own.push(shaped as PromptMessage)
  }
  // Tool results answer the calls before them: they come first, as OpenAI's `tool` messages.
  return [...results, ...own]
}

export function systemText(system: MessagesRequest['system']): string | undefined {
  if (system == null) return undefined
  return typeof system === 'string' ? system : system.map((block) => block.text).join('\n\n')
}

function messagesTurn(read: MessagesRequest): TurnRequest {
  const messages: PromptMessage[] = []
  const system = systemText(read.system)
  if (system !== undefined && system !== '') messages.push({ role: 'system', content: system })
  for (const message of read.messages) messages.push(...promptMessages(message))
  const request: TurnRequest = { model: read.model, messages }
  const tools = (read.tools ?? []).map(
    ({ name, description, input_schema: parameters }) =>
      ({ type: 'function', function: { name, description, parameters } }) as ToolDefinition,
  )
  if (tools.length > 0) request.tools = tools
  return request
}

export const MESSAGES: Api = {
  read: (body) => {
    const read = readBy(MESSAGES_REQUEST, body)
    if ('status' in read) return read
    return { request: messagesTurn(read), stream: read.stream === true, encoder: new MessagesEncoder(read.model) }
  },
  errors: anthropicError,
}
