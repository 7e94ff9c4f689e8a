// Anthropic's message and its stream events over one response's `ai-sdk` parts. Thinking is a
// `thinking` block, never text; `stop_reason` is only ever Anthropic's `end_turn` or `tool_use`.
import { randomUUID } from 'node:crypto'
import type { RunError, StreamUsage } from 'opencode-cursor-native'
import { type FinishPart, PartsEncoder, type Segment, type ToolCallPart } from '../parts-encoder.js'
import { anthropicError, refusalOf } from '../refusal.js'
import { sseFrame } from '../sse.js'

/**
 * A thinking block's `signature`. Anthropic signs its own models' thinking so that it can be
 * handed back; Cursor gives no such thing, so the field is present (clients read it) and empty.
 * Thinking blocks a client sends back are left out of the prompt, like all earlier reasoning.
 */
export const THINKING_SIGNATURE = ''

/**
 * The `usage` of Anthropic's message from the addon's: input tokens neither read from nor written
 * to the cache, each of those apart, and output tokens; a count Cursor did not report is 0.
 */
function usageOf({ inputTokens, outputTokens }: StreamUsage): Record<string, number> {
  return {
    input_tokens: inputTokens.noCache ?? 0,
    cache_creation_input_tokens: inputTokens.cacheWrite ?? 0,
    cache_read_input_tokens: inputTokens.cacheRead ?? 0,
    output_tokens: outputTokens.total ?? 0,
  }
}

type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }

const PING = sseFrame({ type: 'ping' }, 'ping')

export class MessagesEncoder extends PartsEncoder {
  readonly failsInStream = false
  private readonly id = `msg_${randomUUID().replaceAll('-', '')}`
  private readonly content: ContentBlock[] = []
  private open: ContentBlock | undefined
  private stopReason: 'end_turn' | 'tool_use' | null = null
  private usage = usageOf({ inputTokens: {}, outputTokens: {} })
  private ended = false

  constructor(private readonly model: string) {
    super()
  }

  whole(): Record<string, unknown> {
    return {
      id: this.id,
      type: 'message',
      role: 'assistant',
      model: this.model,
      content: this.content,
      stop_reason: this.stopReason,
      stop_sequence: null,
      usage: this.usage,
    }
  }

  /** Anthropic's own keep-alive, which its clients read past. */
  keepAlive(): string[] {
    return [PING]
  }

  /** A stream that has begun ends with its stop events, whatever its last batch said. */
  close(): string[] {
    if (this.begun) this.end()
    return this.out.splice(0)
  }

  protected begin(): void {
    this.emit('message_start', { message: { ...this.whole(), content: [] } })
  }

  protected over(): boolean {
    return this.ended
  }

  protected openSegment(): Segment | undefined {
    return this.open?.type === 'text' ? 'text' : this.open?.type === 'thinking' ? 'reasoning' : undefined
  }

  protected startSegment(kind: Segment): void {
    this.startBlock(
      kind === 'text' ? { type: 'text', text: '' } : { type: 'thinking', thinking: '', signature: THINKING_SIGNATURE },
    )
  }

  protected append(delta: string): void {
    if (this.open?.type === 'text') {
      this.open.text += delta
      this.delta({ type: 'text_delta', text: delta })
    } else if (this.open?.type === 'thinking') {
      this.open.thinking += delta
      this.delta({ type: 'thinking_delta', thinking: delta })
    }
  }

  protected toolCall(part: ToolCallPart): void {
    let input: unknown = {}
    try {
      input = JSON.parse(part.input)
    } catch {
      input = {}
    }
    this.startBlock({ type: 'tool_use', id: part.toolCallId, name: part.toolName, input })
    this.delta({ type: 'input_json_delta', partial_json: part.input })
    this.closeBlock()
  }

  protected finish(part: FinishPart): void {
    this.stopReason = part.finishReason.unified === 'tool-calls' ? 'tool_use' : 'end_turn'
    this.usage = usageOf(part.usage)
    this.end()
  }

  /** The error event of a stream that failed after it started. */
  protected fail(error: RunError): void {
    this.closeBlock()
    this.ended = true
    this.out.push(sseFrame(anthropicError(refusalOf(error)).body, 'error'))
  }

  private emit(type: string, data: Record<string, unknown>): void {
    this.out.push(sseFrame({ type, ...data }, type))
  }

  private delta(delta: Record<string, unknown>): void {
    this.emit('content_block_delta', { index: this.content.length - 1, delta })
  }

  private startBlock(block: ContentBlock): void {
    this.closeBlock()
    this.content.push(block)
    this.open = block
    const start = block.type === 'tool_use' ? { ...block, input: {} } : { ...block }
    this.emit('content_block_start', { index: this.content.length - 1, content_block: start })
  }

  private closeBlock(): void {
    if (this.open === undefined) return
    this.emit('content_block_stop', { index: this.content.length - 1 })
    this.open = undefined
  }

  private end(): void {
    if (this.ended) return
    this.ended = true
    this.closeBlock()
    this.stopReason ??= 'end_turn'
    this.emit('message_delta', { delta: { stop_reason: this.stopReason, stop_sequence: null }, usage: this.usage })
    this.emit('message_stop', {})
  }
}
