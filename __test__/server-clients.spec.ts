// The requests Codex CLI and Claude Code really send (their shapes kept in
// __test__/fixtures/clients), posted to the server over the fake cursor-agent in tool mode
// `cursor`: each is taken, and what the client reads of the answer is what it needs.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { specServer } from './support/spec-server.ts'
import { groupMembers, waitFor } from './support/process.ts'

const LIMIT = { timeout: 90_000 }
// As a user who wants a second turn to go on in Cursor's chat sets it.
// Session resume on, as a user who wants a second turn to go on in Cursor's chat sets it.
const { fake, runs, proxy: server } = specServer('server-clients', { CURSOR_ACP_SESSION_RESUME: 'true' })

/** A request a client sent, as kept in the fixtures. */
export function clientRequest(name: string): Record<string, any> {
  return JSON.parse(readFileSync(join(__dirname, 'fixtures', 'clients', `${name}.json`), 'utf8'))
}

/** `body` posted to `path` as the client posts it, with the server's token. */
async function post(
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(`${server().url.replace(/\/v1$/, '')}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${server().token}`, ...headers },
    body: JSON.stringify(body),
    ...(signal === undefined ? {} : { signal }),
  })
}

/** The data of each event of an SSE body. */
function events(body: string): Array<Record<string, any>> {
  return body
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice('data: '.length)))
}

describe("Claude Code's requests to /v1/messages", () => {
  const claude = { 'anthropic-version': '2023-06-01' }

  it('its first request, with a system message among the messages, is answered', LIMIT, async () => {
    const logDir = fake({ FAKE_CURSOR_STREAM: 'text:Hello, Claude Code.' })
    const response = await post('/v1/messages?beta=true', clientRequest('claude-code-first-request'), claude)
    const body = await response.text()
    assert.equal(response.status, 200, body)
    const texts = events(body).flatMap((event) => (event.delta?.type === 'text_delta' ? [event.delta.text] : []))
    assert.equal(texts.join(''), 'Hello, Claude Code.')
    const [run] = runs(logDir)
    assert.ok(run?.stdin.includes('# Environment'), 'the system message reached the prompt')
  })

  it(
    'a system message is an instruction where it stands: after the turn before it, before the next',
    LIMIT,
    async () => {
      const logDir = fake({ FAKE_CURSOR_STREAM: 'text:Noted.' })
      const messages = [
        { role: 'user', content: 'First question' },
        { role: 'assistant', content: 'First answer' },
        { role: 'system', content: 'Be terse from now on' },
        { role: 'user', content: 'Second question' },
      ]
      const response = await post('/v1/messages', { model: 'auto', max_tokens: 8, messages }, claude)
      assert.equal(response.status, 200, await response.text())
      const prompt = runs(logDir)[0]?.stdin ?? ''
      const at = (text: string) => prompt.indexOf(text)
      assert.ok(at('First answer') < at('Be terse from now on'), prompt)
      assert.ok(at('Be terse from now on') < at('Second question'), prompt)
    },
  )

  it('count_tokens counts a system message among the messages as the text it is', LIMIT, async () => {
    const ask = [{ role: 'user', content: 'y'.repeat(800) }]
    const count = async (messages: unknown[]) => {
      const response = await post('/v1/messages/count_tokens', { model: 'auto', messages }, claude)
      assert.equal(response.status, 200)
      return ((await response.json()) as { input_tokens: number }).input_tokens
    }
    const system = { role: 'system', content: [{ type: 'text', text: 'x'.repeat(400) }] }
    assert.equal((await count([...ask, system])) - (await count(ask)), 100, '400 bytes ÷ 4')
  })

  it('a system message holds text only, and a role it does not know is refused by name', LIMIT, async () => {
    const table: Array<[unknown, RegExp]> = [
      [{ role: 'system', content: [{ type: 'image' }] }, /`messages\[0\]\.content\[0\]\.type` must be text/],
      [{ role: 'robot', content: 'hi' }, /`messages\[0\]\.role` must be user, assistant or system/],
      ['hi', /`messages\[0\]` must be a message object/],
    ]
    for (const [message, refusal] of table) {
      const response = await post('/v1/messages', { model: 'auto', max_tokens: 8, messages: [message] }, claude)
      assert.equal(response.status, 400)
      const { error } = (await response.json()) as { error: { type: string; message: string } }
      assert.equal(error.type, 'invalid_request_error')
      assert.match(error.message, refusal)
    }
  })
})

describe("Codex CLI's requests to /v1/responses", () => {
  it('its first request is answered', LIMIT, async () => {
    const logDir = fake({ FAKE_CURSOR_STREAM: 'text:Hello, Codex.' })
    const response = await post('/v1/responses', clientRequest('codex-first-request'))
    const body = await response.text()
    assert.equal(response.status, 200, body)
    const done = events(body).find((event) => event.type === 'response.completed')
    assert.equal(done?.response.output.at(-1).content[0].text, 'Hello, Codex.')
    assert.equal(runs(logDir).length, 1)
    assert.equal(body.split('"name":"exec_command"').length, 2, "the request's tools go once, at the end")
    assert.deepEqual(
      done?.response.tools.map((tool: { name?: string; type: string }) => tool.name ?? tool.type),
      clientRequest('codex-first-request').tools.map((tool: { name?: string; type: string }) => tool.name ?? tool.type),
    )
  })

  it(
    "its second turn, the whole history again without previous_response_id, resumes Cursor's chat",
    LIMIT,
    async () => {
      const logDir = fake({ FAKE_CURSOR_STREAM: 'text:First answer.', FAKE_CURSOR_SESSION_ID: 'codex-chat-1' })
      const first = clientRequest('codex-first-request')
      first.input.at(-1).content[0].text = 'Remember the word tangerine'
      const answered = await post('/v1/responses', first)
      assert.equal(answered.status, 200, await answered.text())
      const second = clientRequest('codex-first-request')
      second.input = [
        ...first.input,
        { type: 'reasoning', id: 'rs_1', summary: [], content: null, encrypted_content: null },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'First answer.' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Which word?' }] },
      ]
      const again = await post('/v1/responses', second)
      assert.equal(again.status, 200, await again.text())
      const resumed = runs(logDir).find((run) => run.stdin.includes('Which word?'))
      assert.equal(resumed?.argv[resumed.argv.indexOf('--resume') + 1], 'codex-chat-1', resumed?.argv.join(' '))
      assert.equal(resumed?.stdin.trim(), 'Which word?', 'only the new message is sent')
    },
  )

  it('leaving as soon as response.completed arrives keeps the chat for the next turn', LIMIT, async () => {
    // cursor-agent is still exiting after its answer when Codex closes the connection.
    const logDir = fake({
      FAKE_CURSOR_STREAM: 'text:First answer.',
      FAKE_CURSOR_SESSION_ID: 'codex-chat-2',
      FAKE_CURSOR_SILENCE_MS: '1000',
      FAKE_CURSOR_SILENCE_AFTER: '1000',
    })
    const first = clientRequest('codex-first-request')
    first.input.at(-1).content[0].text = 'Remember the word kumquat'
    const controller = new AbortController()
    const response = await post('/v1/responses', first, {}, controller.signal)
    const reader = (response.body as ReadableStream<Uint8Array>).getReader()
    let read = ''
    while (!read.includes('response.completed')) read += new TextDecoder().decode((await reader.read()).value)
    controller.abort()
    const [run] = runs(logDir)
    assert.ok(await waitFor(() => groupMembers(run?.pgid ?? 0).length === 0, 10_000), 'the run ended by itself')
    fake({ FAKE_CURSOR_LOG_DIR: logDir, FAKE_CURSOR_STREAM: 'text:Kumquat.' })
    const second = clientRequest('codex-first-request')
    second.input = [
      ...first.input,
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'First answer.' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Which fruit?' }] },
    ]
    const again = await post('/v1/responses', second)
    assert.equal(again.status, 200, await again.text())
    const resumed = runs(logDir).find((logged) => logged.stdin.includes('Which fruit?'))
    assert.equal(resumed?.argv[resumed.argv.indexOf('--resume') + 1], 'codex-chat-2', resumed?.argv.join(' '))
  })

  it("a failure runs cursor-agent once and is a response.failed event with Cursor's reason", LIMIT, async () => {
    const logDir = fake({ FAKE_CURSOR_SCENARIO: 'auth' })
    const response = await post('/v1/responses', clientRequest('codex-first-request'))
    const body = await response.text()
    assert.equal(response.status, 200, 'Codex shows the reason of an event, never the body of a status')
    const failed = events(body).at(-1)
    assert.equal(failed?.type, 'response.failed')
    assert.equal(failed?.response.error.code, 'E_AUTH')
    assert.match(failed?.response.error.message, /not logged in/)
    assert.equal(runs(logDir).length, 1)
  })
})

describe('GET /v1/models/{id}', () => {
  it("answers one model in each API's shape, and 404 for a model Cursor does not have", LIMIT, async () => {
    fake({})
    const openai = new OpenAI({ baseURL: server().url, apiKey: server().token })
    const model = await openai.models.retrieve('auto')
    assert.equal(model.id, 'auto')
    assert.equal(model.object, 'model')
    const claude = new Anthropic({ baseURL: server().url.replace(/\/v1$/, ''), apiKey: server().token })
    const info = await claude.models.retrieve('auto')
    assert.equal(info.id, 'auto')
    assert.equal(info.type, 'model')
    for (const missing of [openai.models.retrieve('no-such-model'), claude.models.retrieve('no-such-model')]) {
      const error = await missing.then(
        () => assert.fail('found a model Cursor does not have'),
        (thrown) => thrown,
      )
      assert.equal((error as { status?: number }).status, 404, String(error))
      assert.match(String(error), /GET \/v1\/models lists them/)
    }
  })
})
