// The tool bridge against the fake cursor-agent: a 10-step tool loop (one `read` per step,
// answered at once) with one held cursor-agent run (`hostTools`), against a restart-per-step
// baseline (a new run with the whole, growing prompt for every step). Reports processes started,
// prompt bytes written to cursor-agent, and the bridge's own time per step. Then, as Cursor's client
// behaves (one call at a time): a 3-call "parallel" step (how many steps it takes the host, and how
// long), and the "still running" path (a call answered after the deadline: how many extra model
// calls, and the time beyond the host's own). Last, the cost of keeping each result within Cursor's
// 40,000-byte limit: a 120,000-character result, paged through `opencode_more` (model calls, bytes,
// wall time), beside the one Read of a file it would otherwise cost. Build first (`npm run build` for release numbers),
// then `node benchmark/bridge.bench.mjs` (or `npm run bench -- bridge`).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
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

/** One run of `steps`; each call handed over is answered after `delayMs` with `output`. */
async function scripted(loop, steps, hostTools, delayMs = 0, output = RESULT) {
  const folder = join(scratch, `scripted-${loop}-${Math.random().toString(36).slice(2)}`)
  let handOvers = 0
  let run
  const started = performance.now()
  run = runCursorAgent(
    {
      prompt: PROMPT,
      model: 'auto',
      workspace: scratch,
      executable: fakeAgent,
      env: {
        ...process.env,
        FAKE_CURSOR_SCENARIO: 'mcp',
        FAKE_CURSOR_MCP_SCRIPT: JSON.stringify(steps),
        FAKE_CURSOR_LOG_DIR: folder,
        ...scaled,
      },
      hostTools: { tools, folder, quietMs: 0, ...hostTools },
    },
    (outputs) => {
      const calls = outputs.filter((o) => typeof o === 'object' && o.type === 'tool-call')
      if (calls.length === 0) return
      handOvers += 1
      const answer = () => run.answerToolCalls(calls.map((call) => ({ id: call.toolCallId, output })))
      if (delayMs > 0) setTimeout(answer, delayMs)
      else answer()
    },
  )
  const result = await run.wait()
  if (result.error) throw new Error(`scripted run failed: ${result.error.message}`)
  const total = performance.now() - started
  // The MCP calls the model made (Cursor's side), from the fake's log of the run.
  const [logged] = readdirSync(folder).filter((file) => file.startsWith('invocation-'))
  const { mcpCalls } = JSON.parse(readFileSync(join(folder, logged), 'utf8'))
  const bytes = mcpCalls.reduce(
    (sum, call) => sum + (call?.result?.content ?? []).reduce((of, item) => of + Buffer.byteLength(item.text ?? ''), 0),
    0,
  )
  return { handOvers, modelCalls: mcpCalls.length, bytes, total }
}

/** Cursor's 60 s MCP timeout and the bridge's 45 s deadline, scaled by 1/100. */
const scaled = { FAKE_CURSOR_MCP_TIMEOUT_MS: '600' }
const DEADLINE_MS = 450
/** The host answers 1.3 deadlines after the call (65 s at full scale): past Cursor's timeout. */
const LATE_MS = 585
const threeCalls = [
  { calls: ['a', 'b', 'c'].map((name) => ({ tool: 'read', args: { filePath: `/w/${name}.txt` } })), parallel: true },
  { text: 'Done.' },
]
const oneRead = [{ calls: [{ tool: 'read', args: { filePath: '/w/slow.txt' } }] }, { text: 'Done.' }]
const waited = [
  oneRead[0],
  { calls: [{ tool: 'opencode_wait', args: { job: '{{match:0:job (\\d+)}}' } }], repeatWhile: 'is still running' },
  { text: 'Done.' },
]

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

const parallel = { handOvers: [], totals: [] }
const late = { inTime: [], stillRunning: [], modelCalls: new Set(), handOvers: new Set() }
for (let loop = 0; loop < LOOPS; loop += 1) {
  const three = await scripted(loop, threeCalls, {})
  parallel.handOvers.push(three.handOvers)
  parallel.totals.push(three.total)
  // The same late answer: with a deadline past it (the host's answer goes straight back) and with
  // the scaled deadline (answered "still running", then one or more opencode_wait calls).
  late.inTime.push((await scripted(loop, oneRead, { deadlineMs: 55_000 }, LATE_MS)).total)
  const parked = await scripted(loop, waited, { deadlineMs: DEADLINE_MS }, LATE_MS)
  late.stillRunning.push(parked.total)
  late.modelCalls.add(parked.modelCalls)
  late.handOvers.add(parked.handOvers)
}
for (const list of [parallel.totals, late.inTime, late.stillRunning]) list.sort((a, b) => a - b)
console.log(
  `3-call "parallel" step, calls sent one at a time: ${[...new Set(parallel.handOvers)].join('/')} hand-overs (host steps with tool calls), whole run median ${ms(percentile(parallel.totals, 50))}`,
)
console.log(
  `a call answered ${LATE_MS} ms after it came, median whole run: answered in time ${ms(percentile(late.inTime, 50))}; past a ${DEADLINE_MS} ms deadline (still running, then opencode_wait) ${ms(percentile(late.stillRunning, 50))}, with ${[...late.modelCalls].join('/')} MCP calls of the model and ${[...late.handOvers].join('/')} host step(s) with tool calls`,
)
// A 120,000-character result (1,200 lines of 100): the bridge sends it in pages within the budget.
const LONG = `${Array.from({ length: 1200 }, (_, i) => `line ${i + 1} `.padEnd(99, '.')).join('\n')}\n`
const paged = [
  { calls: [{ tool: 'read', args: { filePath: '/w/long.txt' } }], shape: 'provider' },
  {
    calls: [{ tool: 'opencode_more', args: { page: '{{match:last:"page": (\\d+)}}' } }],
    repeatWhile: 'This result was cut',
  },
  { text: 'Done.' },
]
// `read` would be told to read on with an offset; a tool of another name is paged by the bridge.
const longTools = [{ ...tools[0], name: 'bash', description: 'Run a command' }]
const pagedSteps = paged.map((step) =>
  step.calls
    ? { ...step, calls: step.calls.map((call) => (call.tool === 'read' ? { ...call, tool: 'bash' } : call)) }
    : step,
)
const long = { totals: [], modelCalls: new Set(), bytes: new Set(), handOvers: new Set() }
for (let loop = 0; loop < LOOPS; loop += 1) {
  const run = await scripted(loop, pagedSteps, { tools: longTools }, 0, LONG)
  long.totals.push(run.total)
  long.modelCalls.add(run.modelCalls)
  long.bytes.add(run.bytes)
  long.handOvers.add(run.handOvers)
}
long.totals.sort((a, b) => a - b)
console.log(
  `a ${LONG.length}-character result: ${[...long.modelCalls].join('/')} MCP calls of the model (1 to the tool, the rest opencode_more pages), ${[...long.bytes].join('/')} bytes to Cursor, ${[...long.handOvers].join('/')} host step(s), whole run median ${ms(percentile(long.totals, 50))}; a result moved to a file instead costs 1 MCP call and 1 Read of ${Buffer.byteLength(LONG)} bytes`,
)
rmSync(scratch, { recursive: true, force: true })
