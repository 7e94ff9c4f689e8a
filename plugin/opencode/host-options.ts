// What the plugin reads at start-up, the same for both OpenCode majors: the settings from the
// environment (turning on the log when asked), the workspace, and the options handed to the
// provider; and where the account's models are asked for.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type CursorAcpSettings, childEnvironment, dataDirectory, readSettings, withApiKey } from '../turn/env.js'
import { failureOf } from '../turn/failure.js'
import { type ModelDiscoveryOptions, modelCacheFile } from '../turn/models.js'
import { native, packageRoot } from '../turn/native.js'
import { pickWorkspace } from '../turn/workspace.js'
import { toCursorAcpError } from './errors.js'
import type { CursorAcpProviderOptions } from './provider-options.js'
import { rememberPickedWorkspace } from './trusted-settings.js'

export interface HostOptions {
  /** The provider's options; a configuration problem is in `configurationError`. */
  options: CursorAcpProviderOptions
  /** The settings read, unless they could not be. */
  settings: CursorAcpSettings | undefined
}

/** Turns on the log `CURSOR_ACP_LOG_LEVEL` and `CURSOR_ACP_LOG_FILE` ask for; a problem is a warning. */
export function startLogging(settings: CursorAcpSettings, warnings: string[]): void {
  if (settings.logLevel === undefined) return
  const file = settings.logFile ?? join(dataDirectory(), 'log')
  try {
    // The package's own folder is the user's alone, whoever made it first.
    if (settings.logFile === undefined) native().makePrivateFolder(dataDirectory())
    native().setLogging({ level: settings.logLevel, file })
  } catch (error) {
    // Logging is a diagnostic aid: a log file that cannot be opened must not stop requests.
    warnings.push(`Logging to ${file} is off: ${toCursorAcpError(error).message}`)
  }
}

/**
 * One line in the log at start-up (at `info`): the package's version, the addon, the tool mode
 * and which cursor-agent runs, so that a slow or failing first answer can be placed.
 */
export function logStartup(settings: CursorAcpSettings, host: string): void {
  if (settings.logLevel === undefined) return
  try {
    const api = native()
    const found = api.resolveCursorAgent(settings.executable === undefined ? {} : { executable: settings.executable })
    const agent =
      found.path === undefined
        ? `cursor-agent not found (looked in ${found.tried.length} places)`
        : `cursor-agent ${found.path}${found.version === undefined ? '' : ` (${found.version})`}`
    const runtime = process.versions.bun === undefined ? `Node ${process.version}` : `Bun ${process.versions.bun}`
    api.logMessage(
      'info',
      `opencode-cursor-native ${packageVersion()} started in ${host}: addon ${process.platform}-${process.arch} ` +
        `under ${runtime}, tool mode ${settings.toolMode}, ${agent}`,
    )
  } catch {
    // No addon: the first request reports the loader's explanation.
  }
}

function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version
  } catch {
    return 'of unknown version'
  }
}

/** Reads the settings for a session in `directory` of `worktree`. Never throws. */
export function hostOptions(place: { worktree?: string; directory?: string }): HostOptions {
  const options: CursorAcpProviderOptions = {}
  let settings: CursorAcpSettings | undefined
  try {
    const reading = readSettings(process.env)
    settings = reading.settings
    startLogging(settings, reading.warnings)
    if (reading.warnings.length > 0) options.configurationWarnings = reading.warnings
    const { logLevel: _level, logFile: _file, ...providerSettings } = settings
    Object.assign(options, providerSettings)
    const candidates: Parameters<typeof pickWorkspace>[0] = { explicit: settings.workspace }
    if (place.worktree !== undefined) candidates.worktree = place.worktree
    if (place.directory !== undefined) candidates.directory = place.directory
    options.workspace = pickWorkspace(candidates)
    // Picked from OpenCode's own folders, not from any configuration: the provider takes it back.
    rememberPickedWorkspace(options.workspace)
  } catch (error) {
    // Configuration and loading problems surface on the first request, where the user sees them.
    const failure = failureOf(error, 'E_INVALID_ARG')
    options.configurationError = { code: failure.code, message: failure.message }
  }
  return { options, settings }
}

/** How the account's models are listed: cursor-agent as runs start it, with the stored key. */
export function modelDiscovery(
  settings: CursorAcpSettings | undefined,
  apiKey: string | undefined,
): ModelDiscoveryOptions {
  const env = withApiKey(childEnvironment(process.env, settings), apiKey)
  const discovery: ModelDiscoveryOptions = { cacheFile: modelCacheFile(dataDirectory()), env }
  if (settings?.executable !== undefined) discovery.executable = settings.executable
  return discovery
}
