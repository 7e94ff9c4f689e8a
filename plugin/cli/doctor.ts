// `npx opencode-cursor-native doctor [--json] [--live]`: every check of whether this machine can
// use Cursor from OpenCode, each with its verdict and how to fix it. The exit code is 1 only when a
// check found a problem, something that blocks use.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { storedApiKey } from '../opencode/auth.js'
import { PROVIDER_ID } from '../opencode/config-files.js'
import { childEnvironment, dataDirectory, withApiKey } from '../turn/env.js'
import { packageRoot } from '../turn/native.js'
import { agentCheck, loginCheck, modelsCheck, versionCheck } from './doctor-agent.js'
import { type Check, type CheckStatus, skipped } from './doctor-check.js'
import { installCheck, updateCheck } from './doctor-install.js'
import { liveChecks, LIVE_IDS } from './doctor-live-checks.js'
import { addonCheck, configCheck, dataCheck, loadedAddonFile, settingsCheck } from './doctor-local.js'
import { projectSettingsCheck } from './doctor-project-settings.js'
import type { DoctorReport } from './doctor-report.js'
import { timeoutsCheck } from './doctor-timeouts.js'
import { TOOL_MODE_IDS, toolModeChecks } from './doctor-tool-mode.js'

export type { Check, CheckStatus, DoctorReport }

export interface DoctorOptions {
  /** Also run the checks that use the Cursor account (a few requests of the plan). */
  live: boolean
  /** The model of the live checks. */
  model: string
  /** The live checks to run besides the round trip, which every other needs (`--check`); default all. */
  checks?: ReadonlySet<string>
  /** The folder whose OpenCode project configuration is checked. */
  cwd: string
  env: Record<string, string | undefined>
}

export const DEFAULT_LIVE_MODEL = 'auto'

export async function runDoctor(options: DoctorOptions): Promise<DoctorReport> {
  const checks: Check[] = []
  const addon = addonCheck()
  checks.push(addon.check, installCheck(packageRoot(), loadedAddonFile(), options.env))
  checks.push(
    await updateCheck(JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')).version, options.env),
  )
  const agentIds = ['settings', 'timeouts', 'agent', 'version', 'login', ...TOOL_MODE_IDS, 'models']
  if (addon.api === undefined) {
    checks.push(...agentIds.map((id) => skipped(id, 'needs the native addon')))
    checks.push(configCheck(options.cwd, options.env), skipped('project-settings', 'needs the native addon'))
    checks.push(dataCheck(options.env))
    if (options.live) checks.push(...LIVE_IDS.map((id) => skipped(id, 'needs the native addon')))
    return { ok: false, checks }
  }
  const api = addon.api
  const { check, settings, logFile, warnings } = settingsCheck(api, options.env)
  checks.push(check, timeoutsCheck(settings, options.env, warnings))
  // As a turn does: OpenCode's stored key, over the environment's.
  const stored = storedApiKey(PROVIDER_ID, options.env)
  const env = withApiKey(childEnvironment(options.env, settings), stored)
  const agent = agentCheck(api, settings, env, options.env)
  checks.push(agent.check)
  if (agent.found) {
    checks.push(await versionCheck(api, settings, env, agent.pathVersion))
    const login = await loginCheck(api, settings, env, options.env)
    checks.push(login)
    checks.push(...(await toolModeChecks(api, settings, options.env, stored)))
    checks.push(login.status === 'problem' ? skipped('models', 'needs a login') : await modelsCheck(api, settings, env))
  } else {
    checks.push(...['version', 'login', ...TOOL_MODE_IDS, 'models'].map((id) => skipped(id, 'needs cursor-agent')))
  }
  checks.push(configCheck(options.cwd, options.env), projectSettingsCheck(options.cwd, options.env))
  checks.push(dataCheck(options.env))
  const blocked = checks.find((found) => found.status === 'problem')
  if (!options.live) {
    const run = 'Run `npx opencode-cursor-native doctor --live`.'
    checks.push(...LIVE_IDS.map((id, index) => skipped(id, 'uses the Cursor account', index === 0 ? run : undefined)))
  } else if (blocked !== undefined) {
    checks.push(...LIVE_IDS.map((id) => skipped(id, `needs the ${blocked.id} check to pass`)))
  } else {
    const setup = {
      api,
      executable: settings.executable,
      env: withApiKey(childEnvironment(options.env, { ...settings, toolMode: 'opencode' }), stored),
      plainEnv: withApiKey(childEnvironment(options.env, { ...settings, toolMode: 'cursor' }), stored),
      folder: join(dataDirectory(options.env), 'conversations', 'doctor'),
      model: options.model,
    }
    checks.push(...(await liveChecks(setup, settings, logFile, options.checks)))
  }
  return { ok: checks.every((found) => found.status !== 'problem'), checks }
}
