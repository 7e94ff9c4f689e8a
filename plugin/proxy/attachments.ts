// Pictures and files a client of the server attaches. They take the provider's route (saved for
// the run where Cursor's Read tool opens them) only when their bytes are in the request: the
// server fetches nothing, and never reads a path a client names on the machine it runs on.
import type { PromptMessage } from '../turn/native.js'
import type { Refusal } from './refusal.js'

/** The location an attachment part names instead of carrying its bytes, if it does. */
function namedLocation(part: Record<string, unknown>): string | undefined {
  if (part.type === 'image_url') {
    const inner = part.image_url
    const url = typeof inner === 'string' ? inner : (inner as Record<string, unknown> | undefined)?.url
    return typeof url === 'string' && !/^data:/i.test(url) ? url : undefined
  }
  if (part.type === 'file') {
    const data = (part.file as Record<string, unknown> | undefined)?.file_data
    return typeof data === 'string' && /^[a-z][a-z0-9+.-]*:/i.test(data) && !/^data:/i.test(data) ? data : undefined
  }
  return undefined
}

/**
 * A 400 for a request whose attachment names a URL or a path instead of carrying its bytes;
 * `null` when every attachment carries them (a `data:` URL, or base64).
 */
export function remoteAttachment(messages: readonly PromptMessage[]): Refusal | null {
  for (const message of messages) {
    const content = (message as { content?: unknown }).content
    if (!Array.isArray(content)) continue
    for (const part of content) {
      if (typeof part !== 'object' || part === null) continue
      const location = namedLocation(part as Record<string, unknown>)
      if (location === undefined) continue
      const shown = location.length > 200 ? `${location.slice(0, 200)}…` : location
      return {
        status: 400,
        code: 'E_INVALID_ARG',
        message: `An attachment names ${JSON.stringify(shown)}, but this server fetches nothing: send its bytes instead, as a data URL (data:image/png;base64,...).`,
      }
    }
  }
  return null
}
