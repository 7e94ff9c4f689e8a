// How a turn fails, the same for every front end: a code of the native API's error contract, the
// package's own message, and what cursor-agent itself printed. Each front end words it for its
// clients: the OpenCode provider as an error OpenCode does not retry, the OpenAI-compatible server
// as an OpenAI error object with an HTTP status.
import type { ErrorCode } from 'opencode-cursor-native'

/** A code of the native API's error contract, as the text a failure carries (`'E_AUTH'`). */
export type NativeErrorCode = `${ErrorCode}`

/** A failure as the native addon reports a run's (`RunError`), and as a turn reports its own. */
export interface TurnFailure {
  code: NativeErrorCode
  /** What happened, in the package's words. */
  message: string
  /** What cursor-agent itself printed about it, verbatim. */
  agentOutput?: string
}

/** An error thrown with a code of the native API, as the addon's own thrown errors carry one. */
export class CodedError extends Error {
  readonly code: NativeErrorCode

  constructor(code: NativeErrorCode, message: string) {
    super(message)
    this.name = 'CodedError'
    this.code = code
  }
}

/** Whether `value` is a code of the native API: its codes, and only they, begin with `E_`. */
export function isNativeErrorCode(value: unknown): value is NativeErrorCode {
  return typeof value === 'string' && value.startsWith('E_')
}

/**
 * Anything thrown or reported (a `RunError`, an `error` part's error, an addon error, any other
 * value) as a failure. Its code is kept when it is the native API's (`E_*`); otherwise, and for
 * a value that is no object, `fallbackCode` is used.
 */
export function failureOf(error: unknown, fallbackCode: NativeErrorCode = 'E_AGENT_EXIT'): TurnFailure {
  if (error === null || typeof error !== 'object') return { code: fallbackCode, message: String(error) }
  const { code, message, agentOutput } = error as Partial<Record<keyof TurnFailure, unknown>>
  const failure: TurnFailure = {
    code: isNativeErrorCode(code) ? code : fallbackCode,
    message: typeof message === 'string' && message !== '' ? message : String(error),
  }
  if (typeof agentOutput === 'string') failure.agentOutput = agentOutput
  return failure
}
