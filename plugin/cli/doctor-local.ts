// The doctor's checks of this machine that start no cursor-agent: the native addon, the
// settings, OpenCode's configuration files and the plugin's data folder.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { findOpenCodeConfigs } from '../opencode/config-files.js'
import { captureFolder, type CursorAcpSettings, dataDirectory, readSettings } from '../turn/env.js'
import { type NativeApi, native, packageRoot } from '../turn/native.js'
import { type Check, errorText } from './doctor-check.js'

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
      check: {
        id: 'addon',
        status: 'ok',
        detail: `the native addon loads: ${loadedAddonFile() ?? join(packageRoot(), 'index.js')}`,
      },
    }
  } catch (error) {
    return {
      check: {
        id: 'addon',
        status: 'problem',
        detail: `the native addon for ${process.platform}-${process.arch} does not load: ${(error as Error).message.split('\n')[0]}`,
        fix: 'Reinstall the package so npm installs its platform package (optional dependencies must not be disabled).',
      },
    }
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
  if (warnings.length === 0)
    return { settings, logFile, warnings, check: { id: 'settings', status: 'ok', detail: summary } }
  return {
    settings,
    logFile,
    warnings,
    check: {
      id: 'settings',
      status: 'warning',
      detail: `${summary}; ${warnings.join(' ')}`,
      fix: 'Correct or remove the CURSOR_ACP_* values named.',
    },
  }
}

export function configCheck(cwd: string, env: Env): Check {
  const findings = findOpenCodeConfigs(cwd, env)
  const listed = findings.filter((finding) => finding.state === 'listed')
  const unreadable = findings.filter((finding) => finding.state === 'unreadable').map((finding) => finding.source)
  const note = unreadable.length > 0 ? `; not readable as JSON: ${unreadable.join(', ')}` : ''
  if (listed.length > 0)
    return {
      id: 'opencode-config',
      status: 'ok',
      detail: `the plugin is listed in ${listed.map((finding) => `${finding.source} (${finding.scope})`).join(', ')}${note}`,
    }
  return {
    id: 'opencode-config',
    status: 'warning',
    detail: `no OpenCode configuration lists the plugin (${findings.length === 0 ? 'none found' : `read ${findings.map((finding) => finding.source).join(', ')}`})${note}`,
    fix: 'Add "plugin": ["opencode-cursor-native"] to opencode.json (the OpenAI-compatible server needs no plugin).',
  }
}

export function dataCheck(env: Env): Check {
  const folder = dataDirectory(env)
  const probe = join(folder, `.doctor-${process.pid}`)
  try {
    mkdirSync(folder, { recursive: true })
    writeFileSync(probe, '')
    rmSync(probe)
    return { id: 'data-dir', status: 'ok', detail: `${folder} is writable` }
  } catch (error) {
    return {
      id: 'data-dir',
      status: 'problem',
      detail: `${folder} is not writable: ${(error as Error).message}`,
      fix: 'Make the folder writable, or set XDG_DATA_HOME to a writable folder.',
    }
  }
}
