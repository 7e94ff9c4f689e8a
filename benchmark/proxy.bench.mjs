// The OpenAI-compatible server against the in-process runner: the latency each SSE event gains by
// going through the server (agent's write -> frame in JS, in process; -> chunk read by an HTTP
// client, through the server), and requests per second with an agent that answers at once.
// Build first (`npm run build`), then `node benchmark/proxy.bench.mjs` (or `npm run bench -- proxy`).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const { runCursorAgent } = require('../index.js')
const { startProxy } = await import('../dist/plugin/proxy/server.js')

const here = dirname(fileURLToPath(import.meta.url))
const scratch = mkdtempSync(join(tmpdir(), 'ocn-proxy-bench-'))
const stampingAgent = join(scratch, 'stamping-agent.mjs')
writeFileSync(
  stampingAgent,
  `#!${process.execPath}\n${readFileSync(join(here, 'stamping-agent.mjs'), 'utf8').replace(/^#!.*\n/, '')}`,
  { mode: 0o755 },
)
const now = () => performance.timeOrigin + performance.now()
const EVENTS = Number(process.env.BENCH_PROXY_EVENTS ?? 1000)
const REQUESTS = Number(process.env.BENCH_PROXY_REQUESTS ?? 200)
const CONCURRENCY = 4

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}
function summary(values) {
  const s = [...values].sort((a, b) => a - b)
  return `p50 ${percentile(s, 50).toFixed(3)} ms, p99 ${percentile(s, 99).toFixed(3)} ms (n=${s.length})`
}
const stampsIn = (text) => [...text.matchAll(/@([0-9.]+);/g)].map((m) => Number(m[1]))

process.env.CURSOR_AGENT_EXECUTABLE = stampingAgent
process.env.PATH = `${dirname(process.execPath)}:/usr/bin:/bin`
const agentEnv = { BENCH_EVENTS: String(EVENTS), BENCH_INTERVAL_MS: '2' }

// 1a. In process: runCursorAgent with format openai-sse.
async function inProcess() {
  const latencies = []
  const run = runCursorAgent(
    {
      prompt: 'x',
      model: 'auto',
      workspace: scratch,
      format: 'openai-sse',
      executable: stampingAgent,
      env: { ...process.env, ...agentEnv },
    },
    (frames) => {
      const arrival = now()
      for (const frame of frames) for (const stamp of stampsIn(frame)) latencies.push(arrival - stamp)
    },
  )
  const result = await run.wait()
  if (result.error != null || latencies.length === 0)
    throw new Error(`the run got ${result.error?.code} and ${latencies.length} events`)
  return latencies
}

function post(proxy, body, onData) {
  return new Promise((done, failed) => {
    const req = request(
      `${proxy.url}/chat/completions`,
      { method: 'POST', headers: { authorization: `Bearer ${proxy.token}`, 'content-type': 'application/json' } },
      (res) => {
        res.setEncoding('utf8')
        res.on('data', (chunk) => onData?.(chunk, now()))
        res.on('end', () => done(res.statusCode))
      },
    )
    req.on('error', failed)
    req.end(JSON.stringify(body))
  })
}

// 1b. Through the server: the same agent, a streaming request read chunk by chunk.
async function throughServer(proxy) {
  const latencies = []
  Object.assign(process.env, agentEnv)
  const status = await post(
    proxy,
    { model: 'auto', stream: true, messages: [{ role: 'user', content: 'x' }] },
    (chunk, arrival) => {
      for (const stamp of stampsIn(chunk)) latencies.push(arrival - stamp)
    },
  )
  if (status !== 200 || latencies.length === 0)
    throw new Error(`the streaming request got ${status} and ${latencies.length} events`)
  return latencies
}

const proxy = await startProxy({ port: 0, workspace: scratch, maxConcurrent: CONCURRENCY + 1 })
try {
  await inProcess()
  const direct = await inProcess()
  const served = await throughServer(proxy)
  const median = (values) =>
    percentile(
      [...values].sort((a, b) => a - b),
      50,
    )
  console.log(`per-event latency, agent write -> JS, in process:        ${summary(direct)}`)
  console.log(`per-event latency, agent write -> HTTP client, server:   ${summary(served)}`)
  console.log(`added by the server (p50): ${(median(served) - median(direct)).toFixed(3)} ms`)

  // 2. Requests per second: an agent that answers at once (one event), CONCURRENCY clients.
  Object.assign(process.env, { BENCH_EVENTS: '1', BENCH_INTERVAL_MS: '0' })
  let sent = 0
  const started = now()
  const client = async () => {
    while (sent < REQUESTS) {
      sent += 1
      const status = await post(proxy, { model: 'auto', messages: [{ role: 'user', content: `request ${sent}` }] })
      if (status !== 200) throw new Error(`status ${status}`)
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, client))
  const seconds = (now() - started) / 1000
  console.log(
    `${REQUESTS} non-streaming requests, ${CONCURRENCY} clients: ${(REQUESTS / seconds).toFixed(1)} requests/s (each one cursor-agent process)`,
  )
} finally {
  await proxy.close()
  rmSync(scratch, { recursive: true, force: true })
}
