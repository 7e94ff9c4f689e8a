// The OpenCode events the plugin's `event` hook reads: the ones that say a session stopped, so that
// a run held for that session's tool results is cancelled. They are read here, in one schema, so
// that an event of another shape (another OpenCode version) is told apart from the many events
// the hook has no use for.
import * as v from 'valibot'

/** The events that stop a session, with the fields the hook reads (as OpenCode 1.18's SDK types them). */
const SESSION_EVENT = v.variant('type', [
  v.object({ type: v.literal('session.idle'), properties: v.object({ sessionID: v.string() }) }),
  // OpenCode names no session for an error outside one.
  v.object({ type: v.literal('session.error'), properties: v.object({ sessionID: v.optional(v.string()) }) }),
  v.object({
    type: v.literal('session.status'),
    properties: v.object({ sessionID: v.string(), status: v.object({ type: v.string() }) }),
  }),
  v.object({ type: v.literal('session.deleted'), properties: v.object({ info: v.object({ id: v.string() }) }) }),
])

const READ_TYPES: ReadonlySet<string> = new Set(SESSION_EVENT.options.map((option) => option.entries.type.literal))

/**
 * What an event tells the hook: a session stopped (idle, an error, deleted), nothing it acts on
 * (another event, a busy status, an error outside a session), or a field of an event it reads is
 * not of the shape it reads (`field` is its path, e.g. `properties.sessionID`).
 */
export type SessionEventReading =
  | { kind: 'stopped'; sessionID: string }
  /** The session's run in progress stops too (OpenCode 2: interrupted, deleted). */
  | { kind: 'interrupted'; sessionID: string }
  | { kind: 'ignored' }
  | { kind: 'malformed'; field: string }

export function readSessionEvent(event: unknown): SessionEventReading {
  const type = typeof event === 'object' && event !== null ? (event as { type?: unknown }).type : undefined
  if (typeof type === 'string' && !READ_TYPES.has(type)) return { kind: 'ignored' }
  const read = v.safeParse(SESSION_EVENT, event)
  if (!read.success) return { kind: 'malformed', field: v.getDotPath(read.issues[0]) ?? 'event' }
  const { output } = read
  let sessionID: string | undefined
  if (output.type === 'session.deleted') sessionID = output.properties.info.id
  else if (output.type === 'session.status')
    sessionID = output.properties.status.type === 'idle' ? output.properties.sessionID : undefined
  else sessionID = output.properties.sessionID
  return sessionID === undefined ? { kind: 'ignored' } : { kind: 'stopped', sessionID }
}
