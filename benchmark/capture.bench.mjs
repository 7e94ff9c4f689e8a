// What capturing a run costs (CURSOR_ACP_CAPTURE): per-event latency and a long answer's wall
// time with and without a capture, the capture's size, and how long its replay takes. Build first
// (`npm run build` for release numbers), then `node benchmark/capture.bench.mjs` (or
// `npm run bench -- capture`).
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const { runCursorAgent, replayCapture } = require('../index.js')

const here = dirname(fileURLToPath(import.meta.url))
const scratch = mkdtempSync(join(tmpdir(), 'ocn-capture-bench-'))
const captures = join(scratch, 'captures')
const stampingAgent = join(scratch, 'stamping-agent.mjs')
writeFileSync(
  stampingAgent,
  `#!${process.execPath}\n${readFileSync(join(here, 'stamping-agent.mjs'), 'utf8').replace(/^#!.*\n/, '')}`,
  { mode: 0o755 },
)
const baseEnv = { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, CURSOR_API_KEY: 'bench_key_0123456789' }
const now = () => performance.timeOrigin + performance.now()
const EVENTS = Number(process.env.BENCH_LATENCY_EVENTS ?? 2000)
const LONG_MB = Number(process.env.BENCH_LONG_MB ?? 20)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
const median = (values) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  )
function summary(values) {
  const s = [...values].sort((a, b) => a - b)
  return `p50 ${percentile(s, 50).toFixed(3)} ms, p99 ${percentile(s, 99).toFixed(3)} ms (n=${s.length})`
}
const capture = (on) => (on ? { capture: { folder: captures } } : {})

async function latency(on, intervalMs) {
  const latencies = []
  const run = runCursorAgent(
    {
      prompt: 'x',
      model: 'auto',
      workspace: scratch,
      executable: stampingAgent,
      env: { ...baseEnv, BENCH_EVENTS: String(EVENTS), BENCH_INTERVAL_MS: String(intervalMs) },
      ...capture(on),
    },
    (outputs) => {
      const arrival = now()
      for (const part of outputs) {
        const m = part.type === 'text-delta' && /^@([0-9.]+);$/.exec(part.delta)
        if (m) latencies.push(arrival - Number(m[1]))
      }
    },
  )
  const result = await run.wait()
  if (result.error) throw new Error(`run failed: ${result.error.code}`)
  return latencies
}

// A long answer: LONG_MB of 1 KiB deltas, printed by `cat` as fast as the pipe takes them. Its
// capture holds the stream and every output, about twice its size: the folder's limit is set so
// that one capture may keep it whole.
const stream = join(scratch, 'long.ndjson')
const delta = 'x'.repeat(1000)
const lines = [JSON.stringify({ type: 'system', subtype: 'init', session_id: 's', model: 'Auto' })]
lines.push(
  JSON.stringify({
    type: 'user',
    message: { role: 'user', content: [{ type: 'text', text: 'the prompt' }] },
    session_id: 's',
  }),
)
for (let i = 0; i < LONG_MB * 1024; i++)
  lines.push(
    JSON.stringify({
      type: 'assistant',
      message: { role: 'assistant', content: [{ type: 'text', text: delta }] },
      session_id: 's',
      timestamp_ms: 1,
    }),
  )
lines.push(JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: '', session_id: 's' }))
writeFileSync(stream, `${lines.join('\n')}\n`)
const catAgent = join(scratch, 'cat-agent.sh')
writeFileSync(catAgent, `#!/bin/sh\ncat > /dev/null\ncat '${stream}'\n`, { mode: 0o755 })

async function longRun(on) {
  const t0 = now()
  let outputs = 0
  const run = runCursorAgent(
    {
      prompt: 'x',
      model: 'auto',
      workspace: scratch,
      executable: catAgent,
      env: baseEnv,
      ...(on ? { capture: { folder: captures, maxBytes: LONG_MB * 1024 * 1024 * 16 } } : {}),
    },
    (o) => (outputs += o.length),
  )
  const result = await run.wait()
  if (result.error) throw new Error(`run failed: ${result.error.code}`)
  return { ms: now() - t0, name: result.capture, outputs }
}

console.log(`node ${process.version}, ${process.platform}-${process.arch}`)
for (const interval of [1, 0]) {
  const off = await latency(false, interval)
  const on = await latency(true, interval)
  const label = interval === 0 ? 'back to back' : `${interval} ms apart`
  console.log(`per-event latency, ${label}: without capture ${summary(off)}; with capture ${summary(on)}`)
}
const times = { off: [], on: [] }
let last
for (let round = 0; round < ROUNDS; round++) {
  times.off.push((await longRun(false)).ms)
  last = await longRun(true)
  times.on.push(last.ms)
}
const size = statSync(join(captures, `${last.name}.ndjson`)).size
console.log(
  `${LONG_MB} MiB answer (${last.outputs} outputs): median without capture ${median(times.off).toFixed(0)} ms, with capture ${median(times.on).toFixed(0)} ms (x${(median(times.on) / median(times.off)).toFixed(2)}, ${ROUNDS} rounds); capture ${(size / 1048576).toFixed(1)} MiB`,
)
const replays = []
for (let round = 0; round < 3; round++) {
  const t0 = now()
  const report = replayCapture(join(captures, `${last.name}.ndjson`))
  replays.push(now() - t0)
  if (!report.matches) throw new Error('the replay did not match')
}
console.log(`replay of that capture: median ${median(replays).toFixed(0)} ms (3 runs), matches`)
rmSync(scratch, { recursive: true, force: true })
