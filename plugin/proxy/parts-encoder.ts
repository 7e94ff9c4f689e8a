// What the Responses and Messages encoders share over one response's `ai-sdk` parts: the loop that
// hands each family of parts (a text or reasoning segment and its deltas, a tool call, the finish,
// a failure) to the API's own step, the frames a batch gathers, nothing after the response is over.
import type { RunError, StreamOutput, StreamPart } from 'opencode-cursor-native'
import { native } from '../turn/native.js'
import type { ResponseEncoder } from './respond.js'

export type ToolCallPart = Extract<StreamPart, { type: 'tool-call' }>
export type FinishPart = Extract<StreamPart, { type: 'finish' }>
/** A run of text or of reasoning, which each API shows as a block or an item of its own. */
export type Segment = 'text' | 'reasoning'

export abstract class PartsEncoder implements ResponseEncoder {
  // Cursor's own calls are not the client's to run: left out, as Chat Completions leaves them out.
  readonly format = { format: 'ai-sdk', toolCalls: 'omit' } as const
  abstract keepAlive(): string[]
  abstract readonly failsInStream: boolean
  /** The frames of the batch being encoded. */
  protected readonly out: string[] = []
  /** Whether the stream's opening frames went out (with the first batch). */
  protected begun = false

  frames(outputs: StreamOutput[]): string[] {
    if (!this.begun) {
      this.begun = true
      this.begin()
    }
    // The `ai-sdk` format gives parts only.
    for (const part of outputs as StreamPart[]) {
      if (this.over()) break
      this.encode(part)
    }
    return this.out.splice(0)
  }

  close(): string[] {
    return []
  }

  abstract whole(): unknown

  private encode(part: StreamPart): void {
    if (part.type === 'text-start') this.segment('text')
    else if (part.type === 'reasoning-start') this.segment('reasoning')
    else if (part.type === 'text-delta' || part.type === 'reasoning-delta') this.append(part.delta)
    else if (part.type === 'tool-call') this.toolCall(part)
    else if (part.type === 'finish') this.finish(part)
    else if (part.type === 'error') this.fail(part.error)
  }

  /**
   * A segment of the kind already open goes on in it after the addon's separator (text on either
   * side of a call of Cursor's that was left out, as Chat Completions' content has it); any other
   * starts anew.
   */
  private segment(kind: Segment): void {
    if (this.openSegment() === kind) this.append(native().TEXT_SEGMENT_SEPARATOR)
    else this.startSegment(kind)
  }

  /** The frames that open the stream. */
  protected abstract begin(): void
  /** The response finished or failed: later parts are not shown. */
  protected abstract over(): boolean
  protected abstract openSegment(): Segment | undefined
  /** Closes what is open and starts a segment of `kind`. */
  protected abstract startSegment(kind: Segment): void
  /** Text for the open segment, if one is open. */
  protected abstract append(delta: string): void
  protected abstract toolCall(part: ToolCallPart): void
  protected abstract finish(part: FinishPart): void
  protected abstract fail(error: RunError): void
}
