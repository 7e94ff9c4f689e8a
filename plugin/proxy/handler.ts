// The server's request handler: the gate, the route (a table: path -> API), the body's type, the
// concurrency cap, the body within its limits as JSON, then the answer: at once (health, models,
// count_tokens) or through a turn (`respond.ts`).
import type { IncomingMessage, ServerResponse } from 'node:http'
import { closeAfterRefusal, readBody } from './body.js'
import { CHAT_COMPLETIONS } from './chat/request.js'
import { gate } from './gate.js'
import { readJson } from './json-depth.js'
import { countTokens } from './messages/count-tokens.js'
import { MESSAGES } from './messages/request.js'
import { describeModel, listModels } from './model-list.js'
import { anthropicError, type ErrorStyle, openAiError, type Refusal, refusalFor, sendError } from './refusal.js'
import { type Api, sendJson, serveTurn, type TurnServer } from './respond.js'
import { RESPONSES } from './responses/request.js'

/** What the handler answers with, from the server's options. */
export interface HandlerSettings extends TurnServer {
  allowedHosts: Set<string>
  token: string
  maxConcurrent: number
  maxBodyBytes: number
  bodyTimeoutMs: number
  /** Stops the connection's clock while its request is answered. */
  serving(request: IncomingMessage, response: ServerResponse): void
}

/** `GET /v1/models/{id}`: one model. */
const MODEL_PATH = '/v1/models/'

/** The endpoints that answer with a turn, each through its API. */
const TURN_ROUTES: Readonly<Record<string, Api>> = Object.freeze({
  '/v1/chat/completions': CHAT_COMPLETIONS,
  '/v1/responses': RESPONSES,
  '/v1/messages': MESSAGES,
})

/** Endpoints that read a body and answer at once, without a run. */
const BODY_ROUTES: Readonly<
  Record<string, { errors: ErrorStyle; answer: (body: unknown) => { answer: unknown } | Refusal }>
> = Object.freeze({
  '/v1/messages/count_tokens': { errors: anthropicError, answer: countTokens },
})

/**
 * Anthropic's clients get Anthropic's error shape wherever the server refuses them: on its
 * endpoints, and wherever they announce themselves with `anthropic-version`.
 */
function errorStyleOf(request: IncomingMessage): ErrorStyle {
  return (request.url ?? '').startsWith('/v1/messages') || request.headers['anthropic-version'] !== undefined
    ? anthropicError
    : openAiError
}

/** The body as JSON within the limits, or `undefined` once its refusal is sent. */
async function jsonBody(
  request: IncomingMessage,
  response: ServerResponse,
  settings: HandlerSettings,
  errors: ErrorStyle,
): Promise<{ value: unknown; bytes: number; maxBytes: number } | undefined> {
  const body = await readBody(request, settings.maxBodyBytes, settings.bodyTimeoutMs)
  if (!Buffer.isBuffer(body)) {
    closeAfterRefusal(request, response)
    sendError(response, body, errors)
    return undefined
  }
  // A whole authenticated request: its answer may take as long as its run lives.
  settings.serving(request, response)
  const parsed = readJson(body)
  if (!('status' in parsed)) return { value: parsed.value, bytes: body.length, maxBytes: settings.maxBodyBytes }
  sendError(response, parsed, errors)
  return undefined
}

/** The server's `request` listener (`settled()`: every request in progress is over); a failure answers 500. */
export function requestHandler(settings: HandlerSettings) {
  const { config, maxConcurrent } = settings
  let active = 0
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = (request.url ?? '').split('?')[0] ?? ''
    const errors = errorStyleOf(request)
    // A refusal before the body is read: what the client still sends is dropped.
    const refuse = (refusal: Refusal): void => {
      request.resume()
      sendError(response, refusal, errors)
    }
    const refused = gate(request, settings.allowedHosts, settings.token)
    if (refused !== null) {
      if (refused.status === 401) response.setHeader('www-authenticate', 'Bearer')
      return refuse(refused)
    }
    if (request.method === 'GET' && path === '/health') return sendJson(response, 200, { status: 'ok' })
    if (request.method === 'GET') settings.serving(request, response)
    const anthropic = request.headers['anthropic-version'] !== undefined
    if (request.method === 'GET' && path === '/v1/models')
      return sendJson(response, 200, await listModels(config, anthropic))
    if (request.method === 'GET' && path.startsWith(MODEL_PATH)) {
      const model = await describeModel(config, path.slice(MODEL_PATH.length), anthropic)
      return 'status' in model ? sendError(response, model, errors) : sendJson(response, 200, model.answer)
    }
    const api = request.method === 'POST' ? TURN_ROUTES[path] : undefined
    const atOnce = request.method === 'POST' ? BODY_ROUTES[path] : undefined
    if (api === undefined && atOnce === undefined)
      return refuse(refusalFor('E_NOT_FOUND', `${request.method} ${path} is not served.`))
    const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase()
    if (type !== 'application/json')
      return refuse(refusalFor('E_UNSUPPORTED_MEDIA_TYPE', 'The body must be application/json.'))
    if (api !== undefined && active + settings.conversations.held() >= maxConcurrent)
      return refuse(refusalFor('E_BUSY', `${maxConcurrent} requests are in progress; try again shortly.`, 1))
    active += 1
    // Given back however its handling ends (a reader or an encoder that throws too).
    try {
      const body = await jsonBody(request, response, settings, errors)
      if (body === undefined) return
      if (atOnce !== undefined) {
        const answered = atOnce.answer(body.value)
        return 'status' in answered
          ? sendError(response, answered, atOnce.errors)
          : sendJson(response, 200, answered.answer)
      }
      if (config.problem !== null)
        return sendError(response, { status: 400, code: config.problem.code, message: config.problem.message }, errors)
      await serveTurn(api as Api, settings, body, response, request)
    } finally {
      active -= 1
    }
  }
  const inFlight = new Set<Promise<void>>()
  const listener = (request: IncomingMessage, response: ServerResponse): void => {
    const errors = errorStyleOf(request)
    const handled = handle(request, response).catch((error: unknown) => {
      if (!response.headersSent)
        sendError(response, refusalFor('E_CALLBACK', `The server failed: ${(error as Error).message}`), errors)
      else response.end()
    })
    inFlight.add(handled)
    void handled.then(() => inFlight.delete(handled))
  }
  return Object.assign(listener, { settled: () => Promise.allSettled([...inFlight]) })
}
