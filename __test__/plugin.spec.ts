// The TypeScript host: settings, workspace choice, provider block merging, local titles, the
// plugin's config hook and the provider over the fake cursor-agent. Runs under Node and Bun.
// Expected values come from docs/configuration.md and docs/install.md, written out here.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { after, describe, test } from 'node:test'
import { fileURLToPath, pathToFileURL } from 'node:url'

import { captureExpectation } from './support/captures.ts'
import { isAlive, waitFor } from './support/process.ts'
import { userProvider } from './support/user-options.ts'
import { collect } from './support/stream.ts'
import { withEnv } from './support/env.ts'
import type { StreamPart } from '../index.js'

const repo = resolve(__dirname, '..')
const fakeAgent = join(repo, '__test__', 'support', 'agents', 'fake-cursor-agent.mjs')
const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'plugin-spec-')))
after(() => rmSync(scratch, { recursive: true, force: true }))

const load = {
  env: () => import('../plugin/turn/env.ts'),
  workspace: () => import('../plugin/turn/workspace.ts'),
  config: () => import('../plugin/opencode/provider-block.ts'),
  title: () => import('../plugin/turn/title.ts'),
  models: () => import('../plugin/turn/models.ts'),
  provider: () => import('../plugin/opencode/provider.ts'),
  turn: () => import('../plugin/turn/turn.ts'),
  toolBridge: () => import('../plugin/turn/tool-bridge.ts'),
  /** The compiled entry OpenCode loads (`exports["./server"]`); needs `npm run build:plugin`. */
  server: async (): Promise<typeof import('../plugin/opencode/server.ts')> => {
    const entry = join(repo, 'dist', 'plugin', 'opencode', 'server.js')
    assert.ok(existsSync(entry), `${entry} is missing: run \`npm run build:plugin\` first`)
    return import(pathToFileURL(entry).href)
  },
}

describe('settings from the environment', () => {
  test('defaults as docs/configuration.md documents them', async () => {
    const { readSettings } = await load.env()
    assert.deepEqual(readSettings({}), {
      settings: {
        force: true,
        sessionResume: false,
        toolMode: 'cursor',
        toolWaitMs: 600000,
        toolDeadlineMs: 45000,
        idleTimeoutMs: 1800000,
        timeoutMs: 0,
        capture: false,
        capturePrompt: false,
        captureMaxBytes: 209715200,
      },
      warnings: [],
    })
  })

  test('switches use the one parser; numbers and names are validated', async () => {
    const { readSettings } = await load.env()
    const { settings, warnings } = readSettings({
      CURSOR_ACP_FORCE: 'Off',
      CURSOR_ACP_SESSION_RESUME: ' yes ',
      CURSOR_ACP_IDLE_TIMEOUT_MS: '12s',
      CURSOR_ACP_TIMEOUT_MS: '1500',
      CURSOR_ACP_TOOL_MODE: 'OpenCode',
      CURSOR_ACP_TOOL_WAIT_MS: '2500',
      CURSOR_ACP_TOOL_DEADLINE_MS: '90000',
      CURSOR_ACP_LOG_LEVEL: 'DEBUG',
      CURSOR_ACP_LOG_FILE: '/var/log/cursor.log',
      CURSOR_AGENT_EXECUTABLE: '/opt/cursor-agent',
      CURSOR_ACP_WORKSPACE: '/srv/project',
      CURSOR_ACP_CAPTURE: 'on',
      CURSOR_ACP_CAPTURE_PROMPT: 'TRUE',
      CURSOR_ACP_CAPTURE_MAX_BYTES: '1048576',
    })
    assert.deepEqual(settings, {
      force: false,
      sessionResume: true,
      toolMode: 'opencode',
      toolWaitMs: 2500,
      toolDeadlineMs: 55000,
      idleTimeoutMs: 1800000,
      timeoutMs: 1500,
      logLevel: 'debug',
      logFile: '/var/log/cursor.log',
      executable: '/opt/cursor-agent',
      workspace: '/srv/project',
      capture: true,
      capturePrompt: true,
      captureMaxBytes: 1048576,
    })
    assert.equal(warnings.length, 1)
    assert.match(warnings[0]!, /CURSOR_ACP_IDLE_TIMEOUT_MS="12s"/)
    const unknown = readSettings({ CURSOR_ACP_TOOL_MODE: 'mcp' })
    assert.equal(unknown.settings.toolMode, 'cursor')
    assert.match(unknown.warnings[0]!, /CURSOR_ACP_TOOL_MODE="mcp" is not one of cursor, opencode/)
  })

  test('an unknown switch value keeps the default; log level off means no logging', async () => {
    const { readSettings } = await load.env()
    const { settings, warnings } = readSettings({ CURSOR_ACP_FORCE: 'maybe', CURSOR_ACP_LOG_LEVEL: 'off' })
    assert.equal(settings.force, true)
    assert.equal(settings.logLevel, undefined)
    assert.deepEqual(warnings, [])
    assert.equal(readSettings({ CURSOR_ACP_LOG_LEVEL: 'loud' }).warnings.length, 1)
  })

  test('captures: a bad CURSOR_ACP_CAPTURE_MAX_BYTES warns and keeps 200 MiB; the folder follows the data folder', async () => {
    const { captureFolder, readSettings } = await load.env()
    // A size is a whole number of bytes from 1 up (the addon's range for `capture.maxBytes`).
    for (const bad of ['0', '-5', '1.5', '10MB', '1e6', '0x100', '9007199254740992']) {
      const { settings, warnings } = readSettings({ CURSOR_ACP_CAPTURE_MAX_BYTES: bad })
      assert.equal(settings.captureMaxBytes, 200 * 1024 * 1024, bad)
      assert.deepEqual(
        warnings,
        [`CURSOR_ACP_CAPTURE_MAX_BYTES=${JSON.stringify(bad)} is not a whole number of bytes; using 209715200.`],
        bad,
      )
    }
    assert.equal(readSettings({ CURSOR_ACP_CAPTURE_MAX_BYTES: ' 1 ' }).settings.captureMaxBytes, 1)
    // Switches use the one parser: an unknown word keeps the default, without a warning.
    const unknown = readSettings({ CURSOR_ACP_CAPTURE: 'maybe', CURSOR_ACP_CAPTURE_PROMPT: 'maybe' })
    assert.deepEqual([unknown.settings.capture, unknown.settings.capturePrompt, unknown.warnings], [false, false, []])
    assert.equal(readSettings({ CURSOR_ACP_CAPTURE: 'off' }).settings.capture, false)
    if (process.platform === 'linux') {
      assert.equal(
        captureFolder({ XDG_DATA_HOME: '/srv/data', HOME: '/home/u' }),
        '/srv/data/opencode-cursor-native/captures',
      )
      assert.equal(captureFolder({ HOME: '/home/u' }), '/home/u/.local/share/opencode-cursor-native/captures')
    }
  })
})

describe('the environment cursor-agent receives (CURSOR_ACP_CHILD_ENV)', () => {
  // The host's environment as a test sees it: every base-list kind, look-alikes and a secret.
  const host: Record<string, string | undefined> = {
    PATH: '/usr/bin:/bin',
    HOME: '/home/u',
    USER: 'u',
    LOGNAME: 'u',
    SHELL: '/bin/bash',
    TERM: 'xterm',
    LANG: 'C.UTF-8',
    LC_ALL: 'C',
    LC_TIME: 'C',
    TZ: 'UTC',
    TMPDIR: '/tmp',
    XDG_DATA_HOME: '/home/u/.local/share',
    HTTP_PROXY: 'http://proxy:1',
    https_proxy: 'http://proxy:2',
    No_Proxy: 'localhost',
    SSL_CERT_FILE: '/etc/ssl/cert.pem',
    SSL_CERT_DIR: '/etc/ssl/certs',
    NODE_EXTRA_CA_CERTS: '/etc/ssl/extra.pem',
    CURSOR_API_KEY: 'key',
    CURSOR_ACP_LOG_LEVEL: 'warn',
    AWS_SECRET_ACCESS_KEY: 'secret',
    AWS_REGION: 'eu-west-1',
    GITHUB_TOKEN: 'token',
    path: 'lower-case path is another variable',
    XDG: 'no underscore, no prefix match',
    LANGUAGE: 'not LANG',
    SYSTEMROOT: 'C:\\Windows',
    UNSET: undefined,
  }
  const base = [
    'CURSOR_ACP_LOG_LEVEL',
    'CURSOR_API_KEY',
    'HOME',
    'HTTP_PROXY',
    'LANG',
    'LC_ALL',
    'LC_TIME',
    'LOGNAME',
    'NODE_EXTRA_CA_CERTS',
    'No_Proxy',
    'PATH',
    'SHELL',
    'SSL_CERT_DIR',
    'SSL_CERT_FILE',
    'TERM',
    'TMPDIR',
    'TZ',
    'USER',
    'XDG_DATA_HOME',
    'https_proxy',
  ]
  const names = (env: Record<string, string>) => Object.keys(env).sort()

  test('the value is read as all, minimal or a list of names and PREFIX_* patterns; bad entries warn', async () => {
    const { readSettings } = await load.env()
    assert.equal(readSettings({}).settings.childEnv, undefined)
    assert.equal(readSettings({ CURSOR_ACP_CHILD_ENV: ' All ' }).settings.childEnv, 'all')
    assert.equal(readSettings({ CURSOR_ACP_CHILD_ENV: 'MINIMAL' }).settings.childEnv, 'minimal')
    const { settings, warnings } = readSettings({ CURSOR_ACP_CHILD_ENV: 'AWS_*, GITHUB_TOKEN,,bad-name, *, A*B' })
    assert.deepEqual(settings.childEnv, ['AWS_*', 'GITHUB_TOKEN'])
    assert.deepEqual(warnings, [
      'CURSOR_ACP_CHILD_ENV entry "bad-name" is not a variable name or a PREFIX_* pattern; ignored.',
      'CURSOR_ACP_CHILD_ENV entry "*" is not a variable name or a PREFIX_* pattern; ignored.',
      'CURSOR_ACP_CHILD_ENV entry "A*B" is not a variable name or a PREFIX_* pattern; ignored.',
    ])
  })

  test('minimal passes exactly the base list; proxies in any case, the rest by exact name', async () => {
    const { childEnvironment } = await load.env()
    const child = childEnvironment(host, { toolMode: 'cursor', childEnv: 'minimal' }, 'linux')
    assert.deepEqual(names(child), base)
    assert.equal(child.PATH, '/usr/bin:/bin')
    assert.equal(child.https_proxy, 'http://proxy:2')
  })

  test('a list adds its names and prefixes to the base list', async () => {
    const { childEnvironment } = await load.env()
    const child = childEnvironment(host, { toolMode: 'cursor', childEnv: ['AWS_*', 'LANGUAGE'] }, 'linux')
    assert.deepEqual(names(child), [...base, 'AWS_REGION', 'AWS_SECRET_ACCESS_KEY', 'LANGUAGE'].sort())
    assert.ok(!('GITHUB_TOKEN' in child))
  })

  test("all, and the cursor tool mode's default, pass every variable that has a value", async () => {
    const { childEnvironment, readSettings } = await load.env()
    const everything = Object.keys(host)
      .filter((name) => host[name] !== undefined)
      .sort()
    assert.deepEqual(names(childEnvironment(host, { toolMode: 'cursor', childEnv: 'all' }, 'linux')), everything)
    assert.deepEqual(names(childEnvironment(host, readSettings({}).settings, 'linux')), everything)
    // A mode without a default of its own gets the base list, never more.
    assert.deepEqual(names(childEnvironment(host, { toolMode: 'opencode' as never }, 'linux')), base)
  })

  test('on Windows names match in any case and the system variables a program needs are kept', async () => {
    const { childEnvironment } = await load.env()
    const child = childEnvironment(
      { Path: 'C:\\bin', SystemRoot: 'C:\\Windows', ComSpec: 'cmd.exe', SECRET: 's' },
      { toolMode: 'cursor', childEnv: 'minimal' },
      'win32',
    )
    assert.deepEqual(names(child), ['ComSpec', 'Path', 'SystemRoot'])
  })

  test('a turn hands cursor-agent the chosen environment', async () => {
    const { resolveTurnConfig, startTurn } = await load.turn()
    const workspace = join(scratch, 'child-env-ws')
    const logDir = join(scratch, 'child-env-log')
    mkdirSync(workspace, { recursive: true })
    const secret = { UNRELATED_SECRET: 'do-not-pass', FAKE_CURSOR_LOG_DIR: logDir, FAKE_CURSOR_STREAM: 'text:ok' }
    const runWith = (childEnv: string | undefined) =>
      withEnv({ ...secret, CURSOR_ACP_CHILD_ENV: childEnv }, async () => {
        const config = resolveTurnConfig({ workspace, executable: fakeAgent }, false)
        assert.equal(config.problem, null)
        const turn = startTurn(
          config,
          { model: 'auto', messages: [{ role: 'user', content: 'hi' }] as never },
          { format: 'openai-sse', includeUsage: true },
          () => {},
        )
        assert.equal((await turn.done)?.error, undefined)
        const [file] = readdirSync(logDir)
        const { envNames } = JSON.parse(readFileSync(join(logDir, file!), 'utf8'))
        rmSync(logDir, { recursive: true, force: true })
        return envNames as string[]
      })
    const minimal = await runWith('FAKE_CURSOR_*')
    assert.ok(!minimal.includes('UNRELATED_SECRET'))
    assert.ok(minimal.includes('PATH') && minimal.includes('FAKE_CURSOR_LOG_DIR'))
    const allowed = (name: string) =>
      base.includes(name) || /^(LC_|XDG_|CURSOR_|FAKE_CURSOR_)/.test(name) || /^(https?|no)_proxy$/i.test(name)
    assert.deepEqual(
      minimal.filter((name) => !allowed(name)),
      [],
    )
    const everything = await runWith(undefined)
    assert.ok(everything.includes('UNRELATED_SECRET'))
  })

  test('NODE_OPTIONS never reaches cursor-agent, even when the chosen environment names it', async () => {
    const { resolveTurnConfig, startTurn } = await load.turn()
    const workspace = join(scratch, 'node-options-ws')
    const logDir = join(scratch, 'node-options-log')
    mkdirSync(workspace, { recursive: true })
    // A flag Node refuses in NODE_OPTIONS: the fake agent (a Node script) would not start with it.
    const refused = '--not-a-flag-node-allows'
    for (const childEnv of [undefined, 'NODE_OPTIONS,FAKE_CURSOR_*']) {
      const envNames = await withEnv(
        {
          FAKE_CURSOR_LOG_DIR: logDir,
          FAKE_CURSOR_STREAM: 'text:ok',
          NODE_OPTIONS: refused,
          CURSOR_ACP_CHILD_ENV: childEnv,
        },
        async () => {
          const turn = startTurn(
            resolveTurnConfig({ workspace, executable: fakeAgent }, false),
            { model: 'auto', messages: [{ role: 'user', content: 'hi' }] as never },
            { format: 'ai-sdk' },
            () => {},
          )
          const result = await turn.done
          assert.equal(result?.error, undefined, JSON.stringify(result?.error))
          const [file] = readdirSync(logDir)
          const { envNames } = JSON.parse(readFileSync(join(logDir, file!), 'utf8'))
          rmSync(logDir, { recursive: true, force: true })
          return envNames as string[]
        },
      )
      assert.ok(envNames.includes('FAKE_CURSOR_LOG_DIR'), `${childEnv}: ${envNames}`)
      assert.ok(!envNames.includes('NODE_OPTIONS'), `${childEnv}: ${envNames}`)
    }
  })

  test("the API key OpenCode hands over reaches cursor-agent as CURSOR_API_KEY, over the environment's", async () => {
    const { resolveTurnConfig, startTurn } = await load.turn()
    const workspace = join(scratch, 'api-key-ws')
    const logDir = join(scratch, 'api-key-log')
    mkdirSync(workspace, { recursive: true })
    const sha = (text: string) => createHash('sha256').update(text).digest('hex')
    const keyOf = (options: Record<string, unknown>) =>
      withEnv(
        { FAKE_CURSOR_LOG_DIR: logDir, FAKE_CURSOR_STREAM: 'text:ok', CURSOR_API_KEY: 'key-from-the-environment' },
        async () => {
          const turn = startTurn(
            resolveTurnConfig({ workspace, executable: fakeAgent, ...options }, false),
            { model: 'auto', messages: [{ role: 'user', content: 'hi' }] as never },
            { format: 'ai-sdk' },
            () => {},
          )
          assert.equal((await turn.done)?.error, undefined)
          const [file] = readdirSync(logDir)
          const logged = readFileSync(join(logDir, file!), 'utf8')
          rmSync(logDir, { recursive: true, force: true })
          return { sha: JSON.parse(logged).apiKeySha256 as string | undefined, logged }
        },
      )
    const stored = await keyOf({ apiKey: 'key-stored-in-opencode' })
    assert.equal(stored.sha, sha('key-stored-in-opencode'))
    assert.ok(!stored.logged.includes('key-stored-in-opencode'))
    assert.equal((await keyOf({})).sha, sha('key-from-the-environment'), 'without one, the environment decides')
    assert.equal((await keyOf({ apiKey: '  ' })).sha, sha('key-from-the-environment'), 'a blank key is none')
  })
})

describe('workspace choice', () => {
  const home = join(scratch, 'home')
  const project = join(scratch, 'project')
  const nested = join(project, 'packages', 'app')
  const elsewhere = join(scratch, 'elsewhere')
  const openCodeConfig = join(home, '.config', 'opencode')
  for (const folder of [nested, elsewhere, openCodeConfig]) mkdirSync(folder, { recursive: true })

  test('the worktree when it contains the directory, else the directory', async () => {
    const { pickWorkspace } = await load.workspace()
    assert.equal(pickWorkspace({ worktree: project, directory: nested, home }), project)
    assert.equal(pickWorkspace({ worktree: project, directory: elsewhere, home }), elsewhere)
    assert.equal(pickWorkspace({ worktree: '/', directory: nested, home }), nested)
  })

  test("the root and OpenCode's config folder are skipped", async () => {
    const { pickWorkspace } = await load.workspace()
    assert.equal(pickWorkspace({ worktree: openCodeConfig, directory: openCodeConfig, home }), home)
    assert.equal(pickWorkspace({ worktree: '/', directory: '/', home }), home)
  })

  test('CURSOR_ACP_WORKSPACE wins, and a refused value is E_INVALID_ARG', async () => {
    const { pickWorkspace } = await load.workspace()
    assert.equal(pickWorkspace({ explicit: elsewhere, worktree: project, directory: nested, home }), elsewhere)
    for (const explicit of ['/', openCodeConfig, 'relative/path', join(scratch, 'missing')]) {
      assert.throws(() => pickWorkspace({ explicit, worktree: project, directory: nested, home }), {
        code: 'E_INVALID_ARG',
      })
    }
  })
})

describe('provider block merging', () => {
  const ours = {
    name: 'Cursor',
    npm: 'file:///pkg/dist/plugin/provider.js',
    options: { workspace: '/w', force: true },
    models: { auto: { name: 'Auto' }, 'sonnet-4.6': { name: 'Sonnet 4.6' } },
  }

  test('no block: ours', async () => {
    const { mergeProviderBlock } = await load.config()
    assert.deepEqual(mergeProviderBlock(undefined, ours), ours)
  })

  test('a hand-written block with its own npm is left alone', async () => {
    const { mergeProviderBlock } = await load.config()
    const mine = {
      npm: '@ai-sdk/openai-compatible',
      options: { baseURL: 'http://127.0.0.1:9999/v1' },
      models: { x: { name: 'X' } },
    }
    assert.deepEqual(mergeProviderBlock(mine, ours), mine)
  })

  test('a block without npm is completed; the user options and models win', async () => {
    const { mergeProviderBlock } = await load.config()
    const mine = { options: { force: false }, models: { auto: { name: 'My Auto' } } }
    assert.deepEqual(mergeProviderBlock(mine, ours), {
      name: 'Cursor',
      npm: ours.npm,
      options: { workspace: '/w', force: false },
      models: { auto: { name: 'My Auto' } },
    })
  })

  test("each model's limits and reasoning reach OpenCode; attachment stays off", async () => {
    const { modelsBlock } = await load.config()
    const models = [
      {
        id: 'sonnet-4.6-thinking',
        name: 'Claude 4.6 Sonnet (Thinking)',
        contextWindow: 200_000,
        maxOutputTokens: 128_000,
        reasoning: true,
        pictures: true,
      },
      {
        id: 'mystery',
        name: 'Mystery',
        contextWindow: 64_000,
        maxOutputTokens: 8_000,
        reasoning: false,
        pictures: false,
      },
    ]
    assert.deepEqual(modelsBlock(models), {
      'sonnet-4.6-thinking': {
        name: 'Claude 4.6 Sonnet (Thinking)',
        limit: { context: 200_000, output: 128_000 },
        reasoning: true,
        attachment: true,
        modalities: { input: ['text', 'image'], output: ['text'] },
      },
      mystery: {
        name: 'Mystery',
        limit: { context: 64_000, output: 8_000 },
        reasoning: false,
        attachment: false,
        modalities: { input: ['text'], output: ['text'] },
      },
    })
  })

  test("the user's models keep the plugin's limits unless they set their own", async () => {
    const { mergeProviderBlock } = await load.config()
    const limited = {
      ...ours,
      models: {
        auto: { name: 'Auto', limit: { context: 200_000, output: 32_000 }, reasoning: true },
        'sonnet-4.6': { name: 'Sonnet 4.6', limit: { context: 200_000, output: 128_000 }, reasoning: false },
      },
    }
    const mine = {
      models: {
        auto: { name: 'My Auto' },
        'sonnet-4.6': { name: 'Sonnet', limit: { context: 100_000, output: 4_000 } },
        other: { name: 'Other' },
      },
    }
    assert.deepEqual(mergeProviderBlock(mine, limited).models, {
      auto: { name: 'My Auto', limit: { context: 200_000, output: 32_000 }, reasoning: true },
      'sonnet-4.6': { name: 'Sonnet', limit: { context: 100_000, output: 4_000 }, reasoning: false },
      other: { name: 'Other' },
    })
    const prior = {
      npm: '@ai-sdk/openai-compatible',
      options: { baseURL: 'http://127.0.0.1:32124/v1' },
      models: { 'sonnet-4.6': { name: 'My Sonnet' } },
    }
    assert.deepEqual(mergeProviderBlock(prior, limited).models, {
      auto: { name: 'Auto', limit: { context: 200_000, output: 32_000 }, reasoning: true },
      'sonnet-4.6': { name: 'My Sonnet', limit: { context: 200_000, output: 128_000 }, reasoning: false },
    })
  })

  test('a prior-art proxy block (port 32124) is taken over, keeping the model names', async () => {
    const { mergeProviderBlock } = await load.config()
    const prior = {
      name: 'Cursor',
      npm: '@ai-sdk/openai-compatible',
      options: { baseURL: 'http://127.0.0.1:32124/v1' },
      models: { 'sonnet-4.6': { name: 'My Sonnet' }, 'gpt-5.2': { name: 'GPT 5.2' } },
    }
    assert.deepEqual(mergeProviderBlock(prior, ours), {
      name: 'Cursor',
      npm: ours.npm,
      options: { workspace: '/w', force: true },
      models: { auto: { name: 'Auto' }, 'sonnet-4.6': { name: 'My Sonnet' }, 'gpt-5.2': { name: 'GPT 5.2' } },
    })
  })
})

describe('local session titles', () => {
  const request = (text: string) => [
    { role: 'system', content: 'You are a title generator. You output ONLY a thread title. Nothing else.' },
    { role: 'user', content: [{ type: 'text', text: 'Generate a title for this conversation:\n' }] },
    { role: 'user', content: [{ type: 'text', text }] },
  ]

  test('the first line of the user text, quotes removed, at most 50 characters at a word boundary', async () => {
    const { localTitle } = await load.title()
    assert.equal(localTitle(request('"say hi"')), 'say hi')
    assert.equal(localTitle(request('\n  fix the   login bug\nin auth.ts please')), 'fix the login bug')
    assert.equal(
      localTitle(request('refactor the user service so that it stops leaking database connections under load')),
      'refactor the user service so that it stops',
    )
    assert.equal(localTitle(request('   ')), 'New session')
  })
})

describe('the plugin entry', () => {
  test('exports only plugin functions (OpenCode rejects anything else)', async () => {
    const entry = await load.server()
    assert.ok(Object.keys(entry).length > 0)
    for (const [name, value] of Object.entries(entry)) assert.equal(typeof value, 'function', `export ${name}`)
  })

  test('the config hook injects the provider with a cached model list and picks the worktree', async () => {
    const { CursorAcpPlugin } = await load.server()
    const data = join(scratch, 'data')
    mkdirSync(join(data, 'opencode-cursor-native'), { recursive: true })
    const cached = [
      { id: 'auto', name: 'Auto' },
      { id: 'cached-model', name: 'Cached Model' },
    ]
    writeFileSync(
      join(data, 'opencode-cursor-native', 'models.json'),
      JSON.stringify({ savedAt: Date.now(), models: cached }),
    )
    const project = join(scratch, 'hooked')
    mkdirSync(join(project, 'sub'), { recursive: true })
    const cfg: Record<string, any> = { provider: { other: { npm: 'x' } } }
    await withEnv(
      {
        XDG_DATA_HOME: data,
        HOME: scratch,
        CURSOR_ACP_WORKSPACE: undefined,
        CURSOR_ACP_FORCE: 'no',
        CURSOR_AGENT_EXECUTABLE: fakeAgent,
      },
      async () => {
        const hooks = await CursorAcpPlugin({ directory: join(project, 'sub'), worktree: project } as any)
        await hooks.config!(cfg as any)
      },
    )
    const block = cfg.provider['cursor-acp']
    assert.equal(block.npm.startsWith('file://'), true)
    assert.ok(existsSync(fileURLToPath(block.npm)), block.npm)
    assert.equal(block.npm, pathToFileURL(join(repo, 'dist', 'plugin', 'opencode', 'provider.js')).href)
    // The cache holds names only; the limits are the addon's: `auto` as Cursor documents it,
    // an id the addon does not know with its cautious default.
    const textOnly = { attachment: false, modalities: { input: ['text'], output: ['text'] } }
    assert.deepEqual(block.models, {
      auto: { name: 'Auto', limit: { context: 200_000, output: 32_000 }, reasoning: true, ...textOnly },
      'cached-model': {
        name: 'Cached Model',
        limit: { context: 128_000, output: 32_000 },
        reasoning: false,
        ...textOnly,
      },
    })
    assert.equal(block.options.workspace, project)
    assert.equal(block.options.force, false)
    assert.equal(block.options.executable, fakeAgent)
    assert.deepEqual(cfg.provider.other, { npm: 'x' })
    assert.equal(cfg.model, 'cursor-acp/auto')
  })

  test('the auth hook offers a Cursor API key, and its loader hands a stored key to the provider', async () => {
    const { CursorAcpPlugin } = await load.server()
    const hooks = await withEnv({ XDG_DATA_HOME: join(scratch, 'data'), HOME: scratch }, () =>
      CursorAcpPlugin({ directory: scratch, worktree: '/' } as any),
    )
    assert.equal(hooks.auth?.provider, 'cursor-acp')
    assert.deepEqual(
      hooks.auth?.methods.map((method) => [method.type, method.label]),
      [['api', 'Cursor API key']],
    )
    const table: Array<[unknown, Record<string, unknown>]> = [
      [{ type: 'api', key: 'crsr_key' }, { apiKey: 'crsr_key' }],
      [{ type: 'api', key: '' }, {}],
      [{ type: 'oauth', access: 'a', refresh: 'r', expires: 0 }, {}],
      [undefined, {}],
    ]
    for (const [stored, options] of table)
      assert.deepEqual(
        await hooks.auth!.loader!(async () => stored as never, {} as never),
        options,
        JSON.stringify(stored),
      )
  })

  test("the user's model choice is kept", async () => {
    const { CursorAcpPlugin } = await load.server()
    const data = join(scratch, 'data')
    const cfg: Record<string, any> = { model: 'anthropic/claude' }
    await withEnv({ XDG_DATA_HOME: data, HOME: scratch }, async () => {
      const hooks = await CursorAcpPlugin({ directory: scratch, worktree: '/' } as any)
      await hooks.config!(cfg as any)
    })
    assert.equal(cfg.model, 'anthropic/claude')
    assert.equal(cfg.provider['cursor-acp'].options.workspace, scratch)
  })

  test('a refused CURSOR_ACP_WORKSPACE still registers the provider, whose requests fail with E_INVALID_ARG', async () => {
    const { CursorAcpPlugin } = await load.server()
    const { createCursorAcp } = await load.provider()
    const cfg: Record<string, any> = {}
    // OpenCode builds the provider in the environment the plugin read.
    const model = await withEnv(
      { XDG_DATA_HOME: join(scratch, 'data'), HOME: scratch, CURSOR_ACP_WORKSPACE: '/' },
      async () => {
        const hooks = await CursorAcpPlugin({ directory: scratch, worktree: '/' } as any)
        await hooks.config!(cfg as any)
        return createCursorAcp({ name: 'cursor-acp', ...cfg.provider['cursor-acp'].options }).languageModel('auto')
      },
    )
    const options = cfg.provider['cursor-acp'].options
    assert.equal(options.configurationError.code, 'E_INVALID_ARG')
    const { stream } = await model.doStream({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    } as any)
    const parts = await collect(stream)
    assert.deepEqual(
      parts.map((part) => part.type),
      ['stream-start', 'response-metadata', 'error', 'finish'],
    )
    const error = parts[2]!.error as Error & { code: string; isRetryable: boolean }
    assert.deepEqual(parts[0].warnings, [])
    assert.ok(error instanceof Error)
    assert.equal(error.code, 'E_INVALID_ARG')
    assert.equal(error.isRetryable, false)
    assert.match(error.message, /^CURSOR_ACP_WORKSPACE="\/" cannot be used[\s\S]* \[E_INVALID_ARG\]$/)
  })
})

const nativeApi = require('../index.js')

// The addon's runner, resume manager and prompt builder under the provider.
describe('the provider over the fake cursor-agent', () => {
  const workspace = join(scratch, 'provider-ws')
  const logDir = join(scratch, 'agent-log')
  mkdirSync(workspace, { recursive: true })
  const userPrompt = (text: string) => [{ role: 'user', content: [{ type: 'text', text }] }]

  test('hand-written provider options of the wrong type are reported as warnings and ignored', async () => {
    const { createCursorAcp } = await load.provider()
    const model = userProvider(createCursorAcp, {
      name: 'cursor-acp',
      workspace,
      force: 'no' as any,
      idleTimeoutMs: -5,
    }).languageModel('auto')
    const { stream } = await model.doStream({
      prompt: [
        { role: 'system', content: 'You are a title generator. You output ONLY a thread title. Nothing else.' },
        { role: 'user', content: [{ type: 'text', text: 'hello' }] },
      ],
    } as any)
    const [start] = await collect(stream)
    assert.deepEqual(
      start.warnings.map((warning: any) => warning.message),
      [
        'Provider option force="no" is not a valid boolean; ignored.',
        'Provider option idleTimeoutMs=-5 is not a valid number; ignored.',
      ],
    )
  })

  test('a title request is answered locally, without running cursor-agent', async () => {
    const { createCursorAcp } = await load.provider()
    const model = userProvider(createCursorAcp, {
      name: 'cursor-acp',
      workspace,
      executable: join(scratch, 'no-such-agent'),
    }).languageModel('auto')
    const { stream } = await model.doStream({
      prompt: [
        { role: 'system', content: 'You are a title generator. You output ONLY a thread title. Nothing else.' },
        { role: 'user', content: [{ type: 'text', text: 'Generate a title for this conversation:\n' }] },
        { role: 'user', content: [{ type: 'text', text: 'say hi' }] },
      ],
      headers: { 'X-Session-Id': 'ses_title' },
    } as any)
    const parts = await collect(stream)
    assert.deepEqual(
      parts.map((part) => part.type),
      ['stream-start', 'response-metadata', 'text-start', 'text-delta', 'text-end', 'finish'],
    )
    assert.equal(parts[3].delta, 'say hi')
    assert.equal(parts[5].finishReason.unified, 'stop')
  })

  test('doStream streams the run: stream-start, then response-metadata, text once, finish stop', async () => {
    const { createCursorAcp } = await load.provider()
    await withEnv({ FAKE_CURSOR_LOG_DIR: logDir, FAKE_CURSOR_STREAM: 'text:Hello there, friend.' }, async () => {
      const model = userProvider(createCursorAcp, {
        name: 'cursor-acp',
        workspace,
        executable: fakeAgent,
      }).languageModel('cursor-acp/auto')
      const { stream } = await model.doStream({
        prompt: userPrompt('greet me'),
        headers: { 'x-session-id': 'ses_a' },
      } as any)
      const parts = await collect(stream)
      assert.equal(parts[0].type, 'stream-start')
      assert.equal(parts[1].type, 'response-metadata')
      assert.ok(parts[1].timestamp instanceof Date)
      const text = parts
        .filter((part) => part.type === 'text-delta')
        .map((part) => part.delta)
        .join('')
      assert.equal(text, 'Hello there, friend.')
      const finish = parts.at(-1)
      assert.equal(finish.type, 'finish')
      assert.deepEqual(finish.finishReason, { unified: 'stop', raw: 'stop' })
      // The usage OpenCode reads is the context's estimate (the answer and the thought, 46 bytes,
      // by 4); Cursor's own counts ride along in the provider metadata.
      assert.equal(finish.usage.outputTokens.total, Math.ceil(('Hello there, friend.'.length + 26) / 4))
      assert.equal(finish.providerMetadata.cursor.usage.outputTokens, 5)
    })
  })

  test('a connection that drops before anything was answered: OpenCode sees only the rerun, answered', async () => {
    const { createCursorAcp } = await load.provider()
    const dropLog = join(scratch, 'provider-drop-log')
    const env = {
      FAKE_CURSOR_LOG_DIR: dropLog,
      FAKE_CURSOR_STREAM: 'text:Answered after the drop.',
      FAKE_CURSOR_DROP: 'before-answer',
      FAKE_CURSOR_DROP_MARK: join(scratch, 'provider-dropped'),
    }
    await withEnv(env, async () => {
      const model = userProvider(createCursorAcp, {
        name: 'cursor-acp',
        workspace,
        executable: fakeAgent,
      }).languageModel('auto')
      const parts = await collect((await model.doStream({ prompt: userPrompt('greet me') } as any)).stream)
      assert.deepEqual(
        parts.filter((part) => ['stream-start', 'error', 'finish'].includes(part.type)).map((part) => part.type),
        ['stream-start', 'finish'],
      )
      assert.equal(parts.at(-1).finishReason.unified, 'stop')
      const text = parts.filter((part) => part.type === 'text-delta').map((part) => part.delta)
      assert.equal(text.join(''), 'Answered after the drop.')
    })
    assert.equal(readdirSync(dropLog).length, 2, 'the dropped run and its rerun')
  })

  test("@cursor/sdk 1.0.32's records through OpenCode: a server notice beside the answer, a shell's elided output, reasoning tokens", async () => {
    const { createCursorAcp } = await load.provider()
    const fixture = join(repo, '__test__', 'fixtures', 'streams', 'sdk-1032-records.ndjson')
    await withEnv({ FAKE_CURSOR_LOG_DIR: logDir, FAKE_CURSOR_STREAM: fixture }, async () => {
      const model = userProvider(createCursorAcp, {
        name: 'cursor-acp',
        workspace,
        executable: fakeAgent,
      }).languageModel('auto')
      const parts = await collect((await model.doStream({ prompt: userPrompt('show me') } as any)).stream)
      const of = (type: string) => parts.filter((part) => part.type === type).map((part) => part.delta)
      assert.equal(of('text-delta').join(''), 'Here. Done.')
      assert.equal(of('reasoning-delta').join(''), '(Cursor: High demand: responses may be slower.)')
      const shell = parts.find((part) => part.type === 'tool-result' && part.toolCallId === 'c_shell')
      assert.match(
        shell.result.output,
        /^1\n2\n3\n\[… 588877 characters of output left out by Cursor …\]\n99999\n100000\n$/,
      )
      assert.equal(shell.result.metadata.elidedChars, 588877)
      const named = parts.filter((part) => part.type === 'tool-call').map((part) => part.toolName)
      for (const name of ['sendToUser', 'piRead', 'createAgent', 'writeCanvas', 'createGoal']) {
        assert.ok(
          named.some((shown: string) => shown.toLowerCase().includes(name.toLowerCase())),
          `${name} in ${named}`,
        )
      }
      assert.equal(parts.at(-1).providerMetadata.cursor.usage.reasoning_tokens, 12)
    })
  })

  test("Cursor's own tool calls reach OpenCode as its tools of their kind, as the capture's expectation says", async () => {
    const { createCursorAcp } = await load.provider()
    for (const capture of ['maestro/02_shell_tool_call.jsonl', 'maestro/05_rejected_shell.jsonl']) {
      const expected = captureExpectation(capture).blocks.flatMap((block) => (block.kind === 'tool' ? [block] : []))
      await withEnv({ FAKE_CURSOR_LOG_DIR: logDir, FAKE_CURSOR_STREAM: capture }, async () => {
        const model = userProvider(createCursorAcp, {
          name: 'cursor-acp',
          workspace,
          executable: fakeAgent,
        }).languageModel('auto')
        const parts = await collect((await model.doStream({ prompt: userPrompt('use a tool') } as any)).stream)
        for (const want of expected) {
          const what = `${capture} ${JSON.stringify(want.id)}`
          const mine = parts.filter((part) => (part.id ?? part.toolCallId) === want.id)
          assert.deepEqual(
            mine.map((part) => part.type),
            ['tool-input-start', 'tool-input-delta', 'tool-input-end', 'tool-call', 'tool-result'],
            what,
          )
          for (const part of mine) assert.equal(part.providerMetadata, undefined, `${what}: ${part.type}`)
          assert.ok(
            mine.every((part) => part.toolName === undefined || part.toolName === want.opencode.tool),
            what,
          )
          const [, delta, , call, result] = mine
          assert.deepEqual(JSON.parse(call.input), want.opencode.input, what)
          assert.equal(delta.delta, call.input, what)
          assert.equal(call.providerExecuted, true, what)
          assert.equal(result.isError, want.opencode.status === 'error', what)
          if (want.opencode.status === 'error') assert.ok(result.result.includes(want.opencode.errorIncludes), what)
          else {
            assert.equal(result.result.title, want.opencode.title, what)
            assert.equal(result.result.output, want.opencode.output, what)
            for (const [key, value] of Object.entries(want.opencode.metadata ?? {}))
              assert.deepEqual(result.result.metadata[key], value, `${what}: metadata.${key}`)
          }
        }
      })
    }
  })

  test('doGenerate collects the same answer; a failure rejects with a coded, non-retryable error', async () => {
    const { createCursorAcp } = await load.provider()
    await withEnv({ FAKE_CURSOR_LOG_DIR: logDir, FAKE_CURSOR_STREAM: 'text:Collected answer.' }, async () => {
      const model = userProvider(createCursorAcp, {
        name: 'cursor-acp',
        workspace,
        executable: fakeAgent,
      }).languageModel('auto')
      const result = await model.doGenerate({ prompt: userPrompt('answer') } as any)
      const text = result.content
        .filter((part: any) => part.type === 'text')
        .map((part: any) => part.text)
        .join('')
      assert.equal(text, 'Collected answer.')
      assert.deepEqual(result.finishReason, { unified: 'stop', raw: 'stop' })
    })
    await withEnv({ FAKE_CURSOR_LOG_DIR: logDir, FAKE_CURSOR_SCENARIO: 'auth' }, async () => {
      const model = userProvider(createCursorAcp, {
        name: 'cursor-acp',
        workspace,
        executable: fakeAgent,
      }).languageModel('auto')
      await assert.rejects(
        async () => model.doGenerate({ prompt: userPrompt('answer') } as any),
        (thrown: unknown) => {
          const error = thrown as Error & { code?: string; isRetryable?: boolean }
          assert.ok(error instanceof Error)
          assert.equal(error.code, 'E_AUTH')
          assert.equal(error.isRetryable, false)
          assert.ok(!error.message.startsWith('{'))
          return true
        },
      )
    })
  })

  test('an aborted request stops the run and finishes as cancelled', async () => {
    const { createCursorAcp } = await load.provider()
    await withEnv({ FAKE_CURSOR_LOG_DIR: logDir, FAKE_CURSOR_SCENARIO: 'long' }, async () => {
      const model = userProvider(createCursorAcp, {
        name: 'cursor-acp',
        workspace,
        executable: fakeAgent,
      }).languageModel('auto')
      const controller = new AbortController()
      const { stream } = await model.doStream({ prompt: userPrompt('work'), abortSignal: controller.signal } as any)
      const reader = stream.getReader()
      const parts: any[] = []
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        parts.push(value)
        if (value.type === 'text-delta') controller.abort()
      }
      assert.deepEqual(parts.at(-1).finishReason, { unified: 'other', raw: 'cancelled' })
    })
  })
  test('cancelling the stream stops cursor-agent', async () => {
    const { createCursorAcp } = await load.provider()
    const cancelLog = join(scratch, 'cancel-log')
    await withEnv({ FAKE_CURSOR_LOG_DIR: cancelLog, FAKE_CURSOR_SCENARIO: 'long' }, async () => {
      const model = userProvider(createCursorAcp, {
        name: 'cursor-acp',
        workspace,
        executable: fakeAgent,
      }).languageModel('auto')
      const { stream } = await model.doStream({ prompt: userPrompt('work') } as any)
      const reader = stream.getReader()
      for (;;) {
        const { done, value } = await reader.read()
        assert.equal(done, false, 'the long run ended by itself')
        if (value.type === 'text-delta') break
      }
      await reader.cancel()
    })
    const [record] = readdirSync(cancelLog).map((file) => JSON.parse(readFileSync(join(cancelLog, file), 'utf8')))
    const gone = await waitFor(() => !isAlive(record.pid) && !isAlive(record.grandchildPid), 20_000)
    assert.ok(gone, `cursor-agent ${record.pid} or its child ${record.grandchildPid} survived`)
  })
  test('models come from `cursor-agent models` and are cached; a failing lookup falls back', async () => {
    const { cursorModels, FALLBACK_MODELS } = await load.models()
    const { childEnvironment } = await load.env()
    const cacheFile = join(scratch, 'models-cache', 'models.json')
    const fromCursor = await cursorModels({ cacheFile, executable: fakeAgent, env: childEnvironment(), waitMs: 60_000 })
    const fakeList = [
      { id: 'auto', name: 'Auto', contextWindow: 200_000, maxOutputTokens: 32_000, reasoning: true, pictures: false },
      {
        id: 'fake-model',
        name: 'Fake Model',
        contextWindow: 128_000,
        maxOutputTokens: 32_000,
        reasoning: false,
        pictures: false,
      },
      {
        id: 'composer-2.5',
        name: 'Composer 2.5',
        contextWindow: 200_000,
        maxOutputTokens: 32_000,
        reasoning: true,
        pictures: false,
      },
    ]
    assert.deepEqual(fromCursor, { models: fakeList, source: 'cursor' })
    const missing = join(scratch, 'no-such-agent')
    assert.deepEqual(await cursorModels({ cacheFile, executable: missing, env: childEnvironment() }), {
      models: fakeList,
      source: 'cache',
    })
    const later = () => Date.now() + 7 * 3_600_000
    assert.deepEqual(await cursorModels({ cacheFile, executable: missing, env: childEnvironment(), now: later }), {
      models: fakeList,
      source: 'stale-cache',
    })
    const noCache = join(scratch, 'models-none', 'models.json')
    const fallback = await cursorModels({ cacheFile: noCache, executable: missing, env: childEnvironment() })
    assert.equal(fallback.source, 'fallback')
    assert.deepEqual(
      fallback.models.map(({ id, name }) => ({ id, name })),
      [...FALLBACK_MODELS],
    )
    for (const model of fallback.models) {
      assert.ok(model.contextWindow >= 128_000 && model.maxOutputTokens > 0, `${model.id} has no limits`)
    }
    const thinking = fallback.models.filter((model) => model.reasoning).map((model) => model.id)
    assert.ok(thinking.includes('sonnet-4.6-thinking') && !thinking.includes('sonnet-4.6'), thinking.join(', '))
    if (process.platform !== 'win32') {
      // The cache and its folder are the user's alone; a planted link is replaced, not followed.
      assert.equal(statSync(cacheFile).mode & 0o777, 0o600)
      assert.equal(statSync(join(scratch, 'models-cache')).mode & 0o777, 0o700)
      const linked = join(scratch, 'models-linked')
      mkdirSync(linked, { mode: 0o755 })
      const victim = join(scratch, 'victim.txt')
      writeFileSync(victim, 'precious', { mode: 0o644 })
      symlinkSync(victim, join(linked, 'models.json'))
      // Waits for Cursor's list (however busy the machine), whose cache write is what is checked.
      await cursorModels({
        cacheFile: join(linked, 'models.json'),
        executable: fakeAgent,
        env: childEnvironment(),
        waitMs: 60_000,
      })
      assert.equal(readFileSync(victim, 'utf8'), 'precious')
      assert.equal(statSync(victim).mode & 0o777, 0o644)
      assert.equal(lstatSync(join(linked, 'models.json')).isSymbolicLink(), false)
      assert.equal(statSync(linked).mode & 0o777, 0o700, 'an older, wider data folder is narrowed')
    }
    const broken = join(scratch, 'models-broken', 'models.json')
    mkdirSync(join(scratch, 'models-broken'))
    writeFileSync(broken, JSON.stringify({ savedAt: Date.now(), models: [{ name: 'No id' }] }))
    assert.equal(
      (await cursorModels({ cacheFile: broken, executable: missing, env: childEnvironment() })).source,
      'fallback',
    )
  })
})

describe('logging', () => {
  test('CURSOR_ACP_LOG_LEVEL turns on logging into CURSOR_ACP_LOG_FILE, never the terminal', async () => {
    const { CursorAcpPlugin } = await load.server()
    const logFile = join(scratch, 'logs', 'cursor.log')
    const cfg: Record<string, any> = {}
    await withEnv(
      {
        XDG_DATA_HOME: join(scratch, 'data'),
        HOME: scratch,
        CURSOR_ACP_LOG_LEVEL: 'debug',
        CURSOR_ACP_LOG_FILE: logFile,
        CURSOR_AGENT_EXECUTABLE: fakeAgent,
      },
      async () => {
        const hooks = await CursorAcpPlugin({ directory: scratch, worktree: '/' } as any)
        await hooks.config!(cfg as any)
      },
    )
    assert.equal(cfg.provider['cursor-acp'].options.configurationWarnings, undefined)
    assert.ok(existsSync(logFile), `${logFile} was not created`)
    nativeApi.setLogging({ level: 'off' })
  })
})

// The turn policy every front end shares, driven directly (here in the SSE format a proxy uses).
describe('the turn module', () => {
  test('a resumed chat that Cursor replaced reruns once as a fresh chat with the full prompt', async () => {
    const { resolveTurnConfig, startTurn } = await load.turn()
    const workspace = join(scratch, 'turn-ws')
    const turnLog = join(scratch, 'turn-log')
    mkdirSync(workspace, { recursive: true })
    const control = join(scratch, 'turn-control.json')
    const config = resolveTurnConfig({ workspace, executable: fakeAgent, sessionResume: true }, true)
    assert.equal(config.problem, null)
    const turn1 = [{ role: 'user', content: 'first question' }]
    const turn2 = [
      ...turn1,
      { role: 'assistant', content: 'First answer.' },
      { role: 'user', content: 'second question' },
    ]
    const run = async (messages: object[]) => {
      const frames: string[] = []
      const turn = startTurn(
        config,
        { model: 'auto', messages: messages as never, conversationId: 'ses_turn' },
        { format: 'openai-sse', includeUsage: true },
        (outputs) => {
          // The frames; each response's completion object follows them.
          for (const output of outputs) if (typeof output === 'string') frames.push(output)
        },
      )
      const result = await turn.done
      const text = frames
        .filter((frame) => frame !== 'data: [DONE]\n\n')
        .map((frame) => JSON.parse(frame.slice('data: '.length)).choices?.[0]?.delta?.content ?? '')
        .join('')
      return { result, text, frames }
    }
    await withEnv({ FAKE_CURSOR_LOG_DIR: turnLog, FAKE_CURSOR_CONTROL: control }, async () => {
      writeFileSync(control, JSON.stringify({ FAKE_CURSOR_STREAM: 'text:First answer.' }))
      const first = await run(turn1)
      assert.equal(first.result?.error, undefined)
      assert.equal(first.text, 'First answer.')

      writeFileSync(
        control,
        JSON.stringify({ FAKE_CURSOR_STREAM: 'text:Second answer.', FAKE_CURSOR_RESUME: 'replace' }),
      )
      const second = await run(turn2)
      assert.equal(second.result?.error, undefined)
      // Only the fresh rerun's answer, once: the replaced run delivered nothing.
      assert.equal(second.text, 'Second answer.')
      assert.equal(second.frames.filter((frame) => frame === 'data: [DONE]\n\n').length, 1)
    })
    const runs = readdirSync(turnLog)
      .sort()
      .map((file) => JSON.parse(readFileSync(join(turnLog, file), 'utf8')))
    assert.equal(runs.length, 3)
    const resumeOf = (argv: string[]) => (argv.includes('--resume') ? argv[argv.indexOf('--resume') + 1] : null)
    assert.equal(resumeOf(runs[0].argv), null)
    assert.notEqual(resumeOf(runs[1].argv), null)
    assert.equal(runs[1].stdin, 'second question')
    assert.equal(resumeOf(runs[2].argv), null)
    assert.equal(runs[2].stdin, 'USER: first question\n\nASSISTANT: First answer.\n\nUSER: second question')
  })
})

describe('the errors OpenCode is handed', () => {
  const errors = () => import('../plugin/opencode/errors.ts')

  test('are AI SDK APICallErrors marked not retryable, with no status code, ending with their code', async () => {
    const { APICallError } = await import('@ai-sdk/provider')
    const { CursorAcpError } = await errors()
    const error = new CursorAcpError('E_MODEL', 'The model gpt-9 is not available.')
    assert.ok(APICallError.isInstance(error))
    assert.equal(error.isRetryable, false)
    assert.equal(error.statusCode, undefined)
    assert.equal(error.code, 'E_MODEL')
    assert.equal(error.message, 'The model gpt-9 is not available. [E_MODEL]')
  })

  test("quote Cursor's words only where OpenCode would not read them as a transient fault", async () => {
    const { CursorAcpError, readsAsTransient } = await errors()
    // [what cursor-agent said, whether OpenCode 1.18 retries a message holding it]
    const table: [string, boolean][] = [
      ['TypeError: fetch failed', true],
      ['Error: read ECONNRESET', true],
      ['Error: socket hang up', true],
      ['Error: rate limit exceeded', true],
      ['429 Too Many Requests', true],
      ['Request failed with HTTP 500', true],
      ['took 1500 ms', true],
      ['502 Bad Gateway', true],
      ['503 Service Unavailable', true],
      ['Error: Overloaded', true],
      ['resource exhausted', true],
      ['upstream unavailable', true],
      ['timeout', true],
      ['stream timed out', true],
      ['please try again later', true],
      ["Error: Authentication required. Please run 'agent login' first", false],
      ['Cannot use this model: gpt-9. Available models: auto, composer-2.5', false],
      ["You've hit your usage limit", false],
      ['Error: something odd happened', false],
    ]
    for (const [said, transient] of table) {
      assert.equal(readsAsTransient(said), transient, said)
      const error = new CursorAcpError('E_AGENT_EXIT', 'cursor-agent exited with code 1.', said)
      assert.equal(error.agentOutput, said)
      assert.equal(readsAsTransient(error.message), false, error.message)
      assert.equal(
        error.message,
        transient
          ? 'cursor-agent exited with code 1. [E_AGENT_EXIT]'
          : `cursor-agent exited with code 1. cursor-agent said: ${said} [E_AGENT_EXIT]`,
      )
    }
  })

  test('a run failure part becomes one, with its agent output', async () => {
    const { toCursorAcpError } = await errors()
    const error = toCursorAcpError({
      code: 'E_NETWORK',
      message: "cursor-agent could not reach Cursor's servers.",
      agentOutput: 'fetch failed',
    })
    assert.equal(error.code, 'E_NETWORK')
    assert.equal(error.agentOutput, 'fetch failed')
    assert.equal(error.message, "cursor-agent could not reach Cursor's servers. [E_NETWORK]")
    assert.equal(toCursorAcpError(new Error('boom')).code, 'E_AGENT_EXIT')
  })
})

describe('the tool bridge on the host side', () => {
  const call = (id: string, output: unknown) => ({ type: 'tool-result', toolCallId: id, toolName: 'read', output })
  const history = [
    { role: 'user', content: [{ type: 'text', text: 'read it' }] },
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'a', toolName: 'read', input: {} }] },
  ]

  test('only trailing results that answer exactly the held calls continue a run', async () => {
    const { continuationAnswers } = await load.toolBridge()
    const table: Array<[unknown[], string[], boolean]> = [
      [
        [{ role: 'tool', content: [call('a', { type: 'text', value: 'x' }), call('b', { type: 'text', value: 'y' })] }],
        ['a', 'b'],
        true,
      ],
      [
        [
          { role: 'tool', content: [call('a', { type: 'text', value: 'x' })] },
          { role: 'tool', content: [call('b', { type: 'text', value: 'y' })] },
        ],
        ['b', 'a'],
        true,
      ],
      [[{ role: 'tool', content: [call('a', { type: 'text', value: 'x' })] }], ['a', 'b'], false],
      [
        [{ role: 'tool', content: [call('a', { type: 'text', value: 'x' }), call('c', { type: 'text', value: 'y' })] }],
        ['a', 'b'],
        false,
      ],
      [
        [{ role: 'tool', content: [call('a', { type: 'text', value: 'x' }), call('a', { type: 'text', value: 'x' })] }],
        ['a', 'b'],
        false,
      ],
      [
        [
          { role: 'tool', content: [call('a', { type: 'text', value: 'x' })] },
          { role: 'user', content: 'go on' },
        ],
        ['a'],
        false,
      ],
      [[], ['a'], false],
      [[{ role: 'tool', tool_call_id: 'a', content: 'openai shape' }], ['a'], true],
    ]
    for (const [tail, ids, continues] of table) {
      const answers = continuationAnswers([...history, ...tail] as never, ids)
      assert.equal(answers !== null, continues, JSON.stringify({ tail, ids }))
    }
  })

  test("OpenCode's result outputs become answers with their error flag and images", async () => {
    const { continuationAnswers } = await load.toolBridge()
    const outputs: Array<[unknown, { output: string; isError?: boolean; images?: unknown[] }]> = [
      [{ type: 'text', value: 'file content' }, { output: 'file content' }],
      [{ type: 'json', value: { n: 1 } }, { output: '{"n":1}' }],
      [
        { type: 'error-text', value: 'denied by rule' },
        { output: 'denied by rule', isError: true },
      ],
      [
        { type: 'error-json', value: { why: 'no' } },
        { output: '{"why":"no"}', isError: true },
      ],
      [
        { type: 'execution-denied', reason: 'The user rejected it' },
        { output: 'The user rejected it', isError: true },
      ],
      [{ type: 'execution-denied' }, { output: 'The user denied this tool call.', isError: true }],
      [
        {
          type: 'content',
          value: [
            { type: 'text', text: 'a picture' },
            { type: 'media', data: 'iVBO', mediaType: 'image/png' },
            { type: 'media', data: 'JVBE', mediaType: 'application/pdf' },
          ],
        },
        { output: 'a picture', images: [{ data: 'iVBO', mimeType: 'image/png' }] },
      ],
    ]
    for (const [output, expected] of outputs) {
      const answers = continuationAnswers([...history, { role: 'tool', content: [call('a', output)] }] as never, ['a'])
      assert.deepEqual(answers, [{ id: 'a', ...expected }], JSON.stringify(output))
    }
  })

  test('each conversation has its own stable private folder under the data folder', async () => {
    const { conversationFolder } = await load.toolBridge()
    const a = conversationFolder('/data', '/repo', 'ses_1')
    assert.equal(a, conversationFolder('/data', '/repo', 'ses_1'))
    assert.ok(a.startsWith(join('/data', 'conversations')), a)
    assert.notEqual(a, conversationFolder('/data', '/repo', 'ses_2'), 'a child session gets its own')
    assert.notEqual(a, conversationFolder('/data', '/other', 'ses_1'))
    assert.ok(!a.includes('ses_1'), 'the session id is hashed')
  })
})

describe('the log at start-up', () => {
  test('one line at info names the version, the addon, the tool mode and the cursor-agent that runs', async () => {
    const { startLogging, logStartup } = await import('../plugin/opencode/host-options.ts')
    const { readSettings, DEFAULT_SETTINGS } = await load.env()
    const file = join(scratch, 'startup.log')
    const settings = {
      ...readSettings({}).settings,
      logLevel: 'info' as const,
      logFile: file,
      executable: fakeAgent,
      toolMode: 'opencode' as const,
    }
    assert.equal(DEFAULT_SETTINGS.toolMode, 'cursor')
    const warnings: string[] = []
    startLogging(settings, warnings)
    try {
      assert.deepEqual(warnings, [])
      logStartup(settings, 'OpenCode 1.18')
      const version = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).version
      const line = readFileSync(file, 'utf8')
        .split('\n')
        .find((text) => text.includes('started in OpenCode 1.18'))
      assert.ok(line !== undefined, readFileSync(file, 'utf8'))
      assert.ok(line.includes(`opencode-cursor-native ${version}`), line)
      assert.ok(line.includes(`addon ${process.platform}-${process.arch}`), line)
      assert.ok(line.includes('tool mode opencode'), line)
      assert.ok(line.includes(`cursor-agent ${fakeAgent}`), line)
      assert.match(line, /INFO/)
    } finally {
      nativeApi.setLogging({ level: 'off' })
    }
  })
})

describe('a connection to Cursor that drops', () => {
  // Each case a workspace, a log and a drop mark of its own.
  let cases = 0
  const setUp = async (sessionResume = false) => {
    const { resolveTurnConfig, startTurn } = await load.turn()
    cases += 1
    const root = join(scratch, `drop-${cases}`)
    const workspace = join(root, 'ws')
    mkdirSync(workspace, { recursive: true })
    const config = resolveTurnConfig({ workspace, executable: fakeAgent, sessionResume }, true)
    assert.equal(config.problem, null)
    const log = join(root, 'log')
    const runs = () =>
      readdirSync(log)
        .sort()
        .map((file) => JSON.parse(readFileSync(join(log, file), 'utf8')))
    const turnOf = async (messages: object[], format: 'ai-sdk' | 'openai-sse') => {
      const outputs: unknown[] = []
      const steps: unknown[] = []
      const turn = startTurn(
        config,
        { model: 'auto', messages: messages as never, conversationId: `ses_drop_${cases}` },
        format === 'ai-sdk' ? { format } : { format, includeUsage: true, toolCalls: 'omit', completions: true },
        (batch, step) => {
          outputs.push(...batch)
          if (step != null) steps.push(step)
        },
      )
      const result = await turn.done
      return { result, outputs: outputs as StreamPart[], frames: outputs.filter((o) => typeof o === 'string'), steps }
    }
    return { root, log, runs, turnOf }
  }
  const textOf = (parts: StreamPart[]) => parts.map((part) => (part.type === 'text-delta' ? part.delta : '')).join('')
  const contentOf = (frames: unknown[]) =>
    (frames as string[])
      .filter((frame) => frame !== 'data: [DONE]\n\n')
      .map((frame) => JSON.parse(frame.slice('data: '.length)).choices?.[0]?.delta?.content ?? '')
      .join('')
  const resumeOf = (argv: string[]) => (argv.includes('--resume') ? argv[argv.indexOf('--resume') + 1] : null)

  test('before anything was answered: run once more as a fresh chat with the full prompt, nothing of the drop shown (OpenAI frames)', async () => {
    const { root, log, runs, turnOf } = await setUp()
    const mark = join(root, 'dropped')
    await withEnv(
      {
        FAKE_CURSOR_LOG_DIR: log,
        FAKE_CURSOR_DROP: 'before-answer',
        FAKE_CURSOR_DROP_MARK: mark,
        FAKE_CURSOR_STREAM: 'text:Answered after the drop.',
      },
      async () => {
        const { result, frames } = await turnOf([{ role: 'user', content: 'hello' }], 'openai-sse')
        assert.equal(result?.error, undefined, JSON.stringify(result?.error))
        assert.equal(result?.reruns, 1)
        assert.equal(result?.rerunnable, false)
        assert.equal(contentOf(frames), 'Answered after the drop.')
        assert.equal(frames.filter((frame) => frame === 'data: [DONE]\n\n').length, 1)
        assert.ok(!(frames as string[]).some((frame) => /WritableIterable|"error"/.test(frame)), frames.join(''))
      },
    )
    const [dropped, rerun] = runs()
    assert.equal(runs().length, 2)
    assert.equal(dropped.scenario, 'drop')
    // The dropped run opened a chat of its own; the rerun does not resume it (the full prompt would
    // put the history in twice): a fresh chat with the same prompt.
    assert.equal(resumeOf(rerun.argv), null)
    assert.equal(rerun.stdin, dropped.stdin)
  })

  test('a resumed chat whose run drops is resumed again with the same prompt (AI SDK parts)', async () => {
    const { root, log, runs, turnOf } = await setUp(true)
    const control = join(root, 'control.json')
    const first = [{ role: 'user', content: 'first question' }]
    const second = [
      ...first,
      { role: 'assistant', content: 'First answer.' },
      { role: 'user', content: 'second question' },
    ]
    await withEnv({ FAKE_CURSOR_LOG_DIR: log, FAKE_CURSOR_CONTROL: control }, async () => {
      writeFileSync(control, JSON.stringify({ FAKE_CURSOR_STREAM: 'text:First answer.' }))
      assert.equal((await turnOf(first, 'ai-sdk')).result?.error, undefined)
      writeFileSync(
        control,
        JSON.stringify({
          FAKE_CURSOR_STREAM: 'text:Second answer.',
          FAKE_CURSOR_DROP: 'before-answer',
          FAKE_CURSOR_DROP_MARK: join(root, 'dropped'),
        }),
      )
      const { result, outputs } = await turnOf(second, 'ai-sdk')
      assert.equal(result?.error, undefined, JSON.stringify(result?.error))
      assert.equal(result?.reruns, 1)
      assert.equal(textOf(outputs), 'Second answer.')
      assert.deepEqual(
        outputs.filter((part) => part.type === 'error' || part.type === 'stream-start').map((part) => part.type),
        ['stream-start'],
      )
    })
    const [fresh, dropped, rerun] = runs()
    assert.equal(runs().length, 3)
    assert.equal(dropped.scenario, 'drop')
    assert.equal(resumeOf(dropped.argv), fresh.sessionId)
    assert.equal(resumeOf(rerun.argv), fresh.sessionId)
    assert.equal(rerun.stdin, 'second question')
    assert.equal(rerun.stdin, dropped.stdin)
  })

  test('never more than once a request: a second drop is reported as E_NETWORK', async () => {
    const { log, runs, turnOf } = await setUp()
    await withEnv({ FAKE_CURSOR_LOG_DIR: log, FAKE_CURSOR_DROP: 'before-answer' }, async () => {
      const { result, outputs, steps } = await turnOf([{ role: 'user', content: 'hello' }], 'ai-sdk')
      assert.equal(result?.reruns, 1)
      assert.equal(result?.error?.code, 'E_NETWORK')
      assert.match(result?.error?.message ?? '', /connection to Cursor's servers dropped/)
      assert.equal(result?.rerunnable, false)
      const errors = outputs.filter((part) => part.type === 'error')
      assert.equal(errors.length, 1, 'the last run reports its drop once')
      assert.equal(steps.length, 1)
    })
    assert.equal(runs().length, 2)
  })

  test("after Cursor's own tool ran, in a format that leaves such calls out: never run again", async () => {
    // Chat Completions leaves Cursor's own calls out of its frames: nothing was put out, and yet
    // the command ran. Whether a run may run again is what Cursor did, not what a format shows.
    const { root, log, runs, turnOf } = await setUp()
    await withEnv(
      { FAKE_CURSOR_LOG_DIR: log, FAKE_CURSOR_DROP: 'after-tool', FAKE_CURSOR_DROP_MARK: join(root, 'dropped') },
      async () => {
        const { result } = await turnOf([{ role: 'user', content: 'make a file' }], 'openai-sse')
        assert.equal(result?.reruns, 0)
        assert.equal(result?.rerunnable, false)
        assert.equal(result?.error?.code, 'E_NETWORK')
      },
    )
    assert.equal(runs().length, 1, 'the shell command ran once')
  })

  test('after a tool ran: never run again; what arrived stays and the error says the connection dropped', async () => {
    const { root, log, runs, turnOf } = await setUp()
    await withEnv(
      { FAKE_CURSOR_LOG_DIR: log, FAKE_CURSOR_DROP: 'after-tool', FAKE_CURSOR_DROP_MARK: join(root, 'dropped') },
      async () => {
        const { result, outputs } = await turnOf([{ role: 'user', content: 'make a file' }], 'ai-sdk')
        assert.equal(result?.reruns, 0)
        assert.equal(result?.error?.code, 'E_NETWORK')
        assert.match(result?.error?.message ?? '', /dropped/)
        assert.ok(
          outputs.some((part) => part.type === 'tool-call'),
          'the shell call that ran is shown',
        )
        assert.equal(outputs.filter((part) => part.type === 'error').length, 1)
      },
    )
    assert.equal(runs().length, 1)
  })
})
