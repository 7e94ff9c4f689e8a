// The host's side of the tool bridge (`toolMode: 'opencode'`): where a conversation's private
// folder is, which runs wait for OpenCode to answer the tool calls they handed over, and how a
// request that carries those answers is recognised and turned into answers for the run.
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import type { CursorAgentRun, RunResult, RunStep, StreamOutput, ToolAnswer } from 'opencode-cursor-native'
import type { PromptMessage, ToolDefinition } from './native.js'

/**
 * The private folder of one conversation under the package's data folder: the same for every
 * run of the conversation (Cursor keys its chats by the workspace path), another one for each
 * other conversation (a subagent's child session among them).
 */
export function conversationFolder(
  dataDirectory: string,
  workspace: string,
  conversationId: string | undefined,
): string {
  const key = createHash('sha256')
    .update(workspace)
    .update('\0')
    .update(conversationId ?? '')
    .digest('hex')
    .slice(0, 32)
  return join(dataDirectory, 'conversations', key)
}

/** A run that handed tool calls to the host and waits for the answers. */
export interface HeldRun {
  readonly run: CursorAgentRun
  /** OpenCode's session id of the conversation, when the request named it. */
  readonly conversationId: string | undefined
  /** The ids of the calls it handed over, in order. */
  readonly callIds: readonly string[]
  /** The tools its bridge offers, each definition as JSON (Cursor lists them once per run). */
  readonly tools: ReadonlySet<string>
  /** Send the run's next outputs to `onOutput`, and tell `onStep` when the response is over. */
  continueInto(onOutput: TurnOutput, onStep: StepEnded): void
  /** Stop the run (its process group is killed; its calls are answered with an error). */
  cancel(): void
  /** The turn's result, once the run has ended. */
  result(): Promise<RunResult>
}

/** How a response of a turn ended: the run handed over calls (`handed-over`), or it ended. */
export type StepEnded = (end: 'handed-over' | 'run-ended') => void

/** Where a turn's outputs go: each batch, with how its step ended when it ends one. */
export type TurnOutput = (outputs: StreamOutput[], step: RunStep | null) => void

// One registry per process, whichever copy of this module OpenCode loaded (the plugin and the
// provider module are imported separately).
const REGISTRY = Symbol.for('opencode-cursor-native.held-runs')
type Registry = Map<string, HeldRun>
const globals = globalThis as unknown as Record<symbol, Registry | undefined>

function registry(): Registry {
  globals[REGISTRY] ??= new Map()
  return globals[REGISTRY]
}

/** The held run of a conversation (by its private folder), if any. */
export function heldRun(folder: string): HeldRun | undefined {
  return registry().get(folder)
}

export function holdRun(folder: string, held: HeldRun): void {
  registry().set(folder, held)
}

/** Forget `held` (only if it is still the conversation's held run). */
export function releaseRun(folder: string, held?: HeldRun): void {
  if (held === undefined || registry().get(folder) === held) registry().delete(folder)
}

/**
 * The conversation whose held run `messages` continue (their trailing tool results answer
 * exactly its calls, as {@link continuationAnswers} decides): for a client that sends no
 * conversation id, those results are what names it.
 */
export function conversationContinued(messages: readonly PromptMessage[]): string | undefined {
  for (const held of registry().values()) {
    if (held.callIds.length > 0 && continuationAnswers(messages, held.callIds) !== null) return held.conversationId
  }
  return undefined
}

/**
 * Whether `held` offers every tool of `tools`: Cursor's model lists a run's tools once, so a tool
 * a later request adds (or changes) reaches it only through a new run.
 */
export function offersEvery(held: HeldRun, tools: readonly ToolDefinition[] | undefined): boolean {
  return (tools ?? []).every((tool) => held.tools.has(JSON.stringify(tool)))
}

/** Cancel the held runs of OpenCode session `conversationId`. */
export function cancelConversation(conversationId: string): number {
  let cancelled = 0
  for (const [folder, held] of registry()) {
    if (held.conversationId !== conversationId) continue
    registry().delete(folder)
    held.cancel()
    cancelled += 1
  }
  return cancelled
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function stringify(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? null)
}

const DENIED = 'The user denied this tool call.'

/** A V3 `tool-result` output (`{type, value}`) as the text and images an MCP result carries. */
function answerOf(id: string, output: unknown): ToolAnswer {
  if (!isRecord(output)) return { id, output: stringify(output) }
  const { type, value } = output
  if (type === 'execution-denied')
    return { id, output: typeof output.reason === 'string' ? output.reason : DENIED, isError: true }
  if (type === 'error-text' || type === 'error-json') return { id, output: stringify(value), isError: true }
  if (type !== 'content')
    return { id, output: stringify(type === 'text' || type === 'json' ? value : (value ?? output)) }
  const texts: string[] = []
  const images: { data: string; mimeType: string }[] = []
  for (const item of Array.isArray(value) ? value : []) {
    if (!isRecord(item)) continue
    if (item.type === 'text' && typeof item.text === 'string') texts.push(item.text)
    const mediaType = typeof item.mediaType === 'string' ? item.mediaType : undefined
    if (typeof item.data === 'string' && mediaType?.startsWith('image/'))
      images.push({ data: item.data, mimeType: mediaType })
  }
  return { id, output: texts.join('\n'), ...(images.length > 0 ? { images } : {}) }
}

/** The results in one `tool` message: V3 `tool-result` parts, or an OpenAI `tool_call_id` message. */
function resultsOf(message: PromptMessage): ToolAnswer[] {
  if (typeof message.tool_call_id === 'string')
    return [{ id: message.tool_call_id, output: stringify(message.content) }]
  const answers: ToolAnswer[] = []
  for (const part of Array.isArray(message.content) ? message.content : []) {
    if (isRecord(part) && part.type === 'tool-result' && typeof part.toolCallId === 'string') {
      answers.push(answerOf(part.toolCallId, part.output))
    }
  }
  return answers
}

/**
 * The answers to `callIds` when the request's trailing `tool` messages are exactly the results
 * of those calls (each once, nothing else), else `null`: the request is not a continuation.
 */
export function continuationAnswers(
  messages: readonly PromptMessage[],
  callIds: readonly string[],
): ToolAnswer[] | null {
  let first = messages.length
  while (first > 0 && messages[first - 1]?.role === 'tool') first -= 1
  const answers = messages.slice(first).flatMap(resultsOf)
  if (answers.length !== callIds.length) return null
  const wanted = new Set(callIds)
  for (const answer of answers) {
    if (!wanted.delete(answer.id)) return null
  }
  return answers
}
