// Every CURSOR_ACP_* variable is read here and nowhere else, with one boolean parser.
import { homedir } from 'node:os'
import { join } from 'node:path'
import { native } from './native.js'

export const TOOL_MODES = ['cursor'] as const
export type ToolMode = (typeof TOOL_MODES)[number]
export const LOG_LEVELS = ['error', 'warn', 'info', 'debug', 'trace'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

/** The provider's settings; every field is JSON-safe so it can travel through OpenCode's config. */
export interface CursorAcpSettings {
  /** `CURSOR_AGENT_EXECUTABLE`; unset: resolved from PATH and the usual install folders. */
  executable?: string
  /** `CURSOR_ACP_WORKSPACE`; unset: picked from OpenCode's worktree/directory. */
  workspace?: string
  /** `CURSOR_ACP_FORCE` (default true): `--force`, else `--trust`. */
  force: boolean
  /** `CURSOR_ACP_SESSION_RESUME` (default false). */
  sessionResume: boolean
  /** `CURSOR_ACP_TOOL_MODE` (default `cursor`). */
  toolMode: ToolMode
  /** `CURSOR_ACP_IDLE_TIMEOUT_MS` (default 300000). */
  idleTimeoutMs: number
  /** `CURSOR_ACP_TIMEOUT_MS` (default 0 = none). */
  timeoutMs: number
  /** `CURSOR_ACP_LOG_LEVEL` (default off). */
  logLevel?: LogLevel
  /** `CURSOR_ACP_LOG_FILE` (default `<user data dir>/opencode-cursor-native/log`). */
  logFile?: string
}

export const DEFAULT_SETTINGS: Readonly<CursorAcpSettings> = Object.freeze({
  force: true,
  sessionResume: false,
  toolMode: 'cursor',
  idleTimeoutMs: 300_000,
  timeoutMs: 0,
})

export interface SettingsReading {
  settings: CursorAcpSettings
  /** Values that were ignored (the default applies instead), one readable sentence each. */
  warnings: string[]
}

type Env = Record<string, string | undefined>

function text(env: Env, name: string): string | undefined {
  const value = env[name]?.trim()
  return value === undefined || value === '' ? undefined : value
}

/**
 * The one rule for numeric settings, the same the addon applies to every numeric option: a whole
 * number from `min` to `max`, never past `Number.MAX_SAFE_INTEGER` (2^53 - 1).
 */
export function isWholeNumber(value: unknown, min = 0, max = Number.MAX_SAFE_INTEGER): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= Math.min(max, Number.MAX_SAFE_INTEGER)
}

function milliseconds(env: Env, name: string, fallback: number, warnings: string[]): number {
  const value = text(env, name)
  if (value === undefined) return fallback
  // Digits only: a sign, a fraction or an exponent is a typo, not a number of milliseconds.
  const number = /^\d+$/.test(value) ? Number(value) : Number.NaN
  if (isWholeNumber(number)) return number
  warnings.push(`${name}=${JSON.stringify(value)} is not a whole number of milliseconds; using ${fallback}.`)
  return fallback
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], warnings: string[]): T | undefined {
  const value = text(env, name)?.toLowerCase()
  if (value === undefined) return undefined
  if ((allowed as readonly string[]).includes(value)) return value as T
  warnings.push(`${name}=${JSON.stringify(value)} is not one of ${allowed.join(', ')}; ignored.`)
  return undefined
}

/** Reads the settings from an environment (default `process.env`). Never throws for bad values. */
export function readSettings(env: Env = process.env): SettingsReading {
  const warnings: string[] = []
  const { parseSwitch } = native()
  const logLevelText = text(env, 'CURSOR_ACP_LOG_LEVEL')?.toLowerCase()
  const settings: CursorAcpSettings = {
    force: parseSwitch(env.CURSOR_ACP_FORCE, DEFAULT_SETTINGS.force),
    sessionResume: parseSwitch(env.CURSOR_ACP_SESSION_RESUME, DEFAULT_SETTINGS.sessionResume),
    toolMode: oneOf(env, 'CURSOR_ACP_TOOL_MODE', TOOL_MODES, warnings) ?? DEFAULT_SETTINGS.toolMode,
    idleTimeoutMs: milliseconds(env, 'CURSOR_ACP_IDLE_TIMEOUT_MS', DEFAULT_SETTINGS.idleTimeoutMs, warnings),
    timeoutMs: milliseconds(env, 'CURSOR_ACP_TIMEOUT_MS', DEFAULT_SETTINGS.timeoutMs, warnings),
  }
  const executable = text(env, 'CURSOR_AGENT_EXECUTABLE')
  if (executable !== undefined) settings.executable = executable
  const workspace = text(env, 'CURSOR_ACP_WORKSPACE')
  if (workspace !== undefined) settings.workspace = workspace
  if (logLevelText !== undefined && logLevelText !== 'off') {
    settings.logLevel = oneOf(env, 'CURSOR_ACP_LOG_LEVEL', LOG_LEVELS, warnings)
  }
  const logFile = text(env, 'CURSOR_ACP_LOG_FILE')
  if (logFile !== undefined) settings.logFile = logFile
  return { settings, warnings }
}

/** The per-user data folder of this package (XDG on Linux, the platform's usual place elsewhere). */
export function dataDirectory(env: Env = process.env): string {
  const home = text(env, 'HOME') ?? homedir()
  let base: string
  if (process.platform === 'win32') base = text(env, 'LOCALAPPDATA') ?? join(home, 'AppData', 'Local')
  else if (process.platform === 'darwin') base = join(home, 'Library', 'Application Support')
  else base = text(env, 'XDG_DATA_HOME') ?? join(home, '.local', 'share')
  return join(base, 'opencode-cursor-native')
}

/** The environment handed to cursor-agent: the host's own, as strings only. */
export function childEnvironment(env: Env = process.env): Record<string, string> {
  const result: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) if (typeof value === 'string') result[name] = value
  return result
}
