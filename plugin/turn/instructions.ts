// The host's system prompt through Cursor's rules channel. Cursor's models have refused a host's
// system prompt sent as message text ("prompt injection"), and take the same text as a rule of the
// user's. In the conversation's private folder (tool mode `opencode`, and a request answered on its
// own) the bridge writes it as an always-apply rule of the private workspace, which cursor-agent
// loads on every run; the prompt text keeps the conversation only. In the user's repository
// (tool mode `cursor`) nothing may be written, so the system prompt stays in the prompt text.
import type { PromptMessage } from './native.js'

export interface SplitPrompt {
  /** The system messages' text, joined by a blank line; absent when there is none to move. */
  instructions?: string
  /** The other messages, in order. */
  conversation: PromptMessage[]
}

/** The text of a system message: a string, or text parts only (OpenAI); otherwise `undefined`. */
function systemText(message: PromptMessage): string | undefined {
  const { content } = message
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return undefined
  const texts = content.map((part) =>
    typeof part === 'object' && part !== null && (part as { type?: unknown }).type === 'text'
      ? (part as { text?: unknown }).text
      : undefined,
  )
  return texts.every((text) => typeof text === 'string') ? texts.join('') : undefined
}

/**
 * The system messages taken out of `messages` as instructions. Messages are left whole when a
 * system message holds anything but text, or when none is there.
 */
export function splitInstructions(messages: PromptMessage[]): SplitPrompt {
  const texts: string[] = []
  const conversation: PromptMessage[] = []
  for (const message of messages) {
    if (message.role !== 'system') {
      conversation.push(message)
      continue
    }
    const text = systemText(message)
    if (text === undefined) return { conversation: messages }
    texts.push(text)
  }
  const instructions = texts.filter((text) => text.trim() !== '').join('\n\n')
  return instructions === '' ? { conversation: messages } : { instructions, conversation }
}
