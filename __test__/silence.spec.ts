// Silence is not a hang: cursor-agent can print nothing for minutes in a healthy turn (25-39 s while
// Cursor compacts its context, once 757 s while the model wrote a long reply). The turn's default
// idle limit must outlast such a silence, and the OpenAI-compatible server must keep a silent
// response alive. Time runs faster here: CURSOR_ACP_TEST_TIME_SCALE scales the defaults (the idle
// limit, 30 min, and the keep-alive interval, 30 s) by the same factor as the fake's silence
// (FAKE_CURSOR_SILENCE_MS) stands for minutes; values a user sets are never scaled. The unscaled
// run (a fake silent for over five minutes) is benchmark/silence.bench.mjs.
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { specEnvironment } from './support/env.ts'

type ProxyModule = typeof import('../plugin/proxy/server.ts')
type RunningProxy = Awaited<ReturnType<ProxyModule['startProxy']>>

const fakeAgent = join(__dirname, 'support', 'agents', 'fake-cursor-agent.mjs')
const LIMIT = { timeout: 90_000 }
/** One second of test time stands for 250 s. */
const SCALE = 0.004
/** The documented defaults, and the idle limit before it was raised. */
const IDLE_DEFAULT_MS = 1_800_000
const OLD_IDLE_DEFAULT_MS = 300_000
const KEEP_ALIVE_MS = 30_000
/**
 * Longer than the old default scaled (1.2 s), well inside the new one scaled (7.2 s): the idle limit
 * counts from the fake's start, which a machine busy with the whole suite can delay by seconds.
 */
const SILENCE_MS = 2_500
const ANSWER = 'The whole answer, after a long silence.'
const KEEP_ALIVE = ': keep-alive\n\n'

const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'ocn-silence-spec-')))
const workspace = join(scratch, 'ws')
mkdirSync(workspace)
let proxy: RunningProxy

/** The fake's behaviour for the runs that start from now on. */
function fake(settings: Record<string, string>): void {
  for (const name of Object.keys(process.env)) if (name.startsWith('FAKE_CURSOR_')) delete process.env[name]
  Object.assign(process.env, settings)
}

specEnvironment({
  HOME: scratch,
  XDG_DATA_HOME: join(scratch, 'data'),
  CURSOR_ACP_WORKSPACE: workspace,
  CURSOR_AGENT_EXECUTABLE: fakeAgent,
  CURSOR_ACP_TOOL_MODE: 'cursor',
  CURSOR_ACP_TEST_TIME_SCALE: String(SCALE),
})
before(async () => {
  const { startProxy } = await import('../plugin/proxy/server.ts')
  proxy = await startProxy({ port: 0 })
})
after(async () => {
  await proxy?.close()
  rmSync(scratch, { recursive: true, force: true })
})

describe('a silent turn under the default idle limit', () => {
  /** One turn through the shared turn, as both front ends run it: its text and how it ended. */
  async function turn(): Promise<{ text: string; code: string | undefined; idleTimeoutMs: number }> {
    const { resolveTurnConfig, startTurn } = await import('../plugin/turn/turn.ts')
    const config = resolveTurnConfig({}, true)
    assert.equal(config.problem, null)
    const frames: string[] = []
    const running = startTurn(
      config,
      { model: 'auto', messages: [{ role: 'user', content: 'Take your time' }] as never },
      { format: 'openai-sse', includeUsage: false },
      (outputs) => {
        for (const output of outputs) if (typeof output === 'string') frames.push(output)
      },
    )
    const result = await running.done
    const text = frames
      .filter((frame) => frame.startsWith('data: {'))
      .map((frame) => JSON.parse(frame.slice('data: '.length)).choices?.[0]?.delta?.content ?? '')
      .join('')
    return { text, code: result?.error?.code, idleTimeoutMs: config.settings.idleTimeoutMs }
  }

  it('answers in full after a silence longer than the old five-minute default', LIMIT, async () => {
    fake({ FAKE_CURSOR_STREAM: `text:${ANSWER}`, FAKE_CURSOR_SILENCE_MS: String(SILENCE_MS) })
    assert.ok(SILENCE_MS > OLD_IDLE_DEFAULT_MS * SCALE && SILENCE_MS < IDLE_DEFAULT_MS * SCALE)
    const silent = await turn()
    assert.equal(silent.idleTimeoutMs, IDLE_DEFAULT_MS * SCALE, 'the default, scaled')
    assert.equal(silent.code, undefined)
    assert.equal(silent.text, ANSWER)

    // The same silence under the old default (scaled alike) stops the turn: the fake's silence is real.
    process.env.CURSOR_ACP_IDLE_TIMEOUT_MS = String(OLD_IDLE_DEFAULT_MS * SCALE)
    try {
      const stopped = await turn()
      assert.equal(stopped.idleTimeoutMs, OLD_IDLE_DEFAULT_MS * SCALE, 'a value the user sets is never scaled')
      assert.equal(stopped.code, 'E_TIMEOUT')
      assert.notEqual(stopped.text, ANSWER)
    } finally {
      delete process.env.CURSOR_ACP_IDLE_TIMEOUT_MS
    }
  })
})

interface Raw {
  status: number
  contentType: string | undefined
  body: string
}

/** One chat request over node:http (or a Messages request), its body as it arrived. */
function chat(stream: boolean, path = '/v1/chat/completions'): Promise<Raw> {
  const body = JSON.stringify({
    model: 'auto',
    max_tokens: 64,
    messages: [{ role: 'user', content: 'Take your time' }],
    stream,
  })
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port: proxy.port,
        method: 'POST',
        path,
        headers: { authorization: `Bearer ${proxy.token}`, 'content-type': 'application/json' },
      },
      (response) => {
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (piece: string) => (text += piece))
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, contentType: response.headers['content-type'], body: text }),
        )
      },
    )
    request.on('error', reject)
    request.end(body)
  })
}

/** The SSE events of a body: comments and data frames, in order. */
const events = (body: string): string[] => body.split(/(?<=\n\n)/).filter((event) => event !== '')
const textOf = (body: string): string =>
  events(body)
    .filter((event) => event.startsWith('data: {'))
    .map((event) => JSON.parse(event.slice('data: '.length)).choices?.[0]?.delta?.content ?? '')
    .join('')

describe('the server keeps a silent response alive', () => {
  it(
    'before the first content: status 200 and a comment once the interval passed, then the whole answer',
    LIMIT,
    async () => {
      fake({
        FAKE_CURSOR_STREAM: `text:${ANSWER}`,
        FAKE_CURSOR_SILENCE_MS: String(SILENCE_MS),
        FAKE_CURSOR_SILENCE_AFTER: '0',
      })
      assert.ok(SILENCE_MS > KEEP_ALIVE_MS * SCALE * 2)
      const raw = await chat(true)
      assert.equal(raw.status, 200)
      assert.equal(raw.contentType, 'text/event-stream')
      const sent = events(raw.body)
      assert.equal(sent[0], KEEP_ALIVE, 'the stream opens with the comment')
      assert.equal(textOf(raw.body), ANSWER)
      assert.equal(sent.at(-1), 'data: [DONE]\n\n')

      // An OpenAI client reads past the comments.
      const chunks = await new OpenAI({ baseURL: proxy.url, apiKey: proxy.token }).chat.completions.create({
        model: 'auto',
        messages: [{ role: 'user', content: 'Take your time' }],
        stream: true,
      })
      let text = ''
      for await (const chunk of chunks) text += chunk.choices[0]?.delta.content ?? ''
      assert.equal(text, ANSWER)
    },
  )

  it('once streaming: comments during the silence, between the frames', LIMIT, async () => {
    // After the opening records and the first words of the answer.
    fake({
      FAKE_CURSOR_STREAM: `text:${ANSWER}`,
      FAKE_CURSOR_SILENCE_MS: String(SILENCE_MS),
      FAKE_CURSOR_SILENCE_AFTER: '6',
    })
    const raw = await chat(true)
    assert.equal(raw.status, 200)
    const sent = events(raw.body)
    // (The fake's own start, longer than the scaled interval, may be kept alive too.)
    const firstWords = sent.findIndex((event) => event.includes('"content":'))
    assert.ok(firstWords >= 0, raw.body)
    const rest = sent.slice(firstWords)
    const comment = rest.indexOf(KEEP_ALIVE)
    assert.ok(comment > 0, 'comments come after the first words')
    assert.ok(
      rest.slice(comment).some((event) => event.includes('"content":')),
      'and the rest of the answer after them',
    )
    assert.equal(textOf(raw.body), ANSWER)
  })

  it('a failure after the headers went out is an error frame, not an error status', LIMIT, async () => {
    // Without the silence, the same failure is a 502 E_AGENT_EXIT (proxy.spec.ts).
    fake({ FAKE_CURSOR_SCENARIO: 'fail', FAKE_CURSOR_SILENCE_MS: String(SILENCE_MS) })
    const raw = await chat(true)
    assert.equal(raw.status, 200)
    const sent = events(raw.body)
    assert.equal(sent[0], KEEP_ALIVE)
    const error = sent.find((event) => event.startsWith('data: {"error"'))
    assert.ok(error !== undefined, raw.body)
    assert.equal(JSON.parse(error.slice('data: '.length)).error.code, 'E_AGENT_EXIT')
    assert.equal(sent.at(-1), 'data: [DONE]\n\n')
  })

  it('not streaming: nothing is sent before the completion, which arrives whole', LIMIT, async () => {
    fake({ FAKE_CURSOR_STREAM: `text:${ANSWER}`, FAKE_CURSOR_SILENCE_MS: String(SILENCE_MS) })
    const raw = await chat(false)
    assert.equal(raw.status, 200)
    assert.equal(raw.contentType, 'application/json')
    assert.equal(JSON.parse(raw.body).choices[0].message.content, ANSWER)
  })

  it(
    'Responses: the keep-alive is the response again, an event Codex CLI counts, which the OpenAI client reads',
    LIMIT,
    async () => {
      // Silent once the answer started: the client's snapshot must survive the repeated response.
      fake({
        FAKE_CURSOR_STREAM: `text:${ANSWER}`,
        FAKE_CURSOR_SILENCE_MS: String(SILENCE_MS),
        FAKE_CURSOR_SILENCE_AFTER: '6',
      })
      const stream = new OpenAI({ baseURL: proxy.url, apiKey: proxy.token }).responses.stream({
        model: 'auto',
        input: 'Take your time',
      })
      const types: string[] = []
      stream.on('event', (event) => types.push(event.type))
      const response = await stream.finalResponse()
      assert.equal(response.output_text, ANSWER)
      const firstWords = types.indexOf('response.output_text.delta')
      assert.ok(firstWords > 0, types.join(' '))
      assert.ok(types.slice(firstWords).includes('response.in_progress'), `kept alive by events: ${types.join(' ')}`)

      fake({
        FAKE_CURSOR_STREAM: `text:${ANSWER}`,
        FAKE_CURSOR_SILENCE_MS: String(SILENCE_MS),
        FAKE_CURSOR_SILENCE_AFTER: '0',
      })
      const raw = await fetch(`${proxy.url}/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${proxy.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'auto', input: 'Take your time', stream: true }),
      }).then((answer) => answer.text())
      const sent = events(raw)
      assert.ok(!sent.includes(KEEP_ALIVE), 'no comment, which Codex does not count')
      assert.ok(sent[0]?.startsWith('event: response.created\n'), 'a silent stream opens with the response')
      assert.ok(sent.filter((event) => event.startsWith('event: response.in_progress\n')).length > 1, raw)
    },
  )

  it("Messages: the keep-alive is Anthropic's ping event, which its client reads past", LIMIT, async () => {
    fake({
      FAKE_CURSOR_STREAM: `text:${ANSWER}`,
      FAKE_CURSOR_SILENCE_MS: String(SILENCE_MS),
      FAKE_CURSOR_SILENCE_AFTER: '0',
    })
    const raw = await chat(true, '/v1/messages')
    assert.equal(raw.status, 200)
    const sent = events(raw.body)
    assert.equal(sent[0], 'event: ping\ndata: {"type":"ping"}\n\n', 'the stream opens with a ping')
    assert.ok(!sent.includes(KEEP_ALIVE), 'no OpenAI-style comment on this API')
    const message = await new Anthropic({ baseURL: proxy.url.replace(/\/v1$/, ''), apiKey: proxy.token }).messages
      .stream({ model: 'auto', max_tokens: 64, messages: [{ role: 'user', content: 'Take your time' }] })
      .finalMessage()
    assert.equal((message.content.at(-1) as Anthropic.TextBlock).text, ANSWER)
  })
})
