#!/usr/bin/env node
// `napi build <args>`, run a second time when the first created the crate's type-definition folder.
//
//   node scripts/napi-build.mjs --platform --profile testing
//
// When that folder (target/napi-rs/<crate>-<hash>/<crate>, one per set of build settings) is
// missing, napi's CLI makes cargo rebuild the crate by setting NAPI_FORCE_BUILD_<CRATE> to the
// current time, and cargo records that value. The next build, without it, then finds the crate
// out of date and compiles it again: a fresh clone's second `npm test` would compile Rust though
// no Rust changed. Building once more right away, while the crate is still warm, moves that
// compile into the build that caused it; every later build compiles nothing.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { delimiter, dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const CRATE = 'opencode-cursor-native'
const root = dirname(dirname(fileURLToPath(import.meta.url)))
const typeDefRoot = join(resolve(root, process.env.CARGO_TARGET_DIR ?? 'target'), 'napi-rs')

/** The type-definition folders of this crate that exist now. */
function typeDefFolders() {
  if (!existsSync(typeDefRoot)) return new Set()
  return new Set(
    readdirSync(typeDefRoot).filter(
      (name) => name.startsWith(`${CRATE}-`) && existsSync(join(typeDefRoot, name, CRATE)),
    ),
  )
}

function napiBuild() {
  const ran = spawnSync('napi', ['build', ...process.argv.slice(2)], {
    cwd: root,
    stdio: 'inherit',
    shell: process.platform === 'win32',
    env: { ...process.env, PATH: `${join(root, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}` },
  })
  if (ran.error) throw ran.error
  if (ran.status !== 0) process.exit(ran.status ?? 1)
}

const before = typeDefFolders()
napiBuild()
if ([...typeDefFolders()].some((folder) => !before.has(folder))) napiBuild()
