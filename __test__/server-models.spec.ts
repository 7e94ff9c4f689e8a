// The server's models: `/v1/models` lists one model per family as OpenCode's picker does, and a
// family named as the model with an API's reasoning effort (Chat `reasoning_effort`, Responses
// `reasoning.effort`, Messages `output_config.effort`) runs the rung Cursor lists for it; every
// listed id keeps working as a model name. The listing is the cached one the server reads; the
// fake cursor-agent's invocation log shows the `--model` each run was given.
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { specEnvironment } from './support/env.ts'
import { fakeRuns } from './support/fake-runs.ts'
import { killGroupsAfter } from './support/process.ts'

type RunningProxy = Awaited<ReturnType<typeof import('../plugin/proxy/server.ts')['startProxy']>>

// Bun's default limit is 5 s; these only turn a hang into a failure.
const LIMIT = { timeout: 30_000 }
const fakeAgent = join(__dirname, 'support', 'agents', 'fake-cursor-agent.mjs')
const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'ocn-server-models-spec-')))
const workspace = join(scratch, 'ws')
const data = join(scratch, 'data')
mkdirSync(workspace)
killGroupsAfter(after)
const { fake, runs } = fakeRuns(scratch)
let proxy: RunningProxy

/** The account's listing, as the last discovery cached it. */
const LISTED = [
  ['auto', 'Auto'],
  ['gpt-5.4-low', 'GPT-5.4 1M Low'],
  ['gpt-5.4-medium', 'GPT-5.4 1M'],
  ['gpt-5.4-high', 'GPT-5.4 1M High'],
  ['gpt-5.5-medium', 'GPT-5.5'],
  ['gpt-5.5-extra-high', 'GPT-5.5 Extra High'],
  ['claude-opus-4-8', 'Claude Opus 4.8'],
  ['claude-opus-4-8-thinking-max', 'Claude Opus 4.8 Thinking Max'],
  ['gpt-5.3-codex', 'GPT-5.3 Codex'],
].map(([id, name]) => ({ id, name }))

specEnvironment({
  HOME: scratch,
  XDG_DATA_HOME: data,
  CURSOR_ACP_WORKSPACE: workspace,
  CURSOR_AGENT_EXECUTABLE: fakeAgent,
  CURSOR_ACP_TOOL_MODE: 'cursor',
})
before(async () => {
  mkdirSync(join(data, 'opencode-cursor-native'), { recursive: true })
  const cache = { savedAt: Date.now(), models: LISTED }
  writeFileSync(join(data, 'opencode-cursor-native', 'models.json'), JSON.stringify(cache))
  const { startProxy } = await import('../plugin/proxy/server.ts')
  proxy = await startProxy({ port: 0 })
})
after(async () => {
  await proxy.close()
  rmSync(scratch, { recursive: true, force: true })
})

async function post(path: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${proxy.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${proxy.token}`, 'content-type': 'application/json', 'anthropic-version': '1' },
    body: JSON.stringify(body),
  })
  return { status: response.status, body: await response.json() }
}

/** The `--model` of the one run a request made. */
function modelRun(logDir: string): string {
  const logged = runs(logDir)
  assert.equal(logged.length, 1)
  const argv = logged[0]!.argv
  return argv[argv.indexOf('--model') + 1]!
}

const ask = [{ role: 'user', content: 'hi' }]
/** Each API's request for `model` at `effort` (none when undefined). */
const REQUESTS: Record<string, (model: string, effort?: string) => [string, unknown]> = {
  chat: (model, effort) => ['/chat/completions', { model, messages: ask, reasoning_effort: effort }],
  responses: (model, effort) => ['/responses', { model, input: 'hi', reasoning: effort && { effort } }],
  messages: (model, effort) => [
    '/messages',
    { model, max_tokens: 64, messages: ask, output_config: effort && { effort } },
  ],
}

describe('the models the server offers', () => {
  it('/v1/models lists one model per family with the id each variant runs, as the picker does', LIMIT, async () => {
    const response = await fetch(`${proxy.url}/models`, { headers: { authorization: `Bearer ${proxy.token}` } })
    const listed = (await response.json()) as { data: any[] }
    assert.deepEqual(
      listed.data.map((model) => model.id),
      ['auto', 'gpt-5.4', 'gpt-5.5', 'claude-opus-4-8', 'gpt-5.3-codex'],
    )
    const gpt = listed.data[1]
    assert.equal(gpt.name, 'GPT-5.4 1M')
    assert.equal(gpt.cursor_model, 'gpt-5.4-medium')
    assert.deepEqual(gpt.variants, [
      { name: 'low', cursor_model: 'gpt-5.4-low' },
      { name: 'high', cursor_model: 'gpt-5.4-high' },
    ])
    const anthropic = await fetch(`${proxy.url}/models`, {
      headers: { 'x-api-key': proxy.token, 'anthropic-version': '2023-06-01' },
    })
    const page = (await anthropic.json()) as { data: any[] }
    assert.deepEqual(
      page.data.map((model) => [model.id, model.display_name]),
      [
        ['auto', 'Auto'],
        ['gpt-5.4', 'GPT-5.4 1M'],
        ['gpt-5.5', 'GPT-5.5'],
        ['claude-opus-4-8', 'Claude Opus 4.8'],
        ['gpt-5.3-codex', 'GPT-5.3 Codex'],
      ],
    )
  })

  for (const [api, request] of Object.entries(REQUESTS)) {
    it(
      `${api}: a family with an effort runs its rung, without one its default; a listed id runs as named`,
      LIMIT,
      async () => {
        for (const [model, effort, runsId] of [
          ['gpt-5.4', 'high', 'gpt-5.4-high'],
          ['gpt-5.5', 'xhigh', 'gpt-5.5-extra-high'],
          ['claude-opus-4-8', 'max', 'claude-opus-4-8-thinking-max'],
          ['gpt-5.4', undefined, 'gpt-5.4-medium'],
          // An effort Cursor does not list for the family: its default.
          ['gpt-5.4', 'max', 'gpt-5.4-medium'],
          ['gpt-5.4-low', 'high', 'gpt-5.4-low'],
          ['gpt-5.3-codex', 'high', 'gpt-5.3-codex'],
        ] as const) {
          const logDir = fake({ FAKE_CURSOR_STREAM: 'text:ok' })
          const [path, body] = request(model, effort)
          const answered = await post(path, body)
          assert.equal(answered.status, 200, `${model} ${effort}: ${JSON.stringify(answered.body)}`)
          assert.equal(modelRun(logDir), runsId, `${api} ${model} ${effort}`)
        }
      },
    )
  }

  it('an effort of the wrong type is refused with 400, naming its field', LIMIT, async () => {
    fake({ FAKE_CURSOR_STREAM: 'text:ok' })
    for (const [path, body, field] of [
      ['/chat/completions', { model: 'gpt-5.4', messages: ask, reasoning_effort: 5 }, '`reasoning_effort`'],
      ['/responses', { model: 'gpt-5.4', input: 'hi', reasoning: 'high' }, '`reasoning`'],
      ['/responses', { model: 'gpt-5.4', input: 'hi', reasoning: { effort: true } }, '`reasoning.effort`'],
      ['/messages', { model: 'gpt-5.4', messages: ask, output_config: { effort: 1 } }, '`output_config.effort`'],
    ] as const) {
      const refused = await post(path, body)
      assert.equal(refused.status, 400, path)
      assert.ok(JSON.stringify(refused.body).includes(field), `${path}: ${JSON.stringify(refused.body)}`)
    }
  })
})
