// How the server refuses a request or reports a failure before any output: one table of statuses
// for every code, worded in each API's own error shape (OpenAI's `{error: {message, type, code}}`,
// Anthropic's `{type: "error", error: {type, message}}`), with a real HTTP status, never retried.
import type { ServerResponse } from 'node:http'
import type { RunError } from 'opencode-cursor-native'
import type { NativeErrorCode } from '../turn/failure.js'

/**
 * The codes only the server reports, each a refusal that starts no cursor-agent: the native
 * API's `ErrorCode` covers every failure of a run.
 */
export const PROXY_ERROR_CODES = Object.freeze({
  /** A request without the server's bearer token (401, with `WWW-Authenticate: Bearer`). */
  E_UNAUTHORIZED: 401,
  /** A `Host` that is neither a loopback name nor the `--host` value (DNS rebinding), or any `Origin` (a web page). */
  E_FORBIDDEN: 403,
  /** No such endpoint, or a `previous_response_id` the server does not hold. */
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

/** An error response as one API words it. */
export interface ErrorResponse {
  status: number
  body: unknown
}

/** How one API words a refusal. */
export type ErrorStyle = (refusal: Refusal) => ErrorResponse

/** OpenAI's error object (Chat Completions, Responses, and the server's own endpoints). */
export const openAiError: ErrorStyle = (refusal) => ({
  status: refusal.status,
  body: { error: { message: refusal.message, type: ERROR_TYPE, code: refusal.code } },
})

/**
 * Anthropic's status and error type for each status of the table: the statuses Anthropic's API
 * uses keep theirs; a gateway failure (502, 504) is its `api_error`. The server's own capacity
 * cap is `overloaded_error` (529), what Anthropic answers when it has no room.
 */
export const ANTHROPIC_ERRORS: Readonly<Record<number, readonly [number, string]>> = Object.freeze({
  400: [400, 'invalid_request_error'],
  401: [401, 'authentication_error'],
  403: [403, 'permission_error'],
  404: [404, 'not_found_error'],
  408: [408, 'invalid_request_error'],
  413: [413, 'request_too_large'],
  415: [415, 'invalid_request_error'],
  429: [429, 'rate_limit_error'],
  500: [500, 'api_error'],
  502: [500, 'api_error'],
  504: [500, 'api_error'],
})

/** Anthropic's error object; `code` (the package's) rides beside its `type`. */
export const anthropicError: ErrorStyle = (refusal) => {
  const [status, type] =
    refusal.code === 'E_BUSY' ? [529, 'overloaded_error'] : (ANTHROPIC_ERRORS[refusal.status] ?? [500, 'api_error'])
  return { status, body: { type: 'error', error: { type, message: refusal.message, code: refusal.code } } }
}

export function sendError(response: ServerResponse, refusal: Refusal, style: ErrorStyle = openAiError): void {
  if (response.headersSent) return
  const headers: Record<string, string> = { 'content-type': 'application/json', ...NO_RETRY }
  if (refusal.retryAfter !== undefined) headers['retry-after'] = String(refusal.retryAfter)
  const { status, body } = style(refusal)
  response.writeHead(status, headers)
  response.end(JSON.stringify(body))
}

/**
 * How the server's clients are told of a failure where the package's own words (those of the
 * native API) do not fit a server: the way to log in is the server process's.
 */
export const SERVER_WORDING: Readonly<Partial<Record<NativeErrorCode, string>>> = Object.freeze({
  E_AUTH:
    'cursor-agent is not logged in. Run `cursor-agent login` as the user the server runs as, or start ' +
    'the server with CURSOR_API_KEY in its environment.',
})

/** A refusal with `code`, at the status the tables give it. */
export function refusalFor(code: CursorAcpErrorCode, message: string, retryAfter?: number): Refusal {
  const status =
    code in PROXY_ERROR_CODES ? PROXY_ERROR_CODES[code as ProxyErrorCode] : STATUS_OF_CODE[code as NativeErrorCode]
  return { status, code, message, ...(retryAfter === undefined ? {} : { retryAfter }) }
}

/** The refusal of a failure a turn reported before any output (its reset time, for `Retry-After`). */
export function refusalOf(error: Pick<RunError, 'code' | 'message' | 'resetsAt'>, now = Date.now()): Refusal {
  const message = SERVER_WORDING[error.code] ?? error.message
  const refusal: Refusal = { status: STATUS_OF_CODE[error.code] ?? 502, code: error.code, message }
  const seconds = error.resetsAt == null ? 0 : Math.ceil((error.resetsAt - now) / 1000)
  if (seconds > 0) refusal.retryAfter = seconds
  return refusal
}
