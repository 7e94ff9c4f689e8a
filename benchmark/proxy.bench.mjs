// The server against the in-process runner, for each API it speaks (Chat Completions, Responses,
// Messages): the latency each SSE event gains by going through the server (agent's write -> frame
// in JS, in process; -> chunk read by an HTTP client, through the server), and the time of a whole
// non-streaming request, with requests per second, with an agent that answers at once.
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

/** Each API the server speaks: its path and a one-message request. */
const ENDPOINTS = [
  {
    name: 'chat completions',
    path: '/chat/completions',
    body: (text, stream) => ({ model: 'auto', stream, messages: [{ role: 'user', content: text }] }),
  },
  { name: 'responses', path: '/responses', body: (text, stream) => ({ model: 'auto', stream, input: text }) },
  {
    name: 'messages',
    path: '/messages',
    body: (text, stream) => ({ model: 'auto', stream, max_tokens: 64, messages: [{ role: 'user', content: text }] }),
  },
]

function post(proxy, path, body, onData) {
  return new Promise((done, failed) => {
    const req = request(
      `${proxy.url}${path}`,
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
async function throughServer(proxy, endpoint) {
  const latencies = []
  // An event's first arrival counts: Responses repeats the whole text in its closing events.
  const seen = new Set()
  Object.assign(process.env, agentEnv)
  const status = await post(proxy, endpoint.path, endpoint.body('x', true), (chunk, arrival) => {
    for (const stamp of stampsIn(chunk)) {
      if (seen.has(stamp)) continue
      seen.add(stamp)
      latencies.push(arrival - stamp)
    }
  })
  if (status !== 200 || latencies.length === 0)
    throw new Error(`the streaming request got ${status} and ${latencies.length} events`)
  return latencies
}

// 2. Whole requests: an agent that answers at once (one event), CONCURRENCY clients.
async function requests(proxy, endpoint) {
  Object.assign(process.env, { BENCH_EVENTS: '1', BENCH_INTERVAL_MS: '0' })
  const times = []
  let sent = 0
  const started = now()
  const client = async () => {
    while (sent < REQUESTS) {
      sent += 1
      const at = now()
      const status = await post(proxy, endpoint.path, endpoint.body(`request ${sent}`, false))
      if (status !== 200) throw new Error(`${endpoint.name}: status ${status}`)
      times.push(now() - at)
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, client))
  return { times, perSecond: REQUESTS / ((now() - started) / 1000) }
}

const median = (values) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  )

const proxy = await startProxy({ port: 0, workspace: scratch, maxConcurrent: CONCURRENCY + 1 })
try {
  await inProcess()
  const direct = await inProcess()
  console.log(`per-event latency, agent write -> JS, in process: ${summary(direct)}`)
  for (const endpoint of ENDPOINTS) {
    await throughServer(proxy, endpoint)
    const served = await throughServer(proxy, endpoint)
    console.log(
      `${endpoint.name}: per-event latency through the server ${summary(served)}; added (p50) ${(median(served) - median(direct)).toFixed(3)} ms`,
    )
  }
  for (const endpoint of ENDPOINTS) {
    const { times, perSecond } = await requests(proxy, endpoint)
    console.log(
      `${endpoint.name}: ${REQUESTS} non-streaming requests, ${CONCURRENCY} clients: ${summary(times)} per request, ${perSecond.toFixed(1)} requests/s (each one cursor-agent process)`,
    )
  }
} finally {
  await proxy.close()
  rmSync(scratch, { recursive: true, force: true })
}
