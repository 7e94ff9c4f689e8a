import { APICallError } from '@ai-sdk/provider'
import type { ErrorCode } from 'opencode-cursor-native'

/** A code of the native API's error contract, as the text a failure carries (`'E_AUTH'`). */
export type NativeErrorCode = `${ErrorCode}`

/**
 * Phrases OpenCode (1.18) takes as a transient provider fault wherever they occur in an error's
 * message, even in an error marked not retryable: it then reruns the request about six times over
 * a minute. Cursor's own output often holds them ("fetch failed", "HTTP 500", "rate limit"), so
 * it is quoted in a message only when none matches; the package's own explanations avoid them.
 */
const OPENCODE_RETRIES_ON: readonly RegExp[] = [
  /429|500|502|503|504|524/i,
  /rate increased too quickly|rate[-_ ]limit|too many requests|too_many_requests/i,
  /overloaded|unavailable|internal[-_ ]error|server[-_ ]error|provider[-_ ]returned[-_ ]error/i,
  /terminated|fetch failed|failed to fetch|network[-_\s]error|upstream connect|connection (?:error|refused|lost)/i,
  /socket connection was closed|socket hang up|reset before headers|getaddrinfo|enotfound|eai_again|econnrefused|econnreset|etimedout/i,
  /^timeout$|\b(?:request|response|connection|network|stream|read) (?:timeout|timed out|time out)\b/i,
  /try your request again|retry your request|exhausted/i,
  /\btry again (?:later|in\b)|\b(?:currently|temporarily) at capacity\b/i,
]

/** Whether OpenCode would take `text`, anywhere in an error message, as a reason to retry. */
export function readsAsTransient(text: string): boolean {
  return OPENCODE_RETRIES_ON.some((pattern) => pattern.test(text))
}

/** A run failure as the native addon reports it (`RunError`). */
export interface FailureReport {
  code: string
  message: string
  agentOutput?: string | null
}

/**
 * A failure with a stable code (`ErrorCode`) that OpenCode must not retry: an AI SDK
 * `APICallError` marked not retryable, with no status code, whose message reads like no transient
 * fault. OpenCode shows only the message, so it ends with the code (`... [E_AUTH]`), which the
 * README's troubleshooting table is keyed by. What cursor-agent printed is in `agentOutput`, and in
 * the message too when quoting it cannot make OpenCode retry.
 */
export class CursorAcpError extends APICallError {
  readonly code: NativeErrorCode
  readonly agentOutput: string | undefined

  constructor(code: NativeErrorCode, message: string, agentOutput?: string | null) {
    const said = agentOutput?.trim() || undefined
    const quoted = said !== undefined && !readsAsTransient(said) ? ` cursor-agent said: ${said}` : ''
    const withCode = message.endsWith(`[${code}]`) ? message : `${message}${quoted} [${code}]`
    super({
      message: withCode,
      url: 'cursor-agent',
      requestBodyValues: {},
      isRetryable: false,
      data: { code, agentOutput: said },
    })
    this.code = code
    this.agentOutput = said
  }
}

/** A `{code, message, agentOutput?}` object (or anything thrown) as a `CursorAcpError`. */
export function toCursorAcpError(error: unknown, fallbackCode: NativeErrorCode = 'E_AGENT_EXIT'): CursorAcpError {
  if (error instanceof CursorAcpError) return error
  if (error !== null && typeof error === 'object') {
    const { code, message, agentOutput } = error as Partial<Record<keyof FailureReport, unknown>>
    const text = typeof message === 'string' && message !== '' ? message : String(error)
    const said = typeof agentOutput === 'string' ? agentOutput : undefined
    // A code is the native API's (`RunError.code`, an `error` part's), or none.
    const known = typeof code === 'string' && code.startsWith('E_') ? (code as NativeErrorCode) : fallbackCode
    return new CursorAcpError(known, text, said)
  }
  return new CursorAcpError(fallbackCode, String(error))
}
