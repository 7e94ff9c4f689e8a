// The doctor's `install` and `update` checks: which copy of the package runs, which platform
// package its addon came from, what OpenCode's own cache holds, and whether the registry has a
// newer version. OpenCode 1.18 installs a plugin named in `plugin` into
// `<cache>/opencode/packages/<spec>/` (`opencode-cursor-native@latest/` for the bare name) once,
// and never updates it; a failed install leaves that folder without node_modules.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { type Check, check, skipped } from './doctor-check.js'

export const PACKAGE_NAME = 'opencode-cursor-native'
const DEFAULT_REGISTRY = 'https://registry.npmjs.org/'
/** The one registry request waits no longer than this. */
export const REGISTRY_TIMEOUT_MS = 3_000

type Env = Record<string, string | undefined>

function readVersion(packageDir: string): string | undefined {
  try {
    return JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')).version
  } catch {
    return undefined
  }
}

/** Where the addon came from, from the `.node` file napi's loader opened. */
export function addonSource(addonFile: string | undefined): string {
  if (addonFile === undefined) return 'no addon loaded'
  const parts = addonFile.split(/[\\/]/)
  const at = parts.lastIndexOf('node_modules')
  const platformPackage = at >= 0 ? parts[at + 1] : undefined
  if (platformPackage?.startsWith(`${PACKAGE_NAME}-`)) {
    const version = readVersion(parts.slice(0, at + 2).join('/'))
    return `platform package ${platformPackage}@${version ?? '?'}`
  }
  return `local ${parts.at(-1)}`
}

/** OpenCode's cache folder of plugin packages (XDG_CACHE_HOME, else ~/.cache). */
export function openCodePackagesFolder(env: Env): string {
  const cache = env.XDG_CACHE_HOME?.trim() || join(env.HOME?.trim() || homedir(), '.cache')
  return join(cache, 'opencode', 'packages')
}

/** Each copy of this package in OpenCode's cache: its folder and the version installed there (none: the install failed). */
export function cachedCopies(env: Env): Array<{ folder: string; version?: string }> {
  const packages = openCodePackagesFolder(env)
  if (!existsSync(packages)) return []
  return readdirSync(packages)
    .filter((entry) => entry.startsWith(`${PACKAGE_NAME}@`))
    .map((entry) => join(packages, entry))
    .map((folder) => ({ folder, version: readVersion(join(folder, 'node_modules', PACKAGE_NAME)) }))
}

const name = (folder: string) => folder.split(/[\\/]/).at(-1) ?? folder

/** The `install` check: this copy's version and addon, and any other copy OpenCode's cache holds. */
export function installCheck(root: string, addonFile: string | undefined, env: Env): Check {
  const version = readVersion(root) ?? '?'
  const detail = `${PACKAGE_NAME} ${version} at ${root}, addon from ${addonSource(addonFile)}`
  const copies = cachedCopies(env)
  const failed = copies.filter((copy) => copy.version === undefined)
  const others = copies.filter((copy) => copy.version !== undefined && !root.startsWith(copy.folder))
  const differing = others.filter((copy) => copy.version !== version)
  const cacheText = copies.map((copy) => `${name(copy.folder)} holds ${copy.version ?? 'nothing'}`).join(', ')
  const withCache = copies.length === 0 ? detail : `${detail}; OpenCode's cache: ${cacheText}`
  if (failed.length > 0)
    return check(
      'install',
      'warning',
      withCache,
      `OpenCode's install of the plugin did not finish: remove ${failed.map((copy) => copy.folder).join(' and ')} and start OpenCode again (it reads the registry from ~/.npmrc or NPM_CONFIG_REGISTRY).`,
    )
  if (differing.length > 0)
    return check(
      'install',
      'warning',
      `${withCache}; OpenCode runs a different copy than this one`,
      `OpenCode keeps the copy it installed first: remove ${differing.map((copy) => copy.folder).join(' and ')} to install the newest, or name a version in \`plugin\` (${PACKAGE_NAME}@<version>).`,
    )
  return check('install', 'ok', withCache)
}

/** The registry npm would use: NPM_CONFIG_REGISTRY, else `registry=` in ~/.npmrc, else npm's default. */
export function registryUrl(env: Env): string {
  const fromEnv = (env.NPM_CONFIG_REGISTRY ?? env.npm_config_registry)?.trim()
  if (fromEnv) return fromEnv.endsWith('/') ? fromEnv : `${fromEnv}/`
  try {
    const npmrc = readFileSync(join(env.HOME?.trim() || homedir(), '.npmrc'), 'utf8')
    const line = npmrc.split(/\r?\n/).find((text) => /^\s*registry\s*=/.test(text))
    const value = line?.split('=').slice(1).join('=').trim()
    if (value) return value.endsWith('/') ? value : `${value}/`
  } catch {
    // No ~/.npmrc: npm's default.
  }
  return DEFAULT_REGISTRY
}

/** Compares two semver versions (prereleases before their release); >0 when `a` is newer. */
export function compareVersions(a: string, b: string): number {
  const split = (version: string) => {
    const [core = '', pre] = (version.split('+')[0] ?? '').split(/-(.*)/s)
    return { core: core.split('.').map(Number), pre }
  }
  const left = split(a)
  const right = split(b)
  for (let index = 0; index < 3; index += 1) {
    const difference = (left.core[index] ?? 0) - (right.core[index] ?? 0)
    if (difference !== 0) return difference
  }
  if (left.pre === right.pre) return 0
  if (left.pre === undefined) return 1
  if (right.pre === undefined) return -1
  return left.pre < right.pre ? -1 : 1
}

/** The `update` check: one request for the registry's `latest`, at most REGISTRY_TIMEOUT_MS long. */
export async function updateCheck(version: string, env: Env): Promise<Check> {
  const registry = registryUrl(env)
  let latest: string | undefined
  try {
    const response = await fetch(new URL(PACKAGE_NAME, registry), {
      headers: { accept: 'application/vnd.npm.install-v1+json' },
      signal: AbortSignal.timeout(REGISTRY_TIMEOUT_MS),
    })
    if (!response.ok) throw new Error(`HTTP ${response.status}`)
    latest = ((await response.json()) as { 'dist-tags'?: { latest?: string } })['dist-tags']?.latest
    if (latest === undefined) throw new Error('no latest version')
  } catch (error) {
    const why = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : error
    return skipped('update', `could not check ${registry} for a newer version: ${String(why)}`)
  }
  if (compareVersions(latest, version) <= 0)
    return check('update', 'ok', `${version} is the latest version on ${registry}`)
  return check(
    'update',
    'warning',
    `${latest} is out (on ${registry}); this is ${version}`,
    `Remove OpenCode's copy (${join('~/.cache/opencode/packages', `${PACKAGE_NAME}@latest`)}) and start OpenCode again, or name the version in \`plugin\`: "${PACKAGE_NAME}@${latest}".`,
  )
}
