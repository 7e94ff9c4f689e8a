// Cursor's models as OpenCode shows them: one model per family with a variant per rung (the
// addon's grouping), each naming the listed id it runs; old ids a configuration names kept as
// models of their own; the provider running the id a family or variant names. The grouping's
// rules are tested beside it in Rust (src/core/agent/models/family/tests.rs). Needs
// `npm run build:test` (the config hook loads from dist/).
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { after, describe, test } from 'node:test'
import { pathToFileURL } from 'node:url'
import { describeCursorModel } from '../index.js'
import { withEnv } from './support/env.ts'
import { collect } from './support/stream.ts'
import { userProvider } from './support/user-options.ts'

const repo = resolve(__dirname, '..')
const fakeAgent = join(repo, '__test__', 'support', 'agents', 'fake-cursor-agent.mjs')
const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'model-families-spec-')))
after(() => rmSync(scratch, { recursive: true, force: true }))

const load = {
  block: () => import('../plugin/opencode/provider-block.ts'),
  choice: () => import('../plugin/opencode/model-choice.ts'),
  options: () => import('../plugin/opencode/provider-options.ts'),
  provider: () => import('../plugin/opencode/provider.ts'),
  models2: () => import('../plugin/opencode2/models.ts'),
  server: async (): Promise<typeof import('../plugin/opencode/server.ts')> =>
    import(pathToFileURL(join(repo, 'dist', 'plugin', 'opencode', 'server.js')).href),
}

/** A listing of the grammar's shapes, as `cursor-agent models` names them. */
const LISTED: ReadonlyArray<[string, string]> = [
  ['auto', 'Auto'],
  ['gpt-5.4-low', 'GPT-5.4 1M Low'],
  ['gpt-5.4-medium', 'GPT-5.4 1M'],
  ['gpt-5.4-high', 'GPT-5.4 1M High'],
  ['gpt-5.4-high-fast', 'GPT-5.4 1M High Fast'],
  ['claude-opus-4-8', 'Claude Opus 4.8'],
  ['claude-opus-4-8-thinking-high', 'Claude Opus 4.8 Thinking High'],
  ['gpt-5.3-codex', 'GPT-5.3 Codex'],
]
const models = LISTED.map(([id, name]) => describeCursorModel(id, name))

describe("OpenCode 1.18's models", () => {
  test('one model per family, its default and each variant naming the listed id; an id alone unchanged', async () => {
    const { modelsBlock } = await load.block()
    const block = modelsBlock(models) as Record<string, any>
    assert.deepEqual(Object.keys(block), ['auto', 'gpt-5.4', 'claude-opus-4-8', 'gpt-5.3-codex'])
    assert.deepEqual(block['gpt-5.4'].options, { cursorModel: 'gpt-5.4-medium' })
    assert.deepEqual(block['gpt-5.4'].variants, {
      low: { cursorModel: 'gpt-5.4-low' },
      high: { cursorModel: 'gpt-5.4-high' },
      'high-fast': { cursorModel: 'gpt-5.4-high-fast' },
    })
    assert.equal(block['gpt-5.4'].name, 'GPT-5.4 1M')
    assert.deepEqual(block['gpt-5.4'].limit, { context: 1_000_000, output: 128_000 })
    assert.deepEqual(block['claude-opus-4-8'].variants, {
      'thinking-high': { cursorModel: 'claude-opus-4-8-thinking-high' },
    })
    // Thinking streams in one of its variants.
    assert.equal(block['claude-opus-4-8'].reasoning, true)
    const codex = describeCursorModel('gpt-5.3-codex', 'GPT-5.3 Codex')
    assert.deepEqual(block['gpt-5.3-codex'], {
      name: 'GPT-5.3 Codex',
      limit: { context: codex.contextWindow, output: codex.maxOutputTokens },
      reasoning: codex.reasoning,
      attachment: true,
      modalities: { input: ['text', 'image'], output: ['text'] },
    })
  })

  test('a listed id the configuration names stays a model of its own; an unlisted one is not invented', async () => {
    const { modelsBlock } = await load.block()
    const block = modelsBlock(models, new Set(['gpt-5.4-high', 'gpt-5.4', 'not-listed'])) as Record<string, any>
    assert.deepEqual(Object.keys(block), ['auto', 'gpt-5.4', 'claude-opus-4-8', 'gpt-5.3-codex', 'gpt-5.4-high'])
    assert.equal(block['gpt-5.4-high'].name, 'GPT-5.4 1M High')
    assert.equal(block['gpt-5.4-high'].options, undefined)
  })

  test('the ids a configuration names: default, small, agents, modes, commands, hand-written models', async () => {
    const { configuredModelIds } = await load.choice()
    const config = {
      model: 'cursor-acp/gpt-5.4-high',
      small_model: 'cursor-acp/auto',
      agent: { plan: { model: 'cursor-acp/gpt-5.4-low' }, build: {}, other: { model: 'anthropic/claude' } },
      mode: { old: { model: 'cursor-acp/sonnet-4.6' } },
      command: { review: { model: 'cursor-acp/gpt-5.4-xhigh' } },
      provider: { 'cursor-acp': { models: { 'my-model': {} } }, other: { models: { elsewhere: {} } } },
    }
    assert.deepEqual(
      [...configuredModelIds(config, 'cursor-acp')].sort(),
      ['auto', 'gpt-5.4-high', 'gpt-5.4-low', 'gpt-5.4-xhigh', 'my-model', 'sonnet-4.6'].sort(),
    )
    assert.deepEqual([...configuredModelIds({}, 'cursor-acp')], [])
  })

  test("the listed id a call runs: its family's or variant's provider option, read with the call's others", async () => {
    const { readCallOptions } = await load.options()
    for (const [options, read] of [
      [{ cursorModel: 'gpt-5.4-high' }, { options: { cursorModel: 'gpt-5.4-high' } }],
      [{ cursorModel: ' gpt-5.4-high ', other: 1 }, { options: { cursorModel: 'gpt-5.4-high' } }],
      [{}, { options: {} }],
      [undefined, { options: {} }],
      [{ cursorModel: '' }, { refused: 'Provider option cursorModel="" of this call is not a model id.' }],
      [{ cursorModel: 5 }, { refused: 'Provider option cursorModel=5 of this call is not a model id.' }],
    ] as const) {
      assert.deepEqual(readCallOptions(options), read, JSON.stringify(options))
    }
  })

  test('the provider runs the id the call names; a model without one runs its own id', async () => {
    const { createCursorAcp } = await load.provider()
    const workspace = join(scratch, 'provider-ws')
    const logDir = join(scratch, 'provider-log')
    mkdirSync(workspace, { recursive: true })
    const prompt = [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]
    await withEnv({ FAKE_CURSOR_LOG_DIR: logDir, FAKE_CURSOR_STREAM: 'text:ok' }, async () => {
      const provider = userProvider(createCursorAcp, { name: 'cursor-acp', workspace, executable: fakeAgent })
      const family = provider.languageModel('gpt-5.4')
      const providerOptions = { 'cursor-acp': { cursorModel: 'gpt-5.4-high-fast' } }
      await collect((await family.doStream({ prompt, providerOptions } as any)).stream)
      await collect((await provider.languageModel('gpt-5.4-low').doStream({ prompt } as any)).stream)
    })
    const runs = readdirSync(logDir)
      .sort()
      .map((file) => JSON.parse(readFileSync(join(logDir, file), 'utf8')))
    const modelOf = (argv: string[]) => argv[argv.indexOf('--model') + 1]
    assert.deepEqual(
      runs.map((run) => modelOf(run.argv)),
      ['gpt-5.4-high-fast', 'gpt-5.4-low'],
    )
  })

  test('a variant switch starts a new Cursor chat, given the whole conversation', async () => {
    const { createCursorAcp } = await load.provider()
    const workspace = join(scratch, 'switch-ws')
    const logDir = join(scratch, 'switch-log')
    mkdirSync(workspace, { recursive: true })
    const user = (text: string) => ({ role: 'user', content: [{ type: 'text', text }] })
    const answer = { role: 'assistant', content: [{ type: 'text', text: 'ok' }] }
    const turns: Array<[unknown[], string]> = [
      [[user('first')], 'gpt-5.4-high'],
      [[user('first'), answer, user('second')], 'gpt-5.4-high'],
      [[user('first'), answer, user('second'), answer, user('third')], 'gpt-5.4-low'],
    ]
    await withEnv({ FAKE_CURSOR_LOG_DIR: logDir, FAKE_CURSOR_STREAM: 'text:ok' }, async () => {
      const options = { name: 'cursor-acp', workspace, executable: fakeAgent, sessionResume: true }
      const family = userProvider(createCursorAcp, options).languageModel('gpt-5.4')
      for (const [prompt, cursorModel] of turns) {
        const call = {
          prompt,
          headers: { 'x-session-id': 'ses_switch' },
          providerOptions: { 'cursor-acp': { cursorModel } },
        }
        await collect((await family.doStream(call as any)).stream)
      }
    })
    const runs = readdirSync(logDir)
      .sort()
      .map((file) => JSON.parse(readFileSync(join(logDir, file), 'utf8')))
      .filter((run) => run.argv.includes('--print'))
    assert.deepEqual(
      runs.map((run) => run.argv.includes('--resume')),
      [false, true, false],
    )
    assert.ok(runs[2].stdin.includes('first') && runs[2].stdin.includes('second'), runs[2].stdin)
  })

  test('the config hook shows families, and keeps the old id the configuration chose', async () => {
    const { CursorAcpPlugin } = await load.server()
    const data = join(scratch, 'data')
    mkdirSync(join(data, 'opencode-cursor-native'), { recursive: true })
    writeFileSync(
      join(data, 'opencode-cursor-native', 'models.json'),
      JSON.stringify({ savedAt: Date.now(), models: LISTED.map(([id, name]) => ({ id, name })) }),
    )
    const cfg: Record<string, any> = { model: 'cursor-acp/gpt-5.4-high' }
    await withEnv({ XDG_DATA_HOME: data, HOME: scratch, CURSOR_AGENT_EXECUTABLE: fakeAgent }, async () => {
      const hooks = await CursorAcpPlugin({ directory: scratch, worktree: scratch } as any)
      await hooks.config!(cfg as any)
    })
    assert.deepEqual(Object.keys(cfg.provider['cursor-acp'].models), [
      'auto',
      'gpt-5.4',
      'claude-opus-4-8',
      'gpt-5.3-codex',
      'gpt-5.4-high',
    ])
    assert.equal(cfg.model, 'cursor-acp/gpt-5.4-high')
  })
})

describe("OpenCode 2's models", () => {
  test('families with variant settings; every other listed id a hidden model of its own', async () => {
    const { modelInfos } = await load.models2()
    const infos = modelInfos('cursor-acp', models)
    const shown = infos.filter((info) => info.status !== 'deprecated')
    assert.deepEqual(
      shown.map((info) => info.id),
      ['auto', 'gpt-5.4', 'claude-opus-4-8', 'gpt-5.3-codex'],
    )
    const gpt = shown[1]!
    assert.deepEqual(gpt.settings, { cursorModel: 'gpt-5.4-medium' })
    assert.deepEqual(gpt.variants, [
      { id: 'low', settings: { cursorModel: 'gpt-5.4-low' } },
      { id: 'high', settings: { cursorModel: 'gpt-5.4-high' } },
      { id: 'high-fast', settings: { cursorModel: 'gpt-5.4-high-fast' } },
    ])
    assert.equal(shown[3]!.settings, undefined)
    const hidden = infos.filter((info) => info.status === 'deprecated')
    assert.deepEqual(
      hidden.map((info) => info.id),
      ['gpt-5.4-low', 'gpt-5.4-medium', 'gpt-5.4-high', 'gpt-5.4-high-fast', 'claude-opus-4-8-thinking-high'],
    )
    for (const info of hidden) assert.equal(info.enabled, true, info.id)
  })
})
