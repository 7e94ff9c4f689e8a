// The server's `mode`: a request of any of its three APIs picks Cursor's mode with a `mode` field in
// the body or an `X-Cursor-Mode` header (the body first); anything else is a 400 `E_INVALID_ARG`
// naming the field, in the API's error shape. The fake cursor-agent records the command line.
// Expected command lines and refusals come from docs/plan-and-read-only.md and docs/server.md.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { specServer } from './support/spec-server.ts'

const { fake, runs, proxy: server } = specServer('server-mode')

/** Each API: its path and a request body of its own shape asking `text`. */
const APIS: Array<{ name: string; path: string; body: (text: string) => Record<string, unknown> }> = [
  {
    name: 'chat',
    path: '/chat/completions',
    body: (text) => ({ model: 'auto', messages: [{ role: 'user', content: text }] }),
  },
  { name: 'responses', path: '/responses', body: (text) => ({ model: 'auto', input: text }) },
  {
    name: 'messages',
    path: '/messages',
    body: (text) => ({ model: 'auto', max_tokens: 100, messages: [{ role: 'user', content: text }] }),
  },
]

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${server().url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${server().token}`, ...headers },
    body: JSON.stringify(body),
  })
  return { status: response.status, body: (await response.json()) as Record<string, any> }
}

describe('a request picks Cursor mode', () => {
  it('by its body, else its X-Cursor-Mode header, in every API', { timeout: 120_000 }, async () => {
    const cases: Array<[string, string | undefined, Record<string, string>, string[]]> = [
      ['neither', undefined, {}, ['--force']],
      ['the body', 'plan', {}, ['--trust', '--mode', 'plan']],
      ['the header', undefined, { 'X-Cursor-Mode': 'ask' }, ['--trust', '--mode', 'ask']],
      ['the body over the header', 'agent', { 'X-Cursor-Mode': 'plan' }, ['--force']],
      ['the body over a header that is no mode', 'ask', { 'X-Cursor-Mode': 'yolo' }, ['--trust', '--mode', 'ask']],
    ]
    for (const api of APIS) {
      for (const [name, mode, headers, tail] of cases) {
        const logDir = fake()
        const body = { ...api.body(`mode by ${name}`), ...(mode === undefined ? {} : { mode }) }
        const answer = await post(api.path, body, headers)
        assert.equal(answer.status, 200, `${api.name}, ${name}: ${JSON.stringify(answer.body)}`)
        const [run] = runs(logDir)
        assert.deepEqual(run?.argv.slice(8), tail, `${api.name}, ${name}`)
      }
    }
  })

  it('anything else is a 400 naming the field, in the API’s error shape, and runs nothing', async () => {
    const cases: Array<[string, unknown, Record<string, string>, string]> = [
      ['a body mode that is no mode', 'yolo', {}, '`mode`'],
      ['a body mode of another case', 'Plan', {}, '`mode`'],
      ['a body mode that is not a string', 1, {}, '`mode`'],
      ['a header that is no mode', undefined, { 'X-Cursor-Mode': 'agent-mode' }, '`X-Cursor-Mode`'],
    ]
    for (const api of APIS) {
      for (const [name, mode, headers, field] of cases) {
        const logDir = fake()
        const body = { ...api.body('refused'), ...(mode === undefined ? {} : { mode }) }
        const answer = await post(api.path, body, headers)
        assert.equal(answer.status, 400, `${api.name}, ${name}`)
        const error = answer.body.error
        assert.equal(error.code, 'E_INVALID_ARG', `${api.name}, ${name}`)
        assert.ok(error.message.includes(field), `${api.name}, ${name}: ${error.message}`)
        assert.ok(error.message.includes('"agent", "ask", "plan"'), error.message)
        // Anthropic's error object for Messages, OpenAI's for the others.
        if (api.name === 'messages') {
          assert.equal(answer.body.type, 'error')
          assert.equal(error.type, 'invalid_request_error')
        } else assert.equal(error.type, 'cursor_agent_error')
        assert.equal(runs(logDir).length, 0, `${api.name}, ${name}: nothing runs`)
      }
    }
  })
})
