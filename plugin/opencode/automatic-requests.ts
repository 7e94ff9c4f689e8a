// The requests OpenCode makes by itself, not for a message of the user's: a compaction (a summary
// of the session, asked when the context looks full) and the continuation it sends after one
// ("Continue if you have next steps"). Each runs cursor-agent, so a host that misjudges the
// context's size compacts and continues in a loop and spends the user's quota: at most one of
// each is let through per message of the user's, whatever the host does.
import type { LanguageModelV3Prompt } from '@ai-sdk/provider'

/** What OpenCode asks by itself. */
export type AutomaticRequest = 'compaction' | 'continuation'

/** How one kind of automatic request is recognised, and which host version sends it that way. */
export interface AutomaticRequestShape {
  kind: AutomaticRequest
  /** The OpenCode version whose source this shape was read from. */
  host: string
  /** Whether `text`, the request's last user message, is this request. */
  matches(text: string, request: { messages: number; hasTools: boolean }): boolean
}

/**
 * OpenCode 1.18.33: a compaction is one user message (after the summarising agent's system
 * prompt, with no tools) that quotes the conversation and asks for an "anchored summary", or folds
 * a previous summary into a new one; the
 * continuation is a synthetic user message ending with the sentence below (after a note on
 * dropped attachments when the compaction followed an oversized request).
 */
export const AUTOMATIC_REQUESTS: readonly AutomaticRequestShape[] = Object.freeze([
  {
    kind: 'compaction',
    host: 'opencode 1.18.33',
    matches: (text, request) =>
      request.messages === 1 &&
      !request.hasTools &&
      text.startsWith('Here is the conversation so far:') &&
      text.includes('<conversation>') &&
      (text.includes('Create a new anchored summary from the conversation history') ||
        text.includes('<prior-summary>')),
  },
  {
    kind: 'continuation',
    host: 'opencode 1.18.33',
    matches: (text) =>
      text
        .trimEnd()
        .endsWith(
          'Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed.',
        ),
  },
])

/** The text of the prompt's last message when the user sent it (a tool result's step has none). */
function lastUserText(prompt: LanguageModelV3Prompt): string | null {
  const last = prompt.at(-1)
  if (last?.role !== 'user') return null
  return last.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n')
}

/**
 * What a request is: an automatic one of `AUTOMATIC_REQUESTS`, a message of the user's
 * (`'user'`), or a step of the agent loop that continues one (`null`: tool results).
 */
export function requestKind(prompt: LanguageModelV3Prompt, hasTools: boolean): AutomaticRequest | 'user' | null {
  const text = lastUserText(prompt)
  if (text === null) return null
  const request = { messages: prompt.filter((message) => message.role !== 'system').length, hasTools }
  return AUTOMATIC_REQUESTS.find((shape) => shape.matches(text, request))?.kind ?? 'user'
}

/** How many automatic requests of each kind one message of the user's may cause. */
export const AUTOMATIC_REQUEST_LIMIT: Readonly<Record<AutomaticRequest, number>> = Object.freeze({
  compaction: 1,
  continuation: 1,
})

/** Sessions remembered at most; the oldest is forgotten first. */
const SESSIONS_KEPT = 1_000

type Counts = Record<AutomaticRequest, number>

// One table per process, whichever copy of this module OpenCode loaded (the plugin and the
// provider module are imported separately).
const COUNTS = Symbol.for('opencode-cursor-native.automatic-requests')
const globals = globalThis as unknown as Record<symbol, Map<string, Counts> | undefined>

function counts(): Map<string, Counts> {
  globals[COUNTS] ??= new Map()
  return globals[COUNTS]
}

/**
 * Counts a request against its session's limits: a message of the user's starts the count again,
 * a tool result's step is never counted. Returns the kind that is over its limit (the request is
 * then refused without running cursor-agent), or `null` when the request may run.
 */
export function admitRequest(
  sessionId: string | undefined,
  kind: AutomaticRequest | 'user' | null,
): AutomaticRequest | null {
  const sessions = counts()
  const key = sessionId ?? ''
  if (kind === null) return null
  if (kind === 'user') {
    sessions.delete(key)
    sessions.set(key, { compaction: 0, continuation: 0 })
  } else {
    const seen = sessions.get(key) ?? { compaction: 0, continuation: 0 }
    if (seen[kind] >= AUTOMATIC_REQUEST_LIMIT[kind]) return kind
    seen[kind] += 1
    sessions.delete(key)
    sessions.set(key, seen)
  }
  if (sessions.size > SESSIONS_KEPT) {
    const oldest = sessions.keys().next().value
    if (oldest !== undefined) sessions.delete(oldest)
  }
  return null
}

/** The refusal's words: what was refused, the bound, and what the user can do. */
export function refusalMessage(kind: AutomaticRequest): string {
  const what = kind === 'compaction' ? 'an automatic compaction' : 'an automatic continuation'
  return (
    `OpenCode asked for ${what} again before your next message; opencode-cursor-native lets through ` +
    `${AUTOMATIC_REQUEST_LIMIT[kind]} per message so that a loop cannot spend your Cursor quota. ` +
    'Send a message to go on.'
  )
}

// The automatic requests a host announced before sending them (OpenCode 2 runs a `compaction`
// hook ahead of its compaction request, whose words this package has not read), by session.
const ANNOUNCED = Symbol.for('opencode-cursor-native.announced-requests')
const announcements = globalThis as unknown as Record<symbol, Map<string, AutomaticRequest> | undefined>

/** Marks the session's next request as `kind`, whatever its words. */
export function announceRequest(sessionId: string, kind: AutomaticRequest): void {
  announcements[ANNOUNCED] ??= new Map()
  const announced = announcements[ANNOUNCED]
  announced.delete(sessionId)
  announced.set(sessionId, kind)
  if (announced.size > SESSIONS_KEPT) {
    const oldest = announced.keys().next().value
    if (oldest !== undefined) announced.delete(oldest)
  }
}

/** The kind announced for the session's next request, once: taking it forgets it. */
export function takeAnnouncedRequest(sessionId: string | undefined): AutomaticRequest | undefined {
  const announced = announcements[ANNOUNCED]
  if (sessionId === undefined || announced === undefined) return undefined
  const kind = announced.get(sessionId)
  announced.delete(sessionId)
  return kind
}
