// The doctor's checks of cursor-agent itself: found, which version, logged in, and the models the
// account is offered.
import { openCodeAuthFile, storedApiKey } from '../opencode/auth.js'
import { PROVIDER_ID } from '../opencode/config-files.js'
import type { CursorAcpSettings } from '../turn/env.js'
import type { NativeApi } from '../turn/native.js'
import { type Check, check, errorText, LOGIN_FIX } from './doctor-check.js'

type Env = Record<string, string | undefined>

const PLAN_FIX = 'Check the plan of the account cursor-agent is logged in with.'
const INSTALL_FIX =
  'Install it with `curl https://cursor.com/install -fsS | bash`, or set CURSOR_AGENT_EXECUTABLE to its path.'

/** Where cursor-agent is looked for, and the environment it runs in. */
function lookup(settings: CursorAcpSettings, env: Record<string, string>) {
  return { ...(settings.executable === undefined ? {} : { executable: settings.executable }), env }
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

export function agentCheck(
  api: NativeApi,
  settings: CursorAcpSettings,
  env: Record<string, string>,
  hostEnv: Env,
): { check: Check; found: boolean; pathVersion?: string } {
  const resolution = api.resolveCursorAgent(lookup(settings, env))
  if (resolution.path !== undefined)
    return {
      found: true,
      ...(resolution.version === undefined ? {} : { pathVersion: resolution.version }),
      check: check('agent', 'ok', `cursor-agent found: ${resolution.path}${nodeOptionsNote(hostEnv)}`),
    }
  const tried = [...new Set(resolution.tried)].join(', ')
  return { found: false, check: check('agent', 'problem', `cursor-agent not found; looked at ${tried}`, INSTALL_FIX) }
}

/**
 * What `cursor-agent --version` says, and the release folder the binary resolves into
 * (`…/cursor-agent/versions/<version>/`), which names the version every run records. Cursor updates
 * itself between runs, so the two can differ for a moment.
 */
export async function versionCheck(
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
    const ran = await api.runCursorAgentCommand({ args: ['--version'], ...lookup(settings, env) })
    const version = ran.stdout.trim().split('\n')[0]
    if (ran.exitCode === 0 && version) return check('version', 'ok', `cursor-agent ${version} (--version); ${folder}`)
    const exited = `\`cursor-agent --version\` exited with ${ran.exitCode ?? ran.signal}; ${folder}`
    return check('version', 'warning', exited, 'Update it with `cursor-agent update`.')
  } catch (error) {
    return check('version', 'problem', `cursor-agent does not start: ${errorText(error)}`, INSTALL_FIX)
  }
}

/** `cursor-agent status` says whether a login is stored; an API key in the environment counts too. */
export async function loginCheck(
  api: NativeApi,
  settings: CursorAcpSettings,
  env: Record<string, string>,
  hostEnv: Env,
): Promise<Check> {
  if (storedApiKey(PROVIDER_ID, hostEnv) !== undefined)
    return check('login', 'ok', `an API key is stored in OpenCode (${openCodeAuthFile(hostEnv)})`)
  if ((env.CURSOR_API_KEY ?? '').trim() !== '') return check('login', 'ok', 'an API key is set (CURSOR_API_KEY)')
  try {
    const ran = await api.runCursorAgentCommand({ args: ['status'], ...lookup(settings, env) })
    const said = `${ran.stdout}\n${ran.stderr}`
    if (/not logged in|unauthenticated|authentication required/i.test(said))
      return check('login', 'problem', 'cursor-agent is not logged in', LOGIN_FIX)
    if (ran.exitCode === 0 && /logged in|authenticated/i.test(said))
      return check('login', 'ok', 'cursor-agent is logged in')
    const unclear = `\`cursor-agent status\` gave no clear answer (exit ${ran.exitCode ?? ran.signal})`
    return check('login', 'warning', unclear, LOGIN_FIX)
  } catch (error) {
    return check('login', 'problem', `\`cursor-agent status\` failed: ${errorText(error)}`, LOGIN_FIX)
  }
}

export async function modelsCheck(
  api: NativeApi,
  settings: CursorAcpSettings,
  env: Record<string, string>,
): Promise<Check> {
  try {
    const models = await api.listCursorModels(lookup(settings, env))
    if (models.length === 0) return check('models', 'problem', 'Cursor offers this account no models', PLAN_FIX)
    const shown = models.slice(0, 8).map((model) => model.id)
    const more = models.length > shown.length ? ', ...' : ''
    return check('models', 'ok', `${models.length} models: ${shown.join(', ')}${more}`)
  } catch (error) {
    const fix =
      (error as { code?: string }).code === 'E_AUTH' ? LOGIN_FIX : 'Run `cursor-agent models` to see what it says.'
    return check('models', 'problem', `\`cursor-agent models\` failed: ${errorText(error)}`, fix)
  }
}
