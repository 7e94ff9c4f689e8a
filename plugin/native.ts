// Typed access to the native addon (the package's `index.js`), loaded lazily so that a
// missing binary surfaces as a clear provider error instead of a plugin that fails to load.
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** One LanguageModelV3 stream part as the addon delivers it (JSON-safe, no `Date`). */
export type NativePart = { type: string; [key: string]: unknown }

export interface CursorError {
  code: string
  message: string
}

export interface CursorUsage {
  inputTokens?: number
  outputTokens?: number
  cacheReadTokens?: number
  cacheWriteTokens?: number
  reasoningTokens?: number
}

export interface RunCursorAgentOptions {
  prompt: string
  model: string
  workspace: string
  resumeChatId?: string
  format?: 'openai-sse' | 'ai-sdk'
  executable?: string
  force?: boolean
  extraArgs?: string[]
  env?: Record<string, string>
  idleTimeoutMs?: number
  timeoutMs?: number
}

/** Empty fields are `null` or absent (napi's `Option`): test them with `== null`. */
export interface RunResult {
  exitCode?: number | null
  signal?: string | null
  cancelled: boolean
  sessionId?: string | null
  usage?: CursorUsage | null
  error?: CursorError | null
}

export interface CursorAgentRun {
  cancel(): void
  wait(): Promise<RunResult>
}

export interface ResolveOptions {
  executable?: string
  env?: Record<string, string>
}

export interface CursorModel {
  id: string
  name: string
}

/** A chat message (AI SDK V3 prompt message or OpenAI chat message), JSON-safe. */
export type PromptMessage = Record<string, unknown>
export type ToolDefinition = Record<string, unknown>

export interface ResumeRequest {
  workspace: string
  model: string
  messages: PromptMessage[]
  tools?: ToolDefinition[]
  toolsInPrompt?: boolean
  conversationId?: string
}

export interface ResumePlan {
  sessionKey: string | null
  resumeChatId: string | null
  prompt: string
  incremental: boolean
  /** Opaque state that `record` needs; keep it when copying a plan. */
  recordToken: string | null
}

export interface SessionResumeManager {
  plan(request: ResumeRequest): ResumePlan
  record(plan: ResumePlan, chatId: string): boolean
  reportFailure(plan: ResumePlan, error: string | CursorError): boolean
  readonly size: number
  clear(): void
}

export interface LoggingOptions {
  level: 'off' | 'error' | 'warn' | 'info' | 'debug' | 'trace'
  file?: string
}

export interface NativeApi {
  parseSwitch(value: string | null | undefined, defaultValue: boolean): boolean
  runCursorAgent(options: RunCursorAgentOptions, onOutput: (outputs: NativePart[]) => void): CursorAgentRun
  resolveCursorAgent(options?: ResolveOptions): { path?: string | null; tried: string[] }
  listCursorModels(options?: ResolveOptions): Promise<CursorModel[]>
  SessionResumeManager: new (options?: { enabled?: boolean; maxEntries?: number; ttlMs?: number }) => SessionResumeManager
  buildPrompt(input: { messages: PromptMessage[]; tools?: ToolDefinition[]; toolsInPrompt?: boolean }): string
  isTitleRequest(input: { messages: PromptMessage[]; tools?: ToolDefinition[] }): boolean
  setLogging(options: LoggingOptions): void
}

const PACKAGE_NAME = 'opencode-cursor-native'

/**
 * The package root: the nearest ancestor folder whose package.json names this package. The same
 * lookup works for the compiled `dist/plugin/*.js` files and for the TypeScript sources.
 */
export function packageRoot(fromDirectory: string = dirname(fileURLToPath(import.meta.url))): string {
  let directory = fromDirectory
  for (;;) {
    const manifest = join(directory, 'package.json')
    if (existsSync(manifest)) {
      try {
        if (JSON.parse(readFileSync(manifest, 'utf8')).name === PACKAGE_NAME) return directory
      } catch {
        // An unreadable manifest is not ours; keep looking upwards.
      }
    }
    const parent = dirname(directory)
    if (parent === directory) throw new Error(`${PACKAGE_NAME}: cannot find the package root above ${fromDirectory}`)
    directory = parent
  }
}

let cached: NativeApi | undefined

/** The native API; throws with the loader's own explanation when the addon cannot load. */
export function native(): NativeApi {
  if (cached === undefined) {
    const require = createRequire(import.meta.url)
    cached = require(join(packageRoot(), 'index.js')) as NativeApi
  }
  return cached
}
