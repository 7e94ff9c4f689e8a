// A repository's configuration never picks the program, loosens safety or turns on recording: the
// reserved settings (plugin/opencode/trusted-settings.ts) are read from the user's own sources
// only, a project may only tighten them, and every route that hands the provider options (the
// config hook, the provider module) holds the line. Runs under Node and Bun.
import assert from 'node:assert/strict'
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
import { after, describe, test } from 'node:test'
import { pathToFileURL } from 'node:url'
import { collect } from './support/stream.ts'
import { withEnv } from './support/env.ts'

const repo = resolve(__dirname, '..')
const fakeAgent = join(repo, '__test__', 'support', 'agents', 'fake-cursor-agent.mjs')
const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'trusted-settings-spec-')))
after(() => rmSync(scratch, { recursive: true, force: true }))

const load = {
  trusted: () => import('../plugin/opencode/trusted-settings.ts'),
  provider: () => import('../plugin/opencode/provider.ts'),
  /** The compiled entry OpenCode loads; needs `npm run build:plugin`. */
  server: async (): Promise<typeof import('../plugin/opencode/server.ts')> => {
    const entry = join(repo, 'dist', 'plugin', 'opencode', 'server.js')
    assert.ok(existsSync(entry), `${entry} is missing: run \`npm run build:plugin\` first`)
    return import(pathToFileURL(entry).href)
  },
}

let folders = 0
/** A fresh folder under the scratch folder. */
function folder(name: string): string {
  folders += 1
  const path = join(scratch, `${name}-${folders}`)
  mkdirSync(path, { recursive: true })
  return path
}

function write(path: string, text: string): string {
  mkdirSync(resolve(path, '..'), { recursive: true })
  writeFileSync(path, text)
  return path
}

const block = (options: Record<string, unknown>) => JSON.stringify({ provider: { 'cursor-acp': { options } } })

/** An environment with no configuration of its own: an empty home and config folder. */
function bareEnv(extra: Record<string, string> = {}): Record<string, string> {
  const home = folder('home')
  return { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), ...extra }
}

/** A program planted in a repository: it only leaves a marker file behind when it runs. */
function plantedProgram(project: string): { program: string; marker: string } {
  const marker = join(project, 'planted-program-ran')
  const program = join(project, 'tools', 'cursor-agent')
  write(program, `#!/bin/sh\necho ran > '${marker}'\n`)
  writeFileSync(program, readFileSync(program), { mode: 0o755 })
  return { program, marker }
}

describe("the user's own sources", () => {
  /** [source, how it is set up in a bare environment, what it must yield]. */
  const sources: Array<[string, (env: Record<string, string>) => void]> = [
    [
      'the config folder opencode.json',
      (env) => write(join(env.XDG_CONFIG_HOME!, 'opencode', 'opencode.json'), block({ executable: '/user/agent' })),
    ],
    [
      'the config folder config.json, under HOME without XDG_CONFIG_HOME',
      (env) => {
        delete env.XDG_CONFIG_HOME
        write(join(env.HOME!, '.config', 'opencode', 'config.json'), block({ executable: '/user/agent' }))
      },
    ],
    [
      'the config folder opencode.jsonc, with comments and trailing commas',
      (env) =>
        write(
          join(env.XDG_CONFIG_HOME!, 'opencode', 'opencode.jsonc'),
          '{\n  // mine\n  "provider": { "cursor-acp": { "options": { "executable": "/user/agent", /* here */ }, }, },\n}\n',
        ),
    ],
    [
      'OPENCODE_CONFIG',
      (env) => {
        env.OPENCODE_CONFIG = write(join(folder('elsewhere'), 'mine.json'), block({ executable: '/user/agent' }))
      },
    ],
    [
      'OPENCODE_CONFIG_DIR',
      (env) => {
        const dir = folder('config-dir')
        env.OPENCODE_CONFIG_DIR = dir
        write(join(dir, 'opencode.json'), block({ executable: '/user/agent' }))
      },
    ],
    [
      'OPENCODE_CONFIG_CONTENT',
      (env) => {
        env.OPENCODE_CONFIG_CONTENT = block({ executable: '/user/agent' })
      },
    ],
    [
      "OpenCode 2's plugins entry naming the package",
      (env) =>
        write(
          join(env.XDG_CONFIG_HOME!, 'opencode', 'opencode.json'),
          JSON.stringify({ plugins: [{ package: 'opencode-cursor-native', options: { executable: '/user/agent' } }] }),
        ),
    ],
    [
      "OpenCode 1.18's [name, options] plugin entry",
      (env) =>
        write(
          join(env.XDG_CONFIG_HOME!, 'opencode', 'opencode.json'),
          JSON.stringify({ plugin: [['opencode-cursor-native@latest', { executable: '/user/agent' }]] }),
        ),
    ],
  ]

  for (const [name, setUp] of sources)
    test(`${name} is read`, async () => {
      const { readTrustedSettings } = await load.trusted()
      const env = bareEnv()
      setUp(env)
      assert.deepEqual(readTrustedSettings('cursor-acp', env).configured, { executable: '/user/agent' })
    })

  test('the environment is read, defaults included', async () => {
    const { readTrustedSettings } = await load.trusted()
    const env = bareEnv({
      CURSOR_AGENT_EXECUTABLE: '/env/agent',
      CURSOR_ACP_FORCE: 'false',
      CURSOR_ACP_CHILD_ENV: 'A,B_*',
    })
    const { configured, environment } = readTrustedSettings('cursor-acp', env)
    assert.deepEqual(configured, {})
    assert.deepEqual(environment, {
      executable: '/env/agent',
      force: false,
      toolMode: 'cursor',
      childEnv: ['A', 'B_*'],
      capture: false,
      capturePrompt: false,
      captureMaxBytes: 200 * 1024 * 1024,
    })
  })

  test("a later source wins, in OpenCode's order; another provider's block is not ours", async () => {
    const { readTrustedSettings } = await load.trusted()
    const env = bareEnv({ OPENCODE_CONFIG_CONTENT: block({ force: false }) })
    write(join(env.XDG_CONFIG_HOME!, 'opencode', 'opencode.json'), block({ force: true, capture: true }))
    write(
      join(env.XDG_CONFIG_HOME!, 'opencode', 'config.json'),
      JSON.stringify({ provider: { other: { options: { executable: '/other' } } } }),
    )
    assert.deepEqual(readTrustedSettings('cursor-acp', env).configured, { force: false, capture: true })
  })

  test("a project's files are never a trusted source, and doctor names what they set that is ignored", async () => {
    const { readTrustedSettings, ignoredProjectSettings } = await load.trusted()
    const env = bareEnv()
    const project = folder('project')
    mkdirSync(join(project, '.git'))
    write(join(project, 'opencode.json'), block({ executable: '/repo/agent', force: false }))
    write(join(project, '.opencode', 'opencode.jsonc'), `// planted\n${block({ capture: true, toolMode: 'opencode' })}`)
    const previous = process.cwd()
    process.chdir(project)
    try {
      assert.deepEqual(readTrustedSettings('cursor-acp', env).configured, {})
    } finally {
      process.chdir(previous)
    }
    assert.deepEqual(
      ignoredProjectSettings(project, env).map(({ file, key, value }) => [file, key, value]),
      [
        [join(project, 'opencode.json'), 'executable', '/repo/agent'],
        [join(project, '.opencode', 'opencode.jsonc'), 'capture', true],
      ],
    )
    assert.deepEqual(ignoredProjectSettings(project, { ...env, OPENCODE_DISABLE_PROJECT_CONFIG: '1' }), [])
  })
})

describe('the guard over merged options', () => {
  const environment = {
    executable: '/env/agent',
    force: false,
    toolMode: 'opencode',
    capture: false,
    capturePrompt: false,
    captureMaxBytes: 1000,
  }
  /** [case, merged options, what the user configured, options after the guard, settings warned about]. */
  const cases: Array<[string, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>, string[]]> = [
    [
      "the user's own values stand",
      { ...environment, name: 'cursor-acp' },
      {},
      { ...environment, name: 'cursor-acp' },
      [],
    ],
    [
      'a project may tighten',
      { force: false, toolMode: 'opencode', capture: false, capturePrompt: false },
      {},
      { force: false, toolMode: 'opencode', capture: false, capturePrompt: false },
      [],
    ],
    [
      'a project may not loosen: each refused setting is removed (the environment then applies)',
      { force: true, toolMode: 'cursor', capture: true, capturePrompt: true, captureMaxBytes: 10 },
      {},
      {},
      ['force', 'toolMode', 'capture', 'capturePrompt', 'captureMaxBytes'],
    ],
    [
      'a project may not pick the program, the workspace or the environment cursor-agent gets',
      { executable: '/repo/agent', workspace: '/elsewhere', childEnv: 'all', sessionResume: true },
      {},
      { sessionResume: true },
      ['executable', 'childEnv', 'workspace'],
    ],
    [
      "a refused value is replaced by the user's configured one",
      { executable: '/repo/agent', force: true },
      { executable: '/user/agent', force: true },
      { executable: '/user/agent', force: true },
      ['executable'],
    ],
  ]

  for (const [name, given, configured, expected, warned] of cases)
    test(name, async () => {
      const { guardReservedSettings } = await load.trusted()
      const { options, ignored } = guardReservedSettings(given, { configured, environment })
      assert.deepEqual(options, expected)
      assert.deepEqual(
        ignored.map((warning) => /^Provider option (\w+)=/.exec(warning)?.[1]),
        warned,
      )
    })

  test('the warning names the setting, its value, the trusted sources and what a project may set', async () => {
    const { guardReservedSettings } = await load.trusted()
    const { ignored } = guardReservedSettings(
      { force: true, executable: '/repo/agent' },
      { configured: {}, environment },
    )
    assert.deepEqual(ignored, [
      'Provider option executable="/repo/agent" is not in your own configuration (the environment, OPENCODE_CONFIG, OPENCODE_CONFIG_CONTENT or the OpenCode config folder) and a project may not set it; ignored.',
      'Provider option force=true is not in your own configuration (the environment, OPENCODE_CONFIG, OPENCODE_CONFIG_CONTENT or the OpenCode config folder) and a project may only set it to false; ignored.',
    ])
  })

  test("the workspace the plugin picked from OpenCode's folders stands", async () => {
    const { guardReservedSettings, rememberPickedWorkspace } = await load.trusted()
    const picked = folder('picked')
    rememberPickedWorkspace(picked)
    assert.deepEqual(guardReservedSettings({ workspace: picked }, { configured: {}, environment }).ignored, [])
  })
})

describe('every route to the provider', () => {
  test("the provider OpenCode builds with merged options runs the user's cursor-agent, without --force, capturing nothing", async () => {
    const { createCursorAcp } = await load.provider()
    const project = folder('cloned')
    const { program, marker } = plantedProgram(project)
    const logDir = join(project, '..', `agent-log-${folders}`)
    const data = folder('data')
    const env = bareEnv({
      CURSOR_AGENT_EXECUTABLE: fakeAgent,
      CURSOR_ACP_FORCE: 'false',
      CURSOR_ACP_WORKSPACE: project,
      XDG_DATA_HOME: data,
      FAKE_CURSOR_LOG_DIR: logDir,
      FAKE_CURSOR_STREAM: 'text:the user agent answered',
    })
    const parts = await withEnv(env, async () => {
      // As OpenCode merges the project's opencode.json into the provider block's options.
      const model = createCursorAcp({
        name: 'cursor-acp',
        workspace: project,
        executable: program,
        force: true,
        capture: true,
        capturePrompt: true,
      }).languageModel('auto')
      const { stream } = await model.doStream({
        prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      } as any)
      return collect(stream)
    })
    assert.equal(existsSync(marker), false, 'the planted program never ran')
    const text = parts
      .filter((part) => part.type === 'text-delta')
      .map((part) => part.delta)
      .join('')
    assert.equal(text, 'the user agent answered')
    const warned = parts[0].warnings.map((warning: any) => /^Provider option (\w+)=/.exec(warning.message)?.[1])
    assert.deepEqual(warned, ['executable', 'force', 'capture', 'capturePrompt'])
    const [log] = readdirSync(logDir)
    const { argv } = JSON.parse(readFileSync(join(logDir, log!), 'utf8'))
    assert.equal(argv.includes('--force'), false, argv.join(' '))
    assert.equal(existsSync(join(data, 'opencode-cursor-native', 'captures')), false, 'nothing was captured')
  })

  test("the config hook writes the user's values into the provider block, with the warnings", async () => {
    const { CursorAcpPlugin } = await load.server()
    const project = folder('hooked')
    const { program } = plantedProgram(project)
    const env = bareEnv({
      CURSOR_AGENT_EXECUTABLE: fakeAgent,
      CURSOR_ACP_FORCE: 'false',
      CURSOR_ACP_TOOL_MODE: 'opencode',
      XDG_DATA_HOME: folder('data'),
    })
    write(join(env.XDG_CONFIG_HOME!, 'opencode', 'opencode.json'), block({ sessionResume: true, capture: true }))
    // OpenCode's merged configuration: the user's global file, then the project's over it.
    const cfg: Record<string, any> = {
      provider: {
        'cursor-acp': {
          options: { sessionResume: true, capture: true, executable: program, force: true, toolMode: 'cursor' },
        },
      },
    }
    await withEnv(env, async () => {
      const hooks = await CursorAcpPlugin({ directory: project, worktree: project } as any)
      await hooks.config!(cfg as any)
    })
    const options = cfg.provider['cursor-acp'].options
    assert.equal(options.executable, fakeAgent)
    assert.equal(options.force, false)
    assert.equal(options.toolMode, 'opencode')
    assert.equal(options.capture, true, "the user's own global file may turn captures on")
    assert.equal(options.sessionResume, true)
    assert.equal(options.workspace, project, 'the workspace the plugin picked')
    assert.deepEqual(
      options.configurationWarnings.map((warning: string) => /^Provider option (\w+)=/.exec(warning)?.[1]),
      ['executable', 'force', 'toolMode'],
    )
  })
})
