// `POST /v1/chat/completions` of the OpenAI-compatible server: one turn through the shared turn,
// as the OpenCode provider runs it, its SSE frames streamed (or gathered into one completion), and
// failures before any output answered as OpenAI error objects with real statuses.
import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { RunError, RunStep, StreamOutput } from 'opencode-cursor-native'
import { failureOf } from '../turn/failure.js'
import { conversationContinued } from '../turn/tool-bridge.js'
import { startTurn, titleOf, type TurnConfig, type TurnRequest } from '../turn/turn.js'
import { readChatRequest } from './chat-request.js'
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
