// runCursorAgent against fake agents: request overhead, per-event latency, RSS over many runs,
// and many concurrent runs. Build first (`npm run build` for release numbers), then
// `node --expose-gc benchmark/agent.bench.mjs` (or `npm run bench -- agent`).
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const { runCursorAgent } = require('../index.js')

const here = dirname(fileURLToPath(import.meta.url))
const scratch = mkdtempSync(join(tmpdir(), 'ocn-agent-bench-'))
// The agent runs straight under this node (no `env` hop in its shebang): the start-up being
// subtracted is then only the agent's own.
const stampingAgent = join(scratch, 'stamping-agent.mjs')
writeFileSync(
  stampingAgent,
  `#!${process.execPath}\n${readFileSync(join(here, 'stamping-agent.mjs'), 'utf8').replace(/^#!.*\n/, '')}`,
  { mode: 0o755 },
)
const workspace = scratch
const now = () => performance.timeOrigin + performance.now()
const baseEnv = { PATH: `${dirname(process.execPath)}:/usr/bin:/bin` }

const OVERHEAD_RUNS = Number(process.env.BENCH_OVERHEAD_RUNS ?? 200)
const LATENCY_EVENTS = Number(process.env.BENCH_LATENCY_EVENTS ?? 2000)
const SEQUENTIAL_RUNS = Number(process.env.BENCH_SEQUENTIAL_RUNS ?? 1000)
const CONCURRENT_RUNS = Number(process.env.BENCH_CONCURRENT_RUNS ?? 50)

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}
function summary(values) {
  const s = [...values].sort((a, b) => a - b)
  const f = (x) => x.toFixed(3)
  return `p50 ${f(percentile(s, 50))} ms, p99 ${f(percentile(s, 99))} ms, max ${f(s.at(-1))} ms (n=${s.length})`
}
function stampOf(part) {
  const m = typeof part === 'object' && part.type === 'text-delta' && /^@([0-9.]+);$/.exec(part.delta)
  return m ? Number(m[1]) : null
}
function rssMb() {
  globalThis.gc?.()
  return process.memoryUsage().rss / (1024 * 1024)
}
function reaped(pid) {
  // our own child: once reaped it has no /proc entry (a zombie still has one)
  return !existsSync(`/proc/${pid}`)
}

// 1. Overhead: from the call to the first part in JS, minus the fake agent's own start-up
//    (its process start -> its first write). What remains is spawn + pipe + translate + deliver.
async function overheadOnce(i) {
  const startFile = join(scratch, `start-${i}`)
  let firstArrival = null
  let firstStamp = null
  const t0 = now()
  const run = runCursorAgent(
    {
      prompt: 'x',
      model: 'auto',
      workspace,
      executable: stampingAgent,
      env: { ...baseEnv, BENCH_START_FILE: startFile },
    },
    (outputs) => {
      if (firstArrival !== null) return
      for (const part of outputs) {
        const stamp = stampOf(part)
        if (stamp !== null) {
          firstArrival = now()
          firstStamp = stamp
          return
        }
      }
    },
  )
  const result = await run.wait()
  if (result.error) throw new Error(`run failed: ${result.error.code} ${result.error.message}`)
  const agentStart = Number(readFileSync(startFile, 'utf8').split(' ')[0])
  return [agentStart - t0, firstArrival - firstStamp]
}

// The same measure for node:child_process + JSON.parse, as a reference point.
function baselineOnce(i) {
  return new Promise((resolve, reject) => {
    const startFile = join(scratch, `bstart-${i}`)
    const t0 = now()
    const child = spawn(stampingAgent, [], { cwd: workspace, env: { ...baseEnv, BENCH_START_FILE: startFile } })
    child.stdin.end('x')
    let buffered = ''
    let done = false
    child.stdout.on('data', (chunk) => {
      if (done) return
      buffered += chunk
      for (const line of buffered.split('\n').slice(0, -1)) {
        const event = JSON.parse(line)
        const m = event.type === 'assistant' && /^@([0-9.]+);$/.exec(event.message.content[0].text)
        if (m) {
          done = true
          const arrival = now()
          child.on('close', () => {
            const agentStart = Number(readFileSync(startFile, 'utf8').split(' ')[0])
            resolve([agentStart - t0, arrival - Number(m[1])])
          })
          return
        }
      }
    })
    child.on('error', reject)
  })
}

// 2. Per-event latency: every delta carries the agent's write time; JS notes its arrival.
async function latency(events, intervalMs) {
  const latencies = []
  const run = runCursorAgent(
    {
      prompt: 'x',
      model: 'auto',
      workspace,
      executable: stampingAgent,
      env: { ...baseEnv, BENCH_EVENTS: String(events), BENCH_INTERVAL_MS: String(intervalMs) },
    },
    (outputs) => {
      const arrival = now()
      for (const part of outputs) {
        const stamp = stampOf(part)
        if (stamp !== null) latencies.push(arrival - stamp)
      }
    },
  )
  const result = await run.wait()
  if (result.error) throw new Error(`run failed: ${result.error.code}`)
  return latencies
}

// 3. RSS over many sequential runs of a shell agent (cat of a small stream).
async function sequential(runs) {
  const stream = join(scratch, 'stream.ndjson')
  const lines = [
    { type: 'system', subtype: 'init', session_id: 's', model: 'Auto' },
    ...Array.from({ length: 20 }, (_, i) => ({
      type: 'assistant',
      message: { role: 'assistant', content: [{ type: 'text', text: `token ${i} ` }] },
      session_id: 's',
      timestamp_ms: 1,
    })),
    {
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: '',
      session_id: 's',
      usage: { inputTokens: 5, outputTokens: 20 },
    },
  ]
  writeFileSync(stream, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`)
  const agent = join(scratch, 'cat-agent.sh')
  writeFileSync(agent, `#!/bin/sh\ncat > /dev/null\ncat '${stream}'\n`, { mode: 0o755 })
  const samples = [[0, rssMb()]]
  const t0 = now()
  for (let i = 1; i <= runs; i++) {
    let parts = 0
    const run = runCursorAgent(
      { prompt: 'x', model: 'auto', workspace, executable: agent, env: baseEnv },
      (o) => (parts += o.length),
    )
    const result = await run.wait()
    if (result.error || parts === 0) throw new Error(`run ${i} failed: ${result.error?.code}`)
    if (i % Math.max(1, Math.floor(runs / 4)) === 0) samples.push([i, rssMb()])
  }
  return { samples, msPerRun: (now() - t0) / runs }
}

// 4. Many concurrent runs: all complete, every child reaped.
async function concurrent(n) {
  const t0 = now()
  const runs = Array.from({ length: n }, (_, i) => {
    const startFile = join(scratch, `c-${i}`)
    const run = runCursorAgent(
      {
        prompt: 'x',
        model: 'auto',
        workspace,
        executable: stampingAgent,
        env: { ...baseEnv, BENCH_EVENTS: '50', BENCH_INTERVAL_MS: '2', BENCH_START_FILE: startFile },
      },
      () => {},
    )
    return run.wait().then((result) => ({ result, pid: Number(readFileSync(startFile, 'utf8').split(' ')[1]) }))
  })
  const done = await Promise.all(runs)
  const ms = now() - t0
  const failed = done.filter((d) => d.result.error).length
  const notReaped = done.filter((d) => !reaped(d.pid)).length
  return { ms, failed, notReaped }
}

console.log(`node ${process.version}, ${process.platform}-${process.arch}`)
for (let i = 0; i < 5; i++) await overheadOnce(`warm-${i}`)
const overhead = []
const baseline = []
for (let i = 0; i < OVERHEAD_RUNS; i++) {
  overhead.push(await overheadOnce(i))
  baseline.push(await baselineOnce(i))
}
const total = (pairs) => pairs.map(([a, b]) => a + b)
console.log(
  `overhead, call -> first part in JS, minus the agent's own start-up: ${summary(total(overhead))}  (target p50 < 5 ms)`,
)
console.log(`  of which call -> agent process start: ${summary(overhead.map((p) => p[0]))}`)
console.log(`  of which agent write -> JS callback:  ${summary(overhead.map((p) => p[1]))}`)
console.log(`  reference, node:child_process + JSON.parse: ${summary(total(baseline))}`)
console.log(`    of which spawn -> agent process start: ${summary(baseline.map((p) => p[0]))}`)
console.log(`    of which agent write -> 'data' event:  ${summary(baseline.map((p) => p[1]))}`)
console.log(`per-event latency, 1 ms apart:   ${summary(await latency(LATENCY_EVENTS, 1))}  (target p99 < 2 ms)`)
console.log(`per-event latency, back to back: ${summary(await latency(LATENCY_EVENTS, 0))}`)
const seq = await sequential(SEQUENTIAL_RUNS)
console.log(
  `RSS over ${SEQUENTIAL_RUNS} sequential runs (${seq.msPerRun.toFixed(2)} ms/run): ${seq.samples.map(([i, mb]) => `${i}: ${mb.toFixed(1)} MB`).join(', ')}`,
)
const first = seq.samples[1][1]
const last = seq.samples.at(-1)[1]
console.log(
  `  trend after warm-up (run ${seq.samples[1][0]} -> ${SEQUENTIAL_RUNS}): ${(last - first >= 0 ? '+' : '') + (last - first).toFixed(1)} MB`,
)
const conc = await concurrent(CONCURRENT_RUNS)
console.log(
  `${CONCURRENT_RUNS} concurrent runs: ${conc.ms.toFixed(0)} ms, ${CONCURRENT_RUNS - conc.failed}/${CONCURRENT_RUNS} completed, ${CONCURRENT_RUNS - conc.notReaped}/${CONCURRENT_RUNS} children reaped`,
)
rmSync(scratch, { recursive: true, force: true })
if (conc.failed || conc.notReaped) process.exit(1)
