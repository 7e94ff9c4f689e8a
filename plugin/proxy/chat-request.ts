// The OpenAI chat request as the server reads it, in one schema: the fields a turn needs, each
// refusal naming its field.
import * as v from 'valibot'
import type { PromptMessage, ToolDefinition } from '../turn/native.js'
import type { TurnRequest } from '../turn/turn.js'
import type { Refusal } from './refusal.js'

const MODEL_NEEDED = '`model` must be a Cursor model id, e.g. "auto".'
const MESSAGES_NEEDED = '`messages` must be a non-empty array of message objects.'
const TOOLS_NEEDED = '`tools` must be an array of tool objects.'

/**
 * The fields of an OpenAI chat request the server reads; every other field is ignored. Each
 * refusal names its field.
 */
const CHAT_REQUEST = v.object(
  {
    model: v.pipe(
      v.string(MODEL_NEEDED),
      v.check((model) => model.trim() !== '', MODEL_NEEDED),
    ),
    messages: v.pipe(
      v.array(v.record(v.string(), v.unknown(), MESSAGES_NEEDED), MESSAGES_NEEDED),
      v.nonEmpty(MESSAGES_NEEDED),
    ),
    tools: v.nullish(v.array(v.record(v.string(), v.unknown(), TOOLS_NEEDED), TOOLS_NEEDED)),
    stream: v.nullish(v.boolean('`stream` must be true or false.')),
    stream_options: v.nullish(
      v.object(
        { include_usage: v.nullish(v.boolean('`stream_options.include_usage` must be true or false.')) },
        '`stream_options` must be an object.',
      ),
    ),
  },
  'The body must be a JSON object.',
)

/**
 * What a schema issue says: its own message, or for a field that is missing, which. (An object
 * reports a missing field as its own issue, with no value; a field of the wrong type has one.)
 */
export function refusalText(issue: v.BaseIssue<unknown>): string {
  const path = v.getDotPath(issue)
  const missing = issue.type === 'object' && issue.input === undefined && path !== null
  return missing ? `\`${path}\` is required.` : issue.message
}

/** The request body as a turn, or why not (400). */
export function readChatRequest(
  body: unknown,
): { request: TurnRequest; stream: boolean; includeUsage: boolean } | Refusal {
  const read = v.safeParse(CHAT_REQUEST, body)
  if (!read.success) return { status: 400, code: 'E_INVALID_ARG', message: refusalText(read.issues[0]) }
  const { model, messages, tools, stream, stream_options: options } = read.output
  const request: TurnRequest = { model, messages: messages as PromptMessage[] }
  if (tools != null && tools.length > 0) request.tools = tools as ToolDefinition[]
  return { request, stream: stream === true, includeUsage: options?.include_usage === true }
}
