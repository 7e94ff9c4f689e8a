// Session resume and prompt building, measured from JS through the public entry.
// A realistic OpenCode request: 35 KB system prompt, 10 tools with ~30 KB of schemas, 200 messages.
// Run: node benchmark/run.mjs resume   (after `npx napi build --platform --release`)
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { SessionResumeManager, buildPrompt, isTitleRequest } = require('../index.js')

const WORKSPACE = '/home/user/project'
const MODEL = 'cursor-acp/auto'

// Deterministic filler text (no randomness: runs are comparable).
function words(count, seed) {
  const vocabulary = [
    'the',
    'file',
    'function',
    'returns',
    'value',
    'when',
    'called',
    'with',
    'a',
    'path',
    'error',
    'test',
    'build',
    'module',
    'import',
    'config',
    'user',
    'project',
    'change',
    'review',
  ]
  const out = []
  for (let i = 0; i < count; i++) out.push(vocabulary[(i * 7 + seed * 13) % vocabulary.length])
  return out.join(' ')
}

function textOfBytes(bytes, seed) {
  let text = ''
  let n = 0
  while (text.length < bytes) text += `${words(40, seed + n++)}.\n`
  return text.slice(0, bytes)
}

function tools() {
  const names = ['bash', 'edit', 'glob', 'grep', 'read', 'skill', 'task', 'todowrite', 'webfetch', 'write']
  return names.map((name, t) => {
    const properties = {}
    for (let p = 0; p < 8; p++) {
      properties[`param${p}`] = { type: p % 2 ? 'number' : 'string', description: textOfBytes(200, t * 10 + p) }
    }
    return {
      type: 'function',
      function: {
        name,
        description: textOfBytes(1300, t),
        parameters: { type: 'object', properties, required: ['param0', 'param1'], additionalProperties: false },
      },
    }
  })
}

// 200 messages: user / assistant turns, every fourth assistant turn calls a tool.
function conversation(messageCount) {
  const messages = [{ role: 'system', content: textOfBytes(35 * 1024, 1) }]
  let call = 0
  while (messages.length < messageCount) {
    messages.push({ role: 'user', content: textOfBytes(300, messages.length) })
    if (messages.length % 8 === 2) {
      const id = `call_${call++}`
      messages.push({
        role: 'assistant',
        content: '',
        tool_calls: [
          {
            id,
            type: 'function',
            function: { name: 'read', arguments: JSON.stringify({ filePath: `${WORKSPACE}/src/file${call}.ts` }) },
          },
        ],
      })
      messages.push({ role: 'tool', tool_call_id: id, content: textOfBytes(1500, call) })
    }
    messages.push({ role: 'assistant', content: textOfBytes(600, messages.length) })
  }
  return messages.slice(0, messageCount - 1).concat([{ role: 'user', content: 'now run the tests' }])
}

function stats(samplesNs) {
  const sorted = [...samplesNs].sort((a, b) => a - b)
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] / 1e6
  return { median: at(0.5), p99: at(0.99) }
}

function measure(iterations, fn) {
  for (let i = 0; i < Math.min(200, iterations); i++) fn(i)
  globalThis.gc?.()
  const samples = new Array(iterations)
  for (let i = 0; i < iterations; i++) {
    const start = process.hrtime.bigint()
    fn(i)
    samples[i] = Number(process.hrtime.bigint() - start)
  }
  return stats(samples)
}

const toolDefs = tools()
const messages = conversation(200)
// turn N (the entry Cursor holds) and turn N+1 (one assistant answer and one new user message later).
const turnN = {
  workspace: WORKSPACE,
  model: MODEL,
  messages: messages.slice(0, -2).concat([{ role: 'user', content: 'first ask' }]),
  tools: toolDefs,
  conversationId: 'ses_bench',
}
const turnNext = {
  ...turnN,
  messages: [...turnN.messages, { role: 'assistant', content: 'done' }, { role: 'user', content: 'now run the tests' }],
}

const requestBytes = Buffer.byteLength(JSON.stringify(turnNext))
const toolBytes = Buffer.byteLength(JSON.stringify(toolDefs))
const systemBytes = Buffer.byteLength(messages[0].content)
console.log(
  `request: ${turnNext.messages.length} messages, ${(systemBytes / 1024).toFixed(1)} KB system prompt, ` +
    `${toolDefs.length} tools (${(toolBytes / 1024).toFixed(1)} KB), ${(requestBytes / 1024).toFixed(1)} KB as JSON`,
)

const ITERATIONS = 2000
const rows = []

// Resumed turn: the entry for turn N is in the cache; plan turn N+1 (a hit, incremental prompt) and record it.
{
  const manager = new SessionResumeManager({ enabled: true })
  const planN = manager.plan(turnN)
  const result = measure(ITERATIONS, () => {
    manager.record(planN, 'chat-bench')
    const plan = manager.plan(turnNext)
    if (plan.resumeChatId !== 'chat-bench') throw new Error('expected a resumed plan')
    manager.record(plan, 'chat-bench')
  })
  rows.push(['plan() + record(), resumed turn (+ the record of turn N)', result])
}

// Fresh turn: nothing cached; plan builds the full prompt, then record.
{
  const manager = new SessionResumeManager({ enabled: true })
  const result = measure(ITERATIONS, (i) => {
    const plan = manager.plan({ ...turnNext, conversationId: `ses_${i}` })
    if (plan.resumeChatId !== null) throw new Error('expected a fresh plan')
    manager.record(plan, 'chat-bench')
  })
  rows.push(['plan() + record(), fresh turn (full prompt)', result])
}

// Crossing into Rust alone: the cheapest call that reads the whole request.
rows.push(['isTitleRequest() (request conversion only)', measure(ITERATIONS, () => isTitleRequest(turnNext))])

for (const [name, { median, p99 }] of rows) {
  console.log(`${name.padEnd(58)} median ${median.toFixed(3)} ms   p99 ${p99.toFixed(3)} ms`)
}

// Prompt building throughput.
{
  const promptBytes = Buffer.byteLength(buildPrompt(turnNext))
  const { median } = measure(ITERATIONS, () => buildPrompt(turnNext))
  const seconds = median / 1e3
  console.log(
    `buildPrompt(): ${(promptBytes / 1024).toFixed(1)} KB prompt in ${median.toFixed(3)} ms (median): ` +
      `${(promptBytes / 1e6 / seconds).toFixed(0)} MB/s of prompt, ${(requestBytes / 1e6 / seconds).toFixed(0)} MB/s of request JSON`,
  )
  const big = {
    ...turnNext,
    toolsInPrompt: true,
    messages: [...turnNext.messages, ...turnNext.messages.slice(1), ...turnNext.messages.slice(1)],
  }
  const bigBytes = Buffer.byteLength(buildPrompt(big))
  const bigRun = measure(200, () => buildPrompt(big))
  console.log(
    `buildPrompt(), ${big.messages.length} messages with tools in the prompt: ${(bigBytes / 1024).toFixed(1)} KB in ` +
      `${bigRun.median.toFixed(3)} ms (median): ${(bigBytes / 1e6 / (bigRun.median / 1e3)).toFixed(0)} MB/s`,
  )
}
