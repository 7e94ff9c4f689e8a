// The doctor's install and update checks: which copy runs, which platform package its addon came
// from, what OpenCode's cache holds, and the one registry request for a newer version, against a
// local registry stand-in. Runs under Node and Bun.
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { addonSource, compareVersions, installCheck, registryUrl, updateCheck } from '../plugin/cli/doctor-install.ts'

const scratch = mkdtempSync(join(tmpdir(), 'doctor-install-'))
after(() => rmSync(scratch, { recursive: true, force: true }))

function writePackage(dir: string, name: string, version: string): void {
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version }))
}

describe('where the addon came from', () => {
  const platform = join(scratch, 'app', 'node_modules', 'opencode-cursor-native-linux-x64-gnu')
  before(() => writePackage(platform, 'opencode-cursor-native-linux-x64-gnu', '0.1.0'))
  const table: Array<{ file: string | undefined; source: string }> = [
    {
      file: join(platform, 'opencode-cursor-native.linux-x64-gnu.node'),
      source: 'platform package opencode-cursor-native-linux-x64-gnu@0.1.0',
    },
    {
      file: '/src/checkout/opencode-cursor-native.linux-x64-gnu.node',
      source: 'local opencode-cursor-native.linux-x64-gnu.node',
    },
    { file: undefined, source: 'no addon loaded' },
  ]
  for (const { file, source } of table)
    it(`${file ?? 'nothing'} -> ${source}`, () => assert.equal(addonSource(file), source))
})

describe("OpenCode's cached copies", () => {
  // OpenCode 1.18.33's layout: <XDG_CACHE_HOME>/opencode/packages/<spec>/node_modules/<name>.
  const cacheWith = (copies: Record<string, string | null>) => {
    const cache = mkdtempSync(join(scratch, 'cache-'))
    for (const [spec, version] of Object.entries(copies)) {
      const folder = join(cache, 'opencode', 'packages', spec)
      mkdirSync(folder, { recursive: true })
      if (version !== null)
        writePackage(join(folder, 'node_modules', 'opencode-cursor-native'), 'opencode-cursor-native', version)
    }
    return cache
  }
  const running = join(scratch, 'running')
  before(() => writePackage(running, 'opencode-cursor-native', '0.2.0'))
  const table: Array<{ name: string; copies: Record<string, string | null>; status: string; says: RegExp }> = [
    {
      name: 'no cache',
      copies: {},
      status: 'ok',
      says: /^opencode-cursor-native 0\.2\.0 at .*, addon from local x\.node$/,
    },
    {
      name: 'the same version',
      copies: { 'opencode-cursor-native@latest': '0.2.0' },
      status: 'ok',
      says: /@latest holds 0\.2\.0/,
    },
    {
      name: 'an older copy',
      copies: { 'opencode-cursor-native@latest': '0.1.0' },
      status: 'warning',
      says: /@latest holds 0\.1\.0; OpenCode runs a different copy/,
    },
    {
      name: 'a failed install (the folder without node_modules)',
      copies: { 'opencode-cursor-native@latest': null },
      status: 'warning',
      says: /@latest holds nothing/,
    },
  ]
  for (const { name, copies, status, says } of table)
    it(name, () => {
      const check = installCheck(running, '/x/x.node', { XDG_CACHE_HOME: cacheWith(copies) })
      assert.equal(check.status, status, check.detail)
      assert.match(check.detail, says)
      if (status !== 'ok') assert.match(check.fix ?? '', /remove .*opencode-cursor-native@latest/)
    })
})

describe('the registry the update check asks', () => {
  const home = join(scratch, 'npmrc-home')
  before(() => {
    mkdirSync(home, { recursive: true })
    writeFileSync(join(home, '.npmrc'), '; comment\nregistry = http://npmrc.example/path\n')
  })
  const table: Array<{ env: Record<string, string>; url: string }> = [
    { env: { NPM_CONFIG_REGISTRY: 'http://env.example', HOME: home }, url: 'http://env.example/' },
    { env: { HOME: home }, url: 'http://npmrc.example/path/' },
    { env: { HOME: join(scratch, 'no-home') }, url: 'https://registry.npmjs.org/' },
  ]
  for (const { env, url } of table) it(url, () => assert.equal(registryUrl(env), url))

  it('orders versions as semver does', () => {
    assert.ok(compareVersions('0.1.1', '0.1.0') > 0)
    assert.ok(compareVersions('0.1.0', '0.1.0-test.1') > 0)
    assert.ok(compareVersions('0.1.1-test.1', '0.1.0') > 0)
    assert.ok(compareVersions('0.10.0', '0.9.0') > 0)
    assert.equal(compareVersions('1.2.3', '1.2.3'), 0)
  })
})

describe('the update check, against a local registry', () => {
  let server: Server
  let url = ''
  const requests: string[] = []
  before(async () => {
    server = createServer((request, response) => {
      requests.push(`${request.method} ${request.url}`)
      response.setHeader('content-type', 'application/json')
      response.end(JSON.stringify({ name: 'opencode-cursor-native', 'dist-tags': { latest: '0.3.0' } }))
    })
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
  })
  after(() => new Promise((closed) => server.close(closed)))

  it('names a newer version and how to get it, with one request', async () => {
    requests.length = 0
    const check = await updateCheck('0.2.0', { NPM_CONFIG_REGISTRY: url })
    assert.equal(check.status, 'warning')
    assert.match(check.detail, /^0\.3\.0 is out/)
    assert.match(check.fix ?? '', /opencode-cursor-native@latest.*"opencode-cursor-native@0\.3\.0"/)
    assert.deepEqual(requests, ['GET /opencode-cursor-native'])
  })

  it('is content with the latest version', async () => {
    const check = await updateCheck('0.3.0', { NPM_CONFIG_REGISTRY: url })
    assert.equal(check.status, 'ok', check.detail)
  })

  it('offline, says it could not check', async () => {
    const check = await updateCheck('0.3.0', { NPM_CONFIG_REGISTRY: 'http://127.0.0.1:9/' })
    assert.equal(check.status, 'skipped')
    assert.match(check.detail, /^could not check http:\/\/127\.0\.0\.1:9\/ for a newer version/)
  })
})
