// Cursor's modes as a front end names them. The addon owns what each puts on the command line
// (`RunCursorAgentOptions.mode`); this is the list a request's value is read against.
import type { RunCursorAgentOptions } from 'opencode-cursor-native'

/** `'agent'` (the default: may edit files and run commands), or read-only `'ask'` or `'plan'`. */
export type CursorMode = NonNullable<RunCursorAgentOptions['mode']>

/** Every mode the addon takes; the compiler refuses a list that misses one or adds another. */
export const CURSOR_MODES = ['agent', 'ask', 'plan'] as const satisfies readonly CursorMode[]

type Missing = Exclude<CursorMode, (typeof CURSOR_MODES)[number]>
const everyModeListed: [Missing] extends [never] ? true : never = true
void everyModeListed
