// What gets published: the root package, its per-platform packages under npm/,
// and the release workflow that builds them.
// Under Node only: what it checks is npm's packing and the files in the tree, the same whatever runs it.
//
// `npm test` builds first, so on a clean checkout the generated loader and
// declarations in the tree are fresh when the regeneration check runs.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const root = join(__dirname, '..')
const readJson = (path: string) => JSON.parse(readFileSync(join(root, path), 'utf8'))
const pkg = readJson('package.json')

// Expected per-platform manifests, written down from napi-rs's naming
// (`<platform>-<arch>[-<abi>]`) and npm's `os`/`cpu`/`libc` vocabulary
// (Node's process.platform / process.arch; libc `glibc` or `musl`).
const PLATFORMS: Record<string, { dir: string; os: string; cpu: string; libc?: string }> = {
  'x86_64-unknown-linux-gnu': { dir: 'linux-x64-gnu', os: 'linux', cpu: 'x64', libc: 'glibc' },
  'x86_64-unknown-linux-musl': { dir: 'linux-x64-musl', os: 'linux', cpu: 'x64', libc: 'musl' },
  'aarch64-unknown-linux-gnu': { dir: 'linux-arm64-gnu', os: 'linux', cpu: 'arm64', libc: 'glibc' },
  'aarch64-unknown-linux-musl': { dir: 'linux-arm64-musl', os: 'linux', cpu: 'arm64', libc: 'musl' },
  'x86_64-apple-darwin': { dir: 'darwin-x64', os: 'darwin', cpu: 'x64' },
  'aarch64-apple-darwin': { dir: 'darwin-arm64', os: 'darwin', cpu: 'arm64' },
  'x86_64-pc-windows-msvc': { dir: 'win32-x64-msvc', os: 'win32', cpu: 'x64' },
  'aarch64-pc-windows-msvc': { dir: 'win32-arm64-msvc', os: 'win32', cpu: 'arm64' },
}
const targets: string[] = pkg.napi.targets
const binaryName: string = pkg.napi.binaryName

// `npm` is `npm.cmd` on Windows, which only a shell can start.
const onWindows = process.platform === 'win32'
const run = (cmd: string, args: string[]) => spawnSync(cmd, args, { cwd: root, encoding: 'utf8', shell: onWindows })

// Tests that start npm or install linters on first use; Bun's default limit is 5 s.
const SLOW = 180_000

const gitWorkTree = run('git', ['rev-parse', '--is-inside-work-tree']).stdout?.trim() === 'true'
const notGit = gitWorkTree ? false : 'not a git checkout (or git is not installed)'

describe('platform packages', () => {
  it('napi.targets are the supported platforms', () => {
    assert.deepEqual([...targets].sort(), Object.keys(PLATFORMS).sort())
    assert.equal(binaryName, 'opencode-cursor-native')
  })

  it('the root package depends on every platform package at its own version', () => {
    const expected = Object.fromEntries(targets.map((t) => [`${pkg.name}-${PLATFORMS[t].dir}`, pkg.version]))
    assert.deepEqual(pkg.optionalDependencies, expected)
  })

  // OpenCode checks `engines.opencode` of plugins it installs by name; 1.18 loads a plugin entry
  // whose default export is an object (the one entry of both majors) from 1.18.29.
  it('the root package supports Node >= 20 and OpenCode >= 1.18.29', () => {
    assert.deepEqual(pkg.engines, { node: '>=20', opencode: '>=1.18.29' })
  })

  it('npm/ holds exactly one folder per target', () => {
    const dirs = readdirSync(join(root, 'npm'), { withFileTypes: true }).filter((d) => d.isDirectory())
    assert.deepEqual(dirs.map((d) => d.name).sort(), targets.map((t) => PLATFORMS[t].dir).sort())
  })

  for (const target of targets) {
    const { dir, os, cpu, libc } = PLATFORMS[target]
    it(`npm/${dir} is installed only on ${os}/${cpu}${libc ? `/${libc}` : ''} and ships its binary`, () => {
      const manifest = readJson(`npm/${dir}/package.json`)
      const file = `${binaryName}.${dir}.node`
      assert.equal(manifest.name, `${pkg.name}-${dir}`)
      assert.equal(manifest.version, pkg.version)
      assert.deepEqual(manifest.os, [os])
      assert.deepEqual(manifest.cpu, [cpu])
      assert.deepEqual(manifest.libc, libc ? [libc] : undefined)
      assert.equal(manifest.main, file)
      assert.deepEqual(manifest.files, [file])
      assert.equal(manifest.license, pkg.license)
      // npm silently skips an optional dependency whose engines exclude the running
      // Node, which users then see as "Cannot find native binding".
      assert.deepEqual(manifest.engines, pkg.engines)
      assert.ok(existsSync(join(root, 'npm', dir, 'README.md')))
    })
  }

  it('napi create-npm-dirs regenerates npm/ without a difference', { timeout: SLOW }, () => {
    // It reads only package.json, so a copy in an empty folder leaves the tree alone.
    const scratch = mkdtempSync(join(tmpdir(), 'ocn-npm-dirs-'))
    try {
      copyFileSync(join(root, 'package.json'), join(scratch, 'package.json'))
      const generated = run('npx', ['napi', 'create-npm-dirs', '--cwd', scratch])
      assert.equal(generated.status, 0, generated.stderr)
      for (const target of targets) {
        for (const file of ['package.json', 'README.md']) {
          const path = join('npm', PLATFORMS[target].dir, file)
          assert.equal(readFileSync(join(root, path), 'utf8'), readFileSync(join(scratch, path), 'utf8'), path)
        }
      }
    } finally {
      rmSync(scratch, { recursive: true, force: true })
    }
  })

  it('git tracks only package.json and README.md under npm/', { skip: notGit }, () => {
    const tracked = run('git', ['ls-files', 'npm']).stdout.trim().split('\n').sort()
    const expected = targets.flatMap((t) => [
      `npm/${PLATFORMS[t].dir}/README.md`,
      `npm/${PLATFORMS[t].dir}/package.json`,
    ])
    assert.deepEqual(tracked, expected.sort())
  })
})

describe('loader', () => {
  const loader = readFileSync(join(root, 'index.js'), 'utf8')

  it('falls back to each platform package by name', () => {
    for (const target of targets) {
      assert.ok(
        loader.includes(`require('${pkg.name}-${PLATFORMS[target].dir}')`),
        `index.js does not load ${pkg.name}-${PLATFORMS[target].dir}`,
      )
    }
  })

  it('was generated for the current version', () => {
    const versions = new Set([...loader.matchAll(/expected (\S+) but got/g)].map((m) => m[1]))
    assert.deepEqual([...versions], [pkg.version], 'regenerate index.js (napi build --platform) after a version change')
  })

  it('index.js and index.d.ts are what the last build generated (commit them)', { skip: notGit }, () => {
    const diff = run('git', ['diff', '--stat', '--exit-code', '--', 'index.js', 'index.d.ts'])
    assert.equal(diff.status, 0, `the generated files differ from the committed ones:\n${diff.stdout}`)
  })
})

// The glibc addon that the last build left in the package root, if any.
const glibcAddon = join(root, `${binaryName}.linux-${process.arch}-gnu.node`)
const glibcHost =
  process.platform === 'linux' &&
  Boolean((process.report?.getReport() as { header?: { glibcVersionRuntime?: string } })?.header?.glibcVersionRuntime)
const nodeleteSkip = !glibcHost
  ? 'not a glibc Linux host'
  : !existsSync(glibcAddon)
    ? 'no glibc addon built in the package root'
    : run('readelf', ['--version']).status !== 0
      ? 'readelf (binutils) is not installed'
      : false

describe('native binary', () => {
  // .cargo/config.toml links glibc targets with `-z nodelete`; RUSTFLAGS in the
  // environment would silently drop it.
  it('the glibc addon cannot be unloaded (NODELETE)', { skip: nodeleteSkip }, () => {
    const dynamic = run('readelf', ['-d', glibcAddon])
    assert.match(dynamic.stdout, /FLAGS_1.*NODELETE/)
  })
})

describe('npm pack', () => {
  const builtPlugin = existsSync(join(root, 'dist/plugin/opencode/server.js'))

  it('ships the loader, declarations, compiled plugin, README and LICENSE only', { timeout: SLOW }, () => {
    assert.ok(builtPlugin, 'dist/plugin is missing: run `npm run build:plugin` first')
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: root,
      encoding: 'utf8',
      shell: onWindows,
    })
    const files: string[] = JSON.parse(out)[0].files.map((f: { path: string }) => f.path)

    const required = [
      'package.json',
      'index.js',
      'index.d.ts',
      'server.js',
      'README.md',
      'LICENSE',
      pkg.main,
      pkg.types,
    ]
    for (const entry of Object.values(pkg.exports) as (string | Record<string, string>)[]) {
      required.push(...(typeof entry === 'string' ? [entry] : Object.values(entry)))
    }
    for (const file of new Set(required.map((f) => f.replace(/^\.\//, '')))) {
      assert.ok(files.includes(file), `the tarball lacks ${file}`)
    }

    // dist/plugin/package.json may carry `"type": "module"` for the compiled ESM plugin.
    const allowed =
      /^(package\.json|index\.js|index\.d\.ts|server\.js|README\.md|LICENSE|dist\/plugin\/(.+\.(js|d\.ts)|package\.json))$/
    assert.deepEqual(
      files.filter((f) => !allowed.test(f)),
      [],
      'unexpected files in the tarball',
    )
    // Test support compiled along with the plugin would pass the pattern above:
    // every compiled module must come from a source file of plugin/.
    const strays = files
      .map((f) => /^dist\/plugin\/(.+)\.(js|d\.ts)$/.exec(f)?.[1])
      .filter((name): name is string => name !== undefined && !existsSync(join(root, 'plugin', `${name}.ts`)))
    assert.deepEqual(strays, [], 'compiled modules without a source in plugin/')
    assert.deepEqual(
      files.filter((f) => /fake|fixture|\.spec\.|\.e2e\./i.test(f)),
      [],
    )
  })
})

describe('release workflow', () => {
  const release = readFileSync(join(root, '.github/workflows/release.yml'), 'utf8')

  it('builds every target and tests it', () => {
    const testJobs = release.slice(release.search(/^ {2}test-/m), release.search(/^ {2}publish:/m))
    for (const target of targets) {
      assert.match(release, new RegExp(`target: ${target}\\n\\s+build: `), `release.yml does not build ${target}`)
      assert.ok(testJobs.includes(target), `release.yml does not test ${target}`)
    }
  })
})

// zizmor (and actionlint where it can be installed), from PyPI into .cache/ on
// first use; see scripts/check-workflows.sh.
const lintSkip = onWindows
  ? 'the workflow linters are installed and run from bash on Linux and macOS'
  : run('python3', ['--version']).status !== 0
    ? 'python3 is not installed (the linters come from PyPI)'
    : false

describe('workflows', () => {
  it('pass the workflow and shell linters', { skip: lintSkip, timeout: SLOW }, () => {
    const lint = run('bash', ['scripts/check-workflows.sh'])
    assert.equal(lint.status, 0, lint.stdout + lint.stderr)
  })
})
