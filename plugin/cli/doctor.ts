// `npx opencode-cursor-native doctor [--json] [--live]`: every check of whether this machine can
// use Cursor from OpenCode, each with its verdict and how to fix it. The exit code is 1 only when a
// check found a problem, something that blocks use.
import type { Check, CheckStatus } from './doctor-check.js'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import {
  checkBridgeTools,
  checkDeadline,
  checkHostInstructions,
  checkPicture,
  checkNativeRefused,
  checkProbeCall,
  checkRoundTrip,
  type LiveOutcome,
  type LiveSetup,
} from './doctor-live.js'
import { installCheck, updateCheck } from './doctor-install.js'
import { projectSettingsCheck } from './doctor-project-settings.js'
import { timeoutsCheck } from './doctor-timeouts.js'
import { type ToolModeFinding, toolModeFiles, toolModeLogin } from './doctor-tool-mode.js'
import {
  captureFolder,
  childEnvironment,
  dataDirectory,
  readSettings,
  withApiKey,
  type CursorAcpSettings,
} from '../turn/env.js'
import { native, packageRoot, type NativeApi } from '../turn/native.js'
import { openCodeAuthFile, storedApiKey } from '../opencode/auth.js'
import { findOpenCodeConfigs, PROVIDER_ID } from '../opencode/config-files.js'

export type { Check, CheckStatus }

export interface DoctorReport {
  /** No check is a problem. */
  ok: boolean
  checks: Check[]
}

export interface DoctorOptions {
  /** Also run the checks that use the Cursor account (a few requests of the plan). */
  live: boolean
  /** The model of the live checks. */
  model: string
  /** The folder whose OpenCode project configuration is checked. */
  cwd: string
  env: Record<string, string | undefined>
}

type Env = DoctorOptions['env']

const LOGIN_FIX = 'Run `cursor-agent login`, `opencode auth login` (Cursor API key), or set CURSOR_API_KEY.'
const INSTALL_FIX =
  'Install it with `curl https://cursor.com/install -fsS | bash`, or set CURSOR_AGENT_EXECUTABLE to its path.'

/** The addon's file: the `.node` module the loader picked. */
function loadedAddonFile(): string | undefined {
  const cache = createRequire(import.meta.url).cache
  return Object.keys(cache).find((file) => file.endsWith('.node') && file.includes('opencode-cursor-native'))
}

function addonCheck(): { check: Check; api?: NativeApi } {
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
function settingsCheck(
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

/**
 * What the agent check says of a `NODE_OPTIONS` in the host's environment: no child gets it (the
 * native runner removes it), since cursor-agent's bundled Node refuses to start on flags it does
 * not allow.
 */
export function nodeOptionsNote(hostEnv: Env): string {
  const value = hostEnv.NODE_OPTIONS
  return value === undefined || value.trim() === ''
    ? ''
    : "; NODE_OPTIONS is set here and is not passed to cursor-agent (its bundled Node refuses flags it does not allow), so OpenCode's Node flags do not reach it"
}

function agentCheck(
  api: NativeApi,
  settings: CursorAcpSettings,
  env: Record<string, string>,
  hostEnv: Env,
): { check: Check; found: boolean; pathVersion?: string } {
  const lookup = { ...(settings.executable === undefined ? {} : { executable: settings.executable }), env }
  const resolution = api.resolveCursorAgent(lookup)
  if (resolution.path !== undefined)
    return {
      found: true,
      ...(resolution.version === undefined ? {} : { pathVersion: resolution.version }),
      check: {
        id: 'agent',
        status: 'ok',
        detail: `cursor-agent found: ${resolution.path}${nodeOptionsNote(hostEnv)}`,
      },
    }
  return {
    found: false,
    check: {
      id: 'agent',
      status: 'problem',
      detail: `cursor-agent not found; looked at ${[...new Set(resolution.tried)].join(', ')}`,
      fix: INSTALL_FIX,
    },
  }
}

async function command(api: NativeApi, settings: CursorAcpSettings, env: Record<string, string>, args: string[]) {
  return api.runCursorAgentCommand({
    args,
    ...(settings.executable === undefined ? {} : { executable: settings.executable }),
    env,
  })
}

function errorText(error: unknown): string {
  const { message, code } = error as { message?: string; code?: string }
  return code === undefined ? String(message ?? error) : `${message} [${code}]`
}

/**
 * What `cursor-agent --version` says, and the release folder the binary resolves into
 * (`…/cursor-agent/versions/<version>/`), which names the version every run records. Cursor updates
 * itself between runs, so the two can differ for a moment.
 */
async function versionCheck(
  api: NativeApi,
  settings: CursorAcpSettings,
  env: Record<string, string>,
  pathVersion: string | undefined,
): Promise<Check> {
  const folder =
    pathVersion === undefined
      ? 'its path names no release folder (…/cursor-agent/versions/<version>/)'
      : `its path names ${pathVersion}`
  try {
    const ran = await command(api, settings, env, ['--version'])
    const version = ran.stdout.trim().split('\n')[0]
    if (ran.exitCode === 0 && version)
      return { id: 'version', status: 'ok', detail: `cursor-agent ${version} (--version); ${folder}` }
    return {
      id: 'version',
      status: 'warning',
      detail: `\`cursor-agent --version\` exited with ${ran.exitCode ?? ran.signal}; ${folder}`,
      fix: 'Update it with `cursor-agent update`.',
    }
  } catch (error) {
    return {
      id: 'version',
      status: 'problem',
      detail: `cursor-agent does not start: ${errorText(error)}`,
      fix: INSTALL_FIX,
    }
  }
}

/** `cursor-agent status` says whether a login is stored; an API key in the environment counts too. */
async function loginCheck(
  api: NativeApi,
  settings: CursorAcpSettings,
  env: Record<string, string>,
  hostEnv: Env,
): Promise<Check> {
  if (storedApiKey(PROVIDER_ID, hostEnv) !== undefined)
    return { id: 'login', status: 'ok', detail: `an API key is stored in OpenCode (${openCodeAuthFile(hostEnv)})` }
  if ((env.CURSOR_API_KEY ?? '').trim() !== '')
    return { id: 'login', status: 'ok', detail: 'an API key is set (CURSOR_API_KEY)' }
  try {
    const ran = await command(api, settings, env, ['status'])
    const said = `${ran.stdout}\n${ran.stderr}`
    if (/not logged in|unauthenticated|authentication required/i.test(said))
      return { id: 'login', status: 'problem', detail: 'cursor-agent is not logged in', fix: LOGIN_FIX }
    if (ran.exitCode === 0 && /logged in|authenticated/i.test(said))
      return { id: 'login', status: 'ok', detail: 'cursor-agent is logged in' }
    return {
      id: 'login',
      status: 'warning',
      detail: `\`cursor-agent status\` gave no clear answer (exit ${ran.exitCode ?? ran.signal})`,
      fix: LOGIN_FIX,
    }
  } catch (error) {
    return {
      id: 'login',
      status: 'problem',
      detail: `\`cursor-agent status\` failed: ${errorText(error)}`,
      fix: LOGIN_FIX,
    }
  }
}

async function modelsCheck(api: NativeApi, settings: CursorAcpSettings, env: Record<string, string>): Promise<Check> {
  try {
    const models = await api.listCursorModels({
      ...(settings.executable === undefined ? {} : { executable: settings.executable }),
      env,
    })
    if (models.length === 0)
      return {
        id: 'models',
        status: 'problem',
        detail: 'Cursor offers this account no models',
        fix: 'Check the plan of the account cursor-agent is logged in with.',
      }
    const shown = models.slice(0, 8).map((model) => model.id)
    return {
      id: 'models',
      status: 'ok',
      detail: `${models.length} models: ${shown.join(', ')}${models.length > shown.length ? ', ...' : ''}`,
    }
  } catch (error) {
    const code = (error as { code?: string }).code
    return {
      id: 'models',
      status: 'problem',
      detail: `\`cursor-agent models\` failed: ${errorText(error)}`,
      fix: code === 'E_AUTH' ? LOGIN_FIX : 'Run `cursor-agent models` to see what it says.',
    }
  }
}

function configCheck(cwd: string, env: Env): Check {
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

function dataCheck(env: Env): Check {
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

const ROUND_TRIP_ID = 'live-round-trip'
const INSTRUCTIONS_ID = 'live-host-instructions'
const PICTURE_ID = 'live-picture'
const VERDICT_ID = 'tool-mode-opencode'
const BRIDGE_CHECKS: ReadonlyArray<{ id: string; run: (setup: LiveSetup) => Promise<LiveOutcome> }> = [
  { id: 'live-bridge-tools', run: checkBridgeTools },
  { id: 'live-probe-call', run: checkProbeCall },
  { id: 'live-deadline', run: checkDeadline },
  { id: 'live-native-refused', run: checkNativeRefused },
]
/** Every check `--live` adds, in order. */
const LIVE_IDS = [ROUND_TRIP_ID, INSTRUCTIONS_ID, PICTURE_ID, ...BRIDGE_CHECKS.map((check) => check.id), VERDICT_ID]

/** What to do when the round trip fails, by the run's error code; any other code: {@link debugFix}. */
const ROUND_TRIP_FIX: Readonly<Partial<Record<string, string>>> = {
  E_AUTH: LOGIN_FIX,
  E_MODEL: 'Pick another model with `--model <id>`, one of those the models check lists.',
  E_QUOTA: 'Wait for the usage limit to reset, or pick another model with `--model <id>`.',
  E_NETWORK:
    "Check the connection to Cursor's servers (and HTTPS_PROXY, if you need a proxy), then run the doctor again.",
}
const debugFix = (logFile: string) => `Rerun with CURSOR_ACP_LOG_LEVEL=debug and read the log, ${logFile}.`

async function outcomeOf(run: (setup: LiveSetup) => Promise<LiveOutcome>, setup: LiveSetup): Promise<LiveOutcome> {
  try {
    return await run(setup)
  } catch (error) {
    const { code } = error as { code?: unknown }
    return { passed: false, detail: errorText(error), ...(typeof code === 'string' ? { code } : {}) }
  }
}

/**
 * The round trip, then the checks of the bridge and the verdict on tool mode `opencode`. A failed
 * round trip blocks any use, and skips the rest (their requests would be spent for nothing); a
 * failed bridge check blocks use only when that mode is chosen.
 */
async function liveChecks(setup: LiveSetup, settings: CursorAcpSettings, logFile: string): Promise<Check[]> {
  const roundTrip = await outcomeOf(checkRoundTrip, setup)
  if (!roundTrip.passed) {
    const fix = (roundTrip.code === undefined ? undefined : ROUND_TRIP_FIX[roundTrip.code]) ?? debugFix(logFile)
    const rest = LIVE_IDS.filter((id) => id !== ROUND_TRIP_ID).map((id) =>
      skipped(id, `needs the ${ROUND_TRIP_ID} check to pass`),
    )
    return [{ id: ROUND_TRIP_ID, status: 'problem', detail: roundTrip.detail, fix }, ...rest]
  }
  const instructions = await instructionsCheck(setup, settings)
  const picture = await pictureCheck(setup)
  const failing: CheckStatus = settings.toolMode === 'opencode' ? 'problem' : 'warning'
  const bridge: Check[] = []
  for (const { id, run } of BRIDGE_CHECKS) {
    const outcome = await outcomeOf(run, setup)
    bridge.push(
      outcome.passed
        ? { id, status: 'ok', detail: outcome.detail }
        : { id, status: failing, detail: outcome.detail, fix: outcome.fix ?? 'Please report this output.' },
    )
  }
  const passed = bridge.every((check) => check.status === 'ok')
  const verdict: Check = passed
    ? {
        id: VERDICT_ID,
        status: 'ok',
        detail: 'tool mode opencode can be used on this machine (CURSOR_ACP_TOOL_MODE=opencode)',
      }
    : {
        id: VERDICT_ID,
        status: failing,
        detail: 'tool mode opencode cannot be used on this machine yet',
        fix: 'Keep the default tool mode cursor, and please report this output with your cursor-agent version.',
      }
  return [{ id: ROUND_TRIP_ID, status: 'ok', detail: roundTrip.detail }, instructions, picture, ...bridge, verdict]
}

/** A first turn with OpenCode's real system prompt, in the chosen tool mode: answered, not refused. */
async function instructionsCheck(setup: LiveSetup, settings: CursorAcpSettings): Promise<Check> {
  const outcome = await outcomeOf((live) => checkHostInstructions(live, settings.toolMode), setup)
  if (outcome.passed) return { id: INSTRUCTIONS_ID, status: 'ok', detail: outcome.detail }
  return {
    id: INSTRUCTIONS_ID,
    status: 'problem',
    detail: outcome.detail,
    fix: 'Please report this output with your cursor-agent version and the model; another model may accept it (`--model <id>`).',
  }
}

/** A picture the model must read: a warning when it does not (text still works). */
async function pictureCheck(setup: LiveSetup): Promise<Check> {
  const outcome = await outcomeOf(checkPicture, setup)
  if (outcome.passed) return { id: PICTURE_ID, status: 'ok', detail: outcome.detail }
  return { id: PICTURE_ID, status: 'warning', detail: outcome.detail, fix: outcome.fix ?? 'Please report this output.' }
}

const TOOL_MODE_IDS = ['tool-mode-login', 'tool-mode-files']

/**
 * `cursor-agent status` in the exact environment and private folder of tool mode `opencode`, then
 * the files it prepared there, read as Cursor reads them: a problem when that mode is chosen.
 */
async function toolModeChecks(
  api: NativeApi,
  settings: CursorAcpSettings,
  hostEnv: Env,
  stored: string | undefined,
): Promise<Check[]> {
  const env = withApiKey(childEnvironment(hostEnv, { ...settings, toolMode: 'opencode' }), stored)
  const folder = join(dataDirectory(hostEnv), 'conversations', 'doctor')
  const failing: CheckStatus = settings.toolMode === 'opencode' ? 'problem' : 'warning'
  const asCheck = (id: string, found: ToolModeFinding): Check =>
    found.passed
      ? { id, status: 'ok', detail: found.detail }
      : { id, status: failing, detail: found.detail, ...(found.fix === undefined ? {} : { fix: found.fix }) }
  let login: Check
  try {
    login = asCheck('tool-mode-login', await toolModeLogin(api, settings.executable, env, folder))
  } catch (error) {
    const detail = `\`cursor-agent status\` in the private folder failed: ${errorText(error)}`
    return [{ id: 'tool-mode-login', status: failing, detail }, skipped('tool-mode-files', 'needs the private folder')]
  }
  return [login, asCheck('tool-mode-files', toolModeFiles(folder))]
}

const skipped = (id: string, detail: string, fix?: string): Check => ({
  id,
  status: 'skipped',
  detail,
  ...(fix === undefined ? {} : { fix }),
})

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
  const needsAgent = 'needs cursor-agent'
  if (agent.found) {
    checks.push(await versionCheck(api, settings, env, agent.pathVersion))
    const login = await loginCheck(api, settings, env, options.env)
    checks.push(login)
    checks.push(...(await toolModeChecks(api, settings, options.env, stored)))
    checks.push(login.status === 'problem' ? skipped('models', 'needs a login') : await modelsCheck(api, settings, env))
  } else {
    checks.push(...['version', 'login', ...TOOL_MODE_IDS, 'models'].map((id) => skipped(id, needsAgent)))
  }
  checks.push(configCheck(options.cwd, options.env), projectSettingsCheck(options.cwd, options.env))
  const data = dataCheck(options.env)
  checks.push(data)
  const blocked = checks.find((found) => found.status === 'problem')
  if (!options.live) {
    checks.push(
      ...LIVE_IDS.map((id, index) =>
        skipped(
          id,
          'uses the Cursor account',
          index === 0 ? 'Run `npx opencode-cursor-native doctor --live`.' : undefined,
        ),
      ),
    )
  } else if (blocked !== undefined) {
    checks.push(...LIVE_IDS.map((id) => skipped(id, `needs the ${blocked.id} check to pass`)))
  } else {
    const setup: LiveSetup = {
      api,
      executable: settings.executable,
      env: withApiKey(childEnvironment(options.env, { ...settings, toolMode: 'opencode' }), stored),
      plainEnv: withApiKey(childEnvironment(options.env, { ...settings, toolMode: 'cursor' }), stored),
      folder: join(dataDirectory(options.env), 'conversations', 'doctor'),
      model: options.model,
    }
    checks.push(...(await liveChecks(setup, settings, logFile)))
  }
  return { ok: checks.every((found) => found.status !== 'problem'), checks }
}

const LABEL: Readonly<Record<CheckStatus, string>> = {
  ok: 'ok',
  problem: 'PROBLEM',
  warning: 'warning',
  skipped: 'skipped',
}

/** The report for a person: a line per check, its fix below. */
export function formatReport(report: DoctorReport, version: string): string {
  const width = Math.max(...report.checks.map((check) => check.id.length))
  const lines = [`opencode-cursor-native ${version} doctor`]
  for (const check of report.checks) {
    lines.push(`${LABEL[check.status].padEnd(8)} ${check.id.padEnd(width)}  ${check.detail}`)
    if (check.fix !== undefined && check.status !== 'ok') lines.push(`${' '.repeat(8 + width + 3)}fix: ${check.fix}`)
  }
  lines.push(report.ok ? 'No problems found.' : 'Problems found: see PROBLEM above.')
  return `${lines.join('\n')}\n`
}

export const DEFAULT_LIVE_MODEL = 'auto'
