// Points the root package's optionalDependencies at this version's platform
// packages, one per napi target, as `napi prepublish` writes them at release.
// Run after a version change (with `napi version`, which updates npm/*/package.json,
// and a build, which regenerates the version baked into index.js).
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const manifestPath = join(root, 'package.json')
const text = readFileSync(manifestPath, 'utf8')
const manifest = JSON.parse(text)

const optionalDependencies = {}
for (const target of manifest.napi.targets) {
  const dir = JSON.parse(readFileSync(join(root, 'npm', platformDir(target), 'package.json'), 'utf8'))
  optionalDependencies[dir.name] = manifest.version
}
manifest.optionalDependencies = optionalDependencies
const updated = `${JSON.stringify(manifest, null, 2)}\n`
if (updated !== text) writeFileSync(manifestPath, updated)

// napi-rs's folder names: <platform>-<arch>[-<abi>].
function platformDir(triple) {
  const [cpu, , os, abi] = triple.split('-')
  const arch = { x86_64: 'x64', aarch64: 'arm64' }[cpu]
  if (os === 'darwin') return `darwin-${arch}`
  if (os === 'windows') return `win32-${arch}-${abi}`
  return `linux-${arch}-${abi}`
}
