// Runs every benchmark/*.bench.mjs in turn (each prints its own table), but for those that take
// minutes by design, which run only when named (`node benchmark/run.mjs silence`):
//   silence.bench.mjs  a fake cursor-agent silent for 5.5 minutes answers in full under the default
//                      idle limit, and the server keeps the stream alive meanwhile
import { readdirSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const only = process.argv.slice(2)
/** Each takes minutes of real time. */
const NAMED_ONLY = new Set(['silence.bench.mjs'])
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.mjs'))
  .filter((f) => (only.length === 0 ? !NAMED_ONLY.has(f) : only.some((o) => f.includes(o))))
  .sort()
let failed = 0
for (const file of files) {
  console.log(`\n## ${file}`)
  const r = spawnSync(process.execPath, ['--expose-gc', join(here, file)], { stdio: 'inherit' })
  if (r.status !== 0) failed++
}
process.exit(failed ? 1 : 0)
