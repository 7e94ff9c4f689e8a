// The doctor's checks of cursor-agent itself: found, which version, logged in, and the models the
// account is offered.
import { openCodeAuthFile, storedApiKey } from '../opencode/auth.js'
import { PROVIDER_ID } from '../opencode/config-files.js'
import type { CursorAcpSettings } from '../turn/env.js'
import type { NativeApi } from '../turn/native.js'
import { type Check, errorText, LOGIN_FIX } from './doctor-check.js'

type Env = Record<string, string | undefined>

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
export async function loginCheck(
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
    const ran = await api.runCursorAgentCommand({ args: ['status'], ...lookup(settings, env) })
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

export async function modelsCheck(
  api: NativeApi,
  settings: CursorAcpSettings,
  env: Record<string, string>,
): Promise<Check> {
  try {
    const models = await api.listCursorModels(lookup(settings, env))
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
