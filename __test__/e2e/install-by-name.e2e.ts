// The install a user does: `"plugin": ["opencode-cursor-native"]` and nothing else. The packed
// main package, this machine's platform package and the package's runtime dependencies are
// published to a real npm registry (verdaccio) on 127.0.0.1 with no uplink, so nothing leaves the
// machine; the sandbox's `~/.npmrc` points OpenCode 1.18.33 at it. OpenCode installs the plugin by
// name and answers one prompt through the fake cursor-agent; then a newer version is published
// and the README's update step (remove OpenCode's cached copy) picks it up, and so does pinning
// the version in `plugin`.
//
// Needs a build first (`npm test` does it): the platform binary in the package root and the
// compiled plugin in dist/.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile, execFileSync } from 'node:child_process'
import { promisify } from 'node:util'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { explain, e2eFile, textOf } from '../support/e2e.ts'
import { REPO_ROOT as root, type Sandbox } from '../support/opencode.ts'
import { hostBinaryFile, hostPlatformDir, npm, type Packed, packedOnce } from '../support/packing.ts'
import { type Registry, startRegistry } from '../support/registry.ts'

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
// The next patch release, as a prerelease so it can never pass for a real version.
const NEWER = pkg.version.replace(
  /^(\d+)\.(\d+)\.(\d+).*$/,
  (_: string, major: string, minor: string, patch: string) => `${major}.${minor}.${Number(patch) + 1}-install-test.1`,
)

const platformDir = hostPlatformDir()
const platformPackage = `${pkg.name}-${platformDir}`
const binaryFile = hostBinaryFile(root)

let work = ''
let packed: Packed
let registry: Registry | undefined
const file = e2eFile()

/** The main tarball again, with `version` in its manifest: a newer release of the same code. */
function packVersion(version: string): string {
  const unpacked = join(work, `unpacked-${version}`)
  mkdirSync(unpacked)
  execFileSync('tar', ['-xzf', packed.tarballs[0]!, '-C', unpacked])
  const manifestPath = join(unpacked, 'package', 'package.json')
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'))
  writeFileSync(manifestPath, JSON.stringify({ ...manifest, version }, null, 2))
  const out = join(work, 'newer')
  mkdirSync(out)
  npm(['pack', '--ignore-scripts', '--pack-destination', out], join(unpacked, 'package'))
  return join(out, `${pkg.name}-${version}.tgz`)
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'ocn-install-'))
  packed = await packedOnce(root)

  registry = await startRegistry(join(work, 'registry'))
  for (const tarball of packed.tarballs) await registry.publish(tarball)
})

after(async () => {
  await registry?.close()
  if (work) rmSync(work, { recursive: true, force: true })
})

/** A sandbox whose `~/.npmrc` names the local registry, with `plugin` as the only plugin line. */
async function sandboxFor(plugin: string, answer: string): Promise<Sandbox> {
  const sandbox = await file.sandbox({ plugin, env: { FAKE_CURSOR_STREAM: `text:${answer}` } })
  writeFileSync(join(sandbox.home, '.npmrc'), `registry=${registry?.url}\n`)
  return sandbox
}

/** The version of the plugin OpenCode installed under `spec` in the sandbox's cache, if any. */
function cachedVersion(sandbox: Sandbox, spec: string): string | undefined {
  const manifest = join(sandbox.home, '.cache', 'opencode', 'packages', spec, 'node_modules', pkg.name, 'package.json')
  return existsSync(manifest) ? JSON.parse(readFileSync(manifest, 'utf8')).version : undefined
}

async function ask(sandbox: Sandbox, answer: string): Promise<void> {
  const result = await sandbox.run(['run', '--format', 'json', '--model', 'cursor-acp/auto', 'say', 'hi'])
  assert.equal(result.code, 0, explain(result, sandbox))
  assert.equal(textOf(result), answer, explain(result, sandbox))
}

// Steps in order: each publishes or runs what the next one reads.
describe('installed by name from a registry', { concurrency: 1 }, () => {
  let sandbox: Sandbox

  it('OpenCode installs the plugin line by name into its cache and answers through it', async () => {
    sandbox = await sandboxFor(pkg.name, 'Installed by name.')
    await ask(sandbox, 'Installed by name.')
    assert.equal(cachedVersion(sandbox, `${pkg.name}@latest`), pkg.version)
    const installed = join(sandbox.home, '.cache', 'opencode', 'packages', `${pkg.name}@latest`, 'node_modules')
    assert.ok(existsSync(join(installed, platformPackage, binaryFile)), 'the platform package came with it')
  })

  it("the installed copy's doctor names its version, its platform package, and a newer version once published", async () => {
    await registry!.publish(packVersion(NEWER))
    const installed = join(
      sandbox.home,
      '.cache',
      'opencode',
      'packages',
      `${pkg.name}@latest`,
      'node_modules',
      pkg.name,
    )
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(installed, 'dist/plugin/cli/main.js'), 'doctor', '--json'],
      {
        env: { ...sandbox.env, CURSOR_AGENT_EXECUTABLE: join(work, 'no-agent-here') },
      },
    ).catch((failed: { stdout: string }) => failed)
    const checks = (JSON.parse(stdout) as { checks: Array<{ id: string; status: string; detail: string }> }).checks
    const byId = Object.fromEntries(checks.map((check) => [check.id, check]))
    assert.match(
      byId.install?.detail ?? '',
      new RegExp(`^${pkg.name} ${pkg.version} .*addon from platform package ${platformPackage}@`),
      stdout,
    )
    assert.equal(byId.update?.status, 'warning', byId.update?.detail)
    assert.match(byId.update?.detail ?? '', new RegExp(`^${NEWER} is out`))
  })

  it('OpenCode keeps the copy it installed first; removing its folder (the update step) installs the newer one', async () => {
    await ask(sandbox, 'Installed by name.')
    assert.equal(cachedVersion(sandbox, `${pkg.name}@latest`), pkg.version, 'not updated by itself')
    rmSync(join(sandbox.home, '.cache', 'opencode', 'packages', `${pkg.name}@latest`), { recursive: true, force: true })
    await ask(sandbox, 'Installed by name.')
    assert.equal(cachedVersion(sandbox, `${pkg.name}@latest`), NEWER)
  })

  it('a version named in the plugin line is installed into a folder of its own', async () => {
    const pinned = await sandboxFor(`${pkg.name}@${pkg.version}`, 'Pinned.')
    await ask(pinned, 'Pinned.')
    assert.equal(cachedVersion(pinned, `${pkg.name}@${pkg.version}`), pkg.version)
  })
})
