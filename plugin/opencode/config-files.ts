// Where OpenCode reads its configuration, and whether it lists this plugin: for `doctor`.
import { existsSync, readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'

export const PLUGIN_NAME = 'opencode-cursor-native'
/** The provider the plugin registers: models are `cursor-acp/<id>`, `opencode auth login` stores its key under it. */
export const PROVIDER_ID = 'cursor-acp'

type Env = Record<string, string | undefined>

/** A configuration OpenCode would read, and what it says about the plugin. */
export interface ConfigFinding {
  /** The file, or `OPENCODE_CONFIG_CONTENT`. */
  source: string
  scope: 'global' | 'project'
  /** `listed`: its `plugin` array names the package; `unreadable`: not JSON(C). */
  state: 'listed' | 'not-listed' | 'unreadable'
}

const FILE_NAMES = ['opencode.json', 'opencode.jsonc']

/** The user's OpenCode config folder: `$XDG_CONFIG_HOME/opencode`, by default `~/.config/opencode`. */
export function userConfigFolder(env: Env = process.env): string {
  return join(env.XDG_CONFIG_HOME ?? join(env.HOME ?? homedir(), '.config'), 'opencode')
}

/**
 * The configuration files that are the user's own, in OpenCode's order (a later one wins): the
 * config folder's, `OPENCODE_CONFIG`, then `OPENCODE_CONFIG_DIR`'s. `OPENCODE_CONFIG_CONTENT`
 * comes after them all.
 */
export function userConfigFiles(env: Env = process.env): string[] {
  const files = ['config.json', ...FILE_NAMES].map((name) => join(userConfigFolder(env), name))
  if (env.OPENCODE_CONFIG) files.push(env.OPENCODE_CONFIG)
  const configDir = env.OPENCODE_CONFIG_DIR
  if (configDir) files.push(...['config.json', ...FILE_NAMES].map((name) => join(configDir, name)))
  return files
}

/**
 * JSON with comments and trailing commas, as OpenCode accepts it, to plain JSON. Strings are
 * copied untouched, so a `//` inside a URL stays.
 */
export function jsoncToJson(text: string): string {
  let out = ''
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index]
    if (char === '"') {
      const start = index
      for (index += 1; index < text.length && text[index] !== '"'; index += 1) if (text[index] === '\\') index += 1
      out += text.slice(start, index + 1)
    } else if (char === '/' && text[index + 1] === '/') {
      while (index < text.length && text[index] !== '\n') index += 1
      out += '\n'
    } else if (char === '/' && text[index + 1] === '*') {
      const end = text.indexOf('*/', index + 2)
      index = end === -1 ? text.length : end + 1
    } else {
      out += char
    }
  }
  return out.replace(/,(\s*[}\]])/g, '$1')
}

/** Whether a `plugin` entry (a name, a versioned name, a path or URL, or `[name, options]`) is this package. */
export function namesThisPlugin(entry: unknown): boolean {
  const spec = Array.isArray(entry) ? entry[0] : entry
  if (typeof spec !== 'string') return false
  return (
    spec === PLUGIN_NAME || spec.startsWith(`${PLUGIN_NAME}@`) || /[\\/]opencode-cursor-native(?:[\\/@]|$)/.test(spec)
  )
}

function judge(text: string): ConfigFinding['state'] {
  let config: unknown
  try {
    config = JSON.parse(jsoncToJson(text))
  } catch {
    return 'unreadable'
  }
  const plugins = (config as { plugin?: unknown } | null)?.plugin
  return Array.isArray(plugins) && plugins.some(namesThisPlugin) ? 'listed' : 'not-listed'
}

/** The project's files: `opencode.json(c)` and `.opencode/opencode.json(c)` from `cwd` up to the git root (or the filesystem root). */
export function projectFiles(cwd: string): string[] {
  const found: string[] = []
  for (let directory = cwd; ; directory = dirname(directory)) {
    for (const name of FILE_NAMES) found.push(join(directory, name), join(directory, '.opencode', name))
    if (existsSync(join(directory, '.git')) || dirname(directory) === directory) return found
  }
}

/** Every configuration OpenCode would read for a project in `cwd`, with what each says about the plugin. */
export function findOpenCodeConfigs(cwd: string, env: Env = process.env): ConfigFinding[] {
  const global = userConfigFiles(env)
  const candidates: Array<{ source: string; scope: ConfigFinding['scope'] }> = [
    ...global.map((source) => ({ source, scope: 'global' as const })),
    ...(env.OPENCODE_DISABLE_PROJECT_CONFIG
      ? []
      : projectFiles(cwd).map((source) => ({ source, scope: 'project' as const }))),
  ]
  const findings: ConfigFinding[] = []
  for (const { source, scope } of candidates) {
    if (!existsSync(source)) continue
    let text: string
    try {
      text = readFileSync(source, 'utf8')
    } catch {
      findings.push({ source, scope, state: 'unreadable' })
      continue
    }
    findings.push({ source, scope, state: judge(text) })
  }
  if (env.OPENCODE_CONFIG_CONTENT)
    findings.push({ source: 'OPENCODE_CONFIG_CONTENT', scope: 'global', state: judge(env.OPENCODE_CONFIG_CONTENT) })
  return findings
}
