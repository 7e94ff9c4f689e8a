// The plugin makes no network request of its own: no module of the shared turn or of either
// OpenCode host imports Node's network modules or calls fetch (the doctor's update check, in cli/,
// is the package's one request, made only when a user runs the doctor). Runs under Node and Bun.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, it } from 'node:test'

const plugin = resolve(__dirname, '..', 'plugin')
const FOLDERS = ['turn', 'opencode', 'opencode2']
const NETWORK: ReadonlyArray<{ what: string; pattern: RegExp }> = [
  {
    what: 'imports a network module',
    pattern: /(?:from|import\(|require\()\s*'(?:node:)?(?:http|https|http2|net|tls|dgram|dns)'/,
  },
  { what: 'calls fetch', pattern: /\bfetch\s*\(/ },
  { what: 'opens a WebSocket', pattern: /\bnew\s+WebSocket\b/ },
]

describe('the plugin makes no network request', () => {
  for (const folder of FOLDERS)
    it(`plugin/${folder}`, () => {
      const files = (readdirSync(join(plugin, folder), { recursive: true }) as string[]).filter((f) =>
        f.endsWith('.ts'),
      )
      assert.ok(files.length > 0)
      const found = files.flatMap((file) => {
        const source = readFileSync(join(plugin, folder, file), 'utf8')
        return NETWORK.filter(({ pattern }) => pattern.test(source)).map(({ what }) => `${folder}/${file} ${what}`)
      })
      assert.deepEqual(found, [])
    })

  it('the patterns catch what they look for', () => {
    const samples = ["import { request } from 'node:https'", "await fetch('https://x')", "const net = require('net')"]
    for (const sample of samples)
      assert.ok(
        NETWORK.some(({ pattern }) => pattern.test(sample)),
        sample,
      )
  })
})
