// What no client of the server may cost another (docs/server.md, "Safety"; SECURITY.md, "The
// server"): a malformed field is a 400 naming the client's own field in its API's shape and gives
// its slot back; a body of many tiny parts is refused before the addon reads it, without holding
// the event loop; a `previous_response_id` chain obeys the body limit; a request whose body is
// still arriving is never closed to make room; the server's token never reaches cursor-agent; an
// attachment is named by what the client sent. Over the fake cursor-agent, whose log counts runs.
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { specEnvironment } from './support/env.ts'
import { fakeRuns } from './support/fake-runs.ts'
import { rawPost } from './support/spec-server.ts'

type ProxyModule = typeof import('../plugin/proxy/server.ts')
type RunningProxy = Awaited<ReturnType<ProxyModule['startProxy']>>

const fakeAgent = join(__dirname, 'support', 'agents', 'fake-cursor-agent.mjs')
// Bun's default limit is 5 s; these only turn a hang into a failure.
const LIMIT = { timeout: 90_000 }
const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'ocn-server-limits-spec-')))
const workspace = join(scratch, 'ws')
mkdirSync(workspace)
const { fake, runs } = fakeRuns(scratch)
const proxies: RunningProxy[] = []
let startProxy: ProxyModule['startProxy']

specEnvironment({
  HOME: scratch,
  XDG_DATA_HOME: join(scratch, 'data'),
  CURSOR_ACP_WORKSPACE: workspace,
  CURSOR_AGENT_EXECUTABLE: fakeAgent,
  CURSOR_ACP_TOOL_MODE: 'cursor',
})
before(async () => {
  ;({ startProxy } = await import('../plugin/proxy/server.ts'))
})
after(async () => {
  await Promise.all(proxies.map((proxy) => proxy.close()))
  rmSync(scratch, { recursive: true, force: true })
})

/** A server; in tool mode `opencode` cursor-agent gets the base list and the fake's settings. */
async function start(options: Parameters<ProxyModule['startProxy']>[0] = {}): Promise<RunningProxy> {
  if (options.toolMode === 'opencode') process.env.CURSOR_ACP_CHILD_ENV = 'FAKE_CURSOR_*'
  try {
    const proxy = await startProxy({ port: 0, ...options })
    proxies.push(proxy)
    return proxy
  } finally {
    delete process.env.CURSOR_ACP_CHILD_ENV
  }
}

interface Answer {
  status: number
  body: string
}

const ask = [{ role: 'user', content: 'hi' }]
describe('a malformed field is a 400 naming the client’s own field, and gives its slot back', () => {
  /** The refusal's code and message, read from the API's own error shape. */
  function refusal(path: string, answer: Answer): { code: string; message: string } {
    const parsed = JSON.parse(answer.body)
    if (!path.startsWith('/v1/messages')) return parsed.error
    assert.equal(parsed.type, 'error', `Anthropic's error shape: ${answer.body}`)
    assert.equal(parsed.error.type, 'invalid_request_error', answer.body)
    return parsed.error
  }

  /** An object JSON carries that cannot be made text: `String()` of it throws. */
  const UNPRINTABLE = '{"toString":1}'
  const textOf = (body: object, field: string, raw: string): string =>
    JSON.stringify(body).replace(`"${field}":"@"`, `"${field}":${raw}`)

  const messages = (content: unknown[]) => ({ model: 'auto', max_tokens: 8, messages: [{ role: 'user', content }] })
  const input = (content: unknown[]) => ({ model: 'auto', input: [{ role: 'user', content }] })
  const result = { type: 'tool_result', tool_use_id: 'c1', content: 'done' }
  const rows: Array<[string, string, unknown, RegExp, ('cursor' | 'opencode')?]> = [
    [
      'an input_text part without text',
      '/v1/responses',
      input([{ type: 'input_text' }]),
      /^`input\[0\]\.content\[0\]\.text` must be a string/,
    ],
    [
      'an input_image part without its URL',
      '/v1/responses',
      input([{ type: 'input_image' }]),
      /^`input\[0\]\.content\[0\]\.image_url` is required/,
    ],
    [
      'an image URL that is no text',
      '/v1/responses',
      textOf(input([{ type: 'input_image', image_url: '@' }]), 'image_url', UNPRINTABLE),
      /^`input\[0\]\.content\[0\]\.image_url` must be a string/,
    ],
    [
      'a refusal part without its text',
      '/v1/responses',
      { model: 'auto', input: [{ role: 'assistant', content: [{ type: 'refusal' }] }] },
      /^`input\[0\]\.content\[0\]\.refusal` must be a string/,
    ],
    [
      'an AI SDK tool-call part',
      '/v1/responses',
      input([{ type: 'tool-call' }]),
      /^`input\[0\]\.content\[0\]\.toolCallId` must be a string/,
    ],
    [
      'an AI SDK tool-result part',
      '/v1/responses',
      input([{ type: 'tool-result' }]),
      /^`input\[0\]\.content\[0\]\.toolCallId` must be a string/,
    ],
    [
      'a second item without text',
      '/v1/responses',
      {
        model: 'auto',
        input: [
          { role: 'user', content: 'hi' },
          { role: 'user', content: [{ type: 'input_text', text: 5 }] },
        ],
      },
      /^`input\[1\]\.content\[0\]\.text` must be a string/,
    ],
    [
      'a function call without its name',
      '/v1/responses',
      { model: 'auto', input: [{ type: 'function_call', call_id: 'c1', arguments: '{}' }] },
      /^`input\[0\]\.name` is required/,
    ],
    [
      'a function call whose name is no text',
      '/v1/responses',
      textOf({ model: 'auto', input: [{ type: 'function_call', call_id: 'c1', name: '@' }] }, 'name', UNPRINTABLE),
      /^`input\[0\]\.name` must be a string/,
    ],
    [
      'a file name that is no text',
      '/v1/responses',
      input([{ type: 'input_file', file_data: 'data:text/plain;base64,aGk=', filename: { a: 1 } }]),
      /^`input\[0\]\.content\[0\]\.filename` must be a string/,
    ],
    [
      'a function tool without a name',
      '/v1/responses',
      { model: 'auto', input: 'hi', tools: [{ type: 'web_search' }, { type: 'function' }] },
      /^`tools\[1\]\.name` must be a string/,
      'opencode',
    ],
    [
      'a text block without text, after a tool result',
      '/v1/messages',
      messages([result, { type: 'text', text: 5 }]),
      /^`messages\[0\]\.content\[1\]\.text` must be a string/,
    ],
    [
      'a text block whose text is no text',
      '/v1/messages',
      textOf(messages([{ type: 'text', text: '@' }]), 'text', UNPRINTABLE),
      /^`messages\[0\]\.content\[0\]\.text` must be a string/,
    ],
    [
      'an image block without a source',
      '/v1/messages',
      messages([{ type: 'image' }]),
      /^`messages\[0\]\.content\[0\]\.source` is required/,
    ],
    [
      'a media type that is no text',
      '/v1/messages',
      textOf(
        messages([{ type: 'image', source: { type: 'base64', media_type: '@', data: 'aGk=' } }]),
        'media_type',
        UNPRINTABLE,
      ),
      /^`messages\[0\]\.content\[0\]\.source\.media_type` must be a string/,
    ],
    [
      'a tool_use block without its name',
      '/v1/messages',
      {
        model: 'auto',
        max_tokens: 8,
        messages: [...ask, { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', input: {} }] }],
      },
      /^`messages\[1\]\.content\[0\]\.name` is required/,
    ],
    [
      'a tool without a name',
      '/v1/messages',
      { model: 'auto', max_tokens: 8, messages: ask, tools: [{ input_schema: {} }] },
      /^`tools\[0\]\.name` is required/,
    ],
    [
      'an image_url part without its URL',
      '/v1/chat/completions',
      { model: 'auto', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: {} }] }] },
      /^`messages\[0\]\.content\[0\]\.image_url\.url` must be a string/,
    ],
    [
      'a function tool without a name',
      '/v1/chat/completions',
      { model: 'auto', messages: ask, tools: [{ type: 'function', function: {} }] },
      /^`tools\[0\]\.function\.name` must be a string/,
      'opencode',
    ],
  ]
  for (const mode of ['cursor', 'opencode'] as const)
    it(`tool mode ${mode}: 20 of each at maxConcurrent 2, then a good request is served`, LIMIT, async () => {
      const logDir = fake({ FAKE_CURSOR_STREAM: 'text:Still served.' })
      const proxy = await start({ maxConcurrent: 2, toolMode: mode, workspace })
      for (const [name, path, body, message, only] of rows) {
        if (only !== undefined && only !== mode) continue
        for (let attempt = 0; attempt < 20; attempt++) {
          const answer = await rawPost(proxy, path, body)
          assert.equal(answer.status, 400, `${name}: ${answer.body}`)
          const { code, message: said } = refusal(path, answer)
          assert.equal(code, 'E_INVALID_ARG', name)
          assert.match(said, message, name)
        }
      }
      assert.deepEqual(runs(logDir), [], 'no cursor-agent ran')
      const served = await rawPost(proxy, '/v1/chat/completions', { model: 'auto', messages: ask })
      assert.equal(served.status, 200, served.body)
      assert.equal(JSON.parse(served.body).choices[0].message.content, 'Still served.')
    })
})

describe('a previous_response_id chain obeys the body limit', () => {
  it('the held conversation and what a request adds are refused past maxBodyBytes with a 413', LIMIT, async () => {
    const logDir = fake({ FAKE_CURSOR_STREAM: 'text:Noted.' })
    const MAX_BODY = 4096
    const proxy = await start({ maxBodyBytes: MAX_BODY })
    const line = (word: string) => `${word} ${'x'.repeat(1500)}`
    let previous: string | undefined
    const statuses: number[] = []
    let last: Answer | undefined
    for (const word of ['one', 'two', 'three', 'four']) {
      const body = {
        model: 'auto',
        input: line(word),
        ...(previous === undefined ? {} : { previous_response_id: previous }),
      }
      assert.ok(JSON.stringify(body).length < MAX_BODY, 'each body alone is within the limit')
      last = await rawPost(proxy, '/v1/responses', body)
      statuses.push(last.status)
      if (last.status !== 200) break
      previous = JSON.parse(last.body).id
    }
    assert.deepEqual(statuses, [200, 200, 413], last?.body)
    const { code, message } = JSON.parse(last!.body).error
    assert.equal(code, 'E_PAYLOAD_TOO_LARGE')
    assert.match(message, /previous_response_id/)
    assert.match(message, new RegExp(`${MAX_BODY} bytes`))
    assert.equal(runs(logDir).length, 2, 'the refused request ran nothing')
  })
})

describe('a body of many tiny parts', () => {
  const part = { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }
  it('is refused by its count, naming the field, while a second client is answered', LIMIT, async () => {
    const logDir = fake({})
    const proxy = await start()
    const big = JSON.stringify({ model: 'auto', messages: [{ role: 'user', content: Array(100_000).fill(part) }] })
    const refused = rawPost(proxy, '/v1/chat/completions', big)
    let over = false
    void refused.finally(() => (over = true))
    // A second client polls while the big body is read and refused, and is answered each time.
    let polls = 0
    while (!over) {
      const models = await new Promise<number>((resolve, reject) =>
        httpRequest(`${proxy.url}/models`, { headers: { authorization: `Bearer ${proxy.token}` } }, (response) => {
          response.resume()
          response.on('end', () => resolve(response.statusCode ?? 0))
        })
          .on('error', reject)
          .end(),
      )
      assert.equal(models, 200)
      polls += 1
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const answer = await refused
    assert.equal(answer.status, 400, answer.body.slice(0, 300))
    const { code, message } = JSON.parse(answer.body).error
    assert.equal(code, 'E_INVALID_ARG')
    assert.match(message, /^`messages`: 100,001 messages, content parts and tools, over 10,000/)
    // The count refused it (the addon, which would hold the event loop for seconds reading such a
    // body, words no such refusal), and nothing ran.
    assert.ok(polls >= 1)
    assert.deepEqual(
      runs(logDir).filter((run) => run.argv[0] !== 'models'),
      [],
      'no turn ran',
    )
  })

  it('counts the held conversation of a previous_response_id too', LIMIT, async () => {
    fake({ FAKE_CURSOR_STREAM: 'text:Noted.' })
    const proxy = await start()
    const items = (count: number) => [{ role: 'user', content: Array(count).fill({ type: 'input_text', text: 'x' }) }]
    const first = await rawPost(proxy, '/v1/responses', { model: 'auto', input: items(6000) })
    assert.equal(first.status, 200, first.body.slice(0, 300))
    const next = { model: 'auto', input: items(6000), previous_response_id: JSON.parse(first.body).id }
    const answer = await rawPost(proxy, '/v1/responses', next)
    assert.equal(answer.status, 400, answer.body.slice(0, 300))
    assert.match(JSON.parse(answer.body).error.message, /previous_response_id/)
  })
})

describe("the server's token never reaches cursor-agent", () => {
  for (const mode of ['cursor', 'opencode'] as const)
    it(`tool mode ${mode}`, LIMIT, async () => {
      const logDir = fake({ FAKE_CURSOR_STREAM: 'text:No token here.' })
      process.env.CURSOR_ACP_PROXY_TOKEN = 'the-proxy-token-of-this-test'
      try {
        const proxy = await start({ toolMode: mode, workspace })
        assert.equal(proxy.token, 'the-proxy-token-of-this-test')
        const answer = await rawPost(proxy, '/v1/chat/completions', { model: 'auto', messages: ask })
        assert.equal(answer.status, 200, answer.body)
      } finally {
        delete process.env.CURSOR_ACP_PROXY_TOKEN
      }
      const [run] = runs(logDir)
      assert.ok(run!.envNames.includes('FAKE_CURSOR_LOG_DIR'), 'the log names the environment')
      assert.ok(!run!.envNames.includes('CURSOR_ACP_PROXY_TOKEN'), run!.envNames.join(' '))
    })
})

describe('an attachment is named by what the client sent, or not named', () => {
  it('an empty file name, title or media type is left out of the line that names it', LIMIT, async () => {
    const logDir = fake({})
    const proxy = await start()
    const zip = 'UEsDBA=='
    const bodies: Array<[string, unknown]> = [
      [
        '/v1/responses',
        {
          model: 'auto',
          input: [
            {
              role: 'user',
              content: [{ type: 'input_file', filename: '', file_data: `data:application/zip;base64,${zip}` }],
            },
          ],
        },
      ],
      [
        '/v1/messages',
        {
          model: 'auto',
          max_tokens: 8,
          messages: [
            {
              role: 'user',
              content: [{ type: 'document', title: '', source: { type: 'base64', media_type: '', data: zip } }],
            },
          ],
        },
      ],
      [
        '/v1/messages',
        {
          model: 'auto',
          max_tokens: 8,
          messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'file', file_id: 'file_01' } }] }],
        },
      ],
    ]
    for (const [path, body] of bodies) {
      const answer = await rawPost(proxy, path, body)
      assert.equal(answer.status, 200, `${path}: ${answer.body}`)
    }
    const lines = runs(logDir).map((run) => /\[attached [^\]]*\]/.exec(run.stdin)?.[0] ?? run.stdin)
    assert.equal(lines.length, 3)
    for (const line of lines) {
      assert.match(line, /^\[attached (file|image)/, line)
      assert.doesNotMatch(line, /""|\[object Object\]|\(,/, line)
    }
    assert.match(lines.join('\n'), /file id file_01/, 'a file id is named as one')
  })
})

describe('at the connection cap', () => {
  function open(proxy: RunningProxy): Promise<Socket> {
    return new Promise((resolve, reject) => {
      const socket = connect(proxy.port, '127.0.0.1', () => resolve(socket))
      socket.on('error', reject)
    })
  }

  it('a request whose body is still arriving is not closed to make room for idle connections', LIMIT, async () => {
    fake({ FAKE_CURSOR_STREAM: 'text:Arrived whole.' })
    const proxy = await start({ maxConnections: 3, requestTimeoutMs: 60_000 })
    const body = JSON.stringify({ model: 'auto', messages: ask })
    const sending = await open(proxy)
    let reply = ''
    sending.on('data', (chunk: Buffer) => (reply += chunk.toString('utf8')))
    const closed = new Promise<void>((resolve) => sending.once('close', () => resolve()))
    sending.write(
      `POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:${proxy.port}\r\nAuthorization: Bearer ${proxy.token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 10)}`,
    )
    await new Promise((resolve) => setTimeout(resolve, 200))
    const idle = [await open(proxy), await open(proxy), await open(proxy), await open(proxy)]
    for (const socket of idle) socket.on('error', () => {})
    await new Promise((resolve) => setTimeout(resolve, 200))
    sending.write(body.slice(10))
    await closed
    assert.match(reply, /^HTTP\/1\.1 200/, reply.slice(0, 200))
    assert.match(reply, /Arrived whole\./)
    for (const socket of idle) socket.destroy()
  })
})
