// OpenCode 2, played by __test__/support/opencode2-host.ts from its documented contract (OpenCode 2
// cannot be installed here): the built plugin entry loads as its loader reads it, `setup`
// registers the provider, models, login and hooks, the `aisdk:` module answers requests with
// OpenCode 2's headers and no abort signal, and its events cancel held runs; the fake cursor-agent
// runs behind it. Needs `npm run build:test`. Runs under Node and Bun.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { pathToFileURL } from 'node:url'
import { createHost, type Host, loadPlugin, requestHeaders } from './support/opencode2-host.ts'
import { groupMembers, isAlive, waitFor } from './support/process.ts'
import { collect } from './support/stream.ts'

const repo = resolve(__dirname, '..')
const entry = join(repo, 'dist', 'plugin', 'entry', 'server.js')
const fakeAgent = join(repo, '__test__', 'support', 'agents', 'fake-cursor-agent.mjs')
const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'opencode2-spec-')))
const workspace = join(scratch, 'project')
mkdirSync(workspace, { recursive: true })
const saved = { ...process.env }

/** The environment every test starts from: the fake cursor-agent, private data and home folders. */
function useEnv(extra: Record<string, string> = {}): void {
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key]
  Object.assign(process.env, saved, {
    HOME: scratch,
    XDG_DATA_HOME: join(scratch, 'data'),
    CURSOR_AGENT_EXECUTABLE: fakeAgent,
    CURSOR_ACP_CHILD_ENV: 'FAKE_CURSOR_*',
    CURSOR_ACP_WORKSPACE: workspace,
    ...extra,
  })
  delete process.env.CURSOR_API_KEY
  delete process.env.CURSOR_ACP_TOOL_MODE
  delete process.env.CURSOR_ACP_SESSION_RESUME
  Object.assign(process.env, extra)
}

before(() => {
  assert.ok(existsSync(entry), `${entry} is missing: run \`npm run build:plugin\` first`)
})
after(() => {
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key]
  Object.assign(process.env, saved)
  rmSync(scratch, { recursive: true, force: true })
})

const userPrompt = (text: string) => [{ role: 'user', content: [{ type: 'text', text }] }]

function invocations(logDir: string): any[] {
  if (!existsSync(logDir)) return []
  return readdirSync(logDir)
    .sort()
    .map((file) => JSON.parse(readFileSync(join(logDir, file), 'utf8')))
    .filter((record) => record.argv.includes('--print'))
}

/** A host with the plugin set up; `cleanup` is what `setup` returned. */
async function started(
  extra: Record<string, string> = {},
  first?: (host: Host) => Promise<void>,
): Promise<{ host: Host; cleanup: () => Promise<void> }> {
  useEnv(extra)
  const plugin = await loadPlugin(entry)
  const host = createHost({ directory: workspace, project: { id: 'prj_test', worktree: workspace } })
  await first?.(host)
  const cleanup = (await plugin.setup(host.ctx)) as () => Promise<void>
  assert.equal(typeof cleanup, 'function')
  return { host, cleanup }
}

describe('a local folder loaded without its exports', () => {
  it("the root's server.js is the entry: OpenCode 2's <folder>/server resolves to the same plugin", async () => {
    const root = resolve(__dirname, '..')
    const viaRoot = await import(pathToFileURL(join(root, 'server.js')).href)
    const viaExports = await import(pathToFileURL(entry).href)
    assert.deepEqual(Object.keys(viaRoot).sort(), Object.keys(viaExports).sort(), 'the same exports')
    // Decoded as OpenCode 2 decodes a plugin, and as 1.18 reads an object entry.
    const definition = await loadPlugin(join(root, 'server.js'))
    assert.equal(definition.id, 'opencode-cursor-native')
    assert.equal(typeof definition.setup, 'function')
    assert.equal(typeof viaRoot.default.server, 'function')
  })
})

describe('the plugin entry under both loaders', () => {
  it("decodes as OpenCode 2's plugin definition and as OpenCode 1.18's object entry", async () => {
    const mod = await import(pathToFileURL(entry).href)
    const definition = await loadPlugin(entry)
    assert.equal(definition.id, 'opencode-cursor-native')
    // 1.18 (from 1.18.29): a default record with an `id` is an object entry; `server` is called,
    // and `server` beside `tui` would be refused.
    assert.equal(typeof mod.default.server, 'function')
    assert.equal(mod.default.tui, undefined)
    // The named exports 1.18 skips for an object entry are plugin functions all the same.
    for (const [name, value] of Object.entries(mod))
      if (name !== 'default') assert.equal(typeof value, 'function', name)
  })

  it('a default export of another shape is what OpenCode 2 refuses', async () => {
    const old = join(repo, 'dist', 'plugin', 'opencode', 'server.js')
    await assert.rejects(loadPlugin(old), /PluginModule\.LoadError/)
  })
})

describe('setup in OpenCode 2', () => {
  it('registers cursor-acp with the cached or built-in models, then the account list through reload()', async () => {
    const logDir = join(scratch, 'models-log')
    const { host, cleanup } = await started({
      FAKE_CURSOR_LOG_DIR: logDir,
      FAKE_CURSOR_MODELS: 'auto - Auto;sonnet-4.6 - Claude Sonnet 4.6;mystery-9 - Mystery 9',
    })
    try {
      const first = host.state().providers.get('cursor-acp')
      assert.ok(first !== undefined)
      assert.equal(first.info.name, 'Cursor')
      assert.equal(first.info.activation, 'enabled')
      assert.equal(first.info.integrationID, 'cursor-acp')
      const pkg: string = first.info.package
      assert.match(pkg, /^aisdk:file:\/\/.*\/dist\/plugin\/opencode2\/provider\.js$/)
      assert.ok(first.models.length > 0)
      await waitFor(() => host.reloads > 0, 20_000)
      const ids = host
        .state()
        .providers.get('cursor-acp')!
        .models.map((model) => model.id)
      assert.deepEqual(ids, ['auto', 'sonnet-4.6', 'mystery-9'])
      for (const model of host.state().providers.get('cursor-acp')!.models) {
        assert.equal(model.modelID, model.id)
        assert.equal(model.providerID, 'cursor-acp')
        assert.deepEqual(model.variants, [])
        assert.ok(model.time.released > 0, `${model.id} released at 0`)
        assert.ok(model.limit.context > 0 && model.limit.output > 0)
      }
      // Pictures where the model's vendor documents image input (Claude); not for `auto` nor an
      // id the table does not know.
      assert.deepEqual(
        host
          .state()
          .providers.get('cursor-acp')!
          .models.map((model) => [model.id, model.capabilities.input]),
        [
          ['auto', ['text']],
          ['sonnet-4.6', ['text', 'image']],
          ['mystery-9', ['text']],
        ],
      )
      const [, sonnet, mystery] = host.state().providers.get('cursor-acp')!.models
      assert.equal(sonnet.time.released, Date.parse('2026-02-01T00:00:00Z'))
      assert.equal(mystery.time.released, Date.parse('2026-01-01T00:00:00Z'))
      assert.deepEqual(host.state().defaultModel, { providerID: 'cursor-acp', modelID: 'auto' })
    } finally {
      await cleanup()
    }
    assert.equal(host.hooks.length, 0, 'every hook is disposed by the clean-up')
    assert.equal(host.events.subscribers, 0)
  })

  it('keeps a default model the user chose', async () => {
    const { host, cleanup } = await started({}, async (host) => {
      await host.ctx.model.transform((editor: any) => editor.default.set('other', 'model'))
    })
    try {
      const state = host.state()
      assert.deepEqual(state.defaultModel, { providerID: 'other', modelID: 'model' })
    } finally {
      await cleanup()
    }
  })

  it('offers the API key login as an integration, by key and by CURSOR_API_KEY', async () => {
    const { host, cleanup } = await started()
    try {
      const integration = host.state().integrations.get('cursor-acp')
      assert.deepEqual(integration, {
        name: 'Cursor',
        methods: [
          { type: 'key', label: 'Cursor API key' },
          { type: 'env', names: ['CURSOR_API_KEY'] },
        ],
      })
    } finally {
      await cleanup()
    }
  })

  it('scopes every model hook to cursor-acp', async () => {
    const { host, cleanup } = await started()
    try {
      assert.deepEqual(
        host.hooks.map((hook) => [hook.name, hook.providerID]),
        [
          ['aisdk.language', 'cursor-acp'],
          ['session.retry', 'cursor-acp'],
          ['session.title', 'cursor-acp'],
          ['session.compaction', 'cursor-acp'],
          ['session.context', 'cursor-acp'],
        ],
      )
      const model = host.state().providers.get('cursor-acp')!.models[0]
      const retry = await host.run('session', 'retry', { model, error: new Error('boom') })
      assert.deepEqual(retry.decision, { retry: false })
      const theirs = await host.run('session', 'retry', { model: { ...model, providerID: 'anthropic' } })
      assert.equal(theirs.decision, undefined)
      const title = await host.run('session', 'title', {
        model,
        messages: [{ role: 'user', content: [{ type: 'text', text: '  Fix the login bug\nin auth.ts' }] }],
      })
      assert.equal(title.result, 'Fix the login bug')
    } finally {
      await cleanup()
    }
  })
})

describe("Cursor's models as families in OpenCode 2", () => {
  it("one model per family; a variant's settings run its Cursor id; an id the picker hides still runs", async () => {
    const logDir = join(scratch, 'variants-log')
    const listed = [
      'auto - Auto',
      'gpt-5.4-low - GPT-5.4 1M Low',
      'gpt-5.4-medium - GPT-5.4 1M',
      'gpt-5.4-high - GPT-5.4 1M High',
      'claude-opus-4-8 - Claude Opus 4.8',
      'claude-opus-4-8-thinking-max - Claude Opus 4.8 Thinking Max',
    ]
    // A data folder of its own: no model list cached, or in discovery, by another test.
    const { host, cleanup } = await started({
      XDG_DATA_HOME: join(scratch, 'variants-data'),
      FAKE_CURSOR_LOG_DIR: logDir,
      FAKE_CURSOR_MODELS: listed.join(';'),
      FAKE_CURSOR_STREAM: 'text:ok',
    })
    try {
      await waitFor(() => host.picker('cursor-acp').includes('gpt-5.4'), 20_000)
      assert.deepEqual(host.picker('cursor-acp'), ['auto', 'gpt-5.4', 'claude-opus-4-8'])
      const requests: Array<[string, string | undefined]> = [
        ['gpt-5.4', 'high'],
        ['claude-opus-4-8', 'thinking-max'],
        ['gpt-5.4', undefined],
        ['gpt-5.4-low', undefined],
      ]
      for (const [index, [model, variant]] of requests.entries()) {
        const { language } = await host.language('cursor-acp', model)
        const call = {
          prompt: userPrompt('hi'),
          headers: requestHeaders({ id: `ses_variant_${index}` }),
          providerOptions: host.providerOptions('cursor-acp', model, variant),
        }
        await collect((await language.doStream(call as any)).stream)
      }
      const models = invocations(logDir).map((run) => run.argv[run.argv.indexOf('--model') + 1])
      assert.deepEqual(models, ['gpt-5.4-high', 'claude-opus-4-8-thinking-max', 'gpt-5.4-medium', 'gpt-5.4-low'])
    } finally {
      await cleanup()
    }
  })
})

describe('a turn in OpenCode 2', () => {
  it("the aisdk module's only create* export is the factory, and the language hook answers the same provider", async () => {
    const { host, cleanup } = await started()
    try {
      const pkg: string = host.state().providers.get('cursor-acp')!.info.package
      const mod = await import(pkg.slice('aisdk:'.length))
      assert.deepEqual(
        Object.keys(mod).filter((key) => key.startsWith('create')),
        ['createCursorAcp'],
      )
      const { sdk, language, factory } = await host.language('cursor-acp', 'auto')
      assert.equal(factory, 'createCursorAcp')
      assert.equal(sdk.modelId, 'auto')
      assert.equal(language.modelId, 'auto')
      assert.equal(language.provider, 'cursor-acp')
    } finally {
      await cleanup()
    }
  })

  it("a project's settings in OpenCode 2's merged options never pick the program nor add --force", async () => {
    const logDir = join(scratch, 'project-settings-log')
    const marker = join(scratch, 'planted-ran')
    const planted = join(workspace, 'planted-agent.sh')
    writeFileSync(planted, `#!/bin/sh\necho ran > '${marker}'\n`, { mode: 0o755 })
    const { host, cleanup } = await started({
      FAKE_CURSOR_LOG_DIR: logDir,
      FAKE_CURSOR_STREAM: 'text:ok',
      CURSOR_ACP_FORCE: 'false',
    })
    try {
      // What OpenCode 2 merges into the provider's settings from the project's opencode.json.
      await host.ctx.provider.transform((editor: any) =>
        editor.update('cursor-acp', (info: any) => {
          info.settings = { ...info.settings, executable: planted, force: true, capture: true }
        }),
      )
      const { sdk, language } = await host.language('cursor-acp', 'auto')
      for (const model of [sdk, language]) {
        const headers = requestHeaders({ id: `ses_project_${model === sdk ? 'sdk' : 'hook'}` })
        const parts = await collect((await model.doStream({ prompt: userPrompt('hi'), headers } as any)).stream)
        const warnings = parts[0].warnings.map((warning: any) => warning.message).join('\n')
        for (const key of ['executable', 'force', 'capture'])
          assert.match(warnings, new RegExp(`Provider option ${key}=.* ignored`), key)
      }
      assert.equal(existsSync(marker), false, 'the planted program never ran')
      const runs = invocations(logDir)
      assert.equal(runs.length, 2, "the user's cursor-agent answered both")
      for (const run of runs) assert.equal(run.argv.includes('--force'), false, run.argv.join(' '))
    } finally {
      await cleanup()
    }
  })

  it('the stored key reaches cursor-agent as CURSOR_API_KEY, through both the module and the hook', async () => {
    const logDir = join(scratch, 'key-log')
    const { host, cleanup } = await started({ FAKE_CURSOR_LOG_DIR: logDir, FAKE_CURSOR_STREAM: 'text:ok' })
    try {
      const { sdk, language } = await host.language('cursor-acp', 'auto', 'key-from-opencode2')
      for (const model of [sdk, language]) {
        const headers = requestHeaders({ id: `ses_key_${model === sdk ? 'sdk' : 'hook'}` })
        await collect((await model.doStream({ prompt: userPrompt('hi'), headers } as any)).stream)
      }
      const hash = createHash('sha256').update('key-from-opencode2').digest('hex')
      assert.deepEqual(
        invocations(logDir).map((record) => record.apiKeySha256),
        [hash, hash],
      )
    } finally {
      await cleanup()
    }
  })

  it('keys Cursor chats by x-opencode-session-id: a subagent never resumes its parent', async () => {
    const logDir = join(scratch, 'resume-log')
    const { host, cleanup } = await started({
      CURSOR_ACP_SESSION_RESUME: 'true',
      FAKE_CURSOR_LOG_DIR: logDir,
      FAKE_CURSOR_STREAM: 'text:First answer.',
    })
    try {
      const { language } = await host.language('cursor-acp', 'auto')
      const child = requestHeaders({ id: 'ses_child', parentID: 'ses_parent' })
      const parent = requestHeaders({ id: 'ses_parent' })
      await collect((await language.doStream({ prompt: userPrompt('start'), headers: child } as any)).stream)
      const history = [
        ...userPrompt('start'),
        { role: 'assistant', content: [{ type: 'text', text: 'First answer.' }] },
        ...userPrompt('go on'),
      ]
      await collect((await language.doStream({ prompt: history, headers: parent } as any)).stream)
      await collect((await language.doStream({ prompt: history, headers: child } as any)).stream)
      const [first, parentTurn, childTurn] = invocations(logDir)
      assert.ok(!parentTurn.argv.includes('--resume'), 'the parent resumed the subagent’s chat')
      assert.ok(childTurn.argv.includes('--resume'), 'the subagent did not resume its own chat')
      assert.ok(!first.argv.includes('--resume'))
    } finally {
      await cleanup()
    }
  })

  it('cancel() on the stream (no abort signal) stops cursor-agent’s process group', async () => {
    const logDir = join(scratch, 'cancel-log')
    const { host, cleanup } = await started({ FAKE_CURSOR_LOG_DIR: logDir, FAKE_CURSOR_SCENARIO: 'long' })
    try {
      const { language } = await host.language('cursor-acp', 'auto')
      const call = { prompt: userPrompt('work'), headers: requestHeaders({ id: 'ses_cancel' }) }
      const { stream } = await language.doStream(call as any)
      const reader = stream.getReader()
      for (;;) {
        const { done, value } = await reader.read()
        assert.equal(done, false, 'the long run ended by itself')
        if (value.type === 'text-delta') break
      }
      await reader.cancel()
      const [record] = invocations(logDir)
      assert.ok(await waitFor(() => !isAlive(record.pid) && !isAlive(record.grandchildPid), 20_000))
    } finally {
      await cleanup()
    }
  })

  it("shows Cursor's own calls in OpenCode 2's tool names and inputs", async () => {
    const logDir = join(scratch, 'tools-log')
    const { host, cleanup } = await started({
      FAKE_CURSOR_LOG_DIR: logDir,
      FAKE_CURSOR_STREAM: 'maestro/02_shell_tool_call.jsonl',
    })
    try {
      const { language } = await host.language('cursor-acp', 'auto')
      const call = { prompt: userPrompt('use a tool'), headers: requestHeaders({ id: 'ses_tools' }) }
      const parts = await collect((await language.doStream(call as any)).stream)
      const calls = parts.filter((part) => part.type === 'tool-call')
      assert.ok(calls.length > 0)
      for (const part of calls) {
        assert.equal(part.toolName, 'shell')
        assert.equal(part.providerExecuted, true)
        const input = JSON.parse(part.input)
        assert.equal(typeof input.command, 'string')
      }
      for (const part of parts.filter((part) => part.type === 'tool-result')) assert.equal(part.toolName, 'shell')
      assert.notEqual(parts.at(-1).finishReason.unified, 'other')
    } finally {
      await cleanup()
    }
  })

  it('a failed run is an error OpenCode 2 is told not to retry', async () => {
    const logDir = join(scratch, 'auth-log')
    const { host, cleanup } = await started({ FAKE_CURSOR_LOG_DIR: logDir, FAKE_CURSOR_SCENARIO: 'auth' })
    try {
      const { language } = await host.language('cursor-acp', 'auto')
      const call = { prompt: userPrompt('hi'), headers: requestHeaders({ id: 'ses_auth' }) }
      const parts = await collect((await language.doStream(call as any)).stream)
      const error = parts.find((part) => part.type === 'error').error
      assert.equal(error.code, 'E_AUTH')
      assert.equal(error.isRetryable, false)
      assert.equal(parts.at(-1).finishReason.unified, 'error')
      const model = host.state().providers.get('cursor-acp')!.models[0]
      assert.deepEqual((await host.run('session', 'retry', { model, error })).decision, { retry: false })
      assert.equal(invocations(logDir).length, 1)
    } finally {
      await cleanup()
    }
  })

  it('a compaction announced by the hook runs alone, once per message of the user', async () => {
    const logDir = join(scratch, 'compaction-log')
    const { host, cleanup } = await started({ FAKE_CURSOR_LOG_DIR: logDir, FAKE_CURSOR_STREAM: 'text:Summary.' })
    try {
      const { language } = await host.language('cursor-acp', 'auto')
      const model = host.state().providers.get('cursor-acp')!.models[0]
      const headers = requestHeaders({ id: 'ses_compact' })
      const tools = [{ type: 'function', name: 'read', inputSchema: { type: 'object', properties: {} } }]
      await collect((await language.doStream({ prompt: userPrompt('a message'), headers, tools } as any)).stream)
      const compaction = async () => {
        await host.run('session', 'compaction', { sessionID: 'ses_compact', model })
        const prompt = userPrompt('Summarize the conversation so far in OpenCode 2 words.')
        return collect((await language.doStream({ prompt, headers } as any)).stream)
      }
      const once = await compaction()
      assert.equal(once.at(-1).finishReason.unified, 'stop')
      const again = await compaction()
      assert.equal(again.find((part) => part.type === 'error')?.error.code, 'E_AUTOMATIC_LIMIT')
      assert.equal(invocations(logDir).length, 2, 'the refused compaction ran cursor-agent')
    } finally {
      await cleanup()
    }
  })
})

describe('held tool-mode runs in OpenCode 2', () => {
  const tools = [
    {
      type: 'function',
      name: 'get_weather',
      description: 'The weather of a city',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  ]
  const script = JSON.stringify([
    { text: 'Looking it up.' },
    { calls: [{ tool: 'get_weather', args: { city: 'Paris' } }] },
    { text: 'The weather in Paris: {{result:0}}' },
  ])

  /** Starts a run that hands a call over, cancels its ended stream, and returns the run's record. */
  async function heldRun(host: Host, logDir: string, session: string): Promise<any> {
    const { language } = await host.language('cursor-acp', 'auto')
    const call = { prompt: userPrompt('weather?'), headers: requestHeaders({ id: session }), tools }
    const reader = (await language.doStream(call as any)).stream.getReader()
    for (;;) {
      const { done, value } = await reader.read()
      assert.equal(done, false, 'the response ended without a tool-calls finish')
      if (value.type === 'finish') {
        assert.equal(value.finishReason.unified, 'tool-calls')
        break
      }
    }
    // OpenCode 2 ends the step by cancelling the stream it read: the run waits on.
    await reader.cancel()
    const [record] = invocations(logDir)
    return record
  }

  for (const type of [
    'session.execution.succeeded',
    'session.execution.failed',
    'session.execution.interrupted',
    'session.deleted',
  ]) {
    it(`outlives the cancel of its ended stream, and ${type} cancels it`, async () => {
      const logDir = join(scratch, `held-${type}`)
      const { host, cleanup } = await started({
        CURSOR_ACP_TOOL_MODE: 'opencode',
        FAKE_CURSOR_SCENARIO: 'mcp',
        FAKE_CURSOR_LOG_DIR: logDir,
        FAKE_CURSOR_MCP_SCRIPT: script,
      })
      try {
        const session = `ses_${type.replaceAll('.', '_')}`
        const record = await heldRun(host, logDir, session)
        host.emit('session.execution.started', { sessionID: session })
        host.emit('session.execution.succeeded', { sessionID: 'ses_someone_else' })
        await new Promise((settle) => setTimeout(settle, 300))
        assert.ok(isAlive(record.pid), 'the held run was stopped before its session ended')
        host.emit(type, { sessionID: session })
        assert.ok(await waitFor(() => !isAlive(record.pid), 20_000), `${type} left the held run alive`)
      } finally {
        await cleanup()
      }
    })
  }
})

describe("OpenCode 2's interrupts stop the turn in progress", () => {
  /** A long run of `session` streaming its first text; the fake's record of it. */
  async function running(host: Host, logDir: string, session: string) {
    const { language } = await host.language('cursor-acp', 'auto')
    const { stream } = await language.doStream({
      prompt: userPrompt('work'),
      headers: requestHeaders({ id: session }),
    } as any)
    const reader = stream.getReader()
    for (;;) {
      const { done, value } = await reader.read()
      assert.equal(done, false, 'the long run ended by itself')
      if (value.type === 'text-delta') break
    }
    const [record] = invocations(logDir)
    return { record, reader }
  }

  for (const type of ['session.execution.interrupted', 'session.deleted'])
    it(`${type} ends the session's running cursor-agent and its process group; other sessions' runs go on`, async () => {
      const logDir = join(scratch, `running-${type}`)
      const { host, cleanup } = await started({ FAKE_CURSOR_LOG_DIR: logDir, FAKE_CURSOR_SCENARIO: 'long' })
      try {
        const session = `ses_run_${type.replaceAll('.', '_')}`
        const { record, reader } = await running(host, logDir, session)
        assert.ok(groupMembers(record.pgid).includes(record.grandchildPid), 'the agent and its child run')
        // Another session's interrupt, and this session's ordinary end of execution, leave it running.
        host.emit(type, { sessionID: 'ses_someone_else' })
        host.emit('session.execution.succeeded', { sessionID: session })
        await new Promise((settle) => setTimeout(settle, 300))
        assert.ok(isAlive(record.pid), 'stopped by an event that was not its interrupt')
        host.emit(type, { sessionID: session })
        assert.ok(
          await waitFor(() => groupMembers(record.pgid).length === 0, 30_000, 20),
          `group ${record.pgid} still runs ${groupMembers(record.pgid)}`,
        )
        await reader.cancel()
      } finally {
        await cleanup()
      }
    })

  it('an interrupt after the turn ended touches nothing, and the next turn of the session runs', async () => {
    const logDir = join(scratch, 'running-ended')
    const { host, cleanup } = await started({ FAKE_CURSOR_LOG_DIR: logDir, FAKE_CURSOR_STREAM: 'text:All done.' })
    try {
      const { language } = await host.language('cursor-acp', 'auto')
      const call = { prompt: userPrompt('quick'), headers: requestHeaders({ id: 'ses_ended' }) }
      const first = await collect((await language.doStream(call as any)).stream)
      assert.ok(first.some((part) => part.type === 'text-delta'))
      host.emit('session.execution.interrupted', { sessionID: 'ses_ended' })
      await new Promise((settle) => setTimeout(settle, 100))
      const second = await collect((await language.doStream(call as any)).stream)
      assert.equal(
        second
          .filter((part) => part.type === 'text-delta')
          .map((part) => part.delta)
          .join(''),
        'All done.',
      )
    } finally {
      await cleanup()
    }
  })
})

describe('a registration-only setup context', () => {
  it('registers nothing, throws nothing, and leaves the provider to the 1.x server path', async () => {
    useEnv({})
    const plugin = await loadPlugin(entry)
    const host = createHost({ directory: workspace, project: { id: 'prj_test', worktree: workspace } })
    // What later 1.x hosts that boot OpenCode 2's core hand a dual export's setup: only the
    // registration services (no location, provider, model, tool, session, event).
    const registrationOnly: Record<string, unknown> = {
      agent: {},
      aisdk: host.ctx.aisdk,
      catalog: {},
      command: {},
      integration: host.ctx.integration,
      plugin: {},
      reference: {},
      skill: {},
    }
    const cleanup = (await plugin.setup(registrationOnly as any)) as () => Promise<void>
    assert.equal(typeof cleanup, 'function')
    const state = host.state()
    assert.equal(state.integrations.size, 0, 'no integration registered half-way')
    assert.equal(state.providers.size, 0)
    assert.equal(host.hooks.length, 0)
    await cleanup()
    // The 1.x path in the same process still serves the provider.
    const mod = await import(pathToFileURL(entry).href)
    const hooks = await mod.default.server({ directory: workspace, worktree: workspace } as any)
    const config: Record<string, any> = {}
    await hooks.config?.(config)
    assert.ok(config.provider?.['cursor-acp'] !== undefined, 'the 1.x server path registered cursor-acp')
  })
})

describe('a set-up OpenCode 2 cannot use', () => {
  it("registers Cursor's automatic model alone, with the limits the addon gives it", async () => {
    const { host, cleanup } = await started({ CURSOR_ACP_WORKSPACE: join(scratch, 'no-such-folder') })
    try {
      const models = host.state().providers.get('cursor-acp')!.models
      const auto = require('../index.js').describeCursorModel('auto', 'Auto')
      assert.deepEqual(
        models.map((model) => [model.id, model.limit.context, model.limit.output]),
        [['auto', auto.contextWindow, auto.maxOutputTokens]],
      )
      assert.ok(auto.contextWindow > 0)
    } finally {
      await cleanup()
    }
  })
})

describe("OpenCode 2's Code Mode", () => {
  it('its execute tool is offered to Cursor as it is, and a call of it is handed over as it is', async () => {
    const execute = {
      type: 'function',
      name: 'execute',
      description: 'Run TypeScript that calls the tools in the sandbox',
      inputSchema: {
        type: 'object',
        properties: { code: { type: 'string', description: 'The program' } },
        required: ['code'],
      },
    }
    const logDir = join(scratch, 'code-mode')
    const { host, cleanup } = await started({
      CURSOR_ACP_TOOL_MODE: 'opencode',
      FAKE_CURSOR_SCENARIO: 'mcp',
      FAKE_CURSOR_LOG_DIR: logDir,
      FAKE_CURSOR_MCP_SCRIPT: JSON.stringify([
        { calls: [{ tool: 'execute', args: { code: 'return await read({path: "a"})' } }] },
      ]),
    })
    try {
      const { language } = await host.language('cursor-acp', 'auto')
      const read = { type: 'function', name: 'read', description: 'Read a file', inputSchema: { type: 'object' } }
      const call = {
        prompt: userPrompt('run it'),
        headers: requestHeaders({ id: 'ses_code_mode' }),
        tools: [execute, read],
      }
      const reader = (await language.doStream(call as any)).stream.getReader()
      const parts: any[] = []
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        parts.push(value)
        if (value.type === 'finish') break
      }
      await reader.cancel()
      const handed = parts.find((part) => part.type === 'tool-call')
      assert.equal(handed?.toolName, 'execute')
      assert.deepEqual(JSON.parse(handed.input), { code: 'return await read({path: "a"})' })
      const [record] = invocations(logDir)
      const offered = record.mcpTools.find((tool: any) => tool.name === 'execute')
      assert.ok(offered !== undefined, 'execute is offered to Cursor')
      assert.deepEqual(offered.inputSchema, execute.inputSchema)
      // What the host knows its tools do reaches Cursor as MCP annotations; of `execute`, nothing.
      assert.equal(offered.annotations, null)
      const reading = record.mcpTools.find((tool: any) => tool.name === 'read')
      assert.deepEqual(reading.annotations, { readOnlyHint: true, openWorldHint: false })
      // The run waits for the call's result: the session's end lets it go.
      host.emit('session.deleted', { sessionID: 'ses_code_mode' })
      assert.ok(await waitFor(() => !isAlive(record.pid), 20_000), 'the held run was left alive')
    } finally {
      await cleanup()
    }
  })
})

describe('OpenCode 2 session events', () => {
  it('are read from data; other events and shapes cancel nothing', async () => {
    const { readSessionEvent } = await import('../plugin/opencode2/session-events.ts')
    const cases: [unknown, unknown][] = [
      [
        { type: 'session.execution.interrupted', data: { sessionID: 's1', reason: 'user' } },
        { kind: 'interrupted', sessionID: 's1' },
      ],
      [
        { type: 'session.deleted', data: { sessionID: 's2' } },
        { kind: 'interrupted', sessionID: 's2' },
      ],
      [
        { type: 'session.execution.succeeded', data: { sessionID: 's6' } },
        { kind: 'stopped', sessionID: 's6' },
      ],
      [{ type: 'session.execution.started', data: { sessionID: 's3' } }, { kind: 'ignored' }],
      [{ type: 'session.idle', properties: { sessionID: 's4' } }, { kind: 'ignored' }],
      [
        { type: 'session.deleted', properties: { info: { id: 's5' } } },
        { kind: 'malformed', field: 'data' },
      ],
      [
        { type: 'session.execution.failed', data: { sessionID: 7 } },
        { kind: 'malformed', field: 'data.sessionID' },
      ],
      ['not an event', { kind: 'ignored' }],
    ]
    for (const [event, reading] of cases) assert.deepEqual(readSessionEvent(event), reading, JSON.stringify(event))
  })
})

describe("OpenCode 2's view of Cursor's tools", () => {
  it('uses its tool dialect: shell, read {path}, subagent, no todowrite', async () => {
    const { openCode2ToolView: view } = await import('../plugin/opencode2/tool-view.ts')
    const rows: [
      kind: string,
      name: string,
      args: Record<string, unknown>,
      tool: string,
      input: Record<string, unknown>,
    ][] = [
      ['shellToolCall', 'shell', { command: 'ls', workingDirectory: '/w' }, 'shell', { command: 'ls', workdir: '/w' }],
      ['readToolCall', 'read', { path: '/w/a.ts', offset: 3 }, 'read', { path: '/w/a.ts', offset: 3 }],
      ['editToolCall', 'edit', { path: '/w/a.ts' }, 'edit', { path: '/w/a.ts' }],
      ['taskToolCall', 'task', { description: 'look around' }, 'subagent', { description: 'look around' }],
      ['updateTodosToolCall', 'updateTodos', { todos: [] }, 'updateTodos', { todos: [] }],
      ['mcpToolCall', 'lookup', { args: { q: 1 } }, 'srv_lookup', { q: 1 }],
      ['lsToolCall', 'ls', { path: '/w' }, 'glob', { path: '/w' }],
    ]
    for (const [kind, name, args, tool, input] of rows) {
      const cursor = kind === 'mcpToolCall' ? { kind, name, server: 'srv' } : { kind, name }
      assert.equal(view.toolName(cursor), tool, kind)
      assert.deepEqual(view.input(cursor, args as any), input, kind)
    }
  })

  it("names no tool OpenCode 2 lacks (bash, task, todowrite, list) for any of Cursor's tool kinds", async () => {
    const { OPENCODE2_RENDERINGS, OPENCODE1_ONLY_TOOLS } = await import('../plugin/opencode2/tool-view.ts')
    const { RENDERINGS } = await import('../plugin/opencode/tool-view.ts')
    assert.ok(
      [...RENDERINGS.values()].some((row) => OPENCODE1_ONLY_TOOLS.has(row.tool ?? '')),
      "1.18's table uses them",
    )
    for (const [kind, row] of OPENCODE2_RENDERINGS)
      assert.ok(!OPENCODE1_ONLY_TOOLS.has(row.tool ?? ''), `${kind} shows as ${row.tool}`)
  })
})
