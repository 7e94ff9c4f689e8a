// The one path every model endpoint of the server answers through (Chat Completions, Responses,
// Messages): the request read by its API, one turn through the shared turn, its outputs encoded by
// the API's encoder, streamed (or gathered into one response), failures before any output answered
// in the API's error shape with a real status (or, where the API says so, as its stream's error
// event). A stream silent for the keep-alive interval gets the API's keep-alive; before its first
// content that also sends its headers (status 200), after which a failure is the API's error event. A client that goes away cancels its run.
import { randomUUID } from 'node:crypto'
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http'
import type { RunError, RunStep, StreamOutput } from 'opencode-cursor-native'
import { failureOf } from '../turn/failure.js'
import type { Conversations } from './conversations.js'
import { conversationContinued } from '../turn/tool-bridge.js'
import { startTurn, type TurnConfig, type TurnFormat, type TurnRequest, titleAnswer } from '../turn/turn.js'
import { type SilenceTimer, silenceTimer } from './keep-alive.js'
import { requestedMode } from './mode.js'
import { modelForRequest } from './model-list.js'
import { type ErrorStyle, NO_RETRY, type Refusal, refusalOf, sendError } from './refusal.js'
import { type BodySize, partCount, pastLimits } from './request-fields.js'

/** How one API turns a response's outputs into what its clients read. One per response. */
export interface ResponseEncoder {
  /** The outputs the turn is asked for. */
  readonly format: TurnFormat
  /** A batch of outputs as the stream's frames; the encoder gathers the response as it goes. */
  frames(outputs: StreamOutput[]): string[]
  /** The frames that close a stream once its turn is over (after a failure's own frames too). */
  close(): string[]
  /** The whole response, for a request without `stream`, once its turn is over. */
  whole(): unknown
  /** What a stream gets after each interval of silence: the API's keep-alive policy ({@link silenceTimer}). */
  keepAlive(): string[]
  /**
   * A stream's failure before any output is the stream's own error event (status 200) instead of
   * a refusal with its status: for clients that show an error event's reason but neither a
   * status's body nor any failure without rerunning it (Codex CLI).
   */
  readonly failsInStream: boolean
}

/** A request as its API read it: the turn, whether it streams, and its response's encoder. */
export interface ApiRequest {
  request: TurnRequest
  stream: boolean
  encoder: ResponseEncoder
  /** The reasoning effort asked for: a family named as the model runs its rung for it. */
  effort?: string
  /** A field of the turn (`messages[2].content`) as the client named it, where the two differ. */
  clientField?: (field: string) => string
  /** A later request may continue its conversation by naming its response (`previous_response_id`). */
  continuable?: boolean
  /** Its fields and the conversation they continue: what they take of the limits; `claim`ed once within. */
  continued?: { fields: string; carried: BodySize; claim(): void } | undefined
}

/** One API the server speaks. */
export interface Api {
  /** The field that holds the conversation: `messages`, or Responses' `input`. */
  list: string
  /** The body as a turn, or why not (400, 413, or 404 for what it names that is not there). */
  read(body: unknown, size: BodySize): ApiRequest | Refusal
  /** How the API words a refusal. */
  errors: ErrorStyle
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' })
  response.end(JSON.stringify(body))
}

/**
 * The body as its API reads it, ready for this server's turn: every attachment must carry its
 * bytes (the server fetches nothing, and never reads a path its client names), the tools and the
 * conversation are those of the tool mode.
 */
function turnOf(
  api: Api,
  config: TurnConfig,
  body: unknown,
  size: Omit<BodySize, 'parts'>,
  headers: IncomingHttpHeaders,
): ApiRequest | Refusal {
  // Refused before anything reads the parts one by one.
  const measured = { ...size, parts: partCount(body, api.list) }
  const read = pastLimits(`\`${api.list}\``, measured) ?? api.read(body, measured)
  if ('status' in read) return read
  // The same rule in every API: the body's `mode`, else the `X-Cursor-Mode` header.
  const mode = requestedMode(body, headers)
  if (typeof mode === 'object') return mode
  if (mode !== undefined) read.request.mode = mode
  const past = read.continued && pastLimits(read.continued.fields, read.continued.carried)
  if (past) return past
  read.continued?.claim()
  const request = read.request
  request.attachmentSources = 'bytes'
  // Clients of these APIs send no conversation id. In mode `cursor` Cursor runs its own tools (a
  // request's are not offered to it), and the API's own id (a previous response's) or none is named
  // (the resume cache keys it by its first messages). In tool mode `opencode` a request that answers
  // a held run's calls continues that run's conversation, and any other starts one of its own (its
  // own private folder).
  if (config.settings.toolMode === 'opencode') {
    const continued = conversationContinued(request.messages)
    request.conversationId = continued ?? request.conversationId ?? `openai-${randomUUID()}`
  } else {
    delete request.tools
    if (request.conversationId === undefined) delete request.conversationId
  }
  return read
}

/**
 * One response while its turn runs. A stream's frames wait until the answer starts, so that a
 * failure before it gets its real status; a whole response is sent once the turn is over. The run
 * says how each step ended.
 */
function turnResponse(response: ServerResponse, api: Api, { stream, encoder }: ApiRequest) {
  const waiting: string[] = []
  let started = false
  let failure: RunError | undefined
  let keepAlive: SilenceTimer | undefined
  const startStream = (): void => {
    started = true
    response.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      ...NO_RETRY,
    })
  }
  const write = (frames: string[]): void => {
    for (const frame of frames) {
      response.write(frame)
      keepAlive?.touch()
    }
  }
  /** A batch of outputs, and how the step it closes ended. */
  const deliver = (outputs: StreamOutput[], step: RunStep | null): void => {
    // A failure is refused with its status unless a stream already answered something (or its API
    // tells every failure in the stream).
    const refused = step?.reason === 'error' && (stream ? !started && !step.answered && !encoder.failsInStream : true)
    if (refused) failure = step.error
    const frames = encoder.frames(outputs)
    if (!stream) return
    if (!started && !refused) startStream()
    if (started) write([...waiting.splice(0), ...frames])
    else waiting.push(...frames)
  }
  /** The turn is over: the refusal of its failure, the whole response, or the stream's last frames. */
  const finish = (): void => {
    keepAlive?.stop()
    if (response.writableEnded) return
    if (failure !== undefined) sendError(response, refusalOf(failure), api.errors)
    else if (!stream) sendJson(response, 200, encoder.whole())
    else {
      if (!started) startStream()
      write([...waiting.splice(0), ...encoder.close()])
      response.end()
    }
  }
  /** The turn failed without a step to say so: refused while nothing was sent, else ended. */
  const failed = (error: unknown): void => {
    keepAlive?.stop()
    if (stream && encoder.failsInStream && !response.writableEnded) {
      if (!started) startStream()
      const failure = { type: 'error', error: failureOf(error) } as StreamOutput
      write([...waiting.splice(0), ...encoder.frames([failure]), ...encoder.close()])
      response.end()
    } else if (!started) sendError(response, refusalOf(failureOf(error)), api.errors)
    else response.end()
  }
  /**
   * Before the first content the headers wait (a failure still gets its status) only until the
   * stream has been silent for the interval: then they go out with status 200 and the keep-alive,
   * and a later failure is an error event. A stream that has started gets the keep-alive after
   * every interval of silence. A whole response has nothing to send before it is whole.
   */
  const keepAliveEvery = (intervalMs: number): void => {
    if (!stream) return
    keepAlive = silenceTimer(intervalMs, () => {
      if (response.writableEnded || (!started && failure !== undefined)) return
      if (!started) startStream()
      write(encoder.keepAlive())
    })
  }
  return { deliver, finish, failed, keepAliveEvery, stopKeepAlive: () => keepAlive?.stop() }
}

/** What the server serves a turn with. */
export interface TurnServer {
  config: TurnConfig
  conversations: Conversations
  keepAliveMs: number
}

/**
 * Serves one request of `api`; settles once the response is over (the turn ended, handed over
 * tool calls, or was cancelled as the client went away). In tool mode `opencode` the conversation
 * is the server's until it can no longer continue.
 */
export async function serveTurn(
  api: Api,
  { config, conversations, keepAliveMs }: TurnServer,
  body: { value: unknown; bytes: number; maxBytes: number },
  response: ServerResponse,
  request: IncomingMessage,
): Promise<void> {
  const read = turnOf(api, config, body.value, body, request.headers)
  if ('status' in read) return sendError(response, read, api.errors)
  const answer = turnResponse(response, api, read)
  let turn: ReturnType<typeof startTurn>
  try {
    read.request.model = modelForRequest(read.request.model, read.effort)
    // The addon reads the messages first here: a malformed one is refused, naming its field.
    const title = titleAnswer(read.request, read.encoder.format)
    if (title !== null) {
      answer.deliver(title, null)
      return answer.finish()
    }
    turn = startTurn(config, read.request, read.encoder.format, answer.deliver)
  } catch (error) {
    const refusal = refusalOf(failureOf(error, 'E_INVALID_ARG'))
    const named = refusal.code === 'E_INVALID_ARG' ? read.clientField : undefined
    if (named) refusal.message = refusal.message.replace(/^`([^`]*)`/, (_, field: string) => `\`${named(field)}\``)
    return sendError(response, refusal, api.errors)
  }
  const ended = conversations.begin(read.request.conversationId, config.settings.sessionResume && !!read.continuable)
  answer.keepAliveEvery(keepAliveMs)
  // A client that goes away cancels its run (and with it the process group).
  const onClose = (): void => {
    answer.stopKeepAlive()
    if (!response.writableEnded) turn.cancel()
  }
  response.on('close', onClose)
  request.on('aborted', onClose)
  try {
    await turn.done
    answer.finish()
  } catch (error) {
    answer.failed(error)
  } finally {
    ended()
  }
}
