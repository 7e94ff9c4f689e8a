// The server (`exports["./proxy"]`, `npx opencode-cursor-native serve`): any OpenAI or Anthropic
// client can use a Cursor subscription through it (Chat Completions, Responses, Messages). It runs cursor-agent, which runs
// commands on this machine, so it is locked down: loopback only by default, a bearer token on
// every endpoint but `/health`, no browser (any `Origin`) and no foreign `Host` (DNS rebinding).
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { childEnvironment, dataDirectory, type ToolMode } from '../turn/env.js'
import { cursorModels, modelCacheFile } from '../turn/models.js'
import { heldRunCount } from '../turn/tool-bridge.js'
import { resolveTurnConfig, type TurnConfig, type TurnOptions } from '../turn/turn.js'
import { CHAT_COMPLETIONS } from './chat/index.js'
import { keepAliveInterval } from './keep-alive.js'
import { countTokens } from './messages/count-tokens.js'
import { MESSAGES } from './messages/index.js'
import { anthropicError, type ErrorStyle, openAiError, type Refusal, sendError } from './refusal.js'
import { type Api, serveTurn } from './respond.js'
import { RESPONSES } from './responses/index.js'

export { type CursorAcpErrorCode, PROXY_ERROR_CODES, type ProxyErrorCode } from './refusal.js'

/** The port `serve` listens on unless told otherwise. */
export const DEFAULT_PORT = 32125
export const DEFAULT_HOST = '127.0.0.1'

export interface ProxyOptions {
  /** Default {@link DEFAULT_PORT}; 0 picks a free port. */
  port?: number
  /** Default `127.0.0.1`. Any other address exposes cursor-agent to that network. */
  host?: string
  /** The folder cursor-agent works in; default as the plugin picks it (`CURSOR_ACP_WORKSPACE`, else the current folder). */
  workspace?: string
  /** Default `CURSOR_ACP_PROXY_TOKEN`, else a new random one per start. */
  token?: string
  /** Default `CURSOR_ACP_TOOL_MODE` (`cursor`). */
  toolMode?: ToolMode
  /** Requests at once, runs held for tool results included; default 8. */
  maxConcurrent?: number
  /** Largest request body; default 32 MiB. */
  maxBodyBytes?: number
  /** How long a request body may take to arrive; default 10 s. */
  bodyTimeoutMs?: number
  /**
   * How long a connection may stay open without a whole authenticated request in progress
   * (before its first, and between two): it is closed after that. Default 30 s. A response in
   * progress is never cut by it.
   */
  requestTimeoutMs?: number
  /** Connections at once, beyond which new ones are closed; default `maxConcurrent` + 128 (keep-alives and clients being refused). */
  maxConnections?: number
}

export interface RunningProxy {
  /** `http://<host>:<port>/v1`, what clients take as their base URL. */
  url: string
  port: number
  token: string
  /** Stops accepting requests, cancels the runs in progress and resolves once closed. */
  close(): Promise<void>
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1'])

/** The host name of a `Host` header, without its port. */
function hostName(header: string | undefined): string | undefined {
  if (header === undefined) return undefined
  const bracketed = /^\[([^\]]+)\]/.exec(header)
  if (bracketed !== null) return `[${bracketed[1]}]`
  return (header.split(':')[0] ?? '').toLowerCase()
}

function tokenMatches(given: string, token: string): boolean {
  const [a, b] = [Buffer.from(given), Buffer.from(token)]
  return a.length === b.length && timingSafeEqual(a, b)
}

/** The token a request carries: `Authorization: Bearer` (OpenAI's clients) or `x-api-key` (Anthropic's). */
function givenToken(request: IncomingMessage): string {
  const bearer = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1]
  if (bearer !== undefined) return bearer
  const key = request.headers['x-api-key']
  return typeof key === 'string' ? key : ''
}

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
function errorStyleOf(request: IncomingMessage, path: string): ErrorStyle {
  return path.startsWith('/v1/messages') || request.headers['anthropic-version'] !== undefined
    ? anthropicError
    : openAiError
}

/**
 * How deep a request body may nest. The requests of these APIs nest a few levels (a tool's
 * schema a few more); a deeper body is refused before any of it is read further, where deep
 * recursion could exhaust the stack.
 */
export const MAX_BODY_DEPTH = 512

/** Whether `value` nests deeper than `limit` arrays and objects (counted without recursion). */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 1]]
  while (pending.length > 0) {
    const [item, depth] = pending.pop() as [unknown, number]
    if (typeof item !== 'object' || item === null) continue
    if (depth > limit) return true
    for (const child of Array.isArray(item) ? item : Object.values(item)) pending.push([child, depth + 1])
  }
  return false
}

/** Why a request is refused before anything runs, or `null`. Checked in this order. */
function gate(request: IncomingMessage, allowedHosts: Set<string>, token: string): Refusal | null {
  const host = hostName(request.headers.host)
  if (host === undefined || !allowedHosts.has(host))
    return {
      status: 403,
      code: 'E_FORBIDDEN',
      message: 'This Host is not served: only loopback names and the --host value are.',
    }
  if (request.headers.origin !== undefined)
    return { status: 403, code: 'E_FORBIDDEN', message: 'Requests from web pages (with an Origin) are refused.' }
  const path = (request.url ?? '').split('?')[0]
  if (path === '/health') return null
  if (!tokenMatches(givenToken(request), token))
    return {
      status: 401,
      code: 'E_UNAUTHORIZED',
      message: "The server's token is required: Authorization: Bearer <the token serve printed>, or x-api-key: <it>.",
    }
  return null
}

/** The request body, at most `limit` bytes, within `timeoutMs`; a refusal otherwise. */
function readBody(request: IncomingMessage, limit: number, timeoutMs: number): Promise<Buffer | Refusal> {
  return new Promise((settle) => {
    const chunks: Buffer[] = []
    let size = 0
    let done = false
    const finish = (value: Buffer | Refusal): void => {
      if (done) return
      done = true
      clearTimeout(timer)
      settle(value)
    }
    const timer = setTimeout(
      () =>
        finish({
          status: 408,
          code: 'E_REQUEST_TIMEOUT',
          message: `The request body did not arrive within ${timeoutMs / 1000} s.`,
        }),
      timeoutMs,
    )
    const declared = Number(request.headers['content-length'] ?? Number.NaN)
    if (declared > limit)
      finish({ status: 413, code: 'E_PAYLOAD_TOO_LARGE', message: `The request body is larger than ${limit} bytes.` })
    request.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > limit)
        finish({ status: 413, code: 'E_PAYLOAD_TOO_LARGE', message: `The request body is larger than ${limit} bytes.` })
      else chunks.push(chunk)
    })
    request.on('end', () => finish(Buffer.concat(chunks)))
    request.on('error', () =>
      finish({ status: 400, code: 'E_INVALID_ARG', message: 'The request body could not be read.' }),
    )
  })
}

/** How long the rest of a refused body is read (and dropped) before its connection is cut. */
const LINGER_MS = 2000

/**
 * The rest of an oversized or stalled body is not kept: its connection closes with the refusal,
 * and the refusal says so (`Connection: close`), or the client would send its next request into
 * a closed socket. Node ends such a response's socket with `destroySoon()`, which cuts it at once;
 * a client still sending its body would then get a reset instead of the refusal. Here it only
 * stops writing, drops what still arrives, and cuts the connection {@link LINGER_MS} later.
 */
function closeAfterRefusal(request: IncomingMessage, response: ServerResponse): void {
  const socket = request.socket
  response.setHeader('connection', 'close')
  socket.destroySoon = () => {
    socket.end()
    const timer = setTimeout(() => socket.destroy(), LINGER_MS)
    timer.unref()
    socket.once('close', () => clearTimeout(timer))
  }
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' })
  response.end(JSON.stringify(body))
}

/**
 * `GET /v1/models`: the cached discovery (never waiting for cursor-agent), refreshed in the
 * background; in Anthropic's shape for a client that sends `anthropic-version`.
 */
async function listModels(config: TurnConfig, anthropic: boolean): Promise<unknown> {
  const options = {
    cacheFile: modelCacheFile(dataDirectory()),
    waitMs: 0,
    env: childEnvironment(process.env, config.settings),
  }
  const { models } = await cursorModels(
    config.settings.executable === undefined ? options : { ...options, executable: config.settings.executable },
  )
  if (anthropic)
    return {
      data: models.map((model) => ({
        type: 'model',
        id: model.id,
        display_name: model.name,
        created_at: '1970-01-01T00:00:00Z',
      })),
      has_more: false,
      first_id: models[0]?.id ?? null,
      last_id: models.at(-1)?.id ?? null,
    }
  return {
    object: 'list',
    data: models.map((model) => ({
      id: model.id,
      object: 'model',
      created: 0,
      owned_by: 'cursor',
      name: model.name,
      context_window: model.contextWindow,
      max_output_tokens: model.maxOutputTokens,
    })),
  }
}

/** A body as JSON, nested at most {@link MAX_BODY_DEPTH} deep; a refusal otherwise. */
function readJson(body: Buffer): { value: unknown } | Refusal {
  let value: unknown
  try {
    value = JSON.parse(body.toString('utf8'))
  } catch {
    return { status: 400, code: 'E_INVALID_ARG', message: 'The body is not valid JSON.' }
  }
  if (nestsDeeperThan(value, MAX_BODY_DEPTH))
    return {
      status: 400,
      code: 'E_INVALID_ARG',
      message: `The body nests deeper than ${MAX_BODY_DEPTH} levels of arrays and objects.`,
    }
  return { value }
}

/** Connections kept beyond `maxConcurrent` by default: idle keep-alives and clients being refused. */
const SPARE_CONNECTIONS = 128

export async function startProxy(options: ProxyOptions = {}): Promise<RunningProxy> {
  const host = options.host ?? DEFAULT_HOST
  if (options.token !== undefined && options.token.trim() === '')
    // An empty token would let anything that reaches the port in: refused, never served.
    throw Object.assign(new Error('`token` must not be empty: leave it out for a random one.'), {
      code: 'E_INVALID_ARG',
    })
  const token = options.token ?? (process.env.CURSOR_ACP_PROXY_TOKEN?.trim() || randomBytes(24).toString('hex'))
  const maxConcurrent = options.maxConcurrent ?? 8
  const maxConnections = options.maxConnections ?? maxConcurrent + SPARE_CONNECTIONS
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000
  const maxBodyBytes = options.maxBodyBytes ?? 32 * 1024 * 1024
  const bodyTimeoutMs = options.bodyTimeoutMs ?? 10_000
  const turnOptions: TurnOptions = {}
  if (options.workspace !== undefined) turnOptions.workspace = options.workspace
  if (options.toolMode !== undefined) turnOptions.toolMode = options.toolMode
  const config = resolveTurnConfig(turnOptions, false)
  const keepAliveMs = keepAliveInterval()
  // An IPv6 address is bracketed in a Host header: `::1` is `[::1]` there.
  const allowedHosts = new Set([
    ...LOOPBACK_NAMES,
    hostName(host.includes(':') && !host.startsWith('[') ? `[${host}]` : host) ?? host,
  ])
  let active = 0
  const sockets = new Set<import('node:net').Socket>()

  /**
   * Each connection has {@link requestTimeoutMs} to deliver a whole authenticated request; the
   * clock stops while that request is answered and starts again once its response is over. Set
   * here rather than through Node's `headersTimeout`/`requestTimeout`, which Bun does not honour.
   */
  const idleTimers = new Map<import('node:net').Socket, NodeJS.Timeout>()
  const waitForRequest = (socket: import('node:net').Socket): void => {
    clearTimeout(idleTimers.get(socket))
    const timer = setTimeout(() => socket.destroy(), requestTimeoutMs)
    timer.unref()
    idleTimers.set(socket, timer)
  }
  const serving = (request: IncomingMessage, response: ServerResponse): void => {
    const socket = request.socket
    clearTimeout(idleTimers.get(socket))
    idleTimers.delete(socket)
    response.once('close', () => {
      if (!socket.destroyed) waitForRequest(socket)
    })
  }

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = (request.url ?? '').split('?')[0] ?? ''
    const errors = errorStyleOf(request, path)
    const refused = gate(request, allowedHosts, token)
    if (refused !== null) {
      if (refused.status === 401) response.setHeader('www-authenticate', 'Bearer')
      request.resume()
      return sendError(response, refused, errors)
    }
    if (request.method === 'GET' && path === '/health') return sendJson(response, 200, { status: 'ok' })
    if (request.method === 'GET') serving(request, response)
    if (request.method === 'GET' && path === '/v1/models')
      return sendJson(response, 200, await listModels(config, request.headers['anthropic-version'] !== undefined))
    const api = request.method === 'POST' ? TURN_ROUTES[path] : undefined
    const answerAtOnce = request.method === 'POST' ? BODY_ROUTES[path] : undefined
    if (api === undefined && answerAtOnce === undefined) {
      request.resume()
      return sendError(
        response,
        { status: 404, code: 'E_NOT_FOUND', message: `${request.method} ${path} is not served.` },
        errors,
      )
    }
    const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase()
    if (type !== 'application/json') {
      request.resume()
      return sendError(
        response,
        { status: 415, code: 'E_UNSUPPORTED_MEDIA_TYPE', message: 'The body must be application/json.' },
        errors,
      )
    }
    if (api !== undefined && active + heldRunCount() >= maxConcurrent) {
      request.resume()
      return sendError(
        response,
        {
          status: 429,
          code: 'E_BUSY',
          message: `${maxConcurrent} requests are in progress; try again shortly.`,
          retryAfter: 1,
        },
        errors,
      )
    }
    active += 1
    let released = false
    const release = (): void => {
      if (!released) active -= 1
      released = true
    }
    const body = await readBody(request, maxBodyBytes, bodyTimeoutMs)
    if (!Buffer.isBuffer(body)) {
      closeAfterRefusal(request, response)
      sendError(response, body, errors)
      release()
      return
    }
    // A whole authenticated request: its answer may take as long as its run lives.
    serving(request, response)
    const parsed = readJson(body)
    if ('status' in parsed) {
      release()
      return sendError(response, parsed, errors)
    }
    if (answerAtOnce !== undefined) {
      release()
      const answered = answerAtOnce.answer(parsed.value)
      if ('status' in answered) return sendError(response, answered, answerAtOnce.errors)
      return sendJson(response, 200, answered.answer)
    }
    if (config.problem !== null) {
      release()
      return sendError(response, { status: 400, code: config.problem.code, message: config.problem.message }, errors)
    }
    serveTurn(api as Api, config, parsed.value, response, request, release, keepAliveMs)
  }

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent)
        sendError(response, {
          status: 500,
          code: 'E_CALLBACK',
          message: `The server failed: ${(error as Error).message}`,
        })
      else response.end()
    })
  })
  server.on('connection', (socket) => {
    // At the cap, the oldest connection waiting for a request makes room: idle connections
    // (nothing sent, or a keep-alive between requests) cannot keep a client with the token out.
    // Only when every connection is being answered is the new one closed at once.
    if (sockets.size >= maxConnections) {
      const idle = [...sockets].find((open) => idleTimers.has(open))
      if (idle === undefined) {
        socket.destroy()
        return
      }
      idle.destroy()
      sockets.delete(idle)
    }
    sockets.add(socket)
    waitForRequest(socket)
    socket.on('close', () => {
      sockets.delete(socket)
      clearTimeout(idleTimers.get(socket))
      idleTimers.delete(socket)
    })
  })
  await new Promise<void>((listening, failed) => {
    server.once('error', failed)
    server.listen(options.port ?? DEFAULT_PORT, host, () => {
      server.off('error', failed)
      listening()
    })
  })
  const port = (server.address() as AddressInfo).port
  const shown = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
  return {
    url: `http://${shown}:${port}/v1`,
    port,
    token,
    close: () =>
      new Promise<void>((closed) => {
        server.close(() => closed())
        // Open streams end with their sockets, and their runs are cancelled on close.
        for (const socket of sockets) socket.destroy()
      }),
  }
}
