// The options OpenCode hands the provider factory (`createCursorAcp`): the provider block's
// `options` (the plugin's, with whatever the user wrote by hand in opencode.json over them), the
// provider's `name`, and the `apiKey` of `opencode auth login`. Nothing types them on the way, so
// they are read here, in one schema: an option of the wrong type is reported as a warning naming
// it and ignored, and the others are used.
import * as v from 'valibot'
import { isWholeNumber } from '../turn/env.js'
import { isNativeErrorCode, type NativeErrorCode } from '../turn/failure.js'
import { CURSOR_MODES } from '../turn/mode.js'
import { CURSOR_MODEL_OPTION } from './model-choice.js'
import type { OptionSetting, TurnOptions } from '../turn/turn.js'

/**
 * Options of `createCursorAcp`: OpenCode passes the provider block's `options` plus `name`.
 * Configuration warnings are reported as stream warnings.
 */
export interface CursorAcpProviderOptions extends TurnOptions {
  /** The provider id OpenCode registered this module under; default `cursor-acp`. */
  name?: string
  /** OpenCode may pass others; they are not read. */
  [other: string]: unknown
}

// Each schema's message is what its warning says the option must be: "is not a valid boolean".
const flag = v.optional(v.boolean('boolean'))
const text = v.optional(v.string('string'))
/** A count by the one rule for numeric settings: a whole number from 0 to 2^53 - 1. */
const count = v.optional(
  v.pipe(
    v.number('number'),
    v.check((value: number) => isWholeNumber(value), 'number'),
  ),
)

/** The settings an option may set, in the order their warnings are reported. */
const SETTINGS = {
  force: flag,
  sessionResume: flag,
  toolMode: text,
  toolWaitMs: count,
  toolDeadlineMs: count,
  idleTimeoutMs: count,
  timeoutMs: count,
  capture: flag,
  capturePrompt: flag,
  captureMaxBytes: count,
  executable: text,
  workspace: text,
} satisfies Record<OptionSetting, v.GenericSchema>

const FAILURE = 'configuration error ({code, message})'
const NOTES = 'list of texts'

/** Every option the provider reads; any other is left out. */
const PROVIDER_OPTIONS = v.object({
  ...SETTINGS,
  name: text,
  apiKey: text,
  // Written by the plugin's config hook: a problem found at start-up, and notes on the environment.
  configurationError: v.optional(
    v.object({ code: v.custom<NativeErrorCode>(isNativeErrorCode, FAILURE), message: v.string(FAILURE) }, FAILURE),
  ),
  configurationWarnings: v.optional(v.array(v.string(NOTES), NOTES)),
})

export type ProviderOptions = v.InferOutput<typeof PROVIDER_OPTIONS>

/** Options whose value a warning never shows. */
const SECRET_OPTIONS: ReadonlySet<string> = new Set(['apiKey'])

function shown(value: unknown): string {
  try {
    return JSON.stringify(value)
  } catch {
    return String(value)
  }
}

/** The options the provider can use, and one warning for each option it ignored. */
export interface ProviderOptionsReading {
  options: ProviderOptions
  ignored: string[]
}

export function readProviderOptions(given: unknown): ProviderOptionsReading {
  if (typeof given !== 'object' || given === null || Array.isArray(given))
    return { options: {}, ignored: [`Provider options ${shown(given)} are not an object; ignored.`] }
  const read = v.safeParse(PROVIDER_OPTIONS, given)
  if (read.success) return { options: read.output, ignored: [] }
  // Each refused option, with what it must be (its first issue's message).
  const refused = new Map<string, string>()
  for (const issue of read.issues) {
    const key = issue.path?.[0]?.key
    if (typeof key === 'string' && !refused.has(key)) refused.set(key, issue.message)
  }
  const entries = Object.entries(given)
  const ignored = [...refused].map(([key, kind]) => {
    const value = SECRET_OPTIONS.has(key) ? '' : `=${shown((given as Record<string, unknown>)[key])}`
    return `Provider option ${key}${value} is not a valid ${kind}; ignored.`
  })
  return {
    options: v.parse(PROVIDER_OPTIONS, Object.fromEntries(entries.filter(([key]) => !refused.has(key)))),
    ignored,
  }
}

/**
 * What one call's provider options may set (`providerOptions[<provider>]`): the agent's turn as
 * the plugin's `chat.params` hook (or OpenCode 2's `context` hook) puts it (`cursorReadOnly`,
 * `cursorForce`), Cursor's mode an agent's own `options` may ask for (`cursorMode`), and the listed
 * id a family's entry or variant runs (`cursorModel`, see `model-choice.ts`). Other keys are not read.
 */
const CALL_OPTIONS = v.object({
  [CURSOR_MODEL_OPTION]: v.optional(v.pipe(v.string('a model id'), v.trim(), v.nonEmpty('a model id'))),
  cursorMode: v.optional(v.picklist(CURSOR_MODES, `one of ${CURSOR_MODES.join(', ')}`)),
  cursorReadOnly: v.optional(v.literal(true, 'true')),
  cursorForce: v.optional(v.literal(false, 'false')),
})

export type CallOptions = v.InferOutput<typeof CALL_OPTIONS>

/** The call's options, or why one of them is refused (naming it). */
export function readCallOptions(given: unknown): { options: CallOptions } | { refused: string } {
  if (given === undefined || given === null) return { options: {} }
  const read = v.safeParse(CALL_OPTIONS, given)
  if (read.success) return { options: read.output }
  const issue = read.issues[0]
  const key = issue.path?.[0]?.key
  return { refused: `Provider option ${String(key)}=${shown(issue.input)} of this call is not ${issue.message}.` }
}
