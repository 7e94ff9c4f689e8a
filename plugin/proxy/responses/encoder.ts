// OpenAI's response object and its stream events over one response's `ai-sdk` parts. Thinking is a
// `reasoning` output item, never `output_text`; every event carries its sequence number, and each
// `done` event the text so far. A finished response is held for `previous_response_id`.
import { randomUUID } from 'node:crypto'
import type { RunError } from 'opencode-cursor-native'
import { native, type PromptMessage } from '../../turn/native.js'
import type { TurnRequest } from '../../turn/turn.js'
import { type FinishPart, PartsEncoder, type Segment, type ToolCallPart } from '../parts-encoder.js'
import { refusalOf } from '../refusal.js'
import { promptCall } from '../request-fields.js'
import { sseFrame } from '../sse.js'
import { type HeldResponse, hold } from './held.js'

/** The fields of the request a response object echoes. */
interface EchoedRequest {
  model: string
  instructions?: string | null | undefined
  previous_response_id?: string | null | undefined
  store?: boolean | null | undefined
  tools?: unknown[] | null | undefined
}

type TextItem =
  | { id: string; type: 'reasoning'; summary: []; content: Array<{ type: 'reasoning_text'; text: string }> }
  | {
      id: string
      type: 'message'
      role: 'assistant'
      status: string
      content: Array<{ type: 'output_text'; text: string; annotations: [] }>
    }
type OutputItem =
  | TextItem
  | { id: string; type: 'function_call'; call_id: string; name: string; arguments: string; status: string }

const itemId = (prefix: string): string => `${prefix}_${randomUUID().replaceAll('-', '')}`

export class ResponsesEncoder extends PartsEncoder {
  // Codex CLI shows the reason of a `response.failed` event, and of a refused status only the status.
  readonly failsInStream = true
  private readonly id = itemId('resp')
  private readonly createdAt = Math.floor(Date.now() / 1000)
  private readonly output: OutputItem[] = []
  /** The message or reasoning item text goes to. */
  private open: TextItem | undefined
  private status: 'in_progress' | 'completed' | 'failed' = 'in_progress'
  private usage: Record<string, unknown> | null = null
  private error: { code: string; message: string } | null = null
  private sequence = 0

  constructor(
    private readonly read: EchoedRequest,
    private readonly request: TurnRequest,
    /** What the conversation takes so far of a body's limits, this request's body included. */
    private readonly carried: Pick<HeldResponse, 'bytes' | 'parts'>,
  ) {
    super()
  }

  whole(): Record<string, unknown> {
    const { read } = this
    return {
      id: this.id,
      object: 'response',
      created_at: this.createdAt,
      status: this.status,
      model: read.model,
      output: this.output,
      usage: this.usage,
      error: this.error,
      incomplete_details: null,
      instructions: read.instructions ?? null,
      previous_response_id: read.previous_response_id ?? null,
      store: read.store !== false,
      parallel_tool_calls: false,
      tool_choice: 'auto',
      tools: read.tools ?? [],
      metadata: {},
      text: { format: { type: 'text' } },
    }
  }

  /**
   * The response again, `response.in_progress`, as it stands: Codex CLI's idle timer counts events,
   * never comments, and the OpenAI SDKs take the event's response as their snapshot (so it carries
   * the output so far). A stream still silent opens with it.
   */
  keepAlive(): string[] {
    if (!this.begun) {
      this.begun = true
      this.begin()
    } else if (!this.over()) {
      this.emit('response.in_progress', { response: this.streamed() })
    }
    return this.out.splice(0)
  }

  protected begin(): void {
    this.emit('response.created', { response: this.streamed() })
    this.emit('response.in_progress', { response: this.streamed() })
  }

  /**
   * The response as the stream tells it before its end: the request's tools go once, with the
   * response that ends it (Codex CLI's are 17 KB; every keep-alive would repeat them).
   */
  private streamed(): Record<string, unknown> {
    return { ...this.whole(), tools: [] }
  }

  protected over(): boolean {
    return this.status !== 'in_progress'
  }

  protected openSegment(): Segment | undefined {
    return this.open === undefined ? undefined : this.open.type === 'message' ? 'text' : 'reasoning'
  }

  protected startSegment(kind: Segment): void {
    this.closeItem()
    const item: TextItem =
      kind === 'text'
        ? { id: itemId('msg'), type: 'message', role: 'assistant', status: 'in_progress', content: [] }
        : { id: itemId('rs'), type: 'reasoning', summary: [], content: [] }
    this.output.push(item)
    this.open = item
    this.emit('response.output_item.added', { output_index: this.index, item: { ...item, content: [] } })
    const part =
      kind === 'text'
        ? { type: 'output_text' as const, text: '', annotations: [] as [] }
        : { type: 'reasoning_text' as const, text: '' }
    const at = { item_id: item.id, output_index: this.index, content_index: 0 }
    this.emit('response.content_part.added', { ...at, part: { ...part } })
    ;(item.content as Array<typeof part>).push(part)
  }

  protected append(delta: string): void {
    const item = this.open
    const part = item?.content[0]
    if (item === undefined || part === undefined) return
    part.text += delta
    const at = { item_id: item.id, output_index: this.index, content_index: 0, delta }
    if (item.type === 'message') this.emit('response.output_text.delta', { ...at, logprobs: [] })
    else this.emit('response.reasoning_text.delta', at)
  }

  protected toolCall(part: ToolCallPart): void {
    this.closeItem()
    const { toolCallId: call_id, toolName: name, input } = part
    const item: OutputItem = {
      id: itemId('fc'),
      type: 'function_call',
      call_id,
      name,
      arguments: input,
      status: 'completed',
    }
    this.output.push(item)
    const at = { item_id: item.id, output_index: this.index }
    this.emit('response.output_item.added', { output_index: this.index, item: { ...item, arguments: '' } })
    this.emit('response.function_call_arguments.delta', { ...at, delta: input })
    this.emit('response.function_call_arguments.done', { ...at, arguments: input })
    this.emit('response.output_item.done', { output_index: this.index, item })
  }

  protected finish(part: FinishPart): void {
    this.closeItem()
    // The addon's usage: input tokens in all (cached ones included) and of them read from the
    // cache, output tokens and of them reasoning; a count Cursor did not report is 0.
    const { inputTokens, outputTokens } = part.usage
    const [input, output] = [inputTokens.total ?? 0, outputTokens.total ?? 0]
    this.usage = {
      input_tokens: input,
      input_tokens_details: { cached_tokens: inputTokens.cacheRead ?? 0 },
      output_tokens: output,
      output_tokens_details: { reasoning_tokens: outputTokens.reasoning ?? 0 },
      total_tokens: input + output,
    }
    this.status = 'completed'
    this.remember()
    this.emit('response.completed', { response: this.whole() })
  }

  protected fail(failure: RunError): void {
    this.closeItem()
    this.status = 'failed'
    const { code, message } = refusalOf(failure)
    this.error = { code, message }
    this.emit('response.failed', { response: this.whole() })
  }

  /** The index of the last output item. */
  private get index(): number {
    return this.output.length - 1
  }

  private emit(type: string, data: Record<string, unknown>): void {
    this.out.push(sseFrame({ type, sequence_number: this.sequence++, ...data }, type))
  }

  private closeItem(): void {
    const item = this.open
    if (item === undefined) return
    this.open = undefined
    const at = { item_id: item.id, output_index: this.index, content_index: 0 }
    const part = item.content[0]
    if (item.type === 'message') {
      item.status = 'completed'
      this.emit('response.output_text.done', { ...at, text: part?.text ?? '', logprobs: [] })
    } else {
      this.emit('response.reasoning_text.done', { ...at, text: part?.text ?? '' })
    }
    this.emit('response.content_part.done', { ...at, part })
    this.emit('response.output_item.done', { output_index: this.index, item })
  }

  /** The conversation with this response's answer, held for `previous_response_id` unless `store` is false. */
  private remember(): void {
    if (this.read.store === false) return
    const answer = this.output.flatMap((item) => (item.type === 'message' ? item.content.map((part) => part.text) : []))
    const calls = this.output.flatMap((item) =>
      item.type === 'function_call' ? [promptCall(item.call_id, item.name, item.arguments)] : [],
    )
    const reply: Record<string, unknown> = { role: 'assistant', content: answer.join(native().TEXT_SEGMENT_SEPARATOR) }
    if (calls.length > 0) reply.tool_calls = calls
    const messages = [...this.request.messages, reply as PromptMessage]
    const { bytes, parts } = this.carried
    const size = { bytes: bytes + Buffer.byteLength(JSON.stringify(reply)), parts: parts + 1 + calls.length }
    // The conversation the request was served in, once the server named it (none: its history names it).
    const { conversationId } = this.request
    hold(this.id, { messages, conversationId, at: Date.now(), ...size, continued: false })
  }
}
