/**
 * A failure with a stable code (`ErrorCode`) that OpenCode must not retry. OpenCode
 * shows only the message, so the message ends with the code (`... [E_AUTH]`), which the README's
 * troubleshooting table is keyed by.
 */
export class CursorAcpError extends Error {
  readonly code: string
  /** Read by the AI SDK and OpenCode: these failures do not go away by asking again. */
  readonly isRetryable = false

  constructor(code: string, message: string) {
    super(message.endsWith(`[${code}]`) ? message : `${message} [${code}]`)
    this.name = 'CursorAcpError'
    this.code = code
  }
}

/** A `{code, message}` object (or anything thrown) as a `CursorAcpError`. */
export function toCursorAcpError(error: unknown, fallbackCode = 'E_AGENT_EXIT'): CursorAcpError {
  if (error instanceof CursorAcpError) return error
  if (error !== null && typeof error === 'object') {
    const { code, message } = error as { code?: unknown; message?: unknown }
    const text = typeof message === 'string' && message !== '' ? message : String(error)
    return new CursorAcpError(typeof code === 'string' && code.startsWith('E_') ? code : fallbackCode, text)
  }
  return new CursorAcpError(fallbackCode, String(error))
}
