// `POST /v1/messages` (Anthropic's Messages API, what Claude Code and Anthropic's SDKs speak) and
// `POST /v1/messages/count_tokens`: the request read into a turn, the addon's `ai-sdk` parts
// encoded as Anthropic's message and its stream events. Thinking is a `thinking` block, never text;
// `stop_reason` is only ever Anthropic's `end_turn` or `tool_use`.
import { randomUUID } from 'node:crypto'
import type { RunError, StreamOutput } from 'opencode-cursor-native'
import * as v from 'valibot'
import { IMAGE_BYTES, inputTokensOf, jsonBytes, utf8Bytes } from '../turn/context-estimate.js'
import type { PromptMessage, ToolDefinition } from '../turn/native.js'
import type { TurnRequest } from '../turn/turn.js'
import { invalid, MODEL, named, STREAM, toolList } from './chat-request.js'
import { anthropicError, type Refusal, refusalOf } from './refusal.js'
import type { Api, ApiRequest, ResponseEncoder } from './respond.js'
import { clientParts, countsOf, SEGMENT_SEPARATOR, titleParts } from './parts.js'
import { sseFrame } from './sse.js'

/**
 * A thinking block's `signature`. Anthropic signs its own models' thinking so that it can be
 * handed back; Cursor gives no such thing, so the field is present (clients read it) and empty.
 * Thinking blocks a client sends back are left out of the prompt, like all earlier reasoning.
 */
export const THINKING_SIGNATURE = ''

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

const MESSAGES_REQUEST = v.object(
  {
    model: MODEL,
    messages: v.pipe(
      v.array(MESSAGE, '`messages` must be a non-empty array of message objects.'),
      v.nonEmpty('`messages` must be a non-empty array of message objects.'),
    ),
    system: v.nullish(v.union([v.string(), v.array(TEXT_BLOCK)], '`system` must be a string or text blocks.')),
    // Required by Anthropic's API; accepted, not passed on: cursor-agent has no output limit.
    max_tokens: v.nullish(
      v.pipe(v.number('`max_tokens` must be a number.'), v.integer('`max_tokens` must be a whole number.')),
    ),
    stream: STREAM,
    tools: toolList('name'),
  },
  'The body must be a JSON object.',
)

type MessagesRequest = v.InferOutput<typeof MESSAGES_REQUEST>
type Block = Record<string, unknown> & { type: (typeof BLOCK_TYPES)[number] }

/** A tool result's content as text: a string, or its text blocks (other blocks named by type). */
function resultText(content: unknown): string {
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

/** An image block as an OpenAI image part (a data URL, or the URL it names). */
function imagePart(block: Block): unknown {
  return { type: 'image_url', image_url: { url: sourceUrl(block) } }
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

/** One Anthropic message as the prompt's messages (OpenAI's chat shape, which the prompt reads). */
function promptMessages(message: MessagesRequest['messages'][number]): PromptMessage[] {
  if (typeof message.content === 'string') return [{ role: message.role, content: message.content }]
  const parts: unknown[] = []
  const toolCalls: unknown[] = []
  const results: PromptMessage[] = []
  for (const block of message.content as Block[]) {
    if (block.type === 'text') parts.push({ type: 'text', text: String(block.text ?? '') })
    else if (block.type === 'image') parts.push(imagePart(block))
    else if (block.type === 'document') parts.push(documentPart(block))
    else if (block.type === 'tool_use')
      toolCalls.push({
        id: String(block.id ?? ''),
        type: 'function',
        function: { name: String(block.name ?? ''), arguments: JSON.stringify(block.input ?? {}) },
      })
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

function systemText(system: MessagesRequest['system']): string | undefined {
  if (system == null) return undefined
  return typeof system === 'string' ? system : system.map((block) => block.text).join('\n\n')
}

function toTurn(read: MessagesRequest): TurnRequest {
  const messages: PromptMessage[] = []
  const system = systemText(read.system)
  if (system !== undefined && system !== '') messages.push({ role: 'system', content: system })
  for (const message of read.messages) messages.push(...promptMessages(message))
  const request: TurnRequest = { model: read.model, messages }
  if (read.tools != null && read.tools.length > 0)
    request.tools = read.tools.map(
      (tool) =>
        ({
          type: 'function',
          function: { name: tool.name, description: tool.description, parameters: tool.input_schema },
        }) as ToolDefinition,
    )
  return request
}

/** The `usage` of Anthropic's message from Cursor's counts. */
function usageOf(counts: ReturnType<typeof countsOf>): Record<string, number> {
  return {
    input_tokens: counts.input,
    cache_creation_input_tokens: counts.cacheWrite,
    cache_read_input_tokens: counts.cacheRead,
    output_tokens: counts.output,
  }
}

type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }

/** The error event of a stream that failed after it started. */
function errorEvent(error: RunError): string {
  return sseFrame(anthropicError(refusalOf(error)).body, 'error')
}

/** Anthropic's message and stream events, gathered from one response's parts. */
export function messagesEncoder(model: string): ResponseEncoder {
  const id = `msg_${randomUUID().replaceAll('-', '')}`
  const content: ContentBlock[] = []
  let open: ContentBlock | undefined
  let stopReason: 'end_turn' | 'tool_use' | null = null
  let usage = usageOf(countsOf(undefined))
  let begun = false
  let ended = false
  const frame = (type: string, data: Record<string, unknown>): string => sseFrame({ type, ...data }, type)
  const message = (): Record<string, unknown> => ({
    id,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage,
  })
  const closeBlock = (frames: string[]): void => {
    if (open === undefined) return
    frames.push(frame('content_block_stop', { index: content.length - 1 }))
    open = undefined
  }
  /** Opens a block of `type` or, when one is open, goes on in it after a separator. */
  const openBlock = (frames: string[], block: ContentBlock): void => {
    if (open !== undefined && open.type === block.type && block.type !== 'tool_use') {
      append(frames, SEGMENT_SEPARATOR)
      return
    }
    closeBlock(frames)
    content.push(block)
    open = block
    const start = block.type === 'tool_use' ? { ...block, input: {} } : { ...block }
    frames.push(frame('content_block_start', { index: content.length - 1, content_block: start }))
  }
  const append = (frames: string[], delta: string): void => {
    if (open?.type === 'text') {
      open.text += delta
      frames.push(
        frame('content_block_delta', { index: content.length - 1, delta: { type: 'text_delta', text: delta } }),
      )
    } else if (open?.type === 'thinking') {
      open.thinking += delta
      frames.push(
        frame('content_block_delta', { index: content.length - 1, delta: { type: 'thinking_delta', thinking: delta } }),
      )
    }
  }
  const end = (frames: string[]): void => {
    if (ended) return
    ended = true
    closeBlock(frames)
    stopReason ??= 'end_turn'
    frames.push(frame('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage }))
    frames.push(frame('message_stop', {}))
  }
  return {
    format: 'ai-sdk',
    keepAlive: sseFrame({ type: 'ping' }, 'ping'),
    frames: (outputs: StreamOutput[]) => {
      const frames: string[] = []
      if (!begun) {
        begun = true
        frames.push(frame('message_start', { message: { ...message(), content: [] } }))
      }
      for (const part of clientParts(outputs)) {
        if (ended) break
        switch (part.type) {
          case 'text-start':
            openBlock(frames, { type: 'text', text: '' })
            break
          case 'reasoning-start':
            openBlock(frames, { type: 'thinking', thinking: '', signature: THINKING_SIGNATURE })
            break
          case 'text-delta':
          case 'reasoning-delta':
            append(frames, part.delta)
            break
          case 'tool-call': {
            let input: unknown = {}
            try {
              input = JSON.parse(part.input)
            } catch {
              input = {}
            }
            openBlock(frames, { type: 'tool_use', id: part.toolCallId, name: part.toolName, input })
            frames.push(
              frame('content_block_delta', {
                index: content.length - 1,
                delta: { type: 'input_json_delta', partial_json: part.input },
              }),
            )
            closeBlock(frames)
            break
          }
          case 'finish':
            stopReason = part.finishReason.unified === 'tool-calls' ? 'tool_use' : 'end_turn'
            usage = usageOf(countsOf(part.usage))
            end(frames)
            break
          case 'error':
            closeBlock(frames)
            ended = true
            frames.push(errorEvent(part.error))
            break
          default:
            break
        }
      }
      return frames
    },
    close: () => {
      const frames: string[] = []
      if (begun) end(frames)
      return frames
    },
    whole: () => message(),
  }
}

export const MESSAGES: Api = {
  read: (body): ApiRequest | Refusal => {
    const read = v.safeParse(MESSAGES_REQUEST, body)
    if (!read.success) return invalid(read.issues)
    return {
      request: toTurn(read.output),
      stream: read.output.stream === true,
      encoder: messagesEncoder(read.output.model),
    }
  },
  errors: anthropicError,
  titleOutputs: (title) => titleParts(title),
}

/**
 * `POST /v1/messages/count_tokens`: the input tokens of the request by the estimate the OpenCode
 * provider reports as the context's size (Cursor's base, plus the conversation's UTF-8 bytes ÷ 4,
 * a picture at a fixed cost, the tool definitions included).
 */
export function countTokens(body: unknown): { answer: { input_tokens: number } } | Refusal {
  const read = v.safeParse(MESSAGES_REQUEST, body)
  if (!read.success) return invalid(read.issues)
  let bytes = utf8Bytes(systemText(read.output.system) ?? '') + jsonBytes(read.output.tools ?? undefined)
  for (const message of read.output.messages) {
    if (typeof message.content === 'string') {
      bytes += utf8Bytes(message.content)
      continue
    }
    for (const block of message.content as Block[]) {
      if (block.type === 'text') bytes += utf8Bytes(String(block.text ?? ''))
      else if (block.type === 'image') bytes += IMAGE_BYTES
      else if (block.type === 'tool_use') bytes += utf8Bytes(String(block.name ?? '')) + jsonBytes(block.input)
      else if (block.type === 'tool_result') bytes += utf8Bytes(resultText(block.content))
      else if (block.type === 'thinking') bytes += utf8Bytes(String(block.thinking ?? ''))
    }
  }
  return { answer: { input_tokens: inputTokensOf(bytes) } }
}
