// The Cursor mode a request of any API picks, as other Cursor proxies' clients pick it: a `mode`
// field in the body, else an `X-Cursor-Mode` header. The command line each mode makes is the
// addon's (`RunCursorAgentOptions.mode`).
import type { IncomingHttpHeaders } from 'node:http'
import { CURSOR_MODES, type CursorMode } from '../turn/mode.js'
import { type Refusal, refusalFor } from './refusal.js'

/** The header a client may name the mode in, as Node reads it (lower case). */
export const MODE_HEADER = 'x-cursor-mode'

const isMode = (value: unknown): value is CursorMode => (CURSOR_MODES as readonly unknown[]).includes(value)

const refused = (field: string): Refusal =>
  refusalFor('E_INVALID_ARG', `${field} must be one of ${CURSOR_MODES.map((mode) => `"${mode}"`).join(', ')}.`)

/**
 * The mode the body's `mode` names, else the header's; `undefined` when neither names one (Cursor's
 * default, `agent`). A value that is not a mode is refused, naming where it was; the body's field
 * wins over the header, which is then not read.
 */
export function requestedMode(body: unknown, headers: IncomingHttpHeaders): CursorMode | undefined | Refusal {
  const field = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).mode : undefined
  if (field !== undefined && field !== null) return isMode(field) ? field : refused('`mode`')
  const header = headers[MODE_HEADER]
  if (header === undefined) return undefined
  const value = Array.isArray(header) ? header.join(', ') : header.trim()
  return isMode(value) ? value : refused('The `X-Cursor-Mode` header')
}
