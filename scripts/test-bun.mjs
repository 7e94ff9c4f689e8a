#!/usr/bin/env node
// Runs the spec files under Bun (`npm run test:bun`), as OpenCode runs the plugin and the addon:
// every file but those that say, in their opening comment, `Under Node only:` and why (a command
// line whose `bin` runs with `node`, say). Extra arguments go to `bun test`.
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = dirname(dirname(fileURLToPath(import.meta.url)))
const folder = join(root, '__test__')
/** A file's opening comment: its lines up to the first that is not a comment. */
const opening = (file) => {
  const lines = readFileSync(join(folder, file), 'utf8').split('\n')
  return lines
    .slice(
      0,
      lines.findIndex((line) => !line.startsWith('//')),
    )
    .join('\n')
}
const files = readdirSync(folder)
  .filter((file) => file.endsWith('.spec.ts') && !opening(file).includes('Under Node only:'))
  .sort()
  .map((file) => `./__test__/${file}`)
const bun = join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'bun.cmd' : 'bun')
const ran = spawnSync(bun, ['test', '--timeout', '60000', '--parallel=4', ...process.argv.slice(2), ...files], {
  cwd: root,
  stdio: 'inherit',
  shell: process.platform === 'win32',
})
process.exit(ran.status ?? 1)
