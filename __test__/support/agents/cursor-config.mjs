// How Cursor's own code reads its configuration files, as `@cursor/sdk@1.0.18` bundles it (the
// same code cursor-agent runs: its permission rules, hooks reader and configuration loader). The fake
// cursor-agent reads through these, so a file the plugin writes that Cursor would drop or
// misread fails here too.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'

/** The hook events a hooks file may name (any other key drops the whole file). */
export const HOOK_EVENTS = Object.freeze([
  'sessionStart',
  'sessionEnd',
  'preToolUse',
  'postToolUse',
  'postToolUseFailure',
  'subagentStart',
  'subagentStop',
  'beforeShellExecution',
  'afterShellExecution',
  'beforeMCPExecution',
  'afterMCPExecution',
  'beforeReadFile',
  'afterFileEdit',
  'beforeSubmitPrompt',
  'preCompact',
  'stop',
  'afterAgentResponse',
  'afterAgentThought',
])

/**
 * A hooks file as Cursor reads it: `//` to the end of each line is cut (even inside a string,
 * `http://` included), then JSON; `version` a positive integer, `hooks` an object of known events,
 * each a list of `{command}`. Any error drops the whole file silently: `{hooks: {}, dropped}`.
 */
export function readHooksText(text) {
  const dropped = (reason) => ({ version: undefined, hooks: {}, dropped: reason })
  let parsed
  try {
    parsed = JSON.parse(text.replace(/\/\/.*$/gm, ''))
  } catch (error) {
    return dropped(`not JSON once // is cut: ${error.message}`)
  }
  if (!Number.isInteger(parsed?.version) || parsed.version < 1) return dropped('version is not a positive integer')
  if (typeof parsed.hooks !== 'object' || parsed.hooks === null || Array.isArray(parsed.hooks))
    return dropped('hooks is not an object')
  for (const [event, list] of Object.entries(parsed.hooks)) {
    if (!HOOK_EVENTS.includes(event)) return dropped(`unknown hook event ${event}`)
    if (!Array.isArray(list) || list.some((hook) => typeof hook?.command !== 'string'))
      return dropped(`${event} is not a list of {command}`)
  }
  return { version: parsed.version, hooks: parsed.hooks, dropped: undefined }
}

/** The hooks files Cursor reads for a run (user, then project), each as {@link readHooksText}. */
export function readHooks(workspace, env) {
  const files = [join(env.HOME ?? homedir(), '.cursor', 'hooks.json'), join(workspace, '.cursor', 'hooks.json')]
  return files
    .filter((path) => existsSync(path))
    .map((path) => ({ path, ...readHooksText(readFileSync(path, 'utf8')) }))
}

/**
 * `.cursor/cli.json` as Cursor reads it: strictly `{permissions: {allow: string[], deny:
 * string[]}}`; anything else is refused (`rules` undefined, `refused` the reason).
 */
export function readCliJsonText(text) {
  let parsed
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    return { refused: `not JSON: ${error.message}` }
  }
  const keys = Object.keys(parsed ?? {})
  if (keys.length !== 1 || keys[0] !== 'permissions') return { refused: `keys ${keys.join(', ')}` }
  const { permissions } = parsed
  const permissionKeys = Object.keys(permissions ?? {}).sort()
  if (permissionKeys.join(',') !== 'allow,deny') return { refused: `permissions keys ${permissionKeys.join(', ')}` }
  for (const key of ['allow', 'deny'])
    if (!Array.isArray(permissions[key]) || permissions[key].some((rule) => typeof rule !== 'string'))
      return { refused: `${key} is not a list of strings` }
  return { rules: { allow: permissions.allow, deny: permissions.deny } }
}

function glob(pattern) {
  const body = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')
  return new RegExp(`^${body}$`, 'i')
}

/** Whether `rule` is `Mcp(<server>:<tool>)` matching the call (`*` globs, any case; no colon: nothing). */
export function mcpRuleMatches(rule, server, tool) {
  const found = /^Mcp\((.*)\)$/i.exec(rule)
  if (found === null) return false
  const colon = found[1].indexOf(':')
  if (colon === -1) return false
  return glob(found[1].slice(0, colon)).test(server) && glob(found[1].slice(colon + 1)).test(tool)
}

/**
 * What Cursor decides for an MCP call in print mode: a matching deny blocks, a matching allow
 * passes, `--force` passes, anything else needs an approval print mode cannot give (`rejected`);
 * with FAKE_CURSOR_TEAM_MCP_CONTROLS=on, a team's controls leave the allow list out.
 */
export function mcpPermission(workspace, server, tool, force, env = process.env) {
  const path = join(workspace, '.cursor', 'cli.json')
  const rules = existsSync(path) ? (readCliJsonText(readFileSync(path, 'utf8')).rules ?? null) : null
  if (rules?.deny.some((rule) => mcpRuleMatches(rule, server, tool))) return 'denied'
  // A team's MCP tool controls (@cursor/sdk 1.0.32): the user's allow list is ignored, and a call
  // the team's own list does not admit needs an approval print mode cannot give.
  if (env.FAKE_CURSOR_TEAM_MCP_CONTROLS === 'on') return 'rejected'
  if (rules?.allow.some((rule) => mcpRuleMatches(rule, server, tool))) return 'allowed'
  return force ? 'allowed' : 'rejected'
}

/**
 * What Cursor decides for a Read of `path` in print mode (`@cursor/sdk` 1.0.32,
 * `shouldBlockReadInternal` and `shouldBlockReadForBoundary` in `dist/esm/34.js`): a matching
 * `Read(<glob>)` deny blocks (`denied`). Without a read boundary every other read passes. A read
 * boundary (`readBoundary: "workspace"`, the team's or the user's; here FAKE_CURSOR_READ_BOUNDARY
 * `team` or `user`) makes a read outside the workspace need an approval print mode cannot give
 * (`rejected`), unless `--force` (approval mode `unrestricted`), or, under the user's own
 * boundary, a matching `Read(...)` allow rule.
 */
export function readPermission(workspace, path, force, env = process.env) {
  const file = join(workspace, '.cursor', 'cli.json')
  const rules = existsSync(file) ? (readCliJsonText(readFileSync(file, 'utf8')).rules ?? null) : null
  const matches = (rule) => {
    const found = /^Read\((.*)\)$/i.exec(rule)
    return found !== null && glob(found[1]).test(path)
  }
  if (rules?.deny.some(matches)) return 'denied'
  const boundary = env.FAKE_CURSOR_READ_BOUNDARY
  if (boundary !== 'team' && boundary !== 'user') return 'allowed'
  if (force || path.startsWith(`${workspace}/`)) return 'allowed'
  if (boundary === 'user' && rules?.allow.some(matches)) return 'allowed'
  return 'rejected'
}

/**
 * Runs the `preToolUse` hooks of the run's hooks files for a call of `tool` with `input`, as Cursor
 * does before a tool runs: each gets the event as JSON on stdin and answers `{"permission":...}`;
 * the first `deny` (or, for a `failClosed` hook, anything that is not an answer) blocks.
 */
export function preToolUse(workspace, env, tool, input) {
  const event = JSON.stringify({ hook_event_name: 'preToolUse', tool_name: tool, tool_input: input })
  for (const { hooks } of readHooks(workspace, env)) {
    for (const hook of hooks.preToolUse ?? []) {
      const ran = spawnSync(hook.command, { input: event, shell: true, encoding: 'utf8', timeout: 10_000 })
      let answer
      try {
        answer = JSON.parse(ran.stdout)
      } catch {
        answer = undefined
      }
      if (answer?.permission === 'deny' || (answer === undefined && hook.failClosed === true)) return 'denied'
    }
  }
  return 'allowed'
}

/**
 * Where the login is looked for, in turn (the CLI's documented places): an API key or token in
 * the environment, then `auth.json` with an `accessToken` under `$XDG_CONFIG_HOME/cursor/`
 * (default `$HOME/.config/cursor/`, Linux's `cursor-agent login`). The first found wins; none:
 * `undefined`. (macOS keeps its tokens in the Keychain, which no fake can read.)
 */
export function findLogin(env) {
  for (const name of ['CURSOR_API_KEY', 'CURSOR_AUTH_TOKEN'])
    if ((env[name] ?? '').trim() !== '') return { source: name }
  const configHome = (env.XDG_CONFIG_HOME ?? '') !== '' ? env.XDG_CONFIG_HOME : join(env.HOME ?? homedir(), '.config')
  const file = join(configHome, 'cursor', 'auth.json')
  try {
    const auth = JSON.parse(readFileSync(file, 'utf8'))
    if (typeof auth?.accessToken === 'string' && auth.accessToken !== '') return { source: file }
  } catch {
    // Missing or unreadable: not logged in here.
  }
  return undefined
}
