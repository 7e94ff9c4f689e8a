// What every API's request reader shares: its common fields (`model`, `stream`, ...), the body read
// by a schema into a refusal that names its field, and a tool call as the prompt reads it.
import * as v from 'valibot'
import { type Refusal, refusalFor } from './refusal.js'

const MODEL_NEEDED = '`model` must be a Cursor model id, e.g. "auto".'
/** Cursor's model ids are short; a longer `model` is no id, and is refused before it reaches a command line. */
export const MODEL_MAX_CHARS = 256
const MODEL_TOO_LONG = `\`model\` must be at most ${MODEL_MAX_CHARS} characters.`
const MESSAGES_NEEDED = '`messages` must be a non-empty array of message objects.'
export const TOOLS_NEEDED = '`tools` must be an array of tool objects.'
/** The refusal of a body that is not an object, in every API. */
export const BODY_NEEDED = 'The body must be a JSON object.'

/** The field an issue is about, as a client writes it: `messages[2].content`. */
function fieldOf(issue: v.BaseIssue<unknown>): string {
  return (v.getDotPath(issue) ?? '').replace(/\.(\d+)(?=\.|$)/g, '[$1]')
}

/** Stands for the field's path in a refusal; filled in once the issue knows its path. */
const FIELD = '{field}'
/** A refusal naming the field it is about, wherever in the request it stands. */
export const named = (rule: string): string => `\`${FIELD}\` ${rule}`

/** A field that must be a string, each refusal naming it. */
const STRING_FIELD = v.string(named('must be a string.'))

/** `model`, the same in every API's request: a Cursor model id. */
export const MODEL = v.pipe(
  v.string(MODEL_NEEDED),
  v.check((model) => model.trim() !== '', MODEL_NEEDED),
  v.maxLength(MODEL_MAX_CHARS, MODEL_TOO_LONG),
)

/** A reasoning effort (`low`, `high`, `xhigh`, ...), as each API names its field. */
export const effortField = (field: string) => v.nullish(v.string(`\`${field}\` must be a string.`))

/** An object of settings that holds the effort (Responses' `reasoning`, Messages' `output_config`). */
export const effortObject = (field: string) =>
  v.nullish(v.looseObject({ effort: effortField(`${field}.effort`) }, `\`${field}\` must be an object.`))

/** `stream`, the same in every API's request. */
export const STREAM = v.nullish(v.boolean('`stream` must be true or false.'))

/** `messages`: a non-empty array, each item read by `message`. */
export function messageList<M extends v.GenericSchema>(message: M) {
  return v.pipe(v.array(message, MESSAGES_NEEDED), v.nonEmpty(MESSAGES_NEEDED))
}

/** `tools`, as an API other than Chat Completions lists them: objects that each have `key`. */
export function toolList(key: 'name' | 'type') {
  return v.nullish(v.array(v.looseObject({ [key]: STRING_FIELD }, named('must be a tool object.')), TOOLS_NEEDED))
}

/** A message's content as an array of parts, each an object naming its `type`. */
export const TYPED_PARTS = v.array(v.looseObject({ type: STRING_FIELD }, named('must be an object.')))

/**
 * What a schema issue says: a union's, that of the option that reached a field of its own; its own
 * message, or for a field that is missing (an object or a variant reports it with no value), which.
 */
export function refusalText(issue: v.BaseIssue<unknown>): string {
  const inner = issue.type === 'union' ? issue.issues?.find((nested) => nested.path !== undefined) : undefined
  if (inner?.path !== undefined) return refusalText({ ...inner, path: [...(issue.path ?? []), ...inner.path] })
  const path = v.getDotPath(issue)
  const missing = /object|variant/.test(issue.type) && issue.input === undefined && path !== null
  return missing ? `\`${fieldOf(issue)}\` is required.` : issue.message.replace(FIELD, fieldOf(issue))
}

/** Messages, content parts, tool calls and tools in one request: the addon reads each while every client waits. */
export const MAX_PARTS = 10_000

/** How many of those `body` holds in `list` and `tools`, counted before anything reads them. */
export function partCount(body: unknown, list: string): number {
  const { [list]: items, tools } = (body ?? {}) as Record<string, unknown>
  const inner = Array.isArray(items) ? items.flatMap((item) => [item?.content, item?.tool_calls]) : []
  return [items, tools, ...inner].reduce((count: number, parts) => count + (Array.isArray(parts) ? parts.length : 0), 0)
}

/** What a request takes of the server's limits: bytes (at most `maxBytes`) and parts ({@link partCount}). */
export type BodySize = Record<'bytes' | 'maxBytes' | 'parts', number>

/** Why `size`, of the fields `what`, is past the server's limits, or `undefined`. */
export function pastLimits(what: string, { bytes, maxBytes, parts }: BodySize): Refusal | undefined {
  const [counted, most] = [parts, MAX_PARTS].map((number) => number.toLocaleString('en'))
  if (parts > MAX_PARTS)
    return refusalFor('E_INVALID_ARG', `${what}: ${counted} messages, content parts and tools, over ${most}.`)
  if (bytes > maxBytes)
    return refusalFor('E_PAYLOAD_TOO_LARGE', `${what}: ${bytes} bytes, over the body limit of ${maxBytes} bytes.`)
  return undefined
}

/** The body as `schema` reads it, or the refusal (400) of its first issue. */
export function readBy<S extends v.GenericSchema>(schema: S, body: unknown): v.InferOutput<S> | Refusal {
  const read = v.safeParse(schema, body)
  if (read.success) return read.output
  return refusalFor('E_INVALID_ARG', refusalText(read.issues[0]))
}

/** A tool call as an assistant message of the prompt lists it (OpenAI's chat shape). */
export function promptCall(id: string, name: string, args: string) {
  return { id, type: 'function', function: { name, arguments: args } }
}
