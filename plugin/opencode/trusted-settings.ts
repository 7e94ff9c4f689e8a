// Settings that decide what runs, with which permissions and what is recorded are the user's
// alone. OpenCode merges a cloned repository's opencode.json into the configuration it hands the
// plugin and the provider, so the user's own sources are read here again (the environment,
// OPENCODE_CONFIG, OPENCODE_CONFIG_CONTENT and the user's config folder), and a reserved setting
// that differs from what they say is ignored with a warning, unless it only tightens.
import { existsSync, readFileSync } from 'node:fs'
import { isDeepStrictEqual } from 'node:util'
import { readSettings } from '../turn/env.js'
import { native } from '../turn/native.js'
import { jsoncToJson, namesThisPlugin, PROVIDER_ID, projectFiles, userConfigFiles } from './config-files.js'

type Env = Record<string, string | undefined>
type Options = Record<string, unknown>

/**
 * The reserved settings, each with the values a project may still set: the ones that only
 * tighten. A setting added later that decides what runs or what is recorded goes here.
 */
export const RESERVED_SETTINGS = Object.freeze({
  executable: [],
  force: [false],
  toolMode: ['opencode'],
  childEnv: [],
  workspace: [],
  capture: [false],
  capturePrompt: [false],
  captureMaxBytes: [],
} satisfies Record<string, readonly unknown[]>)

export type ReservedSetting = keyof typeof RESERVED_SETTINGS

const RESERVED = Object.keys(RESERVED_SETTINGS) as ReservedSetting[]

/** What the user's own sources set the reserved settings to. */
export interface TrustedSettings {
  /** From the user's configuration files and `OPENCODE_CONFIG_CONTENT` (the last one wins). */
  configured: Partial<Record<ReservedSetting, unknown>>
  /** From the environment (`CURSOR_ACP_*`, `CURSOR_AGENT_EXECUTABLE`), defaults included. */
  environment: Partial<Record<ReservedSetting, unknown>>
}

function isRecord(value: unknown): value is Options {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * The plugin's options in one OpenCode configuration: `plugin` entries `[name, options]`
 * (OpenCode 1.18) and `plugins` entries `{package, options}` (OpenCode 2) naming this package,
 * then the provider block's `options` (the more specific, so it wins).
 */
export function pluginOptionsIn(config: unknown, providerId: string = PROVIDER_ID): Options {
  if (!isRecord(config)) return {}
  const found: Options = {}
  for (const list of [config.plugin, config.plugins]) {
    if (!Array.isArray(list)) continue
    for (const entry of list) {
      if (Array.isArray(entry) && namesThisPlugin(entry) && isRecord(entry[1])) Object.assign(found, entry[1])
      if (isRecord(entry) && namesThisPlugin(entry.package ?? entry.name) && isRecord(entry.options))
        Object.assign(found, entry.options)
    }
  }
  const block = isRecord(config.provider) ? config.provider[providerId] : undefined
  if (isRecord(block) && isRecord(block.options)) Object.assign(found, block.options)
  return found
}

/** A file's configuration as OpenCode reads it (JSONC); `undefined` when missing or unreadable. */
function configIn(file: string): unknown {
  if (!existsSync(file)) return undefined
  try {
    return JSON.parse(jsoncToJson(readFileSync(file, 'utf8')))
  } catch {
    // OpenCode refuses such a file itself; doctor's opencode-config check names it.
    return undefined
  }
}

function reservedIn(options: Options): Partial<Record<ReservedSetting, unknown>> {
  const found: Partial<Record<ReservedSetting, unknown>> = {}
  for (const key of RESERVED) if (options[key] !== undefined) found[key] = options[key]
  return found
}

/** Reads the user's own sources, for the provider `providerId` (default `cursor-acp`). */
export function readTrustedSettings(providerId: string = PROVIDER_ID, env: Env = process.env): TrustedSettings {
  const configured: Options = {}
  for (const file of userConfigFiles(env)) Object.assign(configured, pluginOptionsIn(configIn(file), providerId))
  if (env.OPENCODE_CONFIG_CONTENT) {
    try {
      Object.assign(configured, pluginOptionsIn(JSON.parse(jsoncToJson(env.OPENCODE_CONFIG_CONTENT)), providerId))
    } catch {
      // Not JSON: OpenCode refuses it itself.
    }
  }
  const { settings } = readSettings(env)
  return { configured: reservedIn(configured), environment: reservedIn(settings as unknown as Options) }
}

// The workspaces the plugin picked from OpenCode's own folders (worktree, directory), which its
// config hook writes into the options: the provider accepts them back. On `globalThis`, so every
// copy of this module in the process shares them.
const PICKED = Symbol.for('opencode-cursor-native.picked-workspaces')
function pickedWorkspaces(): Set<string> {
  const holder = globalThis as unknown as Record<symbol, Set<string> | undefined>
  holder[PICKED] ??= new Set<string>()
  return holder[PICKED]
}

/** Records a workspace the plugin picked itself, so the provider accepts it in its options. */
export function rememberPickedWorkspace(workspace: string): void {
  pickedWorkspaces().add(workspace)
}

function shown(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

/** Whether a reserved setting's value may stand: the user's own, or one that only tightens. */
function allowed(key: ReservedSetting, value: unknown, trusted: TrustedSettings): boolean {
  const own = key in trusted.configured ? trusted.configured[key] : trusted.environment[key]
  if (isDeepStrictEqual(value, own)) return true
  if ((RESERVED_SETTINGS[key] as readonly unknown[]).some((tight) => isDeepStrictEqual(tight, value))) return true
  return key === 'workspace' && typeof value === 'string' && pickedWorkspaces().has(value)
}

/** The warning for a reserved setting ignored. */
export function ignoredWarning(key: ReservedSetting, value: unknown): string {
  const tightening = RESERVED_SETTINGS[key] as readonly unknown[]
  const may =
    tightening.length === 0
      ? 'a project may not set it'
      : `a project may only set it to ${tightening.map((tight) => shown(tight)).join(' or ')}`
  return (
    `Provider option ${key}=${shown(value)} is not in your own configuration (the environment, ` +
    `OPENCODE_CONFIG, OPENCODE_CONFIG_CONTENT or the OpenCode config folder) and ${may}; ignored.`
  )
}

export interface GuardedOptions {
  /** The options with every refused reserved setting replaced by the user's own, or removed. */
  options: Options
  /** One warning per refused setting. */
  ignored: string[]
}

/**
 * Checks the reserved settings of merged options against the user's own sources: a value equal to
 * theirs, or one that only tightens, stands; any other is replaced by the value of the user's
 * configuration files, or removed (the environment's then applies), and logged as a warning.
 */
export function guardReservedSettings(
  given: Options,
  trusted: TrustedSettings = readTrustedSettings(typeof given.name === 'string' ? given.name : PROVIDER_ID),
): GuardedOptions {
  const options: Options = { ...given }
  const ignored: string[] = []
  for (const key of RESERVED) {
    const value = options[key]
    if (value === undefined || allowed(key, value, trusted)) continue
    if (key in trusted.configured) options[key] = trusted.configured[key]
    else delete options[key]
    ignored.push(ignoredWarning(key, value))
  }
  for (const warning of ignored) logWarning(warning)
  return { options, ignored }
}

function logWarning(message: string): void {
  try {
    native().logMessage('warn', message)
  } catch {
    // No addon: the warning still reaches OpenCode with the provider's other warnings.
  }
}

/** A reserved setting a project's configuration file sets, and that the plugin ignores. */
export interface ProjectFinding {
  file: string
  key: ReservedSetting
  value: unknown
}

/** For `doctor`: the reserved settings the project's files in `cwd` set and the plugin ignores. */
export function ignoredProjectSettings(cwd: string, env: Env = process.env): ProjectFinding[] {
  if (env.OPENCODE_DISABLE_PROJECT_CONFIG) return []
  const trusted = readTrustedSettings(PROVIDER_ID, env)
  const found: ProjectFinding[] = []
  for (const file of projectFiles(cwd)) {
    const options = pluginOptionsIn(configIn(file))
    for (const key of RESERVED) {
      const value = options[key]
      if (value !== undefined && !allowed(key, value, trusted)) found.push({ file, key, value })
    }
  }
  return found
}
