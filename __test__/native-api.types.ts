// Compile-time check, run by `npm run typecheck` (part of `npm test`): the plugin's hand-written
// view of the native API (plugin/native.ts) must agree with the generated declarations
// (index.d.ts), so the two cannot drift apart silently.
import type * as Addon from '../index.js'
import type { NativeApi } from '../plugin/native.ts'

/** Compiles only when `Narrow` is assignable to `Wide`. */
type Accepts<Wide, Narrow extends Wide> = Narrow

type Same = 'parseSwitch' | 'resolveCursorAgent' | 'listCursorModels' | 'buildPrompt' | 'isTitleRequest' | 'SessionResumeManager' | 'setLogging'

export type FunctionsMatch = Accepts<Pick<NativeApi, Same>, Pick<typeof Addon, Same>>

// The plugin always asks for the 'ai-sdk' format, so it types the outputs as parts only; what it
// passes in and gets back must still fit the addon's own signature.
export type RunOptionsFit = Accepts<Parameters<typeof Addon.runCursorAgent>[0], Parameters<NativeApi['runCursorAgent']>[0]>
export type RunHandleFits = Accepts<ReturnType<NativeApi['runCursorAgent']>, ReturnType<typeof Addon.runCursorAgent>>
