// The checks of tool mode `opencode`'s private folder, in the exact environment its runs get:
// whether cursor-agent is logged in there (a private `HOME` hides a Linux login unless
// `XDG_CONFIG_HOME` still points at the user's), and whether each file the plugin writes there
// is one Cursor's own code would read as meant (its MCP configuration loader, permission rules
// and hooks reader, as Cursor's npm package `@cursor/sdk` 1.0.18 bundles them).
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type CursorAcpSettings, childEnvironment, dataDirectory, withApiKey } from '../turn/env.js'
import type { NativeApi } from '../turn/native.js'
import { type Check, type CheckStatus, checkOf, errorText, skipped } from './doctor-check.js'

/** What a check found, as the doctor reports it. */
export interface ToolModeFinding {
  passed: boolean
  detail: string
  fix?: string
}

/** The bridge's server name, as in the private `mcp.json` and the `Mcp(<server>:*)` rule. */
const SERVER = 'opencode'
/** The hook events the plugin writes; Cursor drops a whole file over an event it does not know. */
const HOOK_EVENTS = ['preToolUse', 'beforeMCPExecution'] as const

export const HIDDEN_LOGIN_FIX =
  'Tool mode opencode runs cursor-agent with a private HOME; your login is not found there. ' +
  'Set CURSOR_API_KEY (or run `opencode auth login` with a Cursor API key); on Linux, keep the login ' +
  'in $XDG_CONFIG_HOME/cursor/auth.json (default ~/.config/cursor/), which the plugin passes through.'

/** `cursor-agent status` where tool mode `opencode` runs it: its private folder and environment. */
export async function toolModeLogin(
  api: NativeApi,
  executable: string | undefined,
  env: Record<string, string>,
  folder: string,
): Promise<ToolModeFinding> {
  const ran = await api.runCursorAgentCommand({
    args: ['status'],
    ...(executable === undefined ? {} : { executable }),
    env,
    hostTools: { tools: [], folder },
  })
  const said = `${ran.stdout}\n${ran.stderr}`
  const fix = HIDDEN_LOGIN_FIX
  if (/not logged in|unauthenticated|authentication required/i.test(said))
    return { passed: false, detail: "cursor-agent is not logged in inside tool mode opencode's private folder", fix }
  if (ran.exitCode === 0 && /logged in|authenticated/i.test(said))
    return { passed: true, detail: "cursor-agent is logged in inside tool mode opencode's private folder" }
  const unclear = `\`cursor-agent status\` in the private folder gave no clear answer (exit ${ran.exitCode ?? ran.signal})`
  return { passed: false, detail: unclear, fix }
}

type Json = Record<string, unknown>
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)
const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string')

/** A hooks file as Cursor reads it: `//` cut to each line's end, then JSON, `version` 1, known events. */
export function hooksProblem(text: string): string | undefined {
  let parsed: unknown
  try {
    parsed = JSON.parse(text.replace(/\/\/.*$/gm, ''))
  } catch {
    return 'is not JSON once Cursor cuts `//` to the end of the line, so Cursor drops it and no hook runs'
  }
  if (!isObject(parsed) || parsed.version !== 1) return 'has no "version": 1'
  if (!isObject(parsed.hooks)) return 'has no hooks object'
  for (const event of HOOK_EVENTS) {
    const list = parsed.hooks[event]
    if (
      !Array.isArray(list) ||
      !list.every((hook) => isObject(hook) && hook.failClosed === true && typeof hook.command === 'string')
    )
      return `has no fail-closed ${event} hook`
    if (!list.every((hook) => existsSync(String((hook as Json).command))))
      return `names a ${event} script that is missing`
  }
  return undefined
}

/** `.cursor/cli.json` as Cursor reads it: strictly `{permissions: {allow, deny}}`, the bridge allowed. */
export function cliJsonProblem(text: string): string | undefined {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return 'is not JSON'
  }
  if (!isObject(parsed) || Object.keys(parsed).join() !== 'permissions') return 'has keys besides "permissions"'
  const { permissions } = parsed
  if (!isObject(permissions) || Object.keys(permissions).sort().join() !== 'allow,deny')
    return 'needs exactly "allow" and "deny" in "permissions"'
  if (!isStrings(permissions.allow) || !isStrings(permissions.deny)) return 'needs lists of strings'
  if (!permissions.allow.includes(`Mcp(${SERVER}:*)`))
    return `does not allow Mcp(${SERVER}:*): Cursor would reject every call to the bridge`
  return undefined
}

/** The bridge is a user-level server of the private HOME only (the workspace's would need an approval). */
export function mcpJsonProblem(folder: string): string | undefined {
  if (existsSync(join(folder, 'workspace', '.cursor', 'mcp.json')))
    return 'the private workspace has an mcp.json (its servers need an approval keyed on their URL)'
  const path = join(folder, 'home', '.cursor', 'mcp.json')
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'))
    const servers = isObject(parsed) && isObject(parsed.mcpServers) ? parsed.mcpServers : {}
    const server = servers[SERVER]
    if (Object.keys(servers).length !== 1 || !isObject(server) || typeof server.url !== 'string')
      return `${path} does not name the bridge alone`
  } catch {
    return `${path} is missing or not JSON`
  }
  return undefined
}

/** Each file of a prepared private folder, read the way Cursor reads it. */
export function toolModeFiles(folder: string): ToolModeFinding {
  const problems: string[] = []
  const mcp = mcpJsonProblem(folder)
  if (mcp !== undefined) problems.push(mcp)
  const read = (path: string, problem: (text: string) => string | undefined) => {
    try {
      const found = problem(readFileSync(path, 'utf8'))
      if (found !== undefined) problems.push(`${path} ${found}`)
    } catch {
      problems.push(`${path} is missing`)
    }
  }
  read(join(folder, 'workspace', '.cursor', 'cli.json'), cliJsonProblem)
  if (process.platform !== 'win32')
    for (const home of ['workspace', 'home']) read(join(folder, home, '.cursor', 'hooks.json'), hooksProblem)
  if (problems.length === 0)
    return { passed: true, detail: `mcp.json, cli.json and hooks.json in ${folder} read as Cursor reads them` }
  const fix = 'Please report this output with your cursor-agent version.'
  return { passed: false, detail: problems.join('; '), fix }
}

export const TOOL_MODE_IDS = ['tool-mode-login', 'tool-mode-files']

/**
 * `cursor-agent status` in the exact environment and private folder of tool mode `opencode`, then
 * the files it prepared there, read as Cursor reads them: a problem when that mode is chosen.
 */
export async function toolModeChecks(
  api: NativeApi,
  settings: CursorAcpSettings,
  hostEnv: Record<string, string | undefined>,
  stored: string | undefined,
): Promise<Check[]> {
  const env = withApiKey(childEnvironment(hostEnv, { ...settings, toolMode: 'opencode' }), stored)
  const folder = join(dataDirectory(hostEnv), 'conversations', 'doctor')
  const failing: CheckStatus = settings.toolMode === 'opencode' ? 'problem' : 'warning'
  let login: Check
  try {
    login = checkOf('tool-mode-login', await toolModeLogin(api, settings.executable, env, folder), failing)
  } catch (error) {
    const detail = `\`cursor-agent status\` in the private folder failed: ${errorText(error)}`
    return [{ id: 'tool-mode-login', status: failing, detail }, skipped('tool-mode-files', 'needs the private folder')]
  }
  return [login, checkOf('tool-mode-files', toolModeFiles(folder), failing)]
}
