// The tool bridge against the fake cursor-agent: a 10-step tool loop (one `read` per step,
// answered at once) with one held cursor-agent run (`hostTools`), against a restart-per-step
// baseline (a new run with the whole, growing prompt for every step). Reports processes started,
// prompt bytes written to cursor-agent, and the bridge's own time per step. Build first (`npm run
// build` for release numbers), then `node benchmark/bridge.bench.mjs` (or `npm run bench -- bridge`).
import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const { runCursorAgent } = require('../index.js')
const here = dirname(fileURLToPath(import.meta.url))
const fakeAgent = join(here, '..', '__test__', 'support', 'agents', 'fake-cursor-agent.mjs')
const scratch = mkdtempSync(join(tmpdir(), 'ocn-bridge-bench-'))
const STEPS = Number(process.env.BENCH_BRIDGE_STEPS ?? 10)
const LOOPS = Number(process.env.BENCH_BRIDGE_LOOPS ?? 20)
const PROMPT = 'Read the ten files one after another and summarise them.\n'.repeat(200)
const RESULT = 'line of a file\n'.repeat(100)
const tools = [
  {
    type: 'function',
    name: 'read',
    description: 'Read a file',
    inputSchema: { type: 'object', properties: { filePath: { type: 'string' } }, required: ['filePath'] },
  },
]
const script = (steps) => [
  ...Array.from({ length: steps }, (_, i) => ({ calls: [{ tool: 'read', args: { filePath: `/w/file-${i}.txt` } }] })),
  { text: 'Done.' },
]
const env = (steps) => ({
  ...process.env,
  FAKE_CURSOR_SCENARIO: 'mcp',
  FAKE_CURSOR_MCP_SCRIPT: JSON.stringify(script(steps)),
})

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}
const ms = (x) => `${x.toFixed(2)} ms`

/** One held run through all steps; per step, from answerToolCalls to the next hand-over. */
async function bridged(loop) {
  const folder = join(scratch, `conversation-${loop}`)
  const perStep = []
  let answeredAt = 0
  let run
  const started = performance.now()
  run = runCursorAgent(
    {
      prompt: PROMPT,
      model: 'auto',
      workspace: scratch,
      executable: fakeAgent,
      env: env(STEPS),
      hostTools: { tools, folder, quietMs: 0 },
    },
    (outputs) => {
      const calls = outputs.filter((o) => typeof o === 'object' && o.type === 'tool-call')
      if (calls.length === 0) return
      if (answeredAt > 0) perStep.push(performance.now() - answeredAt)
      answeredAt = performance.now()
      run.answerToolCalls(calls.map((call) => ({ id: call.toolCallId, output: RESULT })))
    },
  )
  const result = await run.wait()
  if (result.error) throw new Error(`bridged run failed: ${result.error.message}`)
  return { perStep, processes: 1, promptBytes: Buffer.byteLength(PROMPT), total: performance.now() - started }
}

/** The baseline: every step is a new run whose prompt carries every earlier call and result. */
async function restarted() {
  let prompt = PROMPT
  let promptBytes = 0
  const started = performance.now()
  for (let step = 0; step <= STEPS; step += 1) {
    promptBytes += Buffer.byteLength(prompt)
    const run = runCursorAgent(
      {
        prompt,
        model: 'auto',
        workspace: scratch,
        executable: fakeAgent,
        env: { ...process.env, FAKE_CURSOR_STREAM: 'text:ok' },
      },
      () => {},
    )
    const result = await run.wait()
    if (result.error) throw new Error(`baseline run failed: ${result.error.message}`)
    prompt += `\nassistant: [tool call read {"filePath":"/w/file-${step}.txt"}]\ntool result: ${RESULT}`
  }
  return { processes: STEPS + 1, promptBytes, total: performance.now() - started }
}

const steps = []
const totals = []
let bridgedRun
for (let loop = 0; loop < LOOPS; loop += 1) {
  bridgedRun = await bridged(loop)
  steps.push(...bridgedRun.perStep)
  totals.push(bridgedRun.total)
}
const baseline = await restarted()
steps.sort((a, b) => a - b)
totals.sort((a, b) => a - b)
console.log(`${STEPS}-step tool loop, ${LOOPS} loops with the bridge, quiet window 0 ms`)
console.log(`| | bridge (one held run) | restart per step |`)
console.log(`| --- | --- | --- |`)
console.log(`| cursor-agent processes started | ${bridgedRun.processes} | ${baseline.processes} |`)
console.log(`| prompt bytes written | ${bridgedRun.promptBytes} | ${baseline.promptBytes} |`)
console.log(`| whole loop (median) | ${ms(percentile(totals, 50))} | ${ms(baseline.total)} |`)
console.log(
  `bridge per step (answerToolCalls -> next call handed over, incl. the fake's MCP round trip): p50 ${ms(percentile(steps, 50))}, p99 ${ms(percentile(steps, 99))} (n=${steps.length})`,
)
rmSync(scratch, { recursive: true, force: true })
