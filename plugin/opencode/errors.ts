// The error the OpenCode provider hands OpenCode for a turn's failure, worded so that OpenCode
// does not retry it.
import { APICallError } from '@ai-sdk/provider'
import { failureOf, type NativeErrorCode } from '../turn/failure.js'

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

/**
 * The codes only the OpenCode provider reports, each a refusal that starts no cursor-agent: the
 * native API's `ErrorCode` covers every failure of a run.
 */
export const OPENCODE_ERROR_CODES = Object.freeze({
  /** OpenCode asked for a second automatic compaction or continuation before the user's next message. */
  E_AUTOMATIC_LIMIT: 'E_AUTOMATIC_LIMIT',
} as const)

/** A refusal of the OpenCode provider's own (see {@link OPENCODE_ERROR_CODES}). */
export type OpenCodeErrorCode = keyof typeof OPENCODE_ERROR_CODES

/** Every `code` a `CursorAcpError` carries: a run's (`ErrorCode`) or the provider's own. */
export type CursorAcpErrorCode = NativeErrorCode | OpenCodeErrorCode

/** Whether OpenCode would take `text`, anywhere in an error message, as a reason to retry. */
export function readsAsTransient(text: string): boolean {
  return OPENCODE_RETRIES_ON.some((pattern) => pattern.test(text))
}

/**
 * How OpenCode's users are told of a failure where the package's own words (those of the native
 * API, for any host) do not fit OpenCode: the ways to log in that OpenCode offers.
 */
export const OPENCODE_WORDING: Readonly<Partial<Record<CursorAcpErrorCode, string>>> = Object.freeze({
  E_AUTH:
    'cursor-agent is not logged in. Run `cursor-agent login` in a terminal, or `opencode auth login` and ' +
    "give Cursor (cursor-acp) an API key from Cursor's dashboard, or set CURSOR_API_KEY in the environment " +
    'OpenCode runs in; then send your message again.',
})

/**
 * Codes whose Cursor output is never quoted in the message: Cursor's diagnostic lines for a usage
 * limit (`spendLimitHit: false`, `spendLimits: [...]`) explain nothing to a user, and the
 * package's message already says when the limit resets. They stay in `agentOutput` and the log.
 */
const NEVER_QUOTED: ReadonlySet<CursorAcpErrorCode> = new Set(['E_QUOTA'])

/**
 * A failure with a stable code (`ErrorCode`) that OpenCode must not retry: an AI SDK
 * `APICallError` marked not retryable, with no status code, whose message reads like no transient
 * fault. OpenCode shows only the message, so it ends with the code (`... [E_AUTH]`), which the
 * table of docs/troubleshooting.md is keyed by. What cursor-agent printed is in `agentOutput`, and in
 * the message too when quoting it cannot make OpenCode retry.
 */
export class CursorAcpError extends APICallError {
  readonly code: CursorAcpErrorCode
  readonly agentOutput: string | undefined

  constructor(code: CursorAcpErrorCode, message: string, agentOutput?: string | null) {
    const said = agentOutput?.trim() || undefined
    const quotable = said !== undefined && !readsAsTransient(said) && !NEVER_QUOTED.has(code)
    const quoted = quotable ? ` cursor-agent said: ${said}` : ''
    const words = OPENCODE_WORDING[code] ?? message
    const withCode = words.endsWith(`[${code}]`) ? words : `${words}${quoted} [${code}]`
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

/** A turn's failure (`{code, message, agentOutput?}`), or anything thrown, as a `CursorAcpError`. */
export function toCursorAcpError(error: unknown, fallbackCode: NativeErrorCode = 'E_AGENT_EXIT'): CursorAcpError {
  if (error instanceof CursorAcpError) return error
  const { code, message, agentOutput } = failureOf(error, fallbackCode)
  return new CursorAcpError(code, message, agentOutput)
}
