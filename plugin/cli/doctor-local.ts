// The doctor's checks of this machine that start no cursor-agent: the native addon, the
// settings, OpenCode's configuration files and the plugin's data folder.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { findOpenCodeConfigs } from '../opencode/config-files.js'
import { captureFolder, type CursorAcpSettings, dataDirectory, readSettings } from '../turn/env.js'
import { type NativeApi, native, packageRoot } from '../turn/native.js'
import { type Check, check, errorText } from './doctor-check.js'

type Env = Record<string, string | undefined>

/** The addon's file: the `.node` module the loader picked. */
export function loadedAddonFile(): string | undefined {
  const cache = createRequire(import.meta.url).cache
  return Object.keys(cache).find((file) => file.endsWith('.node') && file.includes('opencode-cursor-native'))
}

export function addonCheck(): { check: Check; api?: NativeApi } {
  try {
    const api = native()
    return {
      api,
      check: check('addon', 'ok', `the native addon loads: ${loadedAddonFile() ?? join(packageRoot(), 'index.js')}`),
    }
  } catch (error) {
    const detail = `the native addon for ${process.platform}-${process.arch} does not load: ${(error as Error).message.split('\n')[0]}`
    const fix =
      'Reinstall the package so npm installs its platform package (optional dependencies must not be disabled).'
    return { check: check('addon', 'problem', detail, fix) }
  }
}

/** The settings; with CURSOR_ACP_LOG_LEVEL set, the doctor's own runs are logged as the plugin's are. */
export function settingsCheck(
  api: NativeApi,
  env: Env,
): { check: Check; settings: CursorAcpSettings; logFile: string; warnings: string[] } {
  const { settings, warnings } = readSettings(env)
  const logFile = settings.logFile ?? join(dataDirectory(env), 'log')
  if (settings.logLevel !== undefined) {
    try {
      api.setLogging({ level: settings.logLevel, file: logFile })
    } catch (error) {
      warnings.push(`Logging to ${logFile} is off: ${errorText(error)}.`)
    }
  }
  const capture = settings.capture ? `on (${captureFolder(env)})` : 'off'
  const summary = `tool mode ${settings.toolMode}, session resume ${settings.sessionResume ? 'on' : 'off'}, capture ${capture}`
  if (warnings.length === 0) return { settings, logFile, warnings, check: check('settings', 'ok', summary) }
  const fix = 'Correct or remove the CURSOR_ACP_* values named.'
  return { settings, logFile, warnings, check: check('settings', 'warning', `${summary}; ${warnings.join(' ')}`, fix) }
}

export function configCheck(cwd: string, env: Env): Check {
  const findings = findOpenCodeConfigs(cwd, env)
  const listed = findings.filter((finding) => finding.state === 'listed')
  const unreadable = findings.filter((finding) => finding.state === 'unreadable').map((finding) => finding.source)
  const note = unreadable.length > 0 ? `; not readable as JSON: ${unreadable.join(', ')}` : ''
  if (listed.length > 0) {
    const where = listed.map((finding) => `${finding.source} (${finding.scope})`).join(', ')
    return check('opencode-config', 'ok', `the plugin is listed in ${where}${note}`)
  }
  const read = findings.length === 0 ? 'none found' : `read ${findings.map((finding) => finding.source).join(', ')}`
  const fix =
    'Add "plugin": ["opencode-cursor-native"] to opencode.json (the OpenAI-compatible server needs no plugin).'
  return check('opencode-config', 'warning', `no OpenCode configuration lists the plugin (${read})${note}`, fix)
}

export function dataCheck(env: Env): Check {
  const folder = dataDirectory(env)
  const probe = join(folder, `.doctor-${process.pid}`)
  try {
    mkdirSync(folder, { recursive: true })
    writeFileSync(probe, '')
    rmSync(probe)
    return check('data-dir', 'ok', `${folder} is writable`)
  } catch (error) {
    const fix = 'Make the folder writable, or set XDG_DATA_HOME to a writable folder.'
    return check('data-dir', 'problem', `${folder} is not writable: ${(error as Error).message}`, fix)
  }
}
