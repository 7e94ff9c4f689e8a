// The recipes for pointing Codex CLI, Claude Code and the OpenAI and Anthropic SDKs at the server,
// read out of docs/server.md as a user copies them: each parses, names the server's default
// address and the API its client speaks, and, with the address moved to a running server's port,
// gets an answer through the official client of that API.
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { parse as parseToml } from 'smol-toml'
import { specEnvironment } from './support/env.ts'
import { fakeRuns } from './support/fake-runs.ts'

type ProxyModule = typeof import('../plugin/proxy/server.ts')
type RunningProxy = Awaited<ReturnType<ProxyModule['startProxy']>>

const LIMIT = { timeout: 90_000 }
const page = readFileSync(join(__dirname, '..', 'docs', 'server.md'), 'utf8')
const recipes = page.slice(page.indexOf('## Recipes'))

/** The first fenced block of `language` in the recipes. */
function block(language: string): string {
  const found = new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(recipes)
  assert.ok(found !== null, `the recipes hold a ${language} block`)
  return found[1] as string
}

const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'ocn-server-recipes-')))
mkdirSync(join(scratch, 'ws'))
const { fake } = fakeRuns(scratch)
specEnvironment({
  HOME: scratch,
  XDG_DATA_HOME: join(scratch, 'data'),
  CURSOR_ACP_WORKSPACE: join(scratch, 'ws'),
  CURSOR_AGENT_EXECUTABLE: join(__dirname, 'support', 'agents', 'fake-cursor-agent.mjs'),
  CURSOR_ACP_TOOL_MODE: 'cursor',
})
let proxy: RunningProxy
let DEFAULT_PORT: number
before(async () => {
  const server = await import('../plugin/proxy/server.ts')
  DEFAULT_PORT = server.DEFAULT_PORT
  proxy = await server.startProxy({ port: 0 })
})
after(async () => {
  await proxy.close()
  rmSync(scratch, { recursive: true, force: true })
})

/** `url` with the server's default port moved to the running server's. */
const toRunning = (url: string): string => url.replace(`:${DEFAULT_PORT}`, `:${proxy.port}`)

describe("docs/server.md's recipes", () => {
  it(
    'Codex CLI: a model provider on the Responses wire API at the server, answered by the Responses API',
    LIMIT,
    async () => {
      const config = parseToml(block('toml')) as {
        model: string
        model_provider: string
        model_providers: Record<
          string,
          {
            base_url: string
            env_key: string
            wire_api: string
            request_max_retries?: number
            stream_max_retries?: number
          }
        >
      }
      const provider = config.model_providers[config.model_provider]
      assert.ok(provider !== undefined, 'model_provider names a provider of the file')
      assert.equal(provider.wire_api, 'responses')
      assert.equal(provider.base_url, `http://127.0.0.1:${DEFAULT_PORT}/v1`)
      assert.equal(provider.env_key, 'CURSOR_ACP_PROXY_TOKEN', 'the variable serve takes its token from')
      // Codex ignores `x-should-retry`: without these a failure runs cursor-agent up to 30 times.
      assert.equal(provider.request_max_retries, 0, 'a failed request is not sent again')
      assert.equal(provider.stream_max_retries, 0, 'a failed stream is not requested again')
      fake({ FAKE_CURSOR_STREAM: 'text:Codex is served.' })
      const client = new OpenAI({ baseURL: toRunning(provider.base_url), apiKey: proxy.token })
      const response = await client.responses.create({ model: config.model, input: 'hi' })
      assert.equal(response.output_text, 'Codex is served.')
    },
  )

  it('Claude Code: ANTHROPIC_BASE_URL and the token, answered by the Messages API', LIMIT, async () => {
    const variables = Object.fromEntries(
      [...block('sh').matchAll(/^export (\w+)=(.*)$/gm)].map(([, name, value]) => [
        name,
        (value as string).replace(/^"|"$/g, ''),
      ]),
    )
    assert.equal(variables.ANTHROPIC_BASE_URL, `http://127.0.0.1:${DEFAULT_PORT}`, 'no /v1: the client adds it')
    assert.ok('ANTHROPIC_AUTH_TOKEN' in variables)
    fake({ FAKE_CURSOR_STREAM: 'text:Claude Code is served.' })
    // Claude Code sends ANTHROPIC_AUTH_TOKEN as a bearer token.
    const client = new Anthropic({
      baseURL: toRunning(variables.ANTHROPIC_BASE_URL as string),
      apiKey: null,
      authToken: proxy.token,
    })
    const message = await client.messages.create({
      model: variables.ANTHROPIC_MODEL as string,
      max_tokens: 64,
      messages: [{ role: 'user', content: 'hi' }],
    })
    assert.equal((message.content.at(-1) as Anthropic.TextBlock).text, 'Claude Code is served.')
  })

  it('the SDKs: the base URLs each client is given answer', LIMIT, async () => {
    const code = block('js')
    const openaiBase = /new OpenAI\(\{ baseURL: '([^']+)'/.exec(code)?.[1]
    const anthropicBase = /new Anthropic\(\{ baseURL: '([^']+)'/.exec(code)?.[1]
    assert.equal(openaiBase, `http://127.0.0.1:${DEFAULT_PORT}/v1`)
    assert.equal(anthropicBase, `http://127.0.0.1:${DEFAULT_PORT}`)
    fake({ FAKE_CURSOR_STREAM: 'text:Both are served.' })
    const completion = await new OpenAI({
      baseURL: toRunning(openaiBase as string),
      apiKey: proxy.token,
    }).chat.completions.create({
      model: 'auto',
      messages: [{ role: 'user', content: 'hi' }],
    })
    assert.equal(completion.choices[0]?.message.content, 'Both are served.')
    const message = await new Anthropic({
      baseURL: toRunning(anthropicBase as string),
      apiKey: proxy.token,
    }).messages.create({
      model: 'auto',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'hi' }],
    })
    assert.equal((message.content.at(-1) as Anthropic.TextBlock).text, 'Both are served.')
  })
})
