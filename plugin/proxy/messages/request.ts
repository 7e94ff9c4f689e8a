// `POST /v1/messages` (Anthropic's Messages API, what Claude Code and Anthropic's SDKs speak): the
// request read in one schema, its messages as the prompt's (OpenAI's chat shape); its parts encoded
// by `encoder.ts`.
import * as v from 'valibot'
import type { PromptMessage, ToolDefinition } from '../../turn/native.js'
import type { TurnRequest } from '../../turn/turn.js'
import { anthropicError } from '../refusal.js'
import {
  BODY_NEEDED,
  effortObject,
  MODEL,
  messageList,
  named,
  promptCall,
  readBy,
  STREAM,
  toolList,
} from '../request-fields.js'
import type { Api } from '../respond.js'
import { MessagesEncoder } from './encoder.js'

const TEXT = v.string(named('must be a string.'))
const TEXT_BLOCK = v.looseObject({ type: v.literal('text'), text: TEXT })

const SOURCE = v.variant(
  'type',
  [
    v.looseObject({ type: v.literal('base64'), media_type: TEXT, data: TEXT }),
    v.looseObject({ type: v.literal('url'), url: TEXT }),
    v.looseObject({ type: v.literal('text'), data: TEXT }),
    v.looseObject({ type: v.literal('file'), file_id: TEXT }),
  ],
  named('must be a source of type base64, url, text or file.'),
)

/** Each block's fields the prompt reads; a thinking block is left out, as all earlier reasoning. */
const BLOCK = v.variant(
  'type',
  [
    TEXT_BLOCK,
    v.looseObject({ type: v.picklist(['image', 'document']), source: SOURCE, title: v.nullish(TEXT) }),
    v.looseObject({ type: v.literal('tool_use'), id: TEXT, name: TEXT }),
    v.looseObject({ type: v.literal('tool_result'), tool_use_id: TEXT }),
    v.looseObject({ type: v.picklist(['thinking', 'redacted_thinking']), thinking: v.optional(TEXT) }),
  ],
  named('must be a content block of type text, image, document, tool_use, tool_result, thinking, redacted_thinking.'),
)

const SYSTEM_BLOCK = v.looseObject({ type: v.literal('text', named('must be text in a system message.')), text: TEXT })
const ROLE_NEEDED = named('must be user, assistant or system.')

/**
 * A message of the conversation. A `system` one (Claude Code sends them between the turns, e.g.
 * its environment) holds instructions where it stands: text, as `system` itself.
 */
const MESSAGE = v.pipe(
  v.looseObject({}, named('must be a message object.')),
  v.variant(
    'role',
    [
      v.looseObject({
        role: v.picklist(['user', 'assistant'] as const),
        content: v.union([v.string(), v.array(BLOCK)], named('must be a string or an array of content blocks.')),
      }),
      v.looseObject({
        role: v.literal('system'),
        content: v.union([v.string(), v.array(SYSTEM_BLOCK)], named('must be a string or an array of text blocks.')),
      }),
    ],
    ROLE_NEEDED,
  ),
)

export const MESSAGES_REQUEST = v.object(
  {
    model: MODEL,
    output_config: effortObject('output_config'),
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
type Block = v.InferOutput<typeof BLOCK>

/** A tool result's content as text: a string, or its text blocks (other blocks named by type). */
export function resultText(content: unknown): string {
  if (!Array.isArray(content)) return typeof content === 'string' ? content : ''
  const textOf = ({ type, text }: Record<string, unknown>): string =>
    type === 'text' && typeof text === 'string' ? text : `[${typeof type === 'string' ? type : 'block'} omitted]`
  return content.map((block) => textOf(typeof block === 'object' && block !== null ? block : {})).join('\n')
}

/** A picture (an image part) or a document (a file, or its text) as an OpenAI part; a file id as a file naming it. */
function attachmentPart(block: Extract<Block, { type: 'image' | 'document' }>): unknown {
  const { source } = block
  if (source.type === 'file') return { type: 'file', file: { file_id: source.file_id } }
  if (source.type === 'text') return { type: 'text', text: source.data }
  const url = source.type === 'url' ? source.url : `data:${source.media_type};base64,${source.data}`
  if (block.type === 'image') return { type: 'image_url', image_url: { url } }
  // A title left empty is no name: the addon's line then says what the file is.
  return { type: 'file', file: { file_data: url, ...(block.title ? { filename: block.title } : {}) } }
}

/** One Anthropic message as the prompt's messages. */
function promptMessages(message: MessagesRequest['messages'][number]): PromptMessage[] {
  if (message.role === 'system') return [{ role: 'system', content: systemText(message.content) ?? '' }]
  if (typeof message.content === 'string') return [{ role: message.role, content: message.content }]
  const parts: unknown[] = []
  const toolCalls: unknown[] = []
  const results: PromptMessage[] = []
  for (const block of message.content) {
    if (block.type === 'text') parts.push({ type: 'text', text: block.text })
    else if (block.type === 'image' || block.type === 'document') parts.push(attachmentPart(block))
    else if (block.type === 'tool_use')
      toolCalls.push(promptCall(block.id, block.name, JSON.stringify(block.input ?? {})))
    else if (block.type === 'tool_result')
      results.push({ role: 'tool', tool_call_id: block.tool_use_id, content: resultText(block.content) })
    // Thinking blocks sent back are earlier reasoning, which the prompt leaves out.
  }
  // Text beside tool results (Claude Code's "Tool loaded." and its reminders) travels with them:
  // the request still answers the calls, and the model reads the text after their results.
  const last = results.at(-1)
  if (last !== undefined && parts.length > 0 && parts.every((part) => (part as { type: string }).type === 'text')) {
    const texts = (parts.splice(0) as Array<{ text: string }>).map((part) => part.text)
    last.content = [last.content, ...texts].join('\n\n')
  }
  const own: PromptMessage[] = []
  if (parts.length > 0 || toolCalls.length > 0) {
    const shaped: PromptMessage = { role: message.role, content: parts.length > 0 ? parts : null }
    if (toolCalls.length > 0) shaped.tool_calls = toolCalls
    own.push(shaped)
  }
  // Tool results answer the calls before them: they come first, as OpenAI's `tool` messages.
  return [...results, ...own]
}

/** Instructions as one text: `system`, or a system message's content. */
export function systemText(system: MessagesRequest['system']): string | undefined {
  if (system == null) return undefined
  return typeof system === 'string' ? system : system.map((block) => block.text).join('\n\n')
}

/**
 * The tools Cursor's model may call: a tool with `defer_loading` only once a tool result names it
 * by a `tool_reference` (as Anthropic loads it); until then it is not there to call (Claude Code's
 * `DeferredToolPlaceholder` says "never call this tool").
 */
function offeredTools(read: MessagesRequest): NonNullable<MessagesRequest['tools']> {
  const referenced = new Set<string>()
  for (const { content } of read.messages)
    for (const block of typeof content === 'string' ? [] : content)
      if (block.type === 'tool_result' && Array.isArray(block.content))
        for (const inner of block.content as Array<Record<string, unknown>>)
          if (inner?.type === 'tool_reference' && typeof inner.tool_name === 'string') referenced.add(inner.tool_name)
  return (read.tools ?? []).filter(
    (tool) => (tool as { defer_loading?: unknown }).defer_loading !== true || referenced.has(tool.name),
  )
}

/** The request as a turn: the schema checked every field the prompt reads (the addon's paths are not the client's). */
function messagesTurn(read: MessagesRequest): TurnRequest {
  const messages: PromptMessage[] = []
  const system = systemText(read.system)
  if (system !== undefined && system !== '') messages.push({ role: 'system', content: system })
  for (const message of read.messages) messages.push(...promptMessages(message))
  const request: TurnRequest = { model: read.model, messages }
  const tools = offeredTools(read).map(
    ({ name, description, input_schema: parameters }) =>
      ({ type: 'function', function: { name, description, parameters } }) as ToolDefinition,
  )
  if (tools.length > 0) request.tools = tools
  return request
}

export const MESSAGES: Api = {
  list: 'messages',
  read: (body) => {
    const read = readBy(MESSAGES_REQUEST, body)
    if ('status' in read) return read
    const served = {
      request: messagesTurn(read),
      stream: read.stream === true,
      encoder: new MessagesEncoder(read.model),
    }
    const effort = read.output_config?.effort ?? undefined
    return effort === undefined ? served : { ...served, effort }
  },
  errors: anthropicError,
}
