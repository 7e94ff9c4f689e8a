// The server (`exports["./proxy"]`, `npx opencode-cursor-native serve`): any OpenAI or Anthropic
// client can use a Cursor subscription through it (Chat Completions, Responses, Messages). It runs cursor-agent, which runs
// commands on this machine, so it is locked down: loopback only by default, a bearer token on
// every endpoint but `/health`, no browser (any `Origin`) and no foreign `Host` (DNS rebinding).
import { randomBytes } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { ToolMode } from '../turn/env.js'
import { resolveTurnConfig, type TurnOptions } from '../turn/turn.js'
import { connectionCap } from './connections.js'
import { serverConversations } from './conversations.js'
import { allowedHosts, bracketed } from './gate.js'
import { requestHandler } from './handler.js'
import { keepAliveInterval } from './keep-alive.js'

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
  /** Stops accepting requests, ends every run it started (tool results' too), resolves once they ended. */
  close(): Promise<void>
}

/** Connections kept beyond `maxConcurrent` by default: idle keep-alives and clients being refused. */
const SPARE_CONNECTIONS = 128

/** The options with their defaults; an empty token is refused, never served. */
function settingsOf(options: ProxyOptions) {
  if (options.token !== undefined && options.token.trim() === '')
    // An empty token would let anything that reaches the port in.
    throw Object.assign(new Error('`token` must not be empty: leave it out for a random one.'), {
      code: 'E_INVALID_ARG',
    })
  const host = options.host ?? DEFAULT_HOST
  const maxConcurrent = options.maxConcurrent ?? 8
  const turnOptions: TurnOptions = {}
  if (options.workspace !== undefined) turnOptions.workspace = options.workspace
  if (options.toolMode !== undefined) turnOptions.toolMode = options.toolMode
  return {
    host,
    token: options.token ?? (process.env.CURSOR_ACP_PROXY_TOKEN?.trim() || randomBytes(24).toString('hex')),
    maxConcurrent,
    maxConnections: options.maxConnections ?? maxConcurrent + SPARE_CONNECTIONS,
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
    maxBodyBytes: options.maxBodyBytes ?? 32 * 1024 * 1024,
    bodyTimeoutMs: options.bodyTimeoutMs ?? 10_000,
    config: resolveTurnConfig(turnOptions, false),
    keepAliveMs: keepAliveInterval(),
    allowedHosts: allowedHosts(host),
  }
}

/** Listens on `port` (0: a free one) of `host`; the port it listens on. */
async function listen(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((listening, failed) => {
    server.once('error', failed)
    server.listen(port, host, () => {
      server.off('error', failed)
      listening()
    })
  })
  return (server.address() as AddressInfo).port
}

export async function startProxy(options: ProxyOptions = {}): Promise<RunningProxy> {
  const settings = settingsOf(options)
  const connections = connectionCap(settings.maxConnections, settings.requestTimeoutMs)
  const conversations = serverConversations(settings.config)
  const handler = requestHandler({ ...settings, conversations, serving: connections.serving })
  const server = createServer(handler)
  server.on('connection', connections.accept)
  server.on('request', connections.begun)
  const port = await listen(server, options.port ?? DEFAULT_PORT, settings.host)
  return {
    url: `http://${bracketed(settings.host)}:${port}/v1`,
    port,
    token: settings.token,
    close: async () => {
      const closed = new Promise<void>((done) => server.close(() => done()))
      // Open streams end with their sockets, cancelling their runs; then those waiting for tool results.
      connections.destroyAll()
      await handler.settled()
      await conversations.close()
      await closed
    },
  }
}
