// `POST /v1/chat/completions` of the OpenAI-compatible server: one turn through the same turn
// module as the OpenCode provider, its SSE frames streamed (or gathered into one completion), and
// failures before any output answered as OpenAI error objects with real statuses.
import { randomUUID } from 'node:crypto'
import * as v from 'valibot'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { RunError, RunStep, StreamOutput } from 'opencode-cursor-native'
import { failureOf, type NativeErrorCode } from '../turn/failure.js'
import type { PromptMessage, ToolDefinition } from '../turn/native.js'
import { conversationContinued } from '../turn/tool-bridge.js'
import { startTurn, titleOf, type TurnConfig, type TurnRequest } from '../turn/turn.js'

/**
 * The codes only the server reports, each a refusal that starts no cursor-agent: the native
 * API's `ErrorCode` covers every failure of a run.
 */
export const PROXY_ERROR_CODES = Object.freeze({
  /** A request without the server's bearer token (401, with `WWW-Authenticate: Bearer`). */
  E_UNAUTHORIZED: 401,
  /** A `Host` that is neither a loopback name nor the `--host` value (DNS rebinding), or any `Origin` (a web page). */
  E_FORBIDDEN: 403,
  /** No such endpoint. */
  E_NOT_FOUND: 404,
  /** A body that is not `application/json`. */
  E_UNSUPPORTED_MEDIA_TYPE: 415,
  /** A body over the size cap, 32 MiB by default. */
  E_PAYLOAD_TOO_LARGE: 413,
  /** A body still arriving after 10 s. */
  E_REQUEST_TIMEOUT: 408,
  /** The concurrency cap (8 by default, runs waiting for tool results included) is reached (with `Retry-After`). */
  E_BUSY: 429,
})

/** A refusal of the server's own (see {@link PROXY_ERROR_CODES}). */
export type ProxyErrorCode = keyof typeof PROXY_ERROR_CODES

/** Every `code` a client of the server can see: a run's (`ErrorCode`) or the server's own. */
export type CursorAcpErrorCode = NativeErrorCode | ProxyErrorCode

/** An OpenAI error object's fields, and the status it goes out with. */
export interface Refusal {
  status: number
  code: CursorAcpErrorCode
  message: string
  /** Seconds, for `Retry-After`. */
  retryAfter?: number
}

/** The HTTP status of each failure a turn reports before any output. */
export const STATUS_OF_CODE: Readonly<Record<NativeErrorCode, number>> = Object.freeze({
  E_AUTH: 401,
  E_QUOTA: 429,
  E_MODEL: 404,
  E_INVALID_ARG: 400,
  E_TIMEOUT: 504,
  E_AGENT_NOT_FOUND: 502,
  E_AGENT_EXIT: 502,
  E_NETWORK: 502,
  E_RESUME: 502,
  E_CALLBACK: 500,
})

/** `type` of error objects the server writes itself (SSE error frames carry the addon's). */
export const ERROR_TYPE = 'cursor_agent_error'

/** Every error response carries it: a retry reruns an agent that may have run tools. */
export const NO_RETRY = { 'x-should-retry': 'false' } as const

export function sendError(response: ServerResponse, refusal: Refusal): void {
  if (response.headersSent) return
  const headers: Record<string, string> = { 'content-type': 'application/json', ...NO_RETRY }
  if (refusal.retryAfter !== undefined) headers['retry-after'] = String(refusal.retryAfter)
  response.writeHead(refusal.status, headers)
  response.end(JSON.stringify({ error: { message: refusal.message, type: ERROR_TYPE, code: refusal.code } }))
}

/** The refusal of a failure a turn reported before any output (its reset time, for `Retry-After`). */
export function refusalOf(error: Pick<RunError, 'code' | 'message' | 'resetsAt'>, now = Date.now()): Refusal {
  const refusal: Refusal = { status: STATUS_OF_CODE[error.code] ?? 502, code: error.code, message: error.message }
  const seconds = error.resetsAt == null ? 0 : Math.ceil((error.resetsAt - now) / 1000)
  if (seconds > 0) refusal.retryAfter = seconds
  return refusal
}

const MODEL_NEEDED = '`model` must be a Cursor model id, e.g. "auto".'
const MESSAGES_NEEDED = '`messages` must be a non-empty array of message objects.'
const TOOLS_NEEDED = '`tools` must be an array of tool objects.'

/**
 * The fields of an OpenAI chat request the server reads; every other field is ignored. Each
 * refusal names its field.
 */
const CHAT_REQUEST = v.object(
  {
    model: v.pipe(
      v.string(MODEL_NEEDED),
      v.check((model) => model.trim() !== '', MODEL_NEEDED),
    ),
    messages: v.pipe(
      v.array(v.record(v.string(), v.unknown(), MESSAGES_NEEDED), MESSAGES_NEEDED),
      v.nonEmpty(MESSAGES_NEEDED),
    ),
    tools: v.nullish(v.array(v.record(v.string(), v.unknown(), TOOLS_NEEDED), TOOLS_NEEDED)),
    stream: v.nullish(v.boolean('`stream` must be true or false.')),
    stream_options: v.nullish(
      v.object({ include_usage: v.nullish(v.boolean('`stream_options.include_usage` must be true or false.')) }),
    ),
  },
  'The body must be a JSON object.',
)

/** What a schema issue says: its own message, or for a field that is missing, which. */
export function refusalText(issue: v.BaseIssue<unknown>): string {
  const path = v.getDotPath(issue)
  return issue.type === 'object' && path !== null ? `\`${path}\` is required.` : issue.message
}

/** The request body as a turn, or why not (400). */
export function readChatRequest(
  body: unknown,
): { request: TurnRequest; stream: boolean; includeUsage: boolean } | Refusal {
  const read = v.safeParse(CHAT_REQUEST, body)
  if (!read.success) return { status: 400, code: 'E_INVALID_ARG', message: refusalText(read.issues[0]) }
  const { model, messages, tools, stream, stream_options: options } = read.output
  const request: TurnRequest = { model, messages: messages as PromptMessage[] }
  if (tools != null && tools.length > 0) request.tools = tools as ToolDefinition[]
  return { request, stream: stream === true, includeUsage: options?.include_usage === true }
}

/**
 * Which conversation the request belongs to. OpenAI clients send no id: in tool mode `opencode`
 * a request that answers a held run's calls continues that run's conversation, and any other
 * starts one of its own (its own private folder); in mode `cursor` none is named (the resume
 * cache keys it by its first messages).
 */
function conversationOf(config: TurnConfig, request: TurnRequest): string | undefined {
  if (config.settings.toolMode !== 'opencode') return undefined
  return conversationContinued(request.messages) ?? `openai-${randomUUID()}`
}

/** A title request answered without cursor-agent: the frames a run would stream, or its completion. */
function titleOutputs(title: string, model: string, stream: boolean): StreamOutput[] {
  const head = { id: `chatcmpl-${randomUUID()}`, created: Math.floor(Date.now() / 1000), model }
  if (!stream) {
    const message = { role: 'assistant' as const, content: title }
    return [{ ...head, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: 'stop' }] }]
  }
  const chunk = { ...head, object: 'chat.completion.chunk' }
  return [
    `data: ${JSON.stringify({ ...chunk, choices: [{ index: 0, delta: { role: 'assistant', content: title }, finish_reason: null }] })}\n\n`,
    `data: ${JSON.stringify({ ...chunk, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`,
    'data: [DONE]\n\n',
  ]
}

/**
 * Serves one chat completion. `release` is called once the response is over (the turn ended,
 * handed over tool calls, or was cancelled because the client went away).
 */
export function serveChat(
  config: TurnConfig,
  body: unknown,
  response: ServerResponse,
  request: IncomingMessage,
  release: () => void,
): void {
  const read = readChatRequest(body)
  if ('status' in read) {
    sendError(response, read)
    release()
    return
  }
  const { request: turnRequest, stream, includeUsage } = read
  if (config.settings.toolMode !== 'opencode') delete turnRequest.tools
  const conversationId = conversationOf(config, turnRequest)
  if (conversationId !== undefined) turnRequest.conversationId = conversationId
  // A stream's frames wait until the answer starts, so that a failure before it gets its real
  // status; a completion is sent once the response is over. The run says how each step ended.
  const waiting: string[] = []
  let started = false
  let completion: StreamOutput | undefined
  let failure: RunError | undefined
  const startStream = (): void => {
    started = true
    response.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      ...NO_RETRY,
    })
  }
  const deliver = (outputs: StreamOutput[], step: RunStep | null): void => {
    // A failure is refused with its status unless a stream already answered something.
    const refused = step?.reason === 'error' && (stream ? !started && !step.answered : true)
    if (refused) failure = step.error
    if (!stream) {
      for (const output of outputs) if (typeof output === 'object' && 'object' in output) completion = output
      return
    }
    const frames = outputs.filter((output): output is string => typeof output === 'string')
    if (!started && !refused) startStream()
    if (started) {
      for (const frame of [...waiting.splice(0), ...frames]) response.write(frame)
    } else {
      waiting.push(...frames)
    }
  }
  const finishResponse = (): void => {
    if (response.writableEnded) return
    if (failure !== undefined) {
      sendError(response, refusalOf(failure))
      return
    }
    if (!stream) {
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(JSON.stringify(completion ?? null))
      return
    }
    if (!started) startStream()
    for (const frame of waiting.splice(0)) response.write(frame)
    response.end()
  }
  const title = titleOf(turnRequest)
  if (title !== null) {
    deliver(titleOutputs(title, turnRequest.model, stream), null)
    finishResponse()
    release()
    return
  }
  let turn: ReturnType<typeof startTurn>
  try {
    turn = startTurn(config, turnRequest, { format: 'openai-sse', includeUsage: !stream || includeUsage }, deliver)
  } catch (error) {
    sendError(response, refusalOf(failureOf(error, 'E_INVALID_ARG')))
    release()
    return
  }
  // A client that goes away cancels its run (and with it the process group).
  const onClose = (): void => {
    if (!response.writableEnded) turn.cancel()
  }
  response.on('close', onClose)
  request.on('aborted', onClose)
  turn.done
    .then(
      () => finishResponse(),
      (error: unknown) => {
        if (!started) sendError(response, refusalOf(failureOf(error)))
        else response.end()
      },
    )
    .finally(release)
}
