// `POST /v1/messages/count_tokens`: the input tokens of a Messages request by the estimate the
// OpenCode provider reports as the context's size (Cursor's base, plus the conversation's UTF-8
// bytes ÷ 4, a picture at a fixed cost, the tool definitions included).
import { IMAGE_BYTES, inputTokensOf, jsonBytes, utf8Bytes } from '../../turn/context-estimate.js'
import type { Refusal } from '../refusal.js'
import { readBy } from '../request-fields.js'
import { MESSAGES_REQUEST, resultText, systemText } from './request.js'

export function countTokens(body: unknown): { answer: { input_tokens: number } } | Refusal {
  const read = readBy(MESSAGES_REQUEST, body)
  if ('status' in read) return read
  let bytes = utf8Bytes(systemText(read.system) ?? '') + jsonBytes(read.tools ?? undefined)
  for (const message of read.messages) {
    if (typeof message.content === 'string') {
      bytes += utf8Bytes(message.content)
      continue
    }
    for (const block of message.content) {
      if (block.type === 'text') bytes += utf8Bytes(block.text)
      else if (block.type === 'image') bytes += IMAGE_BYTES
      else if (block.type === 'tool_use') bytes += utf8Bytes(block.name) + jsonBytes(block.input)
      else if (block.type === 'tool_result') bytes += utf8Bytes(resultText(block.content))
      else if (block.type === 'thinking') bytes += utf8Bytes(block.thinking ?? '')
    }
  }
  return { answer: { input_tokens: inputTokensOf(bytes) } }
}
