// The Linux musl addon (Alpine), built here the way the release workflow builds it: zig as the
// linker through `scripts/build-musl.sh`, which ends with `scripts/check-linux-addon.sh` (the
// addon needs musl's libc.so and nothing else). Without the musl Rust target the script says so
// and builds nothing; the release runners install it and make it required.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../..', import.meta.url))
const target = 'x86_64-unknown-linux-musl'
const addon = join(root, 'opencode-cursor-native.linux-x64-musl.node')

function targetInstalled(): boolean {
  const libdir = spawnSync('rustc', ['--print', 'target-libdir', '--target', target], { encoding: 'utf8' })
  return libdir.status === 0 && existsSync(libdir.stdout.trim())
}

const notHere =
  process.platform !== 'linux' || process.arch !== 'x64'
    ? 'the musl build and its linkage check run on Linux x64 hosts'
    : !targetInstalled()
      ? `the Rust target ${target} is not installed (rustup target add ${target})`
      : false

describe('linux-x64-musl addon', () => {
  it('builds with zig and links against musl only', { skip: notHere, timeout: 20 * 60_000 }, () => {
    rmSync(addon, { force: true })
    const build = spawnSync('bash', ['scripts/build-musl.sh', target], { cwd: root, encoding: 'utf8' })
    assert.equal(build.status, 0, `build-musl.sh failed:\n${build.stdout}\n${build.stderr}`)
    assert.ok(existsSync(addon) && statSync(addon).size > 0, 'the musl addon was written')
    assert.match(build.stdout + build.stderr, /musl/i)
  })

  it('says so and builds nothing when the target is missing', () => {
    // A rustc whose sysroot has no musl standard library.
    const bin = mkdtempSync(join(tmpdir(), 'no-musl-'))
    writeFileSync(join(bin, 'rustc'), '#!/bin/sh\necho /nonexistent/lib/rustlib/musl/lib\n', { mode: 0o755 })
    try {
      const probe = spawnSync('bash', ['scripts/build-musl.sh', target], {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
      })
      assert.equal(probe.status, 0, probe.stderr)
      assert.match(probe.stdout, /is not installed/)
      const required = spawnSync('bash', ['scripts/build-musl.sh', target], {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, BUILD_MUSL_REQUIRED: '1' },
      })
      assert.notEqual(required.status, 0, 'BUILD_MUSL_REQUIRED=1 makes a missing target an error')
    } finally {
      rmSync(bin, { recursive: true, force: true })
    }
  })
})
