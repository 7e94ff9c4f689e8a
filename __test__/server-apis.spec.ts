// The server's Responses (`/v1/responses`) and Messages (`/v1/messages`) endpoints driven by the
// official `openai` and `@anthropic-ai/sdk` clients over the fake cursor-agent, whose invocation
// log counts the runs. Expected outcomes come from each API's documented shapes and the table of
// statuses in docs/server.md, never from the code under test. The clients keep their default
// retries: only `x-should-retry: false` keeps a failing request to one run.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { specEnvironment } from './support/env.ts'
import { png } from './support/png.ts'
import { fakeRuns, quotaText } from './support/fake-runs.ts'
import { groupMembers, killGroupsAfter, waitFor } from './support/process.ts'
import { rawPost } from './support/spec-server.ts'

type ProxyModule = typeof import('../plugin/proxy/server.ts')
type RunningProxy = Awaited<ReturnType<ProxyModule['startProxy']>>

const fakeAgent = join(__dirname, 'support', 'agents', 'fake-cursor-agent.mjs')
const linuxOnly = process.platform !== 'linux' ? 'reads processes from Linux /proc' : false
// Bun's default limit is 5 s; these only turn a hang into a failure.
const LIMIT = { timeout: 90_000 }
const THINKING = 'Thinking about the answer.'

const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'ocn-server-apis-spec-')))
const workspace = join(scratch, 'ws')
mkdirSync(workspace)
const seenGroups = killGroupsAfter(after)
const { fake, runs } = fakeRuns(scratch)
let proxy: RunningProxy

specEnvironment({
  HOME: scratch,
  XDG_DATA_HOME: join(scratch, 'data'),
  CURSOR_ACP_WORKSPACE: workspace,
  CURSOR_AGENT_EXECUTABLE: fakeAgent,
  CURSOR_ACP_TOOL_MODE: 'cursor',
})
before(async () => {
  const { startProxy } = await import('../plugin/proxy/server.ts')
  proxy = await startProxy({ port: 0 })
})
after(async () => {
  await proxy.close()
  rmSync(scratch, { recursive: true, force: true })
})

const openai = (): OpenAI => new OpenAI({ baseURL: proxy.url, apiKey: proxy.token })
/** Anthropic's client sends the token as `x-api-key`; its base URL has no `/v1`. */
const anthropic = (auth: { apiKey?: string; authToken?: string } = {}): Anthropic =>
  new Anthropic({
    baseURL: proxy.url.replace(/\/v1$/, ''),
    ...(auth.authToken === undefined
      ? { apiKey: auth.apiKey ?? proxy.token }
      : { apiKey: null, authToken: auth.authToken }),
  })

const quota = quotaText(40)

/** The failures every endpoint answers before any output, each with its OpenAI and Anthropic status. */
const FAILURES: Array<{
  name: string
  fake: Record<string, string>
  model?: string
  status: number
  code: string
  anthropic: [number, string]
  runs: number
}> = [
  {
    name: 'not logged in',
    fake: { FAKE_CURSOR_SCENARIO: 'auth' },
    status: 401,
    code: 'E_AUTH',
    anthropic: [401, 'authentication_error'],
    runs: 1,
  },
  {
    name: 'the usage limit',
    fake: { FAKE_CURSOR_SCENARIO: 'fail', FAKE_CURSOR_STDERR: quota.stderr },
    status: 429,
    code: 'E_QUOTA',
    anthropic: [429, 'rate_limit_error'],
    runs: 1,
  },
  {
    name: 'an unknown model',
    fake: { FAKE_CURSOR_SCENARIO: 'model' },
    status: 404,
    code: 'E_MODEL',
    anthropic: [404, 'not_found_error'],
    runs: 1,
  },
  {
    name: 'a bad request',
    fake: {},
    model: '',
    status: 400,
    code: 'E_INVALID_ARG',
    anthropic: [400, 'invalid_request_error'],
    runs: 0,
  },
]

function assertRetryAfter(headers: Headers | undefined, sentAt: number): void {
  const retryAfter = Number(headers?.get('retry-after'))
  const wanted = (quota.resetsAt - sentAt) / 1000
  assert.ok(Math.abs(retryAfter - wanted) < 120, `Retry-After ${retryAfter} s, the reset is in ${wanted} s`)
}

describe('/v1/messages through the official Anthropic client', () => {
  const ask: Anthropic.MessageParam[] = [{ role: 'user', content: 'Say hello to Claude Code' }]

  it('answers with a text block, a thinking block apart from it, end_turn and usage', LIMIT, async () => {
    const logDir = fake({ FAKE_CURSOR_STREAM: 'text:Hello from the messages API.' })
    const message = await anthropic().messages.create({
      model: 'auto',
      max_tokens: 1024,
      system: 'Be brief.',
      messages: ask,
    })
    assert.equal(message.type, 'message')
    assert.equal(message.role, 'assistant')
    assert.equal(message.model, 'auto')
    assert.deepEqual(
      message.content.map((block) => block.type),
      ['thinking', 'text'],
    )
    const [thinking, text] = message.content as [Anthropic.ThinkingBlock, Anthropic.TextBlock]
    assert.equal(thinking.thinking, THINKING)
    assert.equal(thinking.signature, '', 'the signature is present and empty')
    assert.equal(text.text, 'Hello from the messages API.')
    assert.equal(message.stop_reason, 'end_turn')
    assert.equal(message.usage.input_tokens, 10)
    assert.equal(message.usage.output_tokens, 5)
    const [run] = runs(logDir)
    assert.equal(runs(logDir).length, 1)
    assert.equal(run!.argv[run!.argv.indexOf('--model') + 1], 'auto')
    assert.ok(run!.stdin.includes('Be brief.') && run!.stdin.includes('Say hello to Claude Code'), run!.stdin)
  })

  it('streams: finalMessage() gathers the same message, and the events come in Anthropic order', LIMIT, async () => {
    const logDir = fake({ FAKE_CURSOR_STREAM: 'text:Streamed to the helper.' })
    const stream = anthropic().messages.stream({ model: 'auto', max_tokens: 1024, messages: ask })
    const events: string[] = []
    stream.on('streamEvent', (event) => events.push(event.type))
    const message = await stream.finalMessage()
    assert.equal((message.content.at(-1) as Anthropic.TextBlock).text, 'Streamed to the helper.')
    assert.equal((message.content[0] as Anthropic.ThinkingBlock).thinking, THINKING)
    assert.equal(message.stop_reason, 'end_turn')
    assert.equal(message.usage.output_tokens, 5)
    assert.equal(events[0], 'message_start')
    assert.deepEqual(events.slice(-2), ['message_delta', 'message_stop'])
    const starts = events.filter((type) => type === 'content_block_start').length
    assert.equal(events.filter((type) => type === 'content_block_stop').length, starts)
    assert.equal(runs(logDir).length, 1)
  })

  it('takes the token as Authorization: Bearer too, and refuses a wrong one in its error shape', LIMIT, async () => {
    fake({ FAKE_CURSOR_STREAM: 'text:Bearer works.' })
    const message = await anthropic({ authToken: proxy.token }).messages.create({
      model: 'auto',
      max_tokens: 10,
      messages: ask,
    })
    assert.equal((message.content.at(-1) as Anthropic.TextBlock).text, 'Bearer works.')
    const refused = await anthropic({ apiKey: 'not-the-token' })
      .messages.create({ model: 'auto', max_tokens: 10, messages: ask })
      .then(
        () => assert.fail('served without the token'),
        (error: unknown) => error,
      )
    assert.ok(refused instanceof Anthropic.AuthenticationError, String(refused))
    assert.equal((refused.error as { error: { type: string } }).error.type, 'authentication_error')
  })

  for (const stream of [false, true])
    for (const expected of FAILURES)
      it(
        `${expected.name} (${stream ? 'streaming' : 'not streaming'}): ${expected.anthropic.join(' ')}`,
        LIMIT,
        async () => {
          const logDir = fake(expected.fake)
          const sentAt = Date.now()
          const body = { model: expected.model ?? 'auto', max_tokens: 64, messages: ask }
          const error = await (stream
            ? anthropic().messages.stream(body).finalMessage()
            : anthropic().messages.create(body)
          ).then(
            () => assert.fail('the request succeeded'),
            (thrown: unknown) => thrown,
          )
          assert.ok(error instanceof Anthropic.APIError, `an APIError, not ${String(error)}`)
          assert.equal(error.status, expected.anthropic[0])
          const body_ = error.error as { type: string; error: { type: string; message: string; code: string } }
          assert.equal(body_.type, 'error')
          assert.equal(body_.error.type, expected.anthropic[1])
          assert.equal(body_.error.code, expected.code)
          assert.ok(body_.error.message.length > 0)
          assert.equal(error.headers?.get('x-should-retry'), 'false')
          assert.equal(runs(logDir).length, expected.runs, 'cursor-agent runs for this request')
          if (expected.code === 'E_QUOTA') assertRetryAfter(error.headers, sentAt)
        },
      )

  it('a failure after the answer started is an error event, and the stream ends', LIMIT, async () => {
    const logDir = fake({
      FAKE_CURSOR_SCENARIO: 'fail',
      FAKE_CURSOR_PARTIAL: 'Half an answer',
      FAKE_CURSOR_STDERR: quota.stderr,
    })
    const stream = anthropic().messages.stream({ model: 'auto', max_tokens: 64, messages: ask })
    let text = ''
    stream.on('text', (delta) => {
      text += delta
    })
    const error = await stream.finalMessage().then(
      () => assert.fail('the stream ended as a success'),
      (thrown: unknown) => thrown,
    )
    assert.ok(error instanceof Anthropic.APIError, String(error))
    assert.equal((error.error as { error: { type: string } }).error.type, 'rate_limit_error')
    assert.equal(text, 'Half an answer', 'what arrived stays')
    assert.equal(runs(logDir).length, 1)
  })

  it("the server's own capacity cap is Anthropic's 529 overloaded_error, not retried", LIMIT, async () => {
    const { startProxy } = await import('../plugin/proxy/server.ts')
    const small = await startProxy({ port: 0, maxConcurrent: 1 })
    try {
      const logDir = fake({ FAKE_CURSOR_SCENARIO: 'long' })
      const client = new Anthropic({ baseURL: small.url.replace(/\/v1$/, ''), apiKey: small.token })
      const controller = new AbortController()
      const busy = await client.messages.create(
        { model: 'auto', max_tokens: 8, messages: ask, stream: true },
        { signal: controller.signal },
      )
      const events = busy[Symbol.asyncIterator]()
      await events.next()
      const error = await client.messages.create({ model: 'auto', max_tokens: 8, messages: ask }).then(
        () => assert.fail('a second request ran beside the cap'),
        (thrown: unknown) => thrown,
      )
      assert.ok(error instanceof Anthropic.APIError, String(error))
      assert.equal(error.status, 529)
      assert.equal((error.error as { error: { type: string; code: string } }).error.type, 'overloaded_error')
      assert.equal((error.error as { error: { code: string } }).error.code, 'E_BUSY')
      assert.equal(runs(logDir).length, 1, 'the refused request ran nothing')
      for (const run of runs(logDir)) seenGroups.add(run.pgid)
      controller.abort()
      await events.next().catch(() => undefined)
    } finally {
      await small.close()
    }
  })

  it("count_tokens answers with the provider's context estimate", LIMIT, async () => {
    const system = 'x'.repeat(400)
    const counted = await anthropic().messages.countTokens({
      model: 'auto',
      system,
      messages: [{ role: 'user', content: 'y'.repeat(800) }],
    })
    // Cursor's base of 20,000 tokens, plus 1,200 bytes ÷ 4 (docs/sessions-and-usage.md, "Usage and
    // compaction").
    assert.equal(counted.input_tokens, 20_000 + 300)
  })

  it("lists the models in Anthropic's shape", LIMIT, async () => {
    fake({})
    const page = await anthropic().models.list()
    const ids = page.data.map((model) => model.id)
    assert.ok(ids.includes('auto'), ids.join(', '))
    assert.ok(page.data.every((model) => model.type === 'model' && typeof model.display_name === 'string'))
  })
})

describe('/v1/responses through the official OpenAI client', () => {
  it('answers with output_text, a reasoning item apart from it, and usage', LIMIT, async () => {
    const logDir = fake({ FAKE_CURSOR_STREAM: 'text:Hello from the responses API.' })
    const response = await openai().responses.create({
      model: 'auto',
      instructions: 'Be brief.',
      input: 'Say hello to Codex',
    })
    assert.equal(response.object, 'response')
    assert.equal(response.status, 'completed')
    assert.equal(response.output_text, 'Hello from the responses API.')
    assert.deepEqual(
      response.output.map((item) => item.type),
      ['reasoning', 'message'],
    )
    const reasoning = response.output[0] as OpenAI.Responses.ResponseReasoningItem
    assert.equal(reasoning.content?.[0]?.text, THINKING)
    assert.ok(!response.output_text.includes(THINKING))
    assert.deepEqual(
      [response.usage?.input_tokens, response.usage?.output_tokens, response.usage?.total_tokens],
      [10, 5, 15],
    )
    const [run] = runs(logDir)
    assert.equal(runs(logDir).length, 1)
    assert.ok(run!.stdin.includes('Be brief.') && run!.stdin.includes('Say hello to Codex'), run!.stdin)
  })

  it('streams: finalResponse() gathers it, in the event order OpenAI documents', LIMIT, async () => {
    const logDir = fake({ FAKE_CURSOR_STREAM: 'text:Streamed for Codex.' })
    const stream = openai().responses.stream({
      model: 'auto',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'Stream it' }] }],
    })
    const events: string[] = []
    stream.on('event', (event) => events.push(event.type))
    const response = await stream.finalResponse()
    assert.equal(response.output_text, 'Streamed for Codex.')
    assert.equal(response.usage?.output_tokens, 5)
    const order = [
      'response.created',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.output_item.done',
      'response.completed',
    ]
    const positions = order.map((type) => events.lastIndexOf(type))
    assert.ok(
      positions.every((at) => at >= 0),
      `every event came: ${events.join(' ')}`,
    )
    assert.equal(events[0], 'response.created')
    assert.equal(events.at(-1), 'response.completed')
    assert.ok(events.includes('response.reasoning_text.delta'), 'thinking has its own events')
    assert.equal(runs(logDir).length, 1)
  })

  it(
    'previous_response_id continues a held conversation; an unknown or unstored one is a 404 that says so',
    LIMIT,
    async () => {
      const logDir = fake({ FAKE_CURSOR_STREAM: 'text:The first answer.' })
      const first = await openai().responses.create({ model: 'auto', input: 'Remember the word tangerine' })
      fake({ FAKE_CURSOR_LOG_DIR: logDir, FAKE_CURSOR_STREAM: 'text:It was tangerine.' })
      const second = await openai().responses.create({
        model: 'auto',
        input: 'Which word?',
        previous_response_id: first.id,
      })
      assert.equal(second.output_text, 'It was tangerine.')
      const prompts = runs(logDir).map((run) => run.stdin)
      const secondPrompt = prompts.find((stdin) => stdin.includes('Which word?'))
      assert.ok(
        secondPrompt?.includes('Remember the word tangerine') && secondPrompt.includes('The first answer.'),
        secondPrompt,
      )

      for (const id of [
        'resp_never_made',
        (await openai().responses.create({ model: 'auto', input: 'Forget me', store: false })).id,
      ]) {
        const error = await openai()
          .responses.create({ model: 'auto', input: 'Go on', previous_response_id: id })
          .then(
            () => assert.fail('continued an unknown response'),
            (thrown: unknown) => thrown,
          )
        assert.ok(error instanceof OpenAI.NotFoundError, String(error))
        assert.match(error.message, /previous_response_id/)
      }
    },
  )

  // A failure of the run; a request refused before any run keeps its status (below).
  for (const expected of FAILURES.filter((failure) => failure.runs > 0))
    it(`${expected.name} (streaming): response.failed with ${expected.code} and its reason`, LIMIT, async () => {
      const logDir = fake(expected.fake)
      const stream = await openai().responses.create({ model: 'auto', input: 'Hello', stream: true })
      const events: OpenAI.Responses.ResponseStreamEvent[] = []
      for await (const event of stream) events.push(event)
      assert.deepEqual(
        events.map((event) => event.type),
        ['response.created', 'response.in_progress', 'response.failed'],
      )
      const { error } = (events.at(-1) as OpenAI.Responses.ResponseFailedEvent).response
      assert.equal(error?.code, expected.code)
      assert.ok((error?.message ?? '') !== '', 'the reason is told')
      assert.equal(runs(logDir).length, expected.runs, 'cursor-agent runs for this request')
    })

  for (const stream of [false, true])
    for (const expected of FAILURES.filter((failure) => !stream || failure.runs === 0))
      it(
        `${expected.name} (${stream ? 'streaming' : 'not streaming'}): ${expected.status} ${expected.code}`,
        LIMIT,
        async () => {
          const logDir = fake(expected.fake)
          const sentAt = Date.now()
          const error = await openai()
            .responses.create({
              model: expected.model ?? 'auto',
              input: 'Hello',
              stream,
            } as OpenAI.Responses.ResponseCreateParamsNonStreaming)
            .then(
              () => assert.fail('the request succeeded'),
              (thrown: unknown) => thrown,
            )
          assert.ok(error instanceof OpenAI.APIError, `an APIError, not ${String(error)}`)
          assert.equal(error.status, expected.status)
          assert.equal(error.code, expected.code)
          assert.equal(error.headers?.get('x-should-retry'), 'false')
          assert.equal(runs(logDir).length, expected.runs, 'cursor-agent runs for this request')
          if (expected.code === 'E_QUOTA') assertRetryAfter(error.headers, sentAt)
        },
      )

  it('a failure after the answer started is response.failed with the code, and the stream ends', LIMIT, async () => {
    fake({ FAKE_CURSOR_SCENARIO: 'fail', FAKE_CURSOR_PARTIAL: 'Half an answer', FAKE_CURSOR_STDERR: quota.stderr })
    const stream = await openai().responses.create({ model: 'auto', input: 'Hello', stream: true })
    const events: OpenAI.Responses.ResponseStreamEvent[] = []
    for await (const event of stream) events.push(event)
    const last = events.at(-1)
    assert.equal(last?.type, 'response.failed')
    const failed = (last as OpenAI.Responses.ResponseFailedEvent).response
    assert.equal(failed.status, 'failed')
    assert.equal(failed.error?.code, 'E_QUOTA')
    const text = events.flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : [])).join('')
    assert.equal(text, 'Half an answer', 'what arrived stays')
    assert.ok(!events.some((event) => event.type === 'response.completed'))
  })
})

describe('every endpoint refuses bad input with a 400 before any run', () => {
  const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`
  const bodies: Record<string, string> = {
    '/v1/chat/completions': `{"model":"auto","messages":[{"role":"user","content":"hi"}],"extra":${deep}}`,
    '/v1/responses': `{"model":"auto","input":"hi","extra":${deep}}`,
    '/v1/messages': `{"model":"auto","max_tokens":8,"messages":[{"role":"user","content":"hi"}],"extra":${deep}}`,
    '/v1/messages/count_tokens': `{"model":"auto","messages":[{"role":"user","content":"hi"}],"extra":${deep}}`,
  }
  for (const [path, body] of Object.entries(bodies))
    it(`${path}: JSON nested 20,000 deep`, LIMIT, async () => {
      const logDir = fake({})
      const answer = await rawPost(proxy, path, body)
      assert.equal(answer.status, 400, answer.body)
      assert.match(answer.body, /E_INVALID_ARG/)
      assert.match(answer.body, /nests deeper/)
      assert.deepEqual(runs(logDir), [])
    })

  it("/v1/messages names the field it refuses, in Anthropic's shape", LIMIT, async () => {
    const answer = await rawPost(
      proxy,
      '/v1/messages',
      JSON.stringify({ model: 'auto', messages: [{ role: 'robot', content: 'hi' }] }),
    )
    assert.equal(answer.status, 400)
    const parsed = JSON.parse(answer.body)
    assert.equal(parsed.type, 'error')
    assert.equal(parsed.error.type, 'invalid_request_error')
    assert.match(parsed.error.message, /messages\[0\]\.role/)
  })

  it("/v1/responses names the field it refuses, in OpenAI's shape", LIMIT, async () => {
    const answer = await rawPost(proxy, '/v1/responses', JSON.stringify({ model: 'auto', input: 42 }))
    assert.equal(answer.status, 400)
    assert.match(JSON.parse(answer.body).error.message, /`input`/)
  })
})

describe('pictures and files the clients send take the route of a picture pasted into OpenCode', () => {
  const picture = png(24, 24, [20, 120, 220])
  const pictureUrl = `data:image/png;base64,${picture.toString('base64')}`
  const pdf = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n')
  const saw = (bytes: Buffer) => `saw ${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}`
  const describing = { FAKE_CURSOR_DESCRIBE_ATTACHMENTS: '1' }

  it('Chat Completions: an image_url data URL is read by the model, byte for byte', LIMIT, async () => {
    const logDir = fake(describing)
    const answer = await openai().chat.completions.create({
      model: 'auto',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what colour is it?' },
            { type: 'image_url', image_url: { url: pictureUrl } },
          ],
        },
      ],
    })
    assert.equal(answer.choices[0]!.message.content, `Attachments: ${saw(picture)}.`)
    const [run] = runs(logDir)
    assert.equal(run!.attachmentReads!.length, 1)
  })

  it('Responses: an input_image data URL, read by the model', LIMIT, async () => {
    fake(describing)
    const answer = await openai().responses.create({
      model: 'auto',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'what colour is it?' },
            { type: 'input_image', image_url: pictureUrl, detail: 'auto' },
          ],
        },
      ],
    })
    assert.equal(answer.output_text, `Attachments: ${saw(picture)}.`)
  })

  it('Messages: an image block and a PDF document block, each read by the model', LIMIT, async () => {
    fake(describing)
    const answer = await anthropic().messages.create({
      model: 'auto',
      max_tokens: 64,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: picture.toString('base64') } },
            {
              type: 'document',
              source: { type: 'base64', media_type: 'application/pdf', data: pdf.toString('base64') },
              title: 'spec.pdf',
            },
            { type: 'text', text: 'what do these show?' },
          ],
        },
      ],
    })
    const text = answer.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
    assert.equal(text, `Attachments: ${saw(picture)}, ${saw(pdf)}.`)
  })

  const remote: Array<[string, string, unknown]> = [
    [
      'Chat Completions, an https image_url',
      '/v1/chat/completions',
      {
        model: 'auto',
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }],
      },
    ],
    [
      'Chat Completions, a file URL on the server',
      '/v1/chat/completions',
      {
        model: 'auto',
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'file:///etc/passwd' } }] }],
      },
    ],
    [
      'Chat Completions, a part in the AI SDK shape naming a file on the server',
      '/v1/chat/completions',
      {
        model: 'auto',
        messages: [
          { role: 'user', content: [{ type: 'file', mediaType: 'text/plain', data: 'file:///etc/hostname' }] },
        ],
      },
    ],
    [
      'Chat Completions, a picture in the AI SDK shape naming a URL',
      '/v1/chat/completions',
      { model: 'auto', messages: [{ role: 'user', content: [{ type: 'image', image: 'https://example.com/a.png' }] }] },
    ],
    [
      'Responses, an input_image URL',
      '/v1/responses',
      {
        model: 'auto',
        input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'http://example.com/a.png' }] }],
      },
    ],
    [
      'Messages, an image block naming a URL',
      '/v1/messages',
      {
        model: 'auto',
        max_tokens: 8,
        messages: [
          { role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } }] },
        ],
      },
    ],
  ]
  for (const [name, path, body] of remote)
    it(`${name}: a 400 that says the server fetches nothing, and no run`, LIMIT, async () => {
      const logDir = fake({})
      const answer = await rawPost(proxy, path, JSON.stringify(body))
      assert.equal(answer.status, 400, answer.body)
      assert.match(answer.body, /E_INVALID_ARG/)
      assert.match(answer.body, /this server fetches nothing: send its bytes instead, as a data URL/)
      assert.deepEqual(runs(logDir), [])
    })
})

describe('a client that goes away stops the run and its process group', () => {
  const cases: Array<[string, (signal: AbortSignal) => Promise<AsyncIterable<unknown>>]> = [
    [
      '/v1/responses',
      (signal) => openai().responses.create({ model: 'auto', input: 'Go long', stream: true }, { signal }),
    ],
    [
      '/v1/messages',
      async (signal) =>
        anthropic().messages.create(
          { model: 'auto', max_tokens: 64, messages: [{ role: 'user', content: 'Go long' }], stream: true },
          { signal },
        ),
    ],
  ]
  for (const [path, open] of cases)
    it(`${path}: gone within 3 s of the abort`, { ...LIMIT, skip: linuxOnly }, async () => {
      const logDir = fake({ FAKE_CURSOR_SCENARIO: 'long' })
      const controller = new AbortController()
      const events = (await open(controller.signal))[Symbol.asyncIterator]()
      // The long run's first text arrives: the stream has started.
      for (;;) {
        const { done, value } = await events.next()
        assert.equal(done, false, 'the long run ended by itself')
        if (JSON.stringify(value).includes('Working on it')) break
      }
      const [run] = runs(logDir)
      assert.ok(run?.grandchildPid !== undefined, 'the fake logged its run')
      seenGroups.add(run.pgid)
      assert.ok(groupMembers(run.pgid).includes(run.grandchildPid))
      controller.abort()
      await events.next().catch(() => undefined)
      const gone = await waitFor(() => groupMembers(run.pgid).length === 0, 30_000, 20)
      assert.ok(gone, `group ${run.pgid} still runs ${groupMembers(run.pgid)}`)
    })
})
