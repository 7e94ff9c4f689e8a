// Session titles are derived locally: OpenCode asks for one on every new session, and a whole
// cursor-agent run for it would cost seconds and quota.
import type { PromptMessage } from './native.js'

export const TITLE_MAX_CHARS = 50
const FALLBACK_TITLE = 'New session'

function messageText(message: PromptMessage): string {
  const { content } = message as { content?: unknown }
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content
    .map((part: { type?: unknown; text?: unknown }) =>
      part?.type === 'text' && typeof part.text === 'string' ? part.text : '',
    )
    .join(' ')
}

/**
 * The title for a title request: the first line of the conversation's user text (OpenCode sends
 * it as the last user message), whitespace collapsed, surrounding quotes removed, cut at a word
 * boundary to at most 50 characters.
 */
export function localTitle(messages: readonly PromptMessage[]): string {
  const users = messages.filter((message) => message.role === 'user')
  const source = users.length > 0 ? messageText(users[users.length - 1] as PromptMessage) : ''
  const line =
    source
      .split(/\r?\n/)
      .map((part) => part.trim())
      .find((part) => part !== '') ?? ''
  let title = line
    .replace(/\s+/g, ' ')
    .replace(/^["'`]+|["'`]+$/g, '')
    .trim()
  if ([...title].length > TITLE_MAX_CHARS) {
    const characters = [...title].slice(0, TITLE_MAX_CHARS)
    const cut = characters.join('')
    const space = cut.lastIndexOf(' ')
    title = (space >= TITLE_MAX_CHARS / 2 ? cut.slice(0, space) : cut).trim()
  }
  return title === '' ? FALLBACK_TITLE : title
}
