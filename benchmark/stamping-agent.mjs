#!/usr/bin/env node
// Fake cursor-agent for benchmark/agent.bench.mjs. Reads the prompt, then prints an init event
// and BENCH_EVENTS partial assistant deltas whose text is "@<wall clock ms>;", written at the
// moment of writing, BENCH_INTERVAL_MS apart, then a result. Its own start (the process start
// time) goes to BENCH_START_FILE so the reader can subtract it.
import { writeFileSync } from 'node:fs'

const now = () => performance.timeOrigin + performance.now()
const env = process.env
if (env.BENCH_START_FILE) writeFileSync(env.BENCH_START_FILE, `${performance.timeOrigin} ${process.pid}`)
for await (const _ of process.stdin);

const session = 'bench-session'
const events = Number(env.BENCH_EVENTS ?? 1)
const interval = Number(env.BENCH_INTERVAL_MS ?? 0)
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
const write = (line) => new Promise((r) => (process.stdout.write(`${line}\n`) ? r() : process.stdout.once('drain', r)))

await write(JSON.stringify({ type: 'system', subtype: 'init', session_id: session, model: 'Auto' }))
for (let i = 0; i < events; i++) {
  if (interval > 0 && i > 0) await sleep(interval)
  await write(
    JSON.stringify({
      type: 'assistant',
      message: { role: 'assistant', content: [{ type: 'text', text: `@${now()};` }] },
      session_id: session,
      timestamp_ms: Date.now(),
    }),
  )
}
await write(
  JSON.stringify({
    type: 'result',
    subtype: 'success',
    is_error: false,
    result: '',
    session_id: session,
    usage: { inputTokens: 1, outputTokens: events },
  }),
)
