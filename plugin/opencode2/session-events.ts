// The OpenCode 2 events this host reads: the ones that say a session's execution is over or the
// session is gone, so that a run held for that session's tool results is cancelled. OpenCode 2
// puts an event's payload under `data` (1.18: `properties`) and has no `session.idle`
// (`packages/schema/src/session-event.ts` at 2.0.26). Read in one schema, so that an event of
// another shape is told apart from the many events this host has no use for.
import * as v from 'valibot'
import type { SessionEventReading } from '../opencode/session-events.js'

const SESSION = v.object({ sessionID: v.string() })

/** The events that end a session's execution, with the fields read. */
const SESSION_EVENT = v.variant('type', [
  v.object({ type: v.literal('session.execution.succeeded'), data: SESSION }),
  v.object({ type: v.literal('session.execution.failed'), data: SESSION }),
  v.object({ type: v.literal('session.execution.interrupted'), data: SESSION }),
  v.object({ type: v.literal('session.deleted'), data: SESSION }),
])

/** The events that also stop the session's run in progress: the user interrupted, or deleted it. */
const INTERRUPTING: ReadonlySet<string> = new Set(['session.execution.interrupted', 'session.deleted'])

const READ_TYPES: ReadonlySet<string> = new Set(SESSION_EVENT.options.map((option) => option.entries.type.literal))

export function readSessionEvent(event: unknown): SessionEventReading {
  const type = typeof event === 'object' && event !== null ? (event as { type?: unknown }).type : undefined
  if (typeof type !== 'string' || !READ_TYPES.has(type)) return { kind: 'ignored' }
  const read = v.safeParse(SESSION_EVENT, event)
  if (!read.success) return { kind: 'malformed', field: v.getDotPath(read.issues[0]) ?? 'event' }
  const kind = INTERRUPTING.has(read.output.type) ? 'interrupted' : 'stopped'
  return { kind, sessionID: read.output.data.sessionID }
}
