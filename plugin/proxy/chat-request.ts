// The OpenAI chat request as the server reads it, in one schema: the fields a turn needs, each
// refusal naming its field.
import * as v from 'valibot'
import type { PromptMessage, ToolDefinition } from '../turn/native.js'
import type { TurnRequest } from '../turn/turn.js'
import type { Refusal } from './refusal.js'

const MODEL_NEEDED = '`model` must be a Cursor model id, e.g. "auto".'
/** Cursor's model ids are short; a longer `model` is no id, and is refused before it reaches a command line. */
export const MODEL_MAX_CHARS = 256
const MODEL_TOO_LONG = `\`model\` must be at most ${MODEL_MAX_CHARS} characters.`
const MESSAGES_NEEDED = '`messages` must be a non-empty array of message objects.'
const TOOLS_NEEDED = '`tools` must be an array of tool objects.'
/** The roles a message may have (OpenAI's, and the older `function`). */
const ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const

/** The field an issue is about, as a client writes it: `messages[2].content`. */
function fieldOf(issue: v.BaseIssue<unknown>): string {
  return (v.getDotPath(issue) ?? '').replace(/\.(\d+)(?=\.|$)/g, '[$1]')
}

/** Stands for the field's path in a refusal; filled in once the issue knows its path. */
const FIELD = '{field}'
/** A refusal naming the field it is about, wherever in the request it stands. */
export const named = (rule: string): string => `\`${FIELD}\` ${rule}`

/** `model`, the same in every API's request: a Cursor model id. */
export const MODEL = v.pipe(
  v.string(MODEL_NEEDED),
  v.check((model) => model.trim() !== '', MODEL_NEEDED),
  v.maxLength(MODEL_MAX_CHARS, MODEL_TOO_LONG),
)

/** `stream`, the same in every API's request. */
export const STREAM = v.nullish(v.boolean('`stream` must be true or false.'))

/** `tools`, as an API other than Chat Completions lists them: objects that each have `key`. */
export function toolList(key: 'name' | 'type') {
  return v.nullish(
    v.array(
      v.looseObject({ [key]: v.string(named('must be a string.')) }, named('must be a tool object.')),
      TOOLS_NEEDED,
    ),
  )
}

/** The first issue of a schema's refusal, as a 400. */
export function invalid(issues: [v.BaseIssue<unknown>, ...v.BaseIssue<unknown>[]]): Refusal {
  return { status: 400, code: 'E_INVALID_ARG', message: refusalText(issues[0]) }
}

/** One message: the fields every message's parsing reads, each of the right kind. */
const MESSAGE = v.looseObject(
  {
    role: v.picklist(ROLES, named(`must be one of ${ROLES.join(', ')}.`)),
    content: v.nullish(
      v.union(
        [
          v.string(),
          v.array(v.looseObject({ type: v.string(named('must be a string.')) }, named('must be an object.'))),
        ],
        named('must be a string, an array of parts or null.'),
      ),
    ),
    tool_calls: v.nullish(
      v.array(
        v.looseObject(
          { function: v.looseObject({ name: v.string(named('must be a string.')) }, named('must be an object.')) },
          named('must be an object.'),
        ),
        named('must be an array.'),
      ),
    ),
    tool_call_id: v.nullish(v.string(named('must be a string.'))),
  },
  named('must be a message object.'),
)

/**
 * The fields of an OpenAI chat request the server reads; every other field is ignored. Each
 * refusal names its field.
 */
const CHAT_REQUEST = v.object(
  {
    model: MODEL,
    messages: v.pipe(v.array(MESSAGE, MESSAGES_NEEDED), v.nonEmpty(MESSAGES_NEEDED)),
    tools: v.nullish(v.array(v.record(v.string(), v.unknown(), TOOLS_NEEDED), TOOLS_NEEDED)),
    stream: STREAM,
    stream_options: v.nullish(
      v.pipe(
        v.custom<Record<string, unknown>>(
          (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
          '`stream_options` must be an object.',
        ),
        v.looseObject({
          include_usage: v.nullish(v.boolean('`stream_options.include_usage` must be true or false.')),
        }),
      ),
    ),
    // One choice per request: the server runs one agent for it, so asking for more is refused.
    n: v.nullish(v.literal(1, '`n` must be 1: the server answers with one choice.')),
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
  return missing ? `\`${fieldOf(issue)}\` is required.` : issue.message.replace(FIELD, fieldOf(issue))
}

/** The request body as a turn, or why not (400). */
export function readChatRequest(
  body: unknown,
): { request: TurnRequest; stream: boolean; includeUsage: boolean } | Refusal {
  const read = v.safeParse(CHAT_REQUEST, body)
  if (!read.success) return invalid(read.issues)
  const { model, messages, tools, stream, stream_options: options } = read.output
  const request: TurnRequest = { model, messages: messages as PromptMessage[] }
  if (tools != null && tools.length > 0) request.tools = tools as ToolDefinition[]
  return { request, stream: stream === true, includeUsage: options?.include_usage === true }
}
