// The OpenAI-compatible server (plugin/proxy/) driven by the official
// `openai` client and by raw HTTP, over the fake cursor-agent (support/agents/fake-cursor-agent.mjs),
// whose invocation log counts the runs. Expected outcomes come from the documented contract (the
// statuses and codes of proxy/refusal.ts's header and docs/server.md, OpenAI's chat completion
// format), never from the code under test. The client keeps its default retries: only
// `x-should-retry: false` keeps a failing request to one run.
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import OpenAI from 'openai'
import { specEnvironment } from './support/env.ts'
import { fakeRuns, quotaText } from './support/fake-runs.ts'

import { childrenOf, groupMembers, killGroupsAfter, waitFor } from './support/process.ts'

type ProxyModule = typeof import('../plugin/proxy/server.ts')
type RunningProxy = Awaited<ReturnType<ProxyModule['startProxy']>>

const fakeAgent = join(__dirname, 'support', 'agents', 'fake-cursor-agent.mjs')
const linuxOnly = process.platform !== 'linux' ? 'reads processes from Linux /proc' : false
// Bun's default limit is 5 s; these only turn a hang into a failure.
const LIMIT = { timeout: 90_000 }

const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'ocn-proxy-spec-')))
const workspace = join(scratch, 'ws')
mkdirSync(workspace)

// startProxy reads its settings from the environment when it starts, and each run hands the whole
// environment (tool mode `cursor`) to the fake: no setting of the caller's may leak in.

const seenGroups = killGroupsAfter(after)
const proxies: RunningProxy[] = []
let startProxy: ProxyModule['startProxy']
let main: RunningProxy

specEnvironment({
  HOME: scratch,
  XDG_DATA_HOME: join(scratch, 'data'),
  CURSOR_ACP_WORKSPACE: workspace,
  CURSOR_AGENT_EXECUTABLE: fakeAgent,
  CURSOR_ACP_TOOL_MODE: 'cursor',
})
before(async () => {
  ;({ startProxy } = await import('../plugin/proxy/server.ts'))
  main = await start()
})
after(async () => {
  await Promise.all(proxies.map((proxy) => proxy.close()))
  rmSync(scratch, { recursive: true, force: true })
})

async function start(options: Parameters<ProxyModule['startProxy']>[0] = {}): Promise<RunningProxy> {
  const proxy = await startProxy({ port: 0, ...options })
  proxies.push(proxy)
  return proxy
}

const { fake, runs } = fakeRuns(scratch)

const client = (proxy: RunningProxy = main): OpenAI => new OpenAI({ baseURL: proxy.url, apiKey: proxy.token })
const ask = [{ role: 'user' as const, content: 'Say hello to the proxy' }]
const THINKING = 'Thinking about the answer.'

describe('chat completions through the openai client', () => {
  it('streams text and reasoning, with one finish stop and usage only when asked for', LIMIT, async () => {
    const logDir = fake({ FAKE_CURSOR_STREAM: 'text:Hello from the proxy.' })
    const plain = await client().chat.completions.create({ model: 'fake-model', messages: ask, stream: true })
    const chunks: OpenAI.ChatCompletionChunk[] = []
    for await (const chunk of plain) chunks.push(chunk)
    assert.equal(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join(''), 'Hello from the proxy.')
    assert.equal(
      chunks
        .map((chunk) => (chunk.choices[0]?.delta as { reasoning_content?: string })?.reasoning_content ?? '')
        .join(''),
      THINKING,
    )
    assert.deepEqual(
      chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.finish_reason).filter((reason) => reason != null)),
      ['stop'],
    )
    assert.ok(
      chunks.every(
        (chunk) =>
          chunk.object === 'chat.completion.chunk' && chunk.id === chunks[0]!.id && chunk.model === 'fake-model',
      ),
    )
    assert.ok(
      chunks.every((chunk) => chunk.usage == null),
      'no usage without stream_options.include_usage',
    )
    const [run] = runs(logDir)
    assert.equal(runs(logDir).length, 1)
    assert.equal(run!.argv[run!.argv.indexOf('--model') + 1], 'fake-model')
    assert.ok(run!.stdin.includes('Say hello to the proxy'), 'the prompt carries the message')

    const counted = await client().chat.completions.create({
      model: 'auto',
      messages: ask,
      stream: true,
      stream_options: { include_usage: true },
    })
    const withUsage: OpenAI.ChatCompletionChunk[] = []
    for await (const chunk of counted) withUsage.push(chunk)
    const last = withUsage.at(-1)!
    assert.deepEqual(last.choices, [], 'usage comes in a last chunk of its own')
    assert.deepEqual([last.usage?.prompt_tokens, last.usage?.completion_tokens, last.usage?.total_tokens], [10, 5, 15])
    assert.ok(withUsage.slice(0, -1).every((chunk) => chunk.usage == null))
    assert.equal(runs(logDir).length, 2)
  })

  it('answers a non-streaming request with one completion, reasoning and usage included', LIMIT, async () => {
    const logDir = fake({ FAKE_CURSOR_STREAM: 'text:All in one piece.' })
    const completion = await client().chat.completions.create({ model: 'auto', messages: ask })
    assert.equal(completion.object, 'chat.completion')
    assert.equal(completion.choices.length, 1)
    const [choice] = completion.choices
    assert.equal(choice!.message.role, 'assistant')
    assert.equal(choice!.message.content, 'All in one piece.')
    assert.equal((choice!.message as { reasoning_content?: string }).reasoning_content, THINKING)
    assert.equal(choice!.finish_reason, 'stop')
    assert.deepEqual(
      [completion.usage?.prompt_tokens, completion.usage?.completion_tokens, completion.usage?.total_tokens],
      [10, 5, 15],
    )
    assert.equal(runs(logDir).length, 1)
  })

  it('serves the stream helper: finalChatCompletion() gathers the streamed answer', LIMIT, async () => {
    const logDir = fake({ FAKE_CURSOR_STREAM: 'text:Gathered by the helper.' })
    const final = await client().chat.completions.stream({ model: 'auto', messages: ask }).finalChatCompletion()
    assert.equal(final.choices[0]!.message.content, 'Gathered by the helper.')
    assert.equal(final.choices[0]!.finish_reason, 'stop')
    assert.equal(runs(logDir).length, 1)
  })

  it(
    'a connection that drops before anything was answered is run once more; the client sees one answer',
    LIMIT,
    async () => {
      const dropped = (logDir: string) => join(logDir, '..', `${basename(logDir)}-dropped`)
      let logDir = fake({ FAKE_CURSOR_STREAM: 'text:After the drop.', FAKE_CURSOR_DROP: 'before-answer' })
      process.env.FAKE_CURSOR_DROP_MARK = dropped(logDir)
      const streamed = await client().chat.completions.create({ model: 'auto', messages: ask, stream: true })
      const chunks: OpenAI.ChatCompletionChunk[] = []
      for await (const chunk of streamed) chunks.push(chunk)
      assert.equal(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join(''), 'After the drop.')
      assert.equal(runs(logDir).length, 2)

      logDir = fake({ FAKE_CURSOR_STREAM: 'text:After the drop.', FAKE_CURSOR_DROP: 'before-answer' })
      process.env.FAKE_CURSOR_DROP_MARK = dropped(logDir)
      const completion = await client().chat.completions.create({ model: 'auto', messages: ask })
      assert.equal(completion.choices[0]!.message.content, 'After the drop.')
      assert.equal(runs(logDir).length, 2)
    },
  )
})

describe('failures before any output are OpenAI errors, and are not retried', () => {
  const quota = quotaText(40)
  const cases: Array<{
    name: string
    fake: Record<string, string>
    body?: Record<string, unknown>
    status: number
    code: string
    runs: number
  }> = [
    { name: 'not logged in', fake: { FAKE_CURSOR_SCENARIO: 'auth' }, status: 401, code: 'E_AUTH', runs: 1 },
    {
      name: 'the usage limit',
      fake: { FAKE_CURSOR_SCENARIO: 'fail', FAKE_CURSOR_STDERR: quota.stderr },
      status: 429,
      code: 'E_QUOTA',
      runs: 1,
    },
    { name: 'an unknown model', fake: { FAKE_CURSOR_SCENARIO: 'model' }, status: 404, code: 'E_MODEL', runs: 1 },
    {
      name: 'cursor-agent failing',
      fake: { FAKE_CURSOR_SCENARIO: 'fail' },
      status: 502,
      code: 'E_AGENT_EXIT',
      runs: 1,
    },
    { name: 'a body without messages', fake: {}, body: { messages: [] }, status: 400, code: 'E_INVALID_ARG', runs: 0 },
    { name: 'a body without a model', fake: {}, body: { model: '' }, status: 400, code: 'E_INVALID_ARG', runs: 0 },
  ]
  for (const stream of [false, true]) {
    for (const expected of cases) {
      it(
        `${expected.name} (${stream ? 'streaming' : 'not streaming'}): ${expected.status} ${expected.code}`,
        LIMIT,
        async () => {
          const logDir = fake(expected.fake)
          const body = {
            model: 'auto',
            messages: ask,
            stream,
            ...expected.body,
          } as OpenAI.ChatCompletionCreateParamsNonStreaming
          const sentAt = Date.now()
          const error = await client()
            .chat.completions.create(body)
            .then(
              () => assert.fail('the request succeeded'),
              (thrown: unknown) => thrown,
            )
          assert.ok(error instanceof OpenAI.APIError, `an APIError, not ${String(error)}`)
          assert.equal(error.status, expected.status)
          assert.equal(error.code, expected.code)
          assert.equal(error.type, 'cursor_agent_error')
          assert.ok(typeof error.error === 'object' && error.message.length > 0)
          assert.equal(error.headers?.get('x-should-retry'), 'false')
          assert.equal(runs(logDir).length, expected.runs, 'cursor-agent runs for this request')
          if (expected.code === 'E_QUOTA') {
            assert.match(error.message, /usage limit/)
            const retryAfter = Number(error.headers?.get('retry-after'))
            const wanted = (quota.resetsAt - sentAt) / 1000
            assert.ok(Math.abs(retryAfter - wanted) < 120, `Retry-After ${retryAfter} s, the reset is in ${wanted} s`)
          }
        },
      )
    }
  }
})

describe('a malformed message, as the addon reads it for every API', () => {
  const bodies: Array<[string, string, object, RegExp]> = [
    [
      'Chat Completions',
      '/v1/chat/completions',
      { model: 'auto', messages: [{ role: 'user', content: [{ type: 'input_text' }] }] },
      /`messages\[0\]\.content\[0\]\.text` must be a string/,
    ],
    [
      'Chat Completions, a role the addon does not know',
      '/v1/chat/completions',
      { model: 'auto', messages: [{ role: 'robot', content: 'hi' }] },
      /`messages\[0\]\.role` must be one of/,
    ],
    [
      'Responses',
      '/v1/responses',
      { model: 'auto', input: [{ role: 'user', content: [{ type: 'input_text' }] }] },
      /must be a string/,
    ],
  ]
  for (const [name, path, body, message] of bodies)
    it(`${name}: 400 E_INVALID_ARG naming the field, and nothing is left taken`, LIMIT, async () => {
      const proxy = await start({ maxConcurrent: 1 })
      try {
        for (let attempt = 0; attempt < 3; attempt++) {
          const answer = await send(proxy, { path, body: [JSON.stringify(body)] })
          assert.equal(answer.status, 400, answer.body)
          const { error } = JSON.parse(answer.body) as { error: { code: string; message: string } }
          assert.equal(error.code, 'E_INVALID_ARG')
          assert.match(error.message, message)
        }
      } finally {
        await proxy.close()
      }
    })
})

interface Raw {
  status: number
  headers: IncomingHttpHeaders
  body: string
}

interface RawRequest {
  method?: string
  path?: string
  /** Over the valid request's headers; `undefined` leaves one out. */
  headers?: Record<string, string | undefined>
  /** Written piece by piece; default a valid chat request. */
  body?: string[]
  /** Leaves the body unfinished. */
  stall?: boolean
}

/** One request over node:http (which, unlike fetch, sends the Host header it is given). */
function send(proxy: RunningProxy, options: RawRequest = {}): Promise<Raw> {
  const headers: Record<string, string> = {}
  const given = {
    host: `127.0.0.1:${proxy.port}`,
    authorization: `Bearer ${proxy.token}`,
    'content-type': 'application/json',
    ...options.headers,
  }
  for (const [name, value] of Object.entries(given)) if (value !== undefined) headers[name] = value
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port: proxy.port,
        method: options.method ?? 'POST',
        path: options.path ?? '/v1/chat/completions',
        headers,
      },
      (response) => {
        let body = ''
        response.setEncoding('utf8')
        response.on('data', (text: string) => (body += text))
        response.on('end', () => {
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body })
          request.destroy()
        })
      },
    )
    request.on('error', reject)
    for (const piece of options.body ??
      (options.method === 'GET' ? [] : [JSON.stringify({ model: 'auto', messages: ask })]))
      request.write(piece)
    if (options.stall !== true) request.end()
  })
}

describe('the security gate and the request limits', () => {
  const MAX_BODY = 4096
  const BODY_TIMEOUT = 400
  let strict: RunningProxy
  before(async () => {
    strict = await start({ maxBodyBytes: MAX_BODY, bodyTimeoutMs: BODY_TIMEOUT })
  })

  it(
    'refuses each unsafe or malformed request with its status and code, before any cursor-agent starts',
    LIMIT,
    async () => {
      const logDir = fake()
      const big = JSON.stringify({ model: 'auto', messages: [{ role: 'user', content: 'x'.repeat(2 * MAX_BODY) }] })
      const half = JSON.stringify({ model: 'auto', messages: ask })
      const rows: Array<[string, RawRequest, number, string]> = [
        ['no token', { headers: { authorization: undefined } }, 401, 'E_UNAUTHORIZED'],
        [
          'a wrong token',
          { headers: { authorization: `Bearer ${'0'.repeat(strict.token.length)}` } },
          401,
          'E_UNAUTHORIZED',
        ],
        ['the token of another scheme', { headers: { authorization: `Basic ${strict.token}` } }, 401, 'E_UNAUTHORIZED'],
        ['a foreign Host', { headers: { host: `rebound.example:${strict.port}` } }, 403, 'E_FORBIDDEN'],
        [
          'a loopback-looking foreign Host',
          { headers: { host: `127.0.0.1.rebound.example:${strict.port}` } },
          403,
          'E_FORBIDDEN',
        ],
        ['an Origin', { headers: { origin: 'https://example.com' } }, 403, 'E_FORBIDDEN'],
        ['a loopback Origin', { headers: { origin: `http://127.0.0.1:${strict.port}` } }, 403, 'E_FORBIDDEN'],
        ['a text/plain body', { headers: { 'content-type': 'text/plain' } }, 415, 'E_UNSUPPORTED_MEDIA_TYPE'],
        [
          'an oversized body (declared)',
          { headers: { 'content-length': String(big.length) }, body: [big] },
          413,
          'E_PAYLOAD_TOO_LARGE',
        ],
        [
          'an oversized body (chunked)',
          { body: [big.slice(0, 3000), big.slice(3000, 6000), big.slice(6000)] },
          413,
          'E_PAYLOAD_TOO_LARGE',
        ],
        [
          'an 8 MiB body, still being sent',
          { body: Array.from({ length: 512 }, () => 'x'.repeat(16_384)) },
          413,
          'E_PAYLOAD_TOO_LARGE',
        ],
        [
          'a body that stops halfway',
          { headers: { 'content-length': String(half.length) }, body: [half.slice(0, 20)], stall: true },
          408,
          'E_REQUEST_TIMEOUT',
        ],
        ['an unknown path', { path: '/v1/completions' }, 404, 'E_NOT_FOUND'],
        [
          '/health from a foreign Host',
          { method: 'GET', path: '/health', headers: { host: 'rebound.example' } },
          403,
          'E_FORBIDDEN',
        ],
      ]
      for (const [name, request, status, code] of rows) {
        const sentAt = Date.now()
        const answer = await send(strict, request).catch((error: Error) => assert.fail(`${name}: ${error.message}`))
        assert.equal(answer.status, status, `${name}: ${answer.body}`)
        assert.equal(JSON.parse(answer.body).error?.code, code, name)
        assert.equal(answer.headers['x-should-retry'], 'false', name)
        if (status === 401) assert.equal(answer.headers['www-authenticate'], 'Bearer', name)
        // The rest of the body is not read: the connection must not be used again.
        if (status === 413 || status === 408) assert.equal(answer.headers.connection, 'close', name)
        if (status === 408)
          assert.ok(Date.now() - sentAt >= BODY_TIMEOUT - 50, `${name}: refused before the body timeout`)
      }
      assert.deepEqual(runs(logDir), [], 'no cursor-agent started')
    },
  )

  it('/health answers without a token; the same request with valid credentials runs cursor-agent', LIMIT, async () => {
    const logDir = fake({ FAKE_CURSOR_STREAM: 'text:Through raw HTTP.' })
    const health = await send(strict, { method: 'GET', path: '/health', headers: { authorization: undefined } })
    assert.equal(health.status, 200)
    assert.deepEqual(JSON.parse(health.body), { status: 'ok' })
    assert.equal(runs(logDir).length, 0)
    // The refusals above differ from this request in their one fault only.
    const answer = await send(strict)
    assert.equal(answer.status, 200, answer.body)
    assert.equal(JSON.parse(answer.body).choices[0].message.content, 'Through raw HTTP.')
    const byName = await send(strict, { headers: { host: `localhost:${strict.port}` } })
    assert.equal(byName.status, 200, byName.body)
    assert.equal(runs(logDir).length, 2)
  })
})

describe('connections without a whole authenticated request', () => {
  /** A raw connection to `proxy`, once it is open. */
  function open(proxy: RunningProxy): Promise<Socket> {
    return new Promise((resolve, reject) => {
      const socket = connect(proxy.port, '127.0.0.1', () => resolve(socket))
      socket.on('error', reject)
    })
  }
  /** Resolves once the server has closed `socket` (the client never closes it). */
  function closedByServer(socket: Socket): Promise<void> {
    return new Promise((resolve) => {
      socket.on('error', () => {})
      socket.once('close', () => resolve())
      socket.resume()
    })
  }

  it('an empty or blank token is refused at start, never served without one', LIMIT, async () => {
    for (const token of ['', '   ', '\t\n'])
      await assert.rejects(startProxy({ port: 0, token }), /`token` must not be empty/, JSON.stringify(token))
  })

  it('silent, half-sent and unauthenticated connections are closed after the request timeout', LIMIT, async () => {
    const proxy = await start({ requestTimeoutMs: 300 })
    const silent = await open(proxy)
    const halfHeaders = await open(proxy)
    halfHeaders.write(`POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:${proxy.port}\r\n`)
    const refused = await open(proxy)
    refused.write(`GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1:${proxy.port}\r\n\r\n`)
    await Promise.all([closedByServer(silent), closedByServer(halfHeaders), closedByServer(refused)])
  })

  it('at the cap the oldest idle connection makes room; the cap leaves room above maxConcurrent', LIMIT, async () => {
    const proxy = await start({ maxConcurrent: 1, maxConnections: 3, requestTimeoutMs: 60_000 })
    const held = [await open(proxy), await open(proxy), await open(proxy)]
    const oldestClosed = closedByServer(held[0]!)
    const answer = await send(proxy, { method: 'GET', path: '/health' })
    assert.equal(answer.status, 200, 'a new client is answered while idle connections fill the cap')
    await oldestClosed
    for (const socket of held) socket.destroy()
    const defaults = await start({ maxConcurrent: 2, requestTimeoutMs: 60_000 })
    const many = await Promise.all(Array.from({ length: 60 }, () => open(defaults)))
    const fits = await send(defaults, { method: 'GET', path: '/health' })
    assert.equal(fits.status, 200, 'keep-alives and idle clients fit beside maxConcurrent')
    for (const socket of many) socket.destroy()
  })

  it('300 idle connections that never send a request leave a client with the token its answer', LIMIT, async () => {
    fake({ FAKE_CURSOR_STREAM: 'text:Past the idle crowd.' })
    const proxy = await start({ requestTimeoutMs: 60_000 })
    const idle: Socket[] = []
    for (let i = 0; i < 300; i += 1) {
      const socket = connect(proxy.port, '127.0.0.1')
      socket.on('error', () => {})
      idle.push(socket)
    }
    await Promise.all(idle.map((socket) => new Promise((resolve) => socket.once('connect', resolve))))
    // The client's own timeout, far below the 60 s an idle connection is kept: no retries.
    const answered = await new OpenAI({
      baseURL: proxy.url,
      apiKey: proxy.token,
      maxRetries: 0,
      timeout: 15_000,
    }).chat.completions.create({ model: 'auto', messages: ask })
    assert.equal(answered.choices[0]?.message.content, 'Past the idle crowd.')
    for (const socket of idle) socket.destroy()
  })

  it('a response in progress is not closed by the request timeout while its run lives', LIMIT, async () => {
    fake({ FAKE_CURSOR_STREAM: 'text:Worth the wait.', FAKE_CURSOR_SILENCE_MS: '900', FAKE_CURSOR_SILENCE_AFTER: '1' })
    const proxy = await start({ requestTimeoutMs: 300 })
    const completion = await client(proxy).chat.completions.create({ model: 'auto', messages: ask })
    assert.equal(completion.choices[0]?.message.content, 'Worth the wait.')
  })
})

describe('a client that goes away', () => {
  it('stops cursor-agent and its whole process group within 2 s of aborting mid-stream', {
    ...LIMIT,
    skip: linuxOnly,
  }, async () => {
    const logDir = fake({ FAKE_CURSOR_SCENARIO: 'long' })
    const controller = new AbortController()
    const stream = await client().chat.completions.create(
      { model: 'auto', messages: ask, stream: true },
      { signal: controller.signal },
    )
    const chunks = stream[Symbol.asyncIterator]()
    for (;;) {
      const { done, value } = await chunks.next()
      assert.equal(done, false, 'the long run ended by itself')
      if (value.choices[0]?.delta.content) break
    }
    const [run] = runs(logDir)
    assert.ok(run?.grandchildPid !== undefined, 'the fake logged its run')
    seenGroups.add(run.pgid)
    assert.notEqual(run.pgid, groupOf(process.pid), 'cursor-agent runs in a group of its own')
    const members = groupMembers(run.pgid)
    assert.ok(
      members.includes(run.pid) && members.includes(run.grandchildPid),
      `group ${run.pgid} holds the agent and its child: ${members}`,
    )
    const abortedAt = Date.now()
    controller.abort()
    await chunks.next().catch(() => undefined)
    const gone = await waitFor(() => groupMembers(run.pgid).length === 0, 30_000, 20)
    assert.ok(
      gone,
      `group ${run.pgid} still runs ${groupMembers(run.pgid)} ${Date.now() - abortedAt} ms after the abort`,
    )
    // Its slot is free again: the next request is served.
    fake({ FAKE_CURSOR_STREAM: 'text:Next one.' })
    const next = await client().chat.completions.create({ model: 'auto', messages: ask })
    assert.equal(next.choices[0]!.message.content, 'Next one.')
  })
})

function groupOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2])
}

/** The running fake cursor-agents this process started (zombies have no command line). */
function liveAgents(): number {
  return childrenOf(process.pid).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('fake-cursor-agent')
    } catch {
      return false
    }
  }).length
}

describe('the concurrency cap', () => {
  it('serves 50 clients at once with at most 8 runs: each gets a whole stream or 429 E_BUSY', {
    ...LIMIT,
    timeout: 60_000,
  }, async () => {
    const capped = await start({ maxConcurrent: 8 })
    const answer = 'One two three four.'
    const logDir = fake({ FAKE_CURSOR_STREAM: `text:${answer}`, FAKE_CURSOR_LINE_DELAY_MS: '40' })
    let most = 0
    const watch =
      process.platform === 'linux' ? setInterval(() => (most = Math.max(most, liveAgents())), 10) : undefined
    const responses = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const response = await fetch(`${capped.url}/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${capped.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'auto', messages: ask, stream: true }),
        })
        return { status: response.status, headers: response.headers, body: await response.text() }
      }),
    )
    clearInterval(watch)
    let streamed = 0
    let busy = 0
    for (const { status, headers, body } of responses) {
      if (status === 429) {
        busy += 1
        assert.equal(JSON.parse(body).error.code, 'E_BUSY')
        assert.equal(headers.get('x-should-retry'), 'false')
        assert.ok(Number(headers.get('retry-after')) > 0, 'Retry-After')
        continue
      }
      assert.equal(status, 200, body)
      streamed += 1
      assert.match(headers.get('content-type') ?? '', /^text\/event-stream/)
      assert.ok(body.endsWith('\n\n'), 'frames end with a blank line')
      const frames = body.split('\n\n').slice(0, -1)
      assert.ok(
        frames.every((frame) => frame.startsWith('data: ')),
        'only data frames',
      )
      assert.equal(frames.at(-1), 'data: [DONE]')
      const chunks = frames.slice(0, -1).map((frame) => JSON.parse(frame.slice(6)))
      assert.ok(
        chunks.every((chunk) => chunk.error === undefined),
        'no error frame',
      )
      assert.deepEqual(
        chunks.flatMap((chunk) =>
          chunk.choices
            .map((choice: { finish_reason: string | null }) => choice.finish_reason)
            .filter((reason: unknown) => reason != null),
        ),
        ['stop'],
      )
      assert.equal(chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join(''), answer)
    }
    assert.ok(streamed >= 1 && busy >= 1, `${streamed} streamed, ${busy} refused busy`)
    assert.equal(runs(logDir).length, streamed, 'only the streamed requests ran cursor-agent')
    if (watch !== undefined) assert.ok(most >= 2 && most <= 8, `${most} cursor-agents at once`)
    // Every slot was given back.
    const again = await Promise.all(
      Array.from({ length: 8 }, () => client(capped).chat.completions.create({ model: 'auto', messages: ask })),
    )
    assert.ok(again.every((completion) => completion.choices[0]!.message.content === answer))
  })
})
