// `POST /v1/chat/completions` of the OpenAI-compatible server: one turn through the shared turn,
// as the OpenCode provider runs it, its SSE frames streamed (or gathered into one completion), and
// failures before any output answered as OpenAI error objects with real statuses. A stream silent
// for the keep-alive interval gets an SSE comment; before its first content that also sends its
// headers (status 200), after which a failure is an error frame.
import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { RunError, RunStep, StreamOutput } from 'opencode-cursor-native'
import { failureOf } from '../turn/failure.js'
import { conversationContinued } from '../turn/tool-bridge.js'
import { startTurn, titleOf, type TurnConfig, type TurnRequest } from '../turn/turn.js'
import { readChatRequest } from './chat-request.js'
import { KEEP_ALIVE_COMMENT, type SilenceTimer, silenceTimer } from './keep-alive.js'
import { NO_RETRY, refusalOf, sendError } from './refusal.js'

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
 * handed over tool calls, or was cancelled because the client went away). A stream silent for
 * `keepAliveMs` gets a comment.
 */
export function serveChat(
  config: TurnConfig,
  body: unknown,
  response: ServerResponse,
  request: IncomingMessage,
  release: () => void,
  keepAliveMs: number,
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
  let keepAlive: SilenceTimer | undefined
  const write = (frame: string): void => {
    response.write(frame)
    keepAlive?.touch()
  }
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
      for (const frame of [...waiting.splice(0), ...frames]) write(frame)
    } else {
      waiting.push(...frames)
    }
  }
  const finishResponse = (): void => {
    keepAlive?.stop()
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
    for (const frame of waiting.splice(0)) write(frame)
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
  // Before the first content the headers wait (a failure still gets its status) only until the
  // stream has been silent for the interval: then they go out with status 200 and the comment, and
  // a later failure is an error frame. A stream that has started gets the comment after every
  // interval of silence. A completion has nothing to send before it is whole.
  if (stream)
    keepAlive = silenceTimer(keepAliveMs, () => {
      if (response.writableEnded || (!started && failure !== undefined)) return
      if (!started) startStream()
      write(KEEP_ALIVE_COMMENT)
    })
  // A client that goes away cancels its run (and with it the process group).
  const onClose = (): void => {
    keepAlive?.stop()
    if (!response.writableEnded) turn.cancel()
  }
  response.on('close', onClose)
  request.on('aborted', onClose)
  turn.done
    .then(
      () => finishResponse(),
      (error: unknown) => {
        keepAlive?.stop()
        if (!started) sendError(response, refusalOf(failureOf(error)))
        else response.end()
      },
    )
    .finally(release)
}
