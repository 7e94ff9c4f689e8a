// StreamTransformer throughput through JS: bytes of cursor-agent stdout pushed in 64 KiB chunks,
// outputs materialised as JS strings (openai-sse) or part objects (ai-sdk). Beside it, in the same
// process, a JS floor that only splits lines and parses JSON; "× JS floor" is its time over ours.
//
//   node benchmark/run.mjs transformer            (after a release build: npm run build)
//   node --expose-gc benchmark/transformer.bench.mjs [--mb 20] [--runs 5]
import { createRequire } from 'node:module'

import { prng } from '../__test__/support/prng.mjs'

const { StreamTransformer } = createRequire(import.meta.url)('../index.js')

const args = process.argv.slice(2)
const flag = (name, fallback) => {
  const at = args.indexOf(`--${name}`)
  return at >= 0 ? Number(args[at + 1]) : fallback
}
const TARGET_BYTES = flag('mb', 20) * 1e6
const RUNS = flag('runs', 5)
const CHUNK = 64 * 1024

const WORDS = (
  'the a stream of tokens arrives from cursor agent and each delta carries only new text while ' +
  'snapshots repeat everything so far function returns value file directory test build run ' +
  'café naïve 你好 世界 🚀 `code` **bold** line\\nbreak "quoted" path/to/file.rs 42 3.14'
).split(' ')

// Deterministic input: the same bytes on every machine and run.
function generator(seed) {
  const rand = prng(seed)
  const pick = (n) => Math.floor(rand() * n)
  const words = () => {
    const n = 1 + pick(6)
    let s = ''
    for (let i = 0; i < n; i++) s += (i === 0 && rand() < 0.5 ? '' : ' ') + WORDS[pick(WORDS.length)]
    return s
  }
  return { rand, pick, words }
}

const SESSION = '4e91ef8b-e38e-4793-a875-a4818b4318ed'
let clock = 1_787_030_680_000
const ts = () => (clock += 3)
const line = (event) => `${JSON.stringify(event)}\n`
const assistant = (text, extra) =>
  line({
    type: 'assistant',
    message: { role: 'assistant', content: [{ type: 'text', text }] },
    session_id: SESSION,
    ...extra,
  })
const thinking = (text) => line({ type: 'thinking', subtype: 'delta', text, session_id: SESSION, timestamp_ms: ts() })
const thinkingDone = () => line({ type: 'thinking', subtype: 'completed', session_id: SESSION, timestamp_ms: ts() })
function toolCall(subtype, callId, command, modelCallId) {
  const args = {
    command,
    workingDirectory: '',
    timeout: 30000,
    toolCallId: callId,
    simpleCommands: [command.split(' ')[0]],
    hasInputRedirect: false,
    hasOutputRedirect: false,
    description: `Run ${command}`,
  }
  const shellToolCall = { args, description: `Run ${command}` }
  if (subtype === 'completed') {
    shellToolCall.result = {
      success: {
        command,
        workingDirectory: '',
        exitCode: 0,
        signal: '',
        stdout: 'ok\n'.repeat(8),
        stderr: '',
        executionTime: 12,
      },
      isBackground: false,
    }
  }
  return line({
    type: 'tool_call',
    subtype,
    call_id: callId,
    tool_call: { shellToolCall, hookAdditionalContexts: [], toolCallId: callId, startedAtMs: String(ts()) },
    model_call_id: modelCallId,
    session_id: SESSION,
    timestamp_ms: ts(),
  })
}
const header = () =>
  line({
    type: 'system',
    subtype: 'init',
    apiKeySource: 'login',
    cwd: '/w',
    session_id: SESSION,
    model: 'Auto',
    permissionMode: 'default',
  }) +
  line({
    type: 'user',
    message: { role: 'user', content: [{ type: 'text', text: 'Benchmark me.' }] },
    session_id: SESSION,
  })
const footer = () =>
  line({
    type: 'result',
    subtype: 'success',
    duration_ms: 1,
    duration_api_ms: 1,
    is_error: false,
    result: '',
    session_id: SESSION,
    request_id: 'bench',
    usage: { inputTokens: 21994, outputTokens: 261, cacheReadTokens: 22528, cacheWriteTokens: 0 },
  })

/**
 * Header, then turns until TARGET_BYTES: each what `turn(modelCallId)` writes, then a shell call
 * `command(n)` of the same model call; then what `last()` writes and the result.
 */
function stream(tag, turn, command, last) {
  const parts = [header()]
  let size = parts[0].length
  for (let call = 0; size < TARGET_BYTES; call++) {
    const modelCallId = `bench-${call}-${tag}`
    let chunk = turn(modelCallId)
    const callId = `call-${call}\nfc_${call}`
    chunk += toolCall('started', callId, command(call), modelCallId)
    chunk += toolCall('completed', callId, command(call), modelCallId)
    parts.push(chunk)
    size += Buffer.byteLength(chunk)
  }
  parts.push(last(), footer())
  return Buffer.from(parts.join(''))
}

/** `--stream-partial-output`: thinking and text deltas of 1-6 words, a recap per segment, shell calls between. */
function partialStream() {
  const { pick, words } = generator(1)
  const turn = (modelCallId) => {
    let chunk = ''
    for (let i = 2 + pick(10); i > 0; i--) chunk += thinking(words())
    chunk += thinkingDone()
    let segment = ''
    for (let i = 20 + pick(200); i > 0; i--) {
      const text = words()
      segment += text
      chunk += assistant(text, { timestamp_ms: ts() })
    }
    return chunk + assistant(segment, { model_call_id: modelCallId, timestamp_ms: ts() })
  }
  return stream(
    'abcd',
    turn,
    (call) => `ls -la dir${call}`,
    () => assistant('Done.', { timestamp_ms: ts() }),
  )
}

/** No partial output: every event repeats all text of its segment so far. */
function snapshotStream() {
  const { pick, words } = generator(2)
  const turn = (modelCallId) => {
    let chunk = ''
    let segment = ''
    for (let i = 20 + pick(100); i > 0; i--) {
      segment += words()
      chunk += assistant(segment, { model_call_id: modelCallId, timestamp_ms: ts() })
    }
    return chunk
  }
  return stream(
    'wxyz',
    turn,
    (call) => `cat file${call}.txt`,
    () => assistant('Done.'),
  )
}

function chunks(bytes) {
  const out = []
  for (let at = 0; at < bytes.length; at += CHUNK) out.push(bytes.subarray(at, at + CHUNK))
  return out
}

function runOnce(pieces, format) {
  const t = new StreamTransformer({ format, id: 'chatcmpl-bench', created: 1_790_000_000 })
  let outputs = 0
  let touched = 0
  const start = process.hrtime.bigint()
  for (const piece of pieces) {
    const out = t.push(piece)
    outputs += out.length
    // Read each output so lazily built values would be paid for here.
    for (const o of out) touched += typeof o === 'string' ? o.length : o.type.length
  }
  const end = t.finish({ exitCode: 0 })
  outputs += end.length
  const ms = Number(process.hrtime.bigint() - start) / 1e6
  if (touched === 0) throw new Error('no outputs')
  return { ms, outputs }
}

/**
 * The floor any JS translator pays: decode the bytes, split lines across chunk boundaries and parse
 * each line's JSON, reading one field so the parse is not dead code. It emits nothing.
 */
function floorOnce(pieces) {
  const decoder = new TextDecoder()
  let rest = ''
  let records = 0
  let touched = 0
  const start = process.hrtime.bigint()
  for (const piece of pieces) {
    const text = rest + decoder.decode(piece, { stream: true })
    const lines = text.split('\n')
    rest = lines.pop() ?? ''
    for (const l of lines) {
      if (l.length === 0) continue
      touched += JSON.parse(l).type.length
      records += 1
    }
  }
  const ms = Number(process.hrtime.bigint() - start) / 1e6
  if (touched === 0) throw new Error('no records')
  return { ms, records }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

const streams = [
  ['partial deltas', partialStream()],
  ['snapshots only', snapshotStream()],
]
const rows = []
const floors = new Map()
for (const [name, bytes] of streams) {
  const pieces = chunks(bytes)
  floorOnce(pieces)
  const floorTimes = []
  // Interleaved with the translator's runs below would be fairer still; one block of runs each,
  // back to back in one process, keeps the ratio meaningful on a shared machine.
  for (let r = 0; r < RUNS; r++) {
    globalThis.gc?.()
    floorTimes.push(floorOnce(pieces).ms)
  }
  floors.set(name, median(floorTimes))
  for (const format of ['openai-sse', 'ai-sdk']) {
    runOnce(pieces, format)
    const times = []
    let outputs = 0
    for (let r = 0; r < RUNS; r++) {
      globalThis.gc?.()
      const run = runOnce(pieces, format)
      times.push(run.ms)
      outputs = run.outputs
    }
    const ms = median(times)
    const mb = bytes.length / 1e6
    const best = Math.min(...times)
    rows.push({
      stream: name,
      format,
      mb,
      ms,
      mbps: mb / (ms / 1000),
      best: mb / (best / 1000),
      outputs,
      kps: outputs / ms,
      floor: floors.get(name) / ms,
    })
  }
}

const runtime = typeof Bun === 'undefined' ? `node ${process.version}` : `bun ${Bun.version}`
const pad = (s, n, right = false) => (right ? String(s).padStart(n) : String(s).padEnd(n))
console.log(`StreamTransformer, ${CHUNK / 1024} KiB chunks, median of ${RUNS} runs, ${runtime} (MB = 10^6 bytes)`)
console.log(
  `${pad('stream', 16)} ${pad('format', 11)} ${pad('input MB', 10, true)} ${pad('median ms', 10, true)} ` +
    `${pad('MB/s', 8, true)} ${pad('best MB/s', 10, true)} ${pad('outputs', 9, true)} ${pad('outputs/ms', 11, true)} ${pad('× JS floor', 11, true)}`,
)
for (const r of rows) {
  console.log(
    `${pad(r.stream, 16)} ${pad(r.format, 11)} ${pad(r.mb.toFixed(1), 10, true)} ${pad(r.ms.toFixed(0), 10, true)} ` +
      `${pad(r.mbps.toFixed(1), 8, true)} ${pad(r.best.toFixed(1), 10, true)} ${pad(r.outputs, 9, true)} ${pad(r.kps.toFixed(0), 11, true)} ${pad(r.floor.toFixed(2), 11, true)}`,
  )
}
for (const [name, ms] of floors) {
  const mb = streams.find(([n]) => n === name)[1].length / 1e6
  console.log(`JS floor (split lines, JSON.parse each), ${name}: ${(mb / (ms / 1000)).toFixed(1)} MB/s`)
}
