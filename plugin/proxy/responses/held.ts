// The conversations the server holds for `previous_response_id`: the last responses (not those with
// `store: false`), in memory for an hour, as the session-resume cache holds its chats.
import type { PromptMessage } from '../../turn/native.js'

/** A conversation the server holds for `previous_response_id`. */
export interface HeldResponse {
  messages: PromptMessage[]
  /** The conversation it was served in; none where its history names it. */
  conversationId: string | undefined
  at: number
  /** What it takes of a body's limits: its requests' bodies and replies, and their parts. */
  bytes: number
  parts: number
  /** A request continued it: another continuation of it is a branch, a conversation of its own. */
  continued: boolean
}

/** How many responses are held, and for how long. */
export const HELD_RESPONSES = 256
export const HELD_RESPONSE_MS = 60 * 60 * 1000
const held = new Map<string, HeldResponse>()

export function hold(id: string, response: HeldResponse): void {
  held.delete(id)
  held.set(id, response)
  while (held.size > HELD_RESPONSES) held.delete(held.keys().next().value as string)
}

export function heldResponse(id: string, now = Date.now()): HeldResponse | undefined {
  const found = held.get(id)
  if (found === undefined || now - found.at > HELD_RESPONSE_MS) {
    held.delete(id)
    return undefined
  }
  return found
}
