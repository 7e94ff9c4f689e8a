// Every CURSOR_ACP_* variable is read here and nowhere else, with one boolean parser.
import { homedir } from 'node:os'
import { join } from 'node:path'
import { native } from './native.js'

export const TOOL_MODES = ['cursor', 'opencode'] as const
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
  /**
   * `CURSOR_ACP_TOOL_MODE` (default `cursor`): `cursor` lets cursor-agent run its own tools;
   * `opencode` has OpenCode run them (through the tool bridge).
   */
  toolMode: ToolMode
  /** `CURSOR_ACP_TOOL_WAIT_MS` (default 600000): how long a tool call handed to OpenCode may wait. */
  toolWaitMs: number
  /**
   * `CURSOR_ACP_TOOL_DEADLINE_MS` (default 45000, at most 55000): how long a tool call is held for
   * OpenCode before Cursor is answered "still running" (its MCP client gives up at 60 s); the model
   * then gets the result through the bridge's wait tool. Lowered by tests.
   */
  toolDeadlineMs: number
  /**
   * `CURSOR_ACP_IDLE_TIMEOUT_MS` (default 1800000, 30 minutes): a run whose stdout stays silent this
   * long is stopped. Cursor is silent for minutes in a healthy turn (757 s was seen while the model
   * wrote a long reply), so the default stays well clear of that.
   */
  idleTimeoutMs: number
  /** `CURSOR_ACP_TIMEOUT_MS` (default 0 = none). */
  timeoutMs: number
  /** `CURSOR_ACP_LOG_LEVEL` (default off). */
  logLevel?: LogLevel
  /** `CURSOR_ACP_LOG_FILE` (default `<user data dir>/opencode-cursor-native/log`). */
  logFile?: string
  /** `CURSOR_ACP_CHILD_ENV`; unset: the tool mode's default (`CHILD_ENV_BY_TOOL_MODE`). */
  childEnv?: ChildEnvChoice
  /**
   * `CURSOR_ACP_CAPTURE` (default false): every run writes a capture into
   * `<user data dir>/opencode-cursor-native/captures` (`captureFolder()`), for
   * `npx opencode-cursor-native replay <name>`.
   */
  capture: boolean
  /** `CURSOR_ACP_CAPTURE_PROMPT` (default false): captures keep the prompt's text, not only its size and hash. */
  capturePrompt: boolean
  /** `CURSOR_ACP_CAPTURE_MAX_BYTES` (default 209715200, 200 MiB): the capture folder's total size. */
  captureMaxBytes: number
}

/**
 * Which of the host's variables cursor-agent receives: all of them, only the base list
 * (`MINIMAL_CHILD_ENV`), or the base list plus these names and `PREFIX_*` patterns.
 */
export type ChildEnvChoice = 'all' | 'minimal' | string[]

/**
 * The default per tool mode. Cursor's own tools run shell commands for the user, which need the
 * user's environment (as OpenCode's own `bash` has it); a mode in which the host runs the tools
 * gives cursor-agent only what it needs itself, so a command the model runs cannot read the rest.
 */
export const CHILD_ENV_BY_TOOL_MODE: Readonly<Record<ToolMode, 'all' | 'minimal'>> = Object.freeze({
  cursor: 'all',
  opencode: 'minimal',
})

/** A variable name, or a prefix ending in `*`; `anyCase` matches the name in any letter case. */
interface EnvPattern {
  pattern: string
  anyCase?: boolean
}
const named = (pattern: string): EnvPattern => ({ pattern })

/**
 * What cursor-agent itself needs: finding programs and its own files, locale and time zone,
 * terminal, temporary files, proxies and extra certificates, and its own `CURSOR_*` settings
 * (`CURSOR_API_KEY`).
 */
export const MINIMAL_CHILD_ENV: readonly EnvPattern[] = Object.freeze([
  ...['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TERM', 'LANG', 'LC_*', 'TZ', 'TMPDIR', 'XDG_*'].map(named),
  ...['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY'].map((pattern) => ({ pattern, anyCase: true })),
  ...['SSL_CERT_FILE', 'SSL_CERT_DIR', 'NODE_EXTRA_CA_CERTS', 'CURSOR_*'].map(named),
])

/** On Windows, where names have no case, a program does not start without these. */
export const WINDOWS_CHILD_ENV: readonly EnvPattern[] = Object.freeze(
  ['SYSTEMROOT', 'WINDIR', 'COMSPEC', 'PATHEXT', 'USERPROFILE', 'APPDATA', 'LOCALAPPDATA', 'TEMP', 'TMP'].map(named),
)

const ENV_NAME_OR_PREFIX = /^[A-Za-z_][A-Za-z0-9_]*\*?$/

export const DEFAULT_SETTINGS: Readonly<CursorAcpSettings> = Object.freeze({
  force: true,
  sessionResume: false,
  toolMode: 'cursor',
  toolWaitMs: 600_000,
  toolDeadlineMs: 45_000,
  idleTimeoutMs: 1_800_000,
  timeoutMs: 0,
  capture: false,
  capturePrompt: false,
  captureMaxBytes: 200 * 1024 * 1024,
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
  return (
    typeof value === 'number' &&
    Number.isSafeInteger(value) &&
    value >= min &&
    value <= Math.min(max, Number.MAX_SAFE_INTEGER)
  )
}

function wholeNumber(env: Env, name: string, fallback: number, warnings: string[], unit: string, min = 0): number {
  const value = text(env, name)
  if (value === undefined) return fallback
  // Digits only: a sign, a fraction or an exponent is a typo, not a count.
  const number = /^\d+$/.test(value) ? Number(value) : Number.NaN
  if (isWholeNumber(number, min)) return number
  warnings.push(`${name}=${JSON.stringify(value)} is not a whole number of ${unit}; using ${fallback}.`)
  return fallback
}

function milliseconds(env: Env, name: string, fallback: number, warnings: string[]): number {
  return wholeNumber(env, name, fallback, warnings, 'milliseconds')
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], warnings: string[]): T | undefined {
  const value = text(env, name)?.toLowerCase()
  if (value === undefined) return undefined
  if ((allowed as readonly string[]).includes(value)) return value as T
  warnings.push(`${name}=${JSON.stringify(value)} is not one of ${allowed.join(', ')}; ignored.`)
  return undefined
}

function childEnvChoice(env: Env, warnings: string[]): ChildEnvChoice | undefined {
  const value = text(env, 'CURSOR_ACP_CHILD_ENV')
  if (value === undefined) return undefined
  const keyword = value.toLowerCase()
  if (keyword === 'all' || keyword === 'minimal') return keyword
  const extra: string[] = []
  for (const entry of value.split(',').map((item) => item.trim())) {
    if (entry === '') continue
    if (ENV_NAME_OR_PREFIX.test(entry)) extra.push(entry)
    else
      warnings.push(
        `CURSOR_ACP_CHILD_ENV entry ${JSON.stringify(entry)} is not a variable name or a PREFIX_* pattern; ignored.`,
      )
  }
  return extra
}

/**
 * For tests only, and no user setting: `CURSOR_ACP_TEST_TIME_SCALE`, a factor above 0 and at most 1
 * (e.g. `0.002`), by which the defaults that wait out Cursor's silences shrink (the idle limit, the
 * server's keep-alive interval), so a test can stay silent longer than an old default without
 * waiting minutes. Anything else is 1; a value the user sets is never scaled.
 */
export function testTimeScale(env: Env = process.env): number {
  const factor = Number(text(env, 'CURSOR_ACP_TEST_TIME_SCALE'))
  return Number.isFinite(factor) && factor > 0 && factor <= 1 ? factor : 1
}

/** A default duration under {@link testTimeScale}: the duration itself outside tests. */
export function scaledDefault(ms: number, env: Env = process.env): number {
  return Math.max(1, Math.round(ms * testTimeScale(env)))
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
    toolWaitMs: milliseconds(env, 'CURSOR_ACP_TOOL_WAIT_MS', DEFAULT_SETTINGS.toolWaitMs, warnings),
    toolDeadlineMs: Math.min(
      55_000,
      Math.max(1, milliseconds(env, 'CURSOR_ACP_TOOL_DEADLINE_MS', DEFAULT_SETTINGS.toolDeadlineMs, warnings)),
    ),
    idleTimeoutMs: milliseconds(
      env,
      'CURSOR_ACP_IDLE_TIMEOUT_MS',
      scaledDefault(DEFAULT_SETTINGS.idleTimeoutMs, env),
      warnings,
    ),
    timeoutMs: milliseconds(env, 'CURSOR_ACP_TIMEOUT_MS', DEFAULT_SETTINGS.timeoutMs, warnings),
    capture: parseSwitch(env.CURSOR_ACP_CAPTURE, DEFAULT_SETTINGS.capture),
    capturePrompt: parseSwitch(env.CURSOR_ACP_CAPTURE_PROMPT, DEFAULT_SETTINGS.capturePrompt),
    captureMaxBytes: wholeNumber(
      env,
      'CURSOR_ACP_CAPTURE_MAX_BYTES',
      DEFAULT_SETTINGS.captureMaxBytes,
      warnings,
      'bytes',
      1,
    ),
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
  const childEnv = childEnvChoice(env, warnings)
  if (childEnv !== undefined) settings.childEnv = childEnv
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

/** Where runs are captured (`CURSOR_ACP_CAPTURE`), and where `replay` looks for a capture by its name. */
export function captureFolder(env: Env = process.env): string {
  return join(dataDirectory(env), 'captures')
}

function matches(name: string, { pattern, anyCase }: EnvPattern, ignoreCase: boolean): boolean {
  const fold = anyCase === true || ignoreCase
  const subject = fold ? name.toUpperCase() : name
  const wanted = fold ? pattern.toUpperCase() : pattern
  return wanted.endsWith('*') ? subject.startsWith(wanted.slice(0, -1)) : subject === wanted
}

/**
 * The environment handed to cursor-agent (the native `env` option, its complete environment),
 * as strings only: the host's whole environment for `all`, else only the variables the base list
 * (`MINIMAL_CHILD_ENV`, on Windows also `WINDOWS_CHILD_ENV`) and the chosen extra names match.
 * `settings.childEnv` unset: the tool mode's default; an unknown mode gets the base list only.
 * (The addon keeps from every child what no child may get: `NODE_OPTIONS`, the server's token.)
 */
export function childEnvironment(
  env: Env = process.env,
  settings: Pick<CursorAcpSettings, 'childEnv' | 'toolMode'> = { toolMode: DEFAULT_SETTINGS.toolMode },
  platform: NodeJS.Platform = process.platform,
): Record<string, string> {
  const choice = settings.childEnv ?? CHILD_ENV_BY_TOOL_MODE[settings.toolMode] ?? 'minimal'
  const windows = platform === 'win32'
  const patterns: EnvPattern[] | undefined =
    choice === 'all'
      ? undefined
      : [
          ...MINIMAL_CHILD_ENV,
          ...(windows ? WINDOWS_CHILD_ENV : []),
          ...(choice === 'minimal' ? [] : choice).map((pattern) => ({ pattern })),
        ]
  const result: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) {
    if (typeof value !== 'string') continue
    if (patterns === undefined || patterns.some((pattern) => matches(name, pattern, windows))) result[name] = value
  }
  return result
}

/**
 * A child environment with the Cursor API key stored in OpenCode (`opencode auth login`), which
 * wins over a `CURSOR_API_KEY` of the host's: the one rule for every run and command.
 */
export function withApiKey(env: Record<string, string>, apiKey: string | undefined): Record<string, string> {
  return apiKey === undefined ? env : { ...env, CURSOR_API_KEY: apiKey }
}
