// Soak: many runs through the provider (`createCursorAcp(...).languageModel(...).doStream`), the
// way OpenCode calls it, against a small shell agent that answers and leaves a `sleep` running
// in its group. Sequential runs, then concurrent ones. Reports throughput, p50/p99 per run (call to
// the finish part), peak RSS, open descriptors before and after, zombies (our own children not
// reaped) and orphans (processes of an agent's group still alive once everything settled).
//
// `npm run build` (or `npm run build:debug`) first, then `node --expose-gc benchmark/soak.bench.mjs`.
// SOAK_SEQUENTIAL (default 10000) and SOAK_CONCURRENT (default 200) set the counts.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const { createCursorAcp } = await import(
  pathToFileURL(join(here, '..', 'dist', 'plugin', 'opencode', 'provider.js')).href
)

const SEQUENTIAL = Number(process.env.SOAK_SEQUENTIAL ?? 10_000)
const CONCURRENT = Number(process.env.SOAK_CONCURRENT ?? 200)

const scratch = mkdtempSync(join(tmpdir(), 'ocn-soak-'))
const agent = join(scratch, 'soak-agent.sh')
// The agent's pid is its group's id (the runner makes every agent a group leader); it names it
// in its answer so the benchmark can look for what the group left behind.
writeFileSync(
  agent,
  `#!/bin/sh
cat >/dev/null
sleep 30 >/dev/null 2>&1 </dev/null &
s='"session_id":"soak-chat"'
printf '%s\\n' '{"type":"system","subtype":"init",'"$s"',"model":"Auto"}'
printf '%s\\n' '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"pid '$$' "}]},'"$s"',"timestamp_ms":1}'
printf '%s\\n' '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"done."}]},'"$s"',"timestamp_ms":2}'
printf '%s\\n' '{"type":"result","subtype":"success","is_error":false,"result":"pid '$$' done.",'"$s"',"usage":{"inputTokens":3,"outputTokens":2}}'
`,
  { mode: 0o755 },
)

const model = createCursorAcp({ name: 'cursor-acp', workspace: scratch, executable: agent }).languageModel(
  'cursor-acp/auto',
)
const prompt = [{ role: 'user', content: [{ type: 'text', text: 'soak' }] }]
const groups = new Set()

async function oneRun() {
  const started = performance.now()
  const { stream } = await model.doStream({ prompt })
  let text = ''
  let finish
  for await (const part of stream) {
    if (part.type === 'text-delta') text += part.delta
    else if (part.type === 'finish') finish = part
    else if (part.type === 'error') throw new Error(`run failed: ${JSON.stringify(part.error)}`)
  }
  const pid = /^pid (\d+) done\.$/.exec(text)?.[1]
  if (finish?.finishReason.unified !== 'stop' || pid === undefined)
    throw new Error(`unexpected answer ${JSON.stringify(text)}`)
  groups.add(Number(pid))
  return performance.now() - started
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}
const openDescriptors = () => readdirSync('/proc/self/fd').length
let peakRss = 0
const sampleRss = () => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss)
}
const sampler = setInterval(sampleRss, 25)

/** Every process on the system: pid, parent, group, state. */
function processes() {
  const table = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      table.push({ pid: Number(name), state: fields[0], ppid: Number(fields[1]), pgid: Number(fields[2]) })
    } catch {
      // Gone while listing.
    }
  }
  return table
}
const zombies = () => processes().filter((p) => p.ppid === process.pid && p.state === 'Z').length
// An agent group's id may be reused once the group is gone: only what an agent runs counts.
const ownCommand = (pid) => {
  try {
    return ['sh', 'sleep', 'soak-agent.sh'].includes(readFileSync(`/proc/${pid}/comm`, 'utf8').trim())
  } catch {
    return false
  }
}
const orphans = () => processes().filter((p) => groups.has(p.pgid) && ownCommand(p.pid)).length

/** Polls (up to 30 s) until `count()` is 0; returns the last count. */
async function settled(count) {
  const deadline = Date.now() + 30_000
  let value = count()
  while (value > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    value = count()
  }
  return value
}

function report(name, runs, durations, wallMs) {
  const sorted = [...durations].sort((a, b) => a - b)
  const f = (x) => x.toFixed(2)
  console.log(
    `${name}: ${runs} runs in ${f(wallMs / 1000)} s, ${f((runs * 1000) / wallMs)} runs/s, ` +
      `p50 ${f(percentile(sorted, 50))} ms, p99 ${f(percentile(sorted, 99))} ms, max ${f(sorted.at(-1))} ms`,
  )
}

// Warm-up: the addon, the watchdog and the JIT, before the descriptors are counted.
await oneRun()
await settled(orphans)
globalThis.gc?.()
const descriptorsBefore = openDescriptors()
const rssBefore = process.memoryUsage().rss

let started = performance.now()
const sequential = []
for (let i = 0; i < SEQUENTIAL; i++) sequential.push(await oneRun())
report('sequential', SEQUENTIAL, sequential, performance.now() - started)

started = performance.now()
const concurrent = await Promise.all(Array.from({ length: CONCURRENT }, () => oneRun()))
report('concurrent', CONCURRENT, concurrent, performance.now() - started)

sampleRss()
clearInterval(sampler)
const leftOrphans = await settled(orphans)
const leftZombies = await settled(zombies)
globalThis.gc?.()
await new Promise((resolve) => setTimeout(resolve, 200))
const descriptorsAfter = openDescriptors()
const mb = (bytes) => (bytes / (1024 * 1024)).toFixed(1)
console.log(`RSS: ${mb(rssBefore)} MB before, peak ${mb(peakRss)} MB, ${mb(process.memoryUsage().rss)} MB after`)
console.log(`open descriptors: ${descriptorsBefore} before, ${descriptorsAfter} after`)
console.log(
  `runs: ${SEQUENTIAL + CONCURRENT + 1}, distinct agent pids ${groups.size}; zombies ${leftZombies}, orphans ${leftOrphans}`,
)
rmSync(scratch, { recursive: true, force: true })
if (leftZombies !== 0 || leftOrphans !== 0 || descriptorsAfter > descriptorsBefore) process.exitCode = 1
