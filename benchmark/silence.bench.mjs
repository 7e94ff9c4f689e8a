// Silence is not a hang, in real time: a fake cursor-agent silent for longer than the old
// five-minute idle limit (default 330 s, BENCH_SILENCE_MS) answers in full under the default idle
// limit, through the shared turn; at the same time a streamed request to the OpenAI-compatible
// server over the same silence gets its keep-alive comments and the whole answer; and the log
// (level info) notes the silence with its length and what ended it. Takes as long as the silence,
// so `node benchmark/run.mjs` runs it only when named: `npm run build`, then
// `node benchmark/silence.bench.mjs` (or `node benchmark/run.mjs silence`).
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const { setLogging } = require('../index.js')
const here = dirname(fileURLToPath(import.meta.url))
const fakeAgent = join(here, '..', '__test__', 'support', 'agents', 'fake-cursor-agent.mjs')
const SILENCE_MS = Number(process.env.BENCH_SILENCE_MS ?? 330_000)
const ANSWER = 'The whole answer, after a long silence.'

const scratch = mkdtempSync(join(tmpdir(), 'ocn-silence-bench-'))
const workspace = join(scratch, 'ws')
mkdirSync(workspace)
for (const name of Object.keys(process.env)) if (/^(CURSOR_ACP_|FAKE_CURSOR_)/.test(name)) delete process.env[name]
Object.assign(process.env, {
  HOME: scratch,
  XDG_DATA_HOME: join(scratch, 'data'),
  CURSOR_ACP_WORKSPACE: workspace,
  CURSOR_AGENT_EXECUTABLE: fakeAgent,
  FAKE_CURSOR_STREAM: `text:${ANSWER}`,
  FAKE_CURSOR_SILENCE_MS: String(SILENCE_MS),
})
const logFile = join(scratch, 'log')
setLogging({ level: 'info', file: logFile })

const { resolveTurnConfig, startTurn } = await import('../dist/plugin/turn/turn.js')
const { startProxy } = await import('../dist/plugin/proxy/server.js')

const textOf = (frames) =>
  frames
    .filter((frame) => frame.startsWith('data: {'))
    .map((frame) => JSON.parse(frame.slice('data: '.length)).choices?.[0]?.delta?.content ?? '')
    .join('')

async function throughTheTurn() {
  const config = resolveTurnConfig({}, true)
  const frames = []
  const started = performance.now()
  const turn = startTurn(
    config,
    { model: 'auto', messages: [{ role: 'user', content: 'Take your time' }] },
    { format: 'openai-sse', includeUsage: false },
    (outputs) => frames.push(...outputs.filter((output) => typeof output === 'string')),
  )
  const result = await turn.done
  return {
    idleTimeoutMs: config.settings.idleTimeoutMs,
    error: result?.error?.code ?? 'none',
    whole: textOf(frames) === ANSWER,
    seconds: (performance.now() - started) / 1000,
  }
}

async function throughTheServer(proxy) {
  const started = performance.now()
  const body = await new Promise((resolve, reject) => {
    const sent = request(
      {
        host: '127.0.0.1',
        port: proxy.port,
        method: 'POST',
        path: '/v1/chat/completions',
        headers: { authorization: `Bearer ${proxy.token}`, 'content-type': 'application/json' },
      },
      (response) => {
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (piece) => (text += piece))
        response.on('end', () => resolve(text))
      },
    )
    sent.on('error', reject)
    sent.end(JSON.stringify({ model: 'auto', messages: [{ role: 'user', content: 'Take your time' }], stream: true }))
  })
  const frames = body.split(/(?<=\n\n)/)
  return {
    keepAlives: frames.filter((frame) => frame === ': keep-alive\n\n').length,
    whole: textOf(frames) === ANSWER,
    seconds: (performance.now() - started) / 1000,
  }
}

const proxy = await startProxy({ port: 0 })
try {
  const [turn, server] = await Promise.all([throughTheTurn(), throughTheServer(proxy)])
  const noted = readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((line) => line.includes('stdout was silent for') && line.includes('until output'))
  console.log(`silence of ${SILENCE_MS / 1000} s after the opening records, unscaled`)
  console.log('| path | idle limit | error | answer whole | keep-alives | took |')
  console.log('| --- | --- | --- | --- | --- | --- |')
  console.log(
    `| turn | ${turn.idleTimeoutMs / 60_000} min (default) | ${turn.error} | ${turn.whole} | - | ${turn.seconds.toFixed(1)} s |`,
  )
  console.log(
    `| server, streamed | same | - | ${server.whole} | ${server.keepAlives} | ${server.seconds.toFixed(1)} s |`,
  )
  console.log(`log lines noting the silence: ${noted.length}${noted[0] ? ` (${noted[0].trim().slice(0, 160)})` : ''}`)
  const ok = turn.error === 'none' && turn.whole && server.whole && server.keepAlives > 0 && noted.length >= 2
  if (!ok) {
    console.error('FAILED: a silent turn did not answer in full, or was not kept alive, or was not logged')
    process.exitCode = 1
  }
} finally {
  await proxy.close()
  rmSync(scratch, { recursive: true, force: true })
}
