// Shared tools for stream translation tests: fixture loading, chunkings, and readers that turn
// raw outputs (SSE frame strings, V3 part objects) into what a consumer would see.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import {
  StreamTransformer,
  type StreamOutcome,
  type StreamOutput,
  type StreamPart,
  type StreamTransformerOptions,
} from '../../index.js'
import { openCodeToolView } from '../../plugin/opencode/tool-view.ts'
import { type ShownPart, toolViewStream } from '../../plugin/turn/tool-view.ts'
import { prng } from './prng.mjs'

const streamsDir = fileURLToPath(new URL('../fixtures/streams/', import.meta.url))

/** Bytes of one of our own NDJSON fixtures (`__test__/fixtures/streams/<name>`). */
export function fixture(name: string): Buffer {
  return readFileSync(join(streamsDir, name))
}

/** Splits `bytes` into pieces of random length 1..maxPiece (and sometimes empty pieces). */
export function randomChunks(bytes: Buffer, seed: number, maxPiece = 97): Buffer[] {
  const rand = prng(seed)
  const chunks: Buffer[] = []
  let at = 0
  while (at < bytes.length) {
    if (rand() < 0.05) chunks.push(bytes.subarray(at, at))
    const len = 1 + Math.floor(rand() * maxPiece)
    chunks.push(bytes.subarray(at, at + len))
    at += len
  }
  return chunks
}

export function byteChunks(bytes: Buffer): Buffer[] {
  const chunks: Buffer[] = []
  for (let i = 0; i < bytes.length; i++) chunks.push(bytes.subarray(i, i + 1))
  return chunks
}

export interface Translation {
  outputs: StreamOutput[]
  /** Outputs returned by `push` only (before `finish`). */
  pushed: StreamOutput[]
  skippedLines: number
  sessionId: string | null
  /** What a second `finish()` returned. */
  secondFinish: StreamOutput[]
}

/** SSE options pinned so outputs of separate transformers compare equal. */
export const pinned = { id: 'chatcmpl-fixture', created: 1_790_000_000, model: 'fixture-model' } as const

/** Runs one stream through a fresh transformer, chunk by chunk, then `finish(outcome)`. */
export function translate(
  chunks: Array<Buffer | Uint8Array | string>,
  options: StreamTransformerOptions,
  outcome?: StreamOutcome,
): Translation {
  const t = new StreamTransformer(options)
  const pushed: StreamOutput[] = []
  for (const chunk of chunks) pushed.push(...t.push(chunk))
  const finished = t.finish(outcome)
  const secondFinish = t.finish(outcome)
  return {
    outputs: [...pushed, ...finished],
    pushed,
    skippedLines: t.skippedLines,
    sessionId: t.sessionId,
    secondFinish,
  }
}

// ---------------------------------------------------------------------------------------------
// OpenAI SSE

export interface SseChunk {
  id: string
  object: string
  created: number
  model: string
  choices: Array<{
    index: number
    delta: {
      role?: string | null
      content?: string | null
      reasoning_content?: string | null
      tool_calls?: Array<{
        index: number
        id?: string | null
        type?: string | null
        function?: { name?: string | null; arguments?: string | null } | null
      }> | null
    }
    finish_reason?: string | null
  }>
  usage?: {
    prompt_tokens: number
    completion_tokens: number
    total_tokens: number
    prompt_tokens_details?: { cached_tokens?: number | null; cache_write_tokens?: number | null } | null
    completion_tokens_details?: { reasoning_tokens?: number | null } | null
  } | null
}

export type SseFrame =
  | { kind: 'chunk'; chunk: SseChunk }
  | { kind: 'error'; error: { message: string; type: string; code: string } }
  | { kind: 'done' }

/** Parses frame strings; each must be one complete `data: ...\n\n` frame. */
export function parseSse(outputs: StreamOutput[]): SseFrame[] {
  return outputs.map((output, i) => {
    assert.equal(typeof output, 'string', `SSE output ${i} is a string`)
    const frame = output as string
    assert.match(frame, /^data: [^\n]*\n\n$/, `SSE output ${i} is one complete frame: ${JSON.stringify(frame)}`)
    const data = frame.slice('data: '.length, -2)
    if (data === '[DONE]') return { kind: 'done' }
    const value = JSON.parse(data)
    if (value && typeof value === 'object' && 'error' in value && !('choices' in value)) {
      return { kind: 'error', error: value.error }
    }
    return { kind: 'chunk', chunk: value as SseChunk }
  })
}

export interface SseToolCall {
  index: number
  id: string
  name: string
  arguments: string
}

export interface SseSummary {
  text: string
  reasoning: string
  toolCalls: SseToolCall[]
  finishReasons: string[]
  usageChunks: NonNullable<SseChunk['usage']>[]
  errors: Array<{ message: string; type: string; code: string }>
}

export function summarizeSse(frames: SseFrame[]): SseSummary {
  const summary: SseSummary = { text: '', reasoning: '', toolCalls: [], finishReasons: [], usageChunks: [], errors: [] }
  for (const frame of frames) {
    if (frame.kind === 'error') summary.errors.push(frame.error)
    if (frame.kind !== 'chunk') continue
    const { chunk } = frame
    if (chunk.usage != null) summary.usageChunks.push(chunk.usage)
    for (const choice of chunk.choices) {
      summary.text += choice.delta.content ?? ''
      summary.reasoning += choice.delta.reasoning_content ?? ''
      for (const call of choice.delta.tool_calls ?? []) {
        const known = summary.toolCalls.find((c) => c.index === call.index)
        if (known) {
          known.arguments += call.function?.arguments ?? ''
          if (call.id != null) assert.equal(call.id, known.id, `tool_calls index ${call.index} keeps its id`)
        } else {
          assert.equal(call.type, 'function', 'tool_calls type')
          summary.toolCalls.push({
            index: call.index,
            id: call.id ?? '',
            name: call.function?.name ?? '',
            arguments: call.function?.arguments ?? '',
          })
        }
      }
      if (choice.finish_reason != null) summary.finishReasons.push(choice.finish_reason)
    }
  }
  return summary
}

/** What every SSE stream must satisfy, whatever its content. */
/**
 * What SSE `content` shows for these blocks, by the documented rule: the texts in order, with a
 * blank line before the first text after a tool call when text came before it.
 */
export function sseContentOf(blocks: ReadonlyArray<{ kind: string; text?: string }>): string {
  let content = ''
  let toolSinceText = false
  for (const block of blocks) {
    if (block.kind === 'tool') toolSinceText = content !== ''
    if (block.kind !== 'text') continue
    content += (toolSinceText ? '\n\n' : '') + (block.text ?? '')
    toolSinceText = false
  }
  return content
}

/** The only `finish_reason` values an OpenAI client knows. */
const OPENAI_FINISH_REASONS: readonly string[] = ['stop', 'length', 'tool_calls', 'content_filter']

export function assertSseInvariants(frames: SseFrame[], expected: { id: string; created: number; model: string }) {
  const doneAt = frames.flatMap((f, i) => (f.kind === 'done' ? [i] : []))
  assert.deepEqual(doneAt, [frames.length - 1], '`data: [DONE]` exactly once, and last')
  const chunks = frames.flatMap((f) => (f.kind === 'chunk' ? [f.chunk] : []))
  const errors = frames.flatMap((f, i) => (f.kind === 'error' ? [i] : []))
  assert.ok(errors.length <= 1, 'at most one error frame')
  if (chunks.length > 0)
    assert.equal(chunks[0]!.choices[0]?.delta.role, 'assistant', 'the first chunk carries role assistant')
  for (const chunk of chunks) {
    assert.equal(chunk.object, 'chat.completion.chunk')
    assert.equal(chunk.id, expected.id)
    assert.equal(chunk.created, expected.created)
    assert.equal(chunk.model, expected.model)
    for (const choice of chunk.choices) {
      if (choice.finish_reason != null)
        assert.ok(
          OPENAI_FINISH_REASONS.includes(choice.finish_reason),
          `finish_reason ${choice.finish_reason} is OpenAI's`,
        )
    }
  }
  const finishes = frames.flatMap((f, i) =>
    f.kind === 'chunk' && f.chunk.choices.some((c) => c.finish_reason != null) ? [i] : [],
  )
  // A completed answer has exactly one finish_reason; a failed one has none (its error frame,
  // then `[DONE]`), and neither has a cancelled one (`[DONE]` alone).
  assert.ok(finishes.length <= 1, 'at most one chunk with a non-null finish_reason')
  if (errors.length > 0) {
    assert.deepEqual(finishes, [], 'a failed completion claims no finish_reason')
    assert.equal(errors[0], frames.length - 2, 'the error frame comes right before [DONE]')
  }
  const finishAt = finishes[0] ?? frames.length
  frames.forEach((f, i) => {
    if (f.kind === 'chunk' && i > finishAt) {
      assert.ok(f.chunk.usage != null, 'only the usage chunk follows the finish chunk')
      assert.ok(f.chunk.choices.every((c) => c.delta.content == null && c.delta.tool_calls == null))
    }
    if (f.kind === 'error') {
      assert.equal(f.error.type, 'cursor_agent_error')
      assert.match(f.error.code, /^E_[A-Z_]+$/)
      assert.ok(f.error.message.length > 0, 'the error has a message')
    }
  })
  const summary = summarizeSse(frames)
  const indexes = summary.toolCalls.map((c) => c.index)
  assert.equal(new Set(indexes).size, indexes.length, 'distinct tool_call indexes')
  const ids = summary.toolCalls.map((c) => c.id)
  assert.equal(new Set(ids).size, ids.length, 'one tool_calls entry per call id')
  assert.ok(summary.usageChunks.length <= 1, 'at most one usage chunk')
}

// ---------------------------------------------------------------------------------------------
// AI SDK V3 parts

export type Block =
  | { kind: 'text' | 'reasoning'; id: string; text: string }
  | { kind: 'tool'; id: string; toolName: string }

export function asParts(outputs: StreamOutput[]): StreamPart[] {
  for (const [i, o] of outputs.entries()) assert.equal(typeof o, 'object', `V3 output ${i} is an object`)
  return outputs as StreamPart[]
}

/** The visible structure: text and reasoning blocks with their text, tools where their input starts. */
export function v3Blocks(parts: StreamPart[]): Block[] {
  const blocks: Block[] = []
  for (const part of parts) {
    switch (part.type) {
      case 'text-start':
      case 'reasoning-start':
        blocks.push({ kind: part.type === 'text-start' ? 'text' : 'reasoning', id: part.id, text: '' })
        break
      case 'text-delta':
      case 'reasoning-delta': {
        const block = blocks.at(-1)
        assert.ok(block && block.kind !== 'tool' && block.id === part.id, `${part.type} inside its open block`)
        block.text += part.delta
        break
      }
      case 'tool-input-start':
        blocks.push({ kind: 'tool', id: part.id, toolName: part.toolName })
        break
      default:
        break
    }
  }
  return blocks
}

/** The `ai-sdk` parts, or the parts OpenCode gets from the plugin's view of Cursor's tools. */
type AnyPart = StreamPart | ShownPart

export interface V3Tool<Part extends AnyPart = StreamPart> {
  id: string
  toolName: string
  inputDeltas: string
  input: string
  call: Extract<Part, { type: 'tool-call' }> | undefined
  result: Extract<Part, { type: 'tool-result' }> | undefined
}

/** Per call id: the tool parts in the order the contract lists them. */
export function v3Tools<Part extends AnyPart>(parts: Part[]): V3Tool<Part>[] {
  const tools = new Map<string, V3Tool<Part> & { order: string[] }>()
  for (const part of parts as AnyPart[]) {
    if (!part.type.startsWith('tool-')) continue
    const id = 'id' in part ? part.id : (part as { toolCallId: string }).toolCallId
    let tool = tools.get(id)
    if (!tool) {
      tool = { id, toolName: '', inputDeltas: '', input: '', call: undefined, result: undefined, order: [] }
      tools.set(id, tool)
    }
    tool.order.push(part.type)
    if (part.type === 'tool-input-start') tool.toolName = part.toolName
    if (part.type === 'tool-input-delta') tool.inputDeltas += part.delta
    if (part.type === 'tool-call') {
      tool.input = part.input
      tool.call = part as Extract<Part, { type: 'tool-call' }>
      assert.equal(part.toolName, tool.toolName, 'tool-call names the tool of its tool-input-start')
    }
    if (part.type === 'tool-result') {
      tool.result = part as Extract<Part, { type: 'tool-result' }>
      assert.equal(part.toolName, tool.toolName, 'tool-result names the tool of its tool-input-start')
    }
  }
  return [...tools.values()].map(({ order, ...tool }) => {
    const squeezed = order.filter((t, i) => t !== 'tool-input-delta' || order[i - 1] !== 'tool-input-delta')
    const expectedOrder = ['tool-input-start', 'tool-input-delta', 'tool-input-end', 'tool-call']
    assert.deepEqual(squeezed.slice(0, 4), expectedOrder, `tool ${JSON.stringify(tool.id)} parts in order`)
    assert.ok(squeezed.length <= 5 && (squeezed.length === 4 || squeezed[4] === 'tool-result'))
    assert.equal(tool.inputDeltas, tool.input, 'tool-input-delta texts add up to tool-call.input')
    return tool
  })
}

/** What every V3 part stream must satisfy, whatever its content. */
export function assertV3Invariants(parts: StreamPart[]) {
  assert.deepEqual(parts[0], { type: 'stream-start', warnings: [] }, 'stream-start first')
  const finishes = parts.flatMap((p, i) => (p.type === 'finish' ? [i] : []))
  assert.deepEqual(finishes, [parts.length - 1], 'exactly one finish, and last')
  const finish = parts.at(-1) as Extract<StreamPart, { type: 'finish' }>
  assert.equal(typeof finish.usage?.inputTokens, 'object', 'finish.usage.inputTokens is an object')
  assert.equal(typeof finish.usage?.outputTokens, 'object', 'finish.usage.outputTokens is an object')
  assert.equal(typeof finish.finishReason.raw, 'string')

  let open: { kind: 'text' | 'reasoning'; id: string; deltas: number } | null = null
  const seen = new Set<string>()
  const counters = { text: 0, reasoning: 0 }
  for (const [i, part] of parts.entries()) {
    const where = `part ${i} (${part.type})`
    switch (part.type) {
      case 'text-start':
      case 'reasoning-start': {
        const kind = part.type === 'text-start' ? 'text' : 'reasoning'
        assert.equal(open, null, `${where}: blocks never overlap`)
        assert.equal(part.id, `${kind}-${counters[kind]}`, `${where}: deterministic block id`)
        assert.ok(!seen.has(part.id), `${where}: block id used once`)
        seen.add(part.id)
        counters[kind]++
        open = { kind, id: part.id, deltas: 0 }
        break
      }
      case 'text-delta':
      case 'reasoning-delta':
        assert.ok(open && open.id === part.id && part.type.startsWith(open.kind), `${where}: delta of the open block`)
        assert.ok(part.delta.length > 0, `${where}: no empty deltas`)
        open.deltas++
        break
      case 'text-end':
      case 'reasoning-end':
        assert.ok(open && open.id === part.id && part.type.startsWith(open.kind), `${where}: ends the open block`)
        assert.ok(open.deltas > 0, `${where}: no empty blocks`)
        open = null
        break
      case 'tool-input-start':
      case 'tool-call':
      case 'tool-result':
        assert.equal(open, null, `${where}: a tool part closes any open text or reasoning block first`)
        // Every call in these streams is one Cursor ran itself.
        assert.equal(part.providerExecuted, true, `${where}: providerExecuted`)
        assert.equal(part.dynamic, true, `${where}: dynamic`)
        assert.equal(typeof part.providerMetadata?.cursor.kind, 'string', `${where}: Cursor's tool kind`)
        break
      case 'tool-input-delta':
      case 'tool-input-end':
        assert.equal(open, null, `${where}: no open text or reasoning block`)
        break
      case 'error':
      case 'finish':
        assert.equal(open, null, `${where}: every started block ends before ${part.type}`)
        break
      case 'stream-start':
        assert.equal(i, 0, 'stream-start only first')
        break
      default:
        assert.fail(`${where}: unexpected part type`)
    }
  }
  for (const tool of v3Tools(parts)) {
    assert.ok(tool.result, `tool ${JSON.stringify(tool.id)} gets a tool-result before finish`)
    // Cursor's result: its variant and the variant's fields.
    assert.equal(typeof tool.result.result.status, 'string', 'a result names its variant')
    assert.equal(typeof tool.result.isError, 'boolean')
    assert.deepEqual(
      tool.result.providerMetadata,
      tool.call?.providerMetadata,
      'the result names the kind its call did',
    )
  }
}

/** The parts as OpenCode gets them: Cursor's own calls through the plugin's view of them. */
export function openCodeParts(parts: StreamPart[]): ShownPart[] {
  const show = toolViewStream(openCodeToolView)
  const shown: ShownPart[] = []
  for (const part of parts) show(part, (out) => shown.push(out))
  for (const tool of v3Tools(shown)) {
    // OpenCode stores a failed call's result as its error text, any other as {title, output, metadata}.
    const result = tool.result?.result as any
    if (tool.result?.isError) assert.equal(typeof result, 'string', 'a failed call: its error text')
    else
      assert.deepEqual(Object.keys(result).sort(), ['metadata', 'output', 'title'], 'a result: title, output, metadata')
  }
  return shown
}

/** The parts of a run's batches, in order (`ai-sdk` format). */
export function partsOf(batches: ReadonlyArray<ReadonlyArray<unknown>>): Record<string, any>[] {
  return batches.flat() as Record<string, any>[]
}

/** The answer text of `ai-sdk` parts. */
export function answerOf(parts: Record<string, any>[]): string {
  return parts
    .filter((part) => part.type === 'text-delta')
    .map((part) => part.delta)
    .join('')
}

/** Every part a provider's stream yields, in order, once it closes. */
export async function collect(stream: ReadableStream<any>): Promise<any[]> {
  const parts: any[] = []
  const reader = stream.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return parts
    parts.push(value)
  }
}
