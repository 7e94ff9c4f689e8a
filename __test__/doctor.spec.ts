// `npx opencode-cursor-native doctor`: the command line as a user runs it (the built
// `dist/plugin/cli/main.js`), against the fake cursor-agent for each problem it must name, with the
// verdict and exit code docs/troubleshooting.md documents. Needs `npm run build` first.
// Under Node only: the command line is a Node program (its `bin` runs with `node`, `npx` included).
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { after, describe, it } from 'node:test'

import { jsoncToJson, namesThisPlugin } from '../plugin/opencode/config-files.ts'
import { DEFAULT_HOST, DEFAULT_PORT } from '../plugin/proxy/server.ts'

const root = join(__dirname, '..')
const cli = join(root, 'dist', 'plugin', 'cli', 'main.js')
const fakeAgent = join(__dirname, 'support', 'agents', 'fake-cursor-agent.mjs')
// A --live doctor runs the fake agent a few times, about 3 CPU-seconds in all; a test runs it up to
// three times, beside the suite's other files and the other suites on two cores. The limits only
// turn a hang into a failure (Bun's default is 5 s): a doctor ends within DOCTOR_LIMIT_MS, a test
// of three doctors within LIMIT.
const DOCTOR_LIMIT_MS = 150_000
const LIMIT = { timeout: 3 * DOCTOR_LIMIT_MS }
const scratch = mkdtempSync(join(tmpdir(), 'ocn-doctor-'))
after(() => rmSync(scratch, { recursive: true, force: true }))

interface Check {
  id: string
  status: 'ok' | 'problem' | 'warning' | 'skipped'
  detail: string
  fix?: string
}
interface Report {
  ok: boolean
  checks: Check[]
}

/** Scripts for the live checks, chosen by the first key their prompt contains (the round trip's prompt is a "connection check" too). */
const LIVE_SCRIPT = (
  nativeRefused: boolean,
  deadline: unknown[] = WAITS_FOR_THE_LATE_ANSWER,
  readOnly: unknown[] = [{ text: 'planned' }],
) =>
  JSON.stringify({
    'word: pong': [{ text: 'pong' }],
    'word: understood': [{ text: 'understood' }],
    // The read-only turn: what the model answers in plan mode.
    'word: planned': readOnly,
    // The model says the word it sees in the picture (vision.mjs reads it).
    'word written in it': [{ text: 'The word is {{seen:0}}.' }],
    // The deadline check's prompt, a "connection check" too.
    'answers slowly': deadline,
    'connection check': [
      { calls: [{ tool: 'opencode_probe', args: { word: 'ready' } }] },
      { text: 'It said {{result:0}}' },
    ],
    'permission check': [
      { native: 'shell', command: 'touch native-probe.txt', refused: nativeRefused },
      { text: 'done' },
    ],
  })

/** The model the deadline check hopes for: it waits with opencode_wait for the probe's late answer. */
const WAITS_FOR_THE_LATE_ANSWER = [
  { calls: [{ tool: 'opencode_probe', args: { word: 'late' } }] },
  { calls: [{ tool: 'opencode_wait', args: { job: '{{match:0:job (\\d+)}}' } }], repeatWhile: 'is still running' },
  { text: 'It said {{result:last}}' },
]

/** `--check` for each id: the live checks a test looks at, besides the round trip every one needs. */
const only = (...ids: string[]) => ids.flatMap((id) => ['--check', id])
/** The checks of the tool bridge, which the verdict on tool mode opencode needs all of. */
const BRIDGE_IDS = ['live-bridge-tools', 'live-probe-call', 'live-deadline', 'live-native-refused']

let homes = 0
/** Runs the doctor in a fresh home and project folder, with the fake agent unless `env` says otherwise. */
async function doctor(
  args: string[],
  env: Record<string, string> = {},
  options: { cli?: string; project?: (dir: string) => void } = {},
) {
  homes += 1
  const home = join(scratch, `home-${homes}`)
  const project = join(home, 'project')
  mkdirSync(project, { recursive: true })
  options.project?.(project)
  const child = spawn(process.execPath, [options.cli ?? cli, 'doctor', ...args], {
    cwd: project,
    timeout: DOCTOR_LIMIT_MS,
    env: {
      PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: home,
      CURSOR_AGENT_EXECUTABLE: fakeAgent,
      CURSOR_ACP_CHILD_ENV: 'FAKE_CURSOR_*',
      FAKE_CURSOR_LOG_DIR: join(home, 'log'),
      // Cursor's 60 s MCP timeout and the bridge's 45 s deadline, scaled: the deadline check's
      // probe answers after 1.4 s.
      CURSOR_ACP_TOOL_DEADLINE_MS: '1000',
      FAKE_CURSOR_MCP_TIMEOUT_MS: '2000',
      // The update check's one request goes nowhere: refused at once, it says it could not check.
      NPM_CONFIG_REGISTRY: 'http://127.0.0.1:9/',
      ...env,
    },
  })
  // Each doctor is a process of its own: the tests of a describe run side by side.
  const [stdout, stderr] = [child.stdout, child.stderr].map((stream) => {
    const chunks: Buffer[] = []
    stream.on('data', (chunk: Buffer) => chunks.push(chunk))
    return chunks
  }) as [Buffer[], Buffer[]]
  const [status, error] = await new Promise<[number | null, Error | undefined]>((settle) => {
    child.once('error', (failed) => settle([null, failed]))
    child.once('close', (code) => settle([code, undefined]))
  })
  const text = (chunks: Buffer[]) => Buffer.concat(chunks).toString('utf8')
  return { status, error, stdout: text(stdout), stderr: text(stderr), home }
}

function report(ran: Awaited<ReturnType<typeof doctor>>): Report {
  assert.equal(ran.error, undefined, `the doctor ended within ${DOCTOR_LIMIT_MS / 1000} s`)
  try {
    return JSON.parse(ran.stdout) as Report
  } catch {
    assert.fail(`not JSON: ${ran.stdout}\n${ran.stderr}`)
  }
}

const statusOf = (found: Report) => Object.fromEntries(found.checks.map((check) => [check.id, check.status]))

// Each test runs doctors of its own, in folders of their own: a few run side by side (each
// `--live` doctor starts several runs of the fake agent).
describe('doctor', { concurrency: 4 }, () => {
  it('with everything in place: all ok but the live checks, which are skipped, and exit 0', async () => {
    const ran = await doctor(
      ['--json'],
      {},
      { project: (dir) => writeFileSync(join(dir, 'opencode.json'), '{"plugin": ["opencode-cursor-native"]}') },
    )
    const found = report(ran)
    assert.equal(ran.status, 0, ran.stderr)
    assert.equal(found.ok, true)
    assert.deepEqual(statusOf(found), {
      addon: 'ok',
      install: 'ok',
      // The registry of the helper refuses: the update check could not ask it.
      update: 'skipped',
      settings: 'ok',
      timeouts: 'ok',
      agent: 'ok',
      version: 'ok',
      login: 'ok',
      'tool-mode-login': 'ok',
      'tool-mode-files': 'ok',
      models: 'ok',
      'opencode-config': 'ok',
      'project-settings': 'ok',
      'data-dir': 'ok',
      'live-round-trip': 'skipped',
      'live-host-instructions': 'skipped',
      'live-picture': 'skipped',
      'live-read-only': 'skipped',
      'live-bridge-tools': 'skipped',
      'live-probe-call': 'skipped',
      'live-deadline': 'skipped',
      'live-native-refused': 'skipped',
      'tool-mode-opencode': 'skipped',
    })
    const byId = Object.fromEntries(found.checks.map((check) => [check.id, check]))
    assert.match(byId.agent.detail, /fake-cursor-agent\.mjs/)
    assert.match(byId.version.detail, /2026\.10\.01-fake/)
    assert.equal(
      byId.version.detail,
      'cursor-agent 2026.10.01-fake (--version); its path names no release folder (…/cursor-agent/versions/<version>/)',
    )
    assert.equal(byId.timeouts.detail, 'idle limit 30 min (default), overall limit none (default)')
    assert.match(byId.models.detail, /3 models: auto, fake-model, composer-2\.5/)
    assert.match(byId.settings.detail, /capture off/)
    assert.match(byId['opencode-config'].detail, /opencode\.json \(project\)/)
    assert.match(byId['live-round-trip'].fix ?? '', /doctor --live/, 'the first live check says how to run them')
    for (const check of found.checks)
      assert.deepEqual(
        Object.keys(check).filter((key) => !['id', 'status', 'detail', 'fix'].includes(key)),
        [],
      )
  })

  it('names the idle and overall limits in force and where each came from; a short idle limit warns', async () => {
    const table: Array<{ env: Record<string, string>; status: string; detail: string }> = [
      {
        env: { CURSOR_ACP_IDLE_TIMEOUT_MS: '2700000', CURSOR_ACP_TIMEOUT_MS: '5400000' },
        status: 'ok',
        detail: 'idle limit 45 min (CURSOR_ACP_IDLE_TIMEOUT_MS), overall limit 1 h 30 min (CURSOR_ACP_TIMEOUT_MS)',
      },
      {
        env: { CURSOR_ACP_IDLE_TIMEOUT_MS: '0' },
        status: 'ok',
        detail: 'idle limit none (CURSOR_ACP_IDLE_TIMEOUT_MS), overall limit none (default)',
      },
      // An invalid value is ignored (a settings warning): the default is in force.
      {
        env: { CURSOR_ACP_IDLE_TIMEOUT_MS: '5min' },
        status: 'ok',
        detail: 'idle limit 30 min (default), overall limit none (default)',
      },
      // Below the longest healthy silence seen (757 s).
      {
        env: { CURSOR_ACP_IDLE_TIMEOUT_MS: '300000' },
        status: 'warning',
        detail:
          'idle limit 5 min (CURSOR_ACP_IDLE_TIMEOUT_MS), overall limit none (default); cursor-agent can print nothing for 757 s in a healthy turn',
      },
    ]
    for (const expected of table) {
      const check = report(await doctor(['--json'], expected.env)).checks.find((found) => found.id === 'timeouts')
      assert.equal(check?.status, expected.status, JSON.stringify(expected.env))
      assert.equal(check?.detail, expected.detail)
      if (expected.status === 'warning') assert.match(check?.fix ?? '', /CURSOR_ACP_IDLE_TIMEOUT_MS/)
    }
  })

  it("prints both what `--version` says and the version the binary's release folder names", async () => {
    // Cursor's installer's layout: each release in its own folder, a link to the current one.
    const install = join(scratch, 'install')
    const release = join(install, 'share', 'cursor-agent', 'versions', '2026.09.18-9a7762b')
    mkdirSync(release, { recursive: true })
    symlinkSync(fakeAgent, join(release, 'cursor-agent'))
    mkdirSync(join(install, 'bin'), { recursive: true })
    symlinkSync(join(release, 'cursor-agent'), join(install, 'bin', 'cursor-agent'))
    const found = report(await doctor(['--json'], { CURSOR_AGENT_EXECUTABLE: join(install, 'bin', 'cursor-agent') }))
    const version = found.checks.find((check) => check.id === 'version')
    assert.equal(version?.status, 'ok')
    assert.equal(version?.detail, 'cursor-agent 2026.10.01-fake (--version); its path names 2026.09.18-9a7762b')
  })

  it('says where runs are captured when CURSOR_ACP_CAPTURE is on', async () => {
    const ran = await doctor(['--json'], { CURSOR_ACP_CAPTURE: '1', XDG_DATA_HOME: join(scratch, 'xdg') })
    const settings = report(ran).checks.find((check) => check.id === 'settings')
    assert.equal(settings?.status, 'ok')
    assert.equal(
      settings?.detail.includes(`capture on (${join(scratch, 'xdg', 'opencode-cursor-native', 'captures')})`),
      true,
      settings?.detail,
    )
  })

  it('each problem is named, with its fix, and makes the exit code 1', LIMIT, async () => {
    const table: Array<{ name: string; env: Record<string, string>; problem: string; fix: RegExp; skipped: string[] }> =
      [
        {
          name: 'no cursor-agent',
          env: { CURSOR_AGENT_EXECUTABLE: join(scratch, 'missing-agent') },
          problem: 'agent',
          fix: /cursor\.com\/install|CURSOR_AGENT_EXECUTABLE/,
          skipped: ['version', 'login', 'tool-mode-login', 'tool-mode-files', 'models'],
        },
        {
          name: 'not logged in',
          env: { FAKE_CURSOR_SCENARIO: 'auth' },
          problem: 'login',
          fix: /cursor-agent login/,
          skipped: ['models'],
        },
        { name: 'no models on the plan', env: { FAKE_CURSOR_MODELS: '' }, problem: 'models', fix: /plan/, skipped: [] },
      ]
    for (const row of table) {
      const ran = await doctor(['--json', '--live'], row.env)
      const found = report(ran)
      assert.equal(ran.status, 1, row.name)
      assert.equal(found.ok, false, row.name)
      const check = found.checks.find((c) => c.id === row.problem)!
      assert.equal(check.status, 'problem', `${row.name}: ${JSON.stringify(check)}`)
      assert.match(check.fix ?? '', row.fix, row.name)
      for (const id of row.skipped) assert.equal(statusOf(found)[id], 'skipped', `${row.name}: ${id}`)
      // A blocked machine spends none of the account's requests on the live checks.
      for (const id of ['live-round-trip', 'live-probe-call'])
        assert.equal(statusOf(found)[id], 'skipped', `${row.name}: ${id}`)
      assert.equal(found.checks.filter((c) => c.status === 'problem').length, 1, `${row.name}: only the one problem`)
    }
  })

  /** A Linux `cursor-agent login`: its tokens in `~/.config/cursor/auth.json`, no API key. */
  const linuxLogin = (project: string) => {
    const config = join(dirname(project), '.config', 'cursor')
    mkdirSync(config, { recursive: true })
    writeFileSync(join(config, 'auth.json'), JSON.stringify({ accessToken: 'a', refreshToken: 'r' }))
  }

  it(
    "a Linux login is found in tool mode opencode's private folder, whose files read as Cursor reads them",
    LIMIT,
    async () => {
      const ran = await doctor(
        ['--json'],
        { FAKE_CURSOR_LOGIN: 'files', CURSOR_ACP_TOOL_MODE: 'opencode' },
        { project: linuxLogin },
      )
      const found = report(ran)
      const status = statusOf(found)
      for (const id of ['login', 'tool-mode-login', 'tool-mode-files']) assert.equal(status[id], 'ok', id)
      assert.equal(ran.status, 0, ran.stdout)
    },
  )

  it('without a login, tool mode opencode names the private folder and how to fix it', LIMIT, async () => {
    const found = report(await doctor(['--json'], { FAKE_CURSOR_LOGIN: 'files', CURSOR_ACP_TOOL_MODE: 'opencode' }))
    const check = found.checks.find((c) => c.id === 'tool-mode-login')
    assert.equal(check?.status, 'problem')
    assert.match(check?.fix ?? '', /private HOME/)
    assert.match(check?.fix ?? '', /CURSOR_API_KEY/)
  })

  it(
    "cursor-agent where Cursor's installer puts it (~/.local/bin, off PATH) is found for tool mode opencode too",
    LIMIT,
    async () => {
      const install = (project: string) => {
        const bin = join(dirname(project), '.local', 'bin')
        mkdirSync(bin, { recursive: true })
        symlinkSync(fakeAgent, join(bin, 'cursor-agent'))
      }
      const found = report(
        await doctor(
          ['--json'],
          { CURSOR_AGENT_EXECUTABLE: '', CURSOR_ACP_TOOL_MODE: 'opencode' },
          { project: install },
        ),
      )
      const status = statusOf(found)
      for (const id of ['agent', 'login', 'tool-mode-login', 'tool-mode-files']) assert.equal(status[id], 'ok', id)
    },
  )

  it('a NODE_OPTIONS in the environment is noted, and no cursor-agent it starts gets it', LIMIT, async () => {
    // A flag Node allows, so that the doctor's own Node starts.
    const ran = await doctor(['--json'], {
      NODE_OPTIONS: '--no-warnings',
      CURSOR_ACP_CHILD_ENV: 'FAKE_CURSOR_*,NODE_OPTIONS',
    })
    const found = report(ran)
    const agent = found.checks.find((c) => c.id === 'agent')!
    assert.equal(agent.status, 'ok')
    assert.match(agent.detail, /NODE_OPTIONS is set here and is not passed to cursor-agent/)
    const logs = readdirSync(join(ran.home, 'log'))
    assert.ok(logs.length > 0, 'the doctor ran cursor-agent')
    for (const file of logs) {
      const { envNames } = JSON.parse(readFileSync(join(ran.home, 'log', file), 'utf8'))
      assert.ok(!envNames.includes('NODE_OPTIONS'), `${file}: ${envNames}`)
    }
    const without = report(await doctor(['--json']))
    assert.doesNotMatch(without.checks.find((c) => c.id === 'agent')!.detail, /NODE_OPTIONS/)
  })

  it('a plugin missing from OpenCode configuration is a warning, not a problem', async () => {
    const ran = await doctor(['--json'])
    const found = report(ran)
    assert.equal(ran.status, 0)
    const check = found.checks.find((c) => c.id === 'opencode-config')!
    assert.equal(check.status, 'warning')
    assert.match(check.fix ?? '', /"plugin": \["opencode-cursor-native"\]/)
  })

  it("a project's opencode.json that picks the program or loosens safety is named as ignored, a warning", async () => {
    const planted = (dir: string) =>
      writeFileSync(
        join(dir, 'opencode.json'),
        JSON.stringify({
          plugin: ['opencode-cursor-native'],
          provider: { 'cursor-acp': { options: { executable: './tools/agent', force: true, toolMode: 'opencode' } } },
        }),
      )
    const ran = await doctor(['--json'], { CURSOR_ACP_FORCE: 'false' }, { project: planted })
    const found = report(ran)
    assert.equal(ran.status, 0)
    const check = found.checks.find((c) => c.id === 'project-settings')!
    assert.equal(check.status, 'warning')
    assert.match(check.detail, /executable="\.\/tools\/agent" in .*opencode\.json, force=true in /)
    assert.doesNotMatch(check.detail, /toolMode/, 'a project may choose tool mode opencode')
    assert.match(check.fix ?? '', /force: false, toolMode: "opencode"/)
  })

  it('without the native addon: the addon check comes first, a problem, and what needs it is skipped', async () => {
    // The package as npm would install it when the platform package is missing.
    const installed = join(scratch, 'no-addon', 'node_modules', 'opencode-cursor-native')
    mkdirSync(installed, { recursive: true })
    for (const file of ['package.json', 'index.js']) cpSync(join(root, file), join(installed, file))
    cpSync(join(root, 'dist'), join(installed, 'dist'), { recursive: true })
    // Its dependencies npm installs beside it all the same.
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
    for (const dependency of Object.keys(pkg.dependencies)) {
      const target = join(scratch, 'no-addon', 'node_modules', dependency)
      mkdirSync(dirname(target), { recursive: true })
      if (!existsSync(target)) symlinkSync(join(root, 'node_modules', dependency), target, 'dir')
    }
    const ran = await doctor(['--json', '--live'], {}, { cli: join(installed, 'dist', 'plugin', 'cli', 'main.js') })
    const found = report(ran)
    assert.equal(ran.status, 1)
    assert.equal(found.checks[0].id, 'addon')
    assert.equal(found.checks[0].status, 'problem')
    assert.match(found.checks[0].fix ?? '', /Reinstall/)
    const status = statusOf(found)
    for (const id of [
      'settings',
      'timeouts',
      'agent',
      'version',
      'login',
      'models',
      'live-round-trip',
      'live-probe-call',
      'tool-mode-opencode',
    ])
      assert.equal(status[id], 'skipped', id)
    assert.equal(status['data-dir'], 'ok', 'checks that need no addon still run')
  })

  it('an API key counts as logged in, and no secret appears in the output', LIMIT, async () => {
    const secret = 'key-0f1e2d3c4b5a69788796a5b4c3d2e1f0'
    const ran = await doctor(['--json', '--live'], {
      CURSOR_API_KEY: secret,
      FAKE_CURSOR_SCENARIO: 'mcp',
      FAKE_CURSOR_MCP_SCRIPT: LIVE_SCRIPT(true),
    })
    const found = report(ran)
    assert.equal(found.checks.find((c) => c.id === 'login')?.status, 'ok')
    assert.ok(!`${ran.stdout}${ran.stderr}`.includes(secret), 'the API key is not printed')
    // Nor is the bridge's bearer token, which only the private mcp.json holds.
    const mcpJson = join(
      ran.home,
      '.local',
      'share',
      'opencode-cursor-native',
      'conversations',
      'doctor',
      'home',
      '.cursor',
      'mcp.json',
    )
    assert.ok(existsSync(mcpJson), 'the live checks used the private folder')
  })

  describe('--live with the fake agent', { concurrency: 3 }, () => {
    it(
      'the bridge lists the probe tool, the probe call arrives, the native call is refused: opencode mode can be used',
      LIMIT,
      async () => {
        const ran = await doctor(['--json', '--live'], {
          FAKE_CURSOR_SCENARIO: 'mcp',
          FAKE_CURSOR_MCP_SCRIPT: LIVE_SCRIPT(true),
        })
        const found = report(ran)
        assert.equal(ran.status, 0, ran.stderr)
        assert.deepEqual(
          found.checks.slice(-9).map((check) => [check.id, check.status]),
          [
            ['live-round-trip', 'ok'],
            ['live-host-instructions', 'ok'],
            ['live-picture', 'ok'],
            ['live-read-only', 'ok'],
            ['live-bridge-tools', 'ok'],
            ['live-probe-call', 'ok'],
            ['live-deadline', 'ok'],
            ['live-native-refused', 'ok'],
            ['tool-mode-opencode', 'ok'],
          ],
        )
        const byId = Object.fromEntries(found.checks.map((check) => [check.id, check]))
        assert.equal(byId['live-bridge-tools'].status, 'ok', byId['live-bridge-tools'].detail)
        assert.equal(byId['live-probe-call'].status, 'ok', byId['live-probe-call'].detail)
        assert.match(byId['live-probe-call'].detail, /word "ready", and the model read its answer/)
        assert.equal(
          byId['live-deadline'].detail,
          "opencode_probe answered 1.4 s after the call, past the bridge's 1.0 s deadline; the model got its result through opencode_wait",
        )
        assert.equal(byId['live-native-refused'].status, 'ok', byId['live-native-refused'].detail)
        assert.match(byId['live-native-refused'].detail, /tried its own shell, and it was refused/)
        assert.equal(byId['tool-mode-opencode'].status, 'ok')
      },
    )

    it(
      '--check runs the round trip and the live checks it names, and asks nothing else of the account',
      LIMIT,
      async () => {
        const ran = await doctor(['--json', '--live', ...only('live-picture')], {
          FAKE_CURSOR_SCENARIO: 'mcp',
          FAKE_CURSOR_MCP_SCRIPT: LIVE_SCRIPT(true),
        })
        assert.equal(ran.status, 0, ran.stderr)
        const live = report(ran).checks.filter((c) => c.id.startsWith('live-') || c.id === 'tool-mode-opencode')
        assert.deepEqual(
          live.map((c) => [c.id, c.status]),
          [
            ['live-round-trip', 'ok'],
            ['live-host-instructions', 'skipped'],
            ['live-picture', 'ok'],
            ['live-read-only', 'skipped'],
            ['live-bridge-tools', 'skipped'],
            ['live-probe-call', 'skipped'],
            ['live-deadline', 'skipped'],
            ['live-native-refused', 'skipped'],
            ['tool-mode-opencode', 'skipped'],
          ],
        )
        assert.ok(live.filter((c) => c.status === 'skipped').every((c) => c.detail === 'not among those --check names'))
        // The round trip and the picture's turn: nothing else went to the account.
        const prompts = readdirSync(join(ran.home, 'log'))
          .map((file) => JSON.parse(readFileSync(join(ran.home, 'log', file), 'utf8')) as { stdin?: string })
          .filter((entry) => entry.stdin !== undefined && entry.stdin !== '')
        assert.equal(prompts.length, 2, JSON.stringify(prompts.map((entry) => entry.stdin?.slice(0, 80))))

        for (const args of [
          ['--live', '--check', 'live-nothing'],
          ['--check', 'live-picture'],
        ]) {
          const refused = await doctor(args)
          assert.equal(refused.status, 2, args.join(' '))
          assert.match(refused.stderr, /--check names live checks, with --live: one of live-round-trip, /)
        }
      },
    )

    it(
      "a bridge call refused despite the folder's allow rule names a team's MCP tool controls, with their fix",
      LIMIT,
      async () => {
        const ran = await doctor(['--json', '--live', ...only('live-probe-call')], {
          CURSOR_ACP_TOOL_MODE: 'opencode',
          FAKE_CURSOR_SCENARIO: 'mcp',
          FAKE_CURSOR_MCP_SCRIPT: LIVE_SCRIPT(true),
          FAKE_CURSOR_TEAM_MCP_CONTROLS: 'on',
        })
        assert.equal(ran.status, 1, 'a problem in tool mode opencode')
        const probe = report(ran).checks.find((c) => c.id === 'live-probe-call')!
        assert.equal(probe.status, 'problem')
        assert.match(probe.detail, /Cursor refused the call to opencode_probe/)
        assert.match(probe.detail, /team's MCP tool controls/)
        assert.match(probe.fix ?? '', /admin to allow the MCP server `opencode`/)
      },
    )

    it(
      "a read-only turn runs in plan mode without --force: its answer back, as text or as Cursor's plan, is ok; none is a warning",
      LIMIT,
      async () => {
        const cases: Array<[string, unknown[], string, RegExp]> = [
          [
            'text',
            [{ text: 'planned' }],
            'ok',
            /answered a read-only turn \(the Plan agent's\) in \d+\.\d s; it said "planned"$/,
          ],
          ['the plan alone', [{ plan: '# Plan\n\nplanned' }], 'ok', /it said "planned"$/],
          ['nothing', [], 'warning', /ended a read-only turn \(the Plan agent's\) without any answer/],
        ]
        for (const [name, readOnly, status, detail] of cases) {
          const ran = await doctor(['--json', '--live', ...only('live-read-only')], {
            FAKE_CURSOR_SCENARIO: 'mcp',
            FAKE_CURSOR_MCP_SCRIPT: LIVE_SCRIPT(true, WAITS_FOR_THE_LATE_ANSWER, readOnly),
          })
          const check = report(ran).checks.find((c) => c.id === 'live-read-only')!
          assert.equal(check.status, status, `${name}: ${check.detail}`)
          assert.match(check.detail, detail, name)
          const turns = readdirSync(join(ran.home, 'log'))
            .map(
              (file) =>
                JSON.parse(readFileSync(join(ran.home, 'log', file), 'utf8')) as { argv: string[]; stdin?: string },
            )
            .filter((entry) => entry.stdin?.includes('word: planned'))
          assert.equal(turns.length, 1, `${name}: one read-only turn`)
          assert.deepEqual(turns[0]!.argv.slice(-3), ['--trust', '--mode', 'plan'], name)
        }
      },
    )

    it(
      'the round trip: a plain run with --trust in an empty folder of its own, the model named, its answer not shown',
      LIMIT,
      async () => {
        const ran = await doctor(['--json', '--live', ...only('live-round-trip'), '--model', 'fake-model'], {
          FAKE_CURSOR_SCENARIO: 'mcp',
          FAKE_CURSOR_MCP_SCRIPT: LIVE_SCRIPT(true),
        })
        const found = report(ran)
        assert.equal(ran.status, 0, ran.stderr)
        const check = found.checks.find((c) => c.id === 'live-round-trip')!
        assert.equal(check.status, 'ok', check.detail)
        assert.match(check.detail, /^fake-model answered in \d+\.\d s \(first text after \d+\.\d s\); it said "pong"$/)
        assert.ok(!ran.stdout.includes('Reply with exactly'), 'the prompt is not printed')
        const runs = readdirSync(join(ran.home, 'log'))
          .map(
            (file) =>
              JSON.parse(readFileSync(join(ran.home, 'log', file), 'utf8')) as {
                argv: string[]
                cwd: string
                stdin?: string
                mcpServers?: string[]
              },
          )
          .filter((entry) => entry.stdin?.includes('word: pong'))
        assert.equal(runs.length, 1, 'one round trip')
        const [roundTrip] = runs
        assert.ok(roundTrip.argv.includes('--trust') && !roundTrip.argv.includes('--force'), roundTrip.argv.join(' '))
        assert.equal(roundTrip.argv[roundTrip.argv.indexOf('--model') + 1], 'fake-model')
        assert.ok(!roundTrip.argv.includes('--approve-mcps'), 'no bridge')
        assert.deepEqual(roundTrip.mcpServers, [])
        assert.match(basename(roundTrip.cwd), /^ocn-doctor-round-trip-/)
        assert.ok(!existsSync(roundTrip.cwd), 'its folder is removed afterwards')
      },
    )

    it(
      "a first turn carries OpenCode's real system prompt as the plugin sends it: answered is ok, refused is a problem",
      LIMIT,
      async () => {
        const answered = await doctor(['--json', '--live', ...only('live-host-instructions')], {
          FAKE_CURSOR_SCENARIO: 'mcp',
          FAKE_CURSOR_MCP_SCRIPT: LIVE_SCRIPT(true),
        })
        const ok = report(answered).checks.find((c) => c.id === 'live-host-instructions')!
        assert.equal(ok.status, 'ok', ok.detail)
        assert.match(
          ok.detail,
          /answered a first turn carrying OpenCode's system prompt \(tool mode cursor\); it said "understood"/,
        )
        const turns = readdirSync(join(answered.home, 'log'))
          .map((file) => JSON.parse(readFileSync(join(answered.home, 'log', file), 'utf8')) as { stdin?: string })
          .filter((entry) => entry.stdin?.includes('word: understood'))
        assert.equal(turns.length, 1, 'one turn')
        const stdin = turns[0]!.stdin ?? ''
        assert.match(stdin, /You are opencode, an interactive CLI tool/, "OpenCode's system prompt")
        assert.ok(!stdin.includes('<available_skills>'), 'with the diet of tool mode cursor')

        const refusing = JSON.stringify({
          ...JSON.parse(LIVE_SCRIPT(true)),
          'word: understood': [{ text: "I can't follow these instructions: they look like a prompt injection." }],
        })
        const refused = await doctor(['--json', '--live', ...only('live-host-instructions')], {
          FAKE_CURSOR_SCENARIO: 'mcp',
          FAKE_CURSOR_MCP_SCRIPT: refusing,
        })
        assert.equal(refused.status, 1)
        const problem = report(refused).checks.find((c) => c.id === 'live-host-instructions')!
        assert.equal(problem.status, 'problem')
        assert.match(problem.detail, /refused OpenCode's system prompt \("can't follow"\)/)
        assert.match(problem.fix ?? '', /report this output/)
      },
    )

    it(
      'a picture with a random word reaches the model, which must answer it when it is declared to take pictures',
      LIMIT,
      async () => {
        const pictureOf = (ran: Awaited<ReturnType<typeof doctor>>) =>
          report(ran).checks.find((c) => c.id === 'live-picture')!
        const logged = (ran: Awaited<ReturnType<typeof doctor>>) =>
          readdirSync(join(ran.home, 'log'))
            .map(
              (file) =>
                JSON.parse(readFileSync(join(ran.home, 'log', file), 'utf8')) as {
                  stdin?: string
                  argv: string[]
                  attachmentReads?: Array<{ path: string; verdict: string; text?: string }>
                },
            )
            .filter((entry) => entry.stdin?.includes('word written in it'))
        const sees = await doctor(['--json', '--live', ...only('live-picture'), '--model', 'sonnet-4.6'], {
          FAKE_CURSOR_SCENARIO: 'mcp',
          FAKE_CURSOR_MCP_SCRIPT: LIVE_SCRIPT(true),
        })
        const ok = pictureOf(sees)
        assert.equal(ok.status, 'ok', ok.detail)
        const [run] = logged(sees)
        assert.equal(run!.argv[run!.argv.indexOf('--model') + 1], 'sonnet-4.6')
        const [read] = run!.attachmentReads!
        assert.equal(read!.verdict, 'allowed')
        assert.match(read!.text ?? '', /^[A-Z]{5}$/, 'the picture shows a word')
        assert.equal(ok.detail, `sonnet-4.6 read the word "${read!.text}" in a picture`)
        assert.ok(!existsSync(dirname(read!.path)), 'the picture went with its run')

        const blind = JSON.stringify({
          ...JSON.parse(LIVE_SCRIPT(true)),
          'word written in it': [{ text: 'I see nothing.' }],
        })
        const missed = await doctor(['--json', '--live', ...only('live-picture'), '--model', 'sonnet-4.6'], {
          FAKE_CURSOR_SCENARIO: 'mcp',
          FAKE_CURSOR_MCP_SCRIPT: blind,
        })
        assert.equal(missed.status, 0, 'a warning: text still works')
        const warning = pictureOf(missed)
        assert.equal(warning.status, 'warning')
        assert.match(
          warning.detail,
          /^sonnet-4\.6 did not answer "[A-Z]{5}", the word in the picture: I see nothing\.$/,
        )
        assert.match(warning.fix ?? '', /report this output/)

        // A model declared without pictures: OpenCode refuses them for it, and not reading is as declared.
        const asDeclared = pictureOf(
          await doctor(['--json', '--live', ...only('live-picture')], {
            FAKE_CURSOR_SCENARIO: 'mcp',
            FAKE_CURSOR_MCP_SCRIPT: blind,
          }),
        )
        assert.equal(asDeclared.status, 'ok')
        assert.match(asDeclared.detail, /^auto did not read the picture, as declared/)
      },
    )

    it(
      "in tool mode opencode the system prompt goes as the private folder's always-apply rule, not in the prompt",
      LIMIT,
      async () => {
        const answered = await doctor(['--json', '--live', ...only('live-host-instructions')], {
          CURSOR_ACP_TOOL_MODE: 'opencode',
          FAKE_CURSOR_SCENARIO: 'mcp',
          FAKE_CURSOR_MCP_SCRIPT: LIVE_SCRIPT(true),
        })
        const ok = report(answered).checks.find((c) => c.id === 'live-host-instructions')!
        assert.equal(ok.status, 'ok', ok.detail)
        assert.match(ok.detail, /\(tool mode opencode\)/)
        const turns = readdirSync(join(answered.home, 'log'))
          .map(
            (file) =>
              JSON.parse(readFileSync(join(answered.home, 'log', file), 'utf8')) as {
                stdin?: string
                alwaysAppliedRules?: Array<{ body: string }>
              },
          )
          .filter((entry) => entry.stdin?.includes('word: understood'))
        assert.equal(turns.length, 1, 'one turn')
        assert.ok(!turns[0]!.stdin!.includes('You are opencode'), 'the prompt keeps only the conversation')
        assert.ok(
          turns[0]!.alwaysAppliedRules?.some((rule) => rule.body.includes('You are opencode, an interactive CLI tool')),
          'the rule carries the system prompt',
        )
      },
    )

    it(
      'a failed round trip is a problem in every tool mode, with a fix for its code, and skips the bridge checks',
      LIMIT,
      async () => {
        const authError =
          "Error: Authentication required. Please run 'agent login' first, or set CURSOR_API_KEY environment variable."
        const table: Array<{ name: string; env: Record<string, string>; code: string; fix: RegExp }> = [
          { name: 'model not available', env: { FAKE_CURSOR_SCENARIO: 'model' }, code: 'E_MODEL', fix: /--model <id>/ },
          {
            name: 'login refused by the run',
            env: { FAKE_CURSOR_SCENARIO: 'fail', FAKE_CURSOR_STDERR: authError, CURSOR_ACP_TOOL_MODE: 'opencode' },
            code: 'E_AUTH',
            fix: /cursor-agent login/,
          },
          {
            name: 'another failure',
            env: { FAKE_CURSOR_SCENARIO: 'fail', FAKE_CURSOR_STDERR: 'Error: something unexpected' },
            code: 'E_AGENT_EXIT',
            fix: /CURSOR_ACP_LOG_LEVEL=debug/,
          },
        ]
        for (const row of table) {
          const ran = await doctor(['--json', '--live'], row.env)
          const found = report(ran)
          assert.equal(ran.status, 1, row.name)
          assert.equal(found.ok, false, row.name)
          const check = found.checks.find((c) => c.id === 'live-round-trip')!
          assert.equal(check.status, 'problem', `${row.name}: ${JSON.stringify(check)}`)
          assert.match(check.detail, new RegExp(`^the run failed: .*\\[${row.code}\\]`), row.name)
          assert.match(check.fix ?? '', row.fix, row.name)
          for (const id of [
            'live-bridge-tools',
            'live-probe-call',
            'live-deadline',
            'live-native-refused',
            'tool-mode-opencode',
          ]) {
            const skippedCheck = found.checks.find((c) => c.id === id)!
            assert.equal(skippedCheck.status, 'skipped', `${row.name}: ${id}`)
            assert.equal(skippedCheck.detail, 'needs the live-round-trip check to pass')
          }
          assert.equal(
            found.checks.filter((c) => c.status === 'problem').length,
            1,
            `${row.name}: only the one problem`,
          )
          // No request was spent on the bridge: the round trip was the only run, and no `mcp list-tools`.
          const logged = readdirSync(join(ran.home, 'log')).map(
            (file) =>
              JSON.parse(readFileSync(join(ran.home, 'log', file), 'utf8')) as { stdin?: string; subcommand?: string },
          )
          assert.equal(logged.filter((entry) => entry.stdin !== undefined).length, 1, row.name)
          assert.equal(logged.filter((entry) => entry.subcommand === 'mcp list-tools').length, 0, row.name)
        }
      },
    )

    it(
      'a native tool that runs fails the verdict: a warning in mode cursor, a problem in mode opencode',
      LIMIT,
      async () => {
        for (const [mode, status, exit] of [
          ['cursor', 'warning', 0],
          ['opencode', 'problem', 1],
        ] as const) {
          const ran = await doctor(['--json', '--live', ...only(...BRIDGE_IDS)], {
            CURSOR_ACP_TOOL_MODE: mode,
            FAKE_CURSOR_SCENARIO: 'mcp',
            FAKE_CURSOR_MCP_SCRIPT: LIVE_SCRIPT(false),
          })
          const found = report(ran)
          assert.equal(ran.status, exit, mode)
          const byId = Object.fromEntries(found.checks.map((check) => [check.id, check]))
          assert.equal(byId['live-native-refused'].status, status, mode)
          assert.match(byId['live-native-refused'].detail, /Cursor ran shell itself/)
          assert.equal(byId['tool-mode-opencode'].status, status, mode)
          assert.match(byId['tool-mode-opencode'].fix ?? '', /report this output/)
        }
      },
    )

    it('a model that calls the late probe again instead of waiting fails the deadline check', LIMIT, async () => {
      const ran = await doctor(['--json', '--live', ...only(...BRIDGE_IDS)], {
        CURSOR_ACP_TOOL_MODE: 'opencode',
        FAKE_CURSOR_SCENARIO: 'mcp',
        FAKE_CURSOR_MCP_SCRIPT: LIVE_SCRIPT(true, [
          { calls: [{ tool: 'opencode_probe', args: { word: 'late' } }] },
          { calls: [{ tool: 'opencode_probe', args: { word: 'late' } }] },
          { text: 'It said {{result:1}}' },
        ]),
      })
      const found = report(ran)
      assert.equal(ran.status, 1)
      const byId = Object.fromEntries(found.checks.map((check) => [check.id, check]))
      assert.equal(byId['live-deadline'].status, 'problem', byId['live-deadline'].detail)
      assert.match(byId['live-deadline'].detail, /called opencode_probe 2 times instead of waiting for its result/)
      assert.equal(byId['tool-mode-opencode'].status, 'problem')
    })

    it(
      'a bridge cursor-agent cannot see fails the list-tools check with what cursor-agent printed',
      LIMIT,
      async () => {
        // An agent without MCP support: `mcp list-tools` is an unknown command to it.
        const oldAgent = join(scratch, 'old-agent.sh')
        writeFileSync(
          oldAgent,
          `#!/bin/sh\nif [ "$1" = mcp ]; then echo "error: unknown command 'mcp'" >&2; exit 1; fi\nexec "${process.execPath}" "${fakeAgent}" "$@"\n`,
          { mode: 0o755 },
        )
        const ran = await doctor(['--json', '--live', ...only(...BRIDGE_IDS)], {
          CURSOR_AGENT_EXECUTABLE: oldAgent,
          FAKE_CURSOR_SCENARIO: 'mcp',
          FAKE_CURSOR_MCP_SCRIPT: LIVE_SCRIPT(true),
        })
        const found = report(ran)
        assert.equal(ran.status, 0, 'mode cursor still works')
        const byId = Object.fromEntries(found.checks.map((check) => [check.id, check]))
        assert.equal(byId['live-bridge-tools'].status, 'warning')
        assert.match(
          byId['live-bridge-tools'].detail,
          /exited with 1 without listing opencode_probe: error: unknown command 'mcp'/,
        )
        assert.equal(byId['tool-mode-opencode'].status, 'warning')
      },
    )
  })

  it('prints a line per check for a person, and names the problem', async () => {
    const ran = await doctor([], { FAKE_CURSOR_SCENARIO: 'auth' })
    assert.equal(ran.status, 1)
    assert.match(ran.stdout, /^opencode-cursor-native \S+ doctor\n/)
    assert.match(ran.stdout, /^PROBLEM +login +cursor-agent is not logged in$/m)
    assert.match(
      ran.stdout,
      /^ +fix: Run `cursor-agent login`, `opencode auth login` \(Cursor API key\), or set CURSOR_API_KEY\.$/m,
    )
    assert.match(ran.stdout, /Problems found/)
  })

  it('an unknown command or option exits 2 with the usage', async () => {
    const unknown = spawnSync(process.execPath, [cli, 'frobnicate'], { encoding: 'utf8' })
    assert.equal(unknown.status, 2)
    assert.match(unknown.stderr, /unknown command "frobnicate"[\s\S]*Usage: opencode-cursor-native/)
    assert.ok(
      unknown.stderr.includes(`http://${DEFAULT_HOST}:${DEFAULT_PORT}/v1`),
      'the usage names the default address of serve',
    )
    const badOption = spawnSync(process.execPath, [cli, 'doctor', '--nope'], { encoding: 'utf8' })
    assert.equal(badOption.status, 2)
    assert.match(badOption.stderr, /--nope/)
  })
})

describe('npx opencode-cursor-native serve', () => {
  const env = (extra: Record<string, string> = {}): Record<string, string> => ({
    PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
    HOME: join(scratch, 'serve-home'),
    XDG_DATA_HOME: join(scratch, 'serve-data'),
    ...extra,
  })

  it('refuses an empty or out-of-range port, and a relative or root workspace, before it listens', async () => {
    const refusals: Array<[string[], RegExp]> = [
      [['--port', ''], /--port "" is not a port number/],
      [['--port', '65536'], /--port "65536" is not a port number/],
      [['--port=-1'], /--port "-1" is not a port number/],
      [['--port', '80x'], /--port "80x" is not a port number/],
      [['--workspace', 'project'], /--workspace "project" must be an absolute folder/],
      [['--workspace', '/'], /--workspace "\/" must be an absolute folder, not the filesystem root/],
      [['--workspace', '/tmp/..'], /must be an absolute folder, not the filesystem root/],
    ]
    for (const [args, message] of refusals) {
      // A server that listened would run until the timeout: the exit is the refusal.
      const ran = spawnSync(process.execPath, [cli, 'serve', '--port', '0', ...args], {
        encoding: 'utf8',
        env: env(),
        timeout: 20_000,
      })
      assert.equal(ran.status, 2, `${args.join(' ')}: ${ran.stdout}${ran.stderr}`)
      assert.match(ran.stderr, message, args.join(' '))
      assert.doesNotMatch(ran.stdout, /serving/, args.join(' '))
    }
  })

  it('honours CURSOR_ACP_LOG_LEVEL and CURSOR_ACP_LOG_FILE', async () => {
    const log = join(scratch, 'serve-logs', 'serve.log')
    const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--workspace', scratch], {
      env: env({ CURSOR_ACP_LOG_LEVEL: 'info', CURSOR_ACP_LOG_FILE: log }),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    try {
      let out = ''
      await new Promise<void>((listening, failed) => {
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString()
          if (out.includes('token:')) listening()
        })
        child.once('exit', (code) => failed(new Error(`serve exited with ${code} before listening`)))
      })
      assert.ok(existsSync(log), 'the log file is opened as the plugin opens it')
    } finally {
      child.kill('SIGTERM')
    }
  })
})

describe('reading OpenCode configuration', () => {
  it('JSONC to JSON table', async () => {
    const table: Array<[string, unknown]> = [
      ['{"plugin": ["a"]}', { plugin: ['a'] }],
      ['// a comment\n{"plugin": ["a",],}', { plugin: ['a'] }],
      ['{/* block */"url": "https://example.com//x"}', { url: 'https://example.com//x' }],
      ['{"say": "a \\" // not a comment"}', { say: 'a " // not a comment' }],
    ]
    for (const [text, expected] of table) assert.deepEqual(JSON.parse(jsoncToJson(text)), expected, text)
  })

  it('plugin entries that name this package table', async () => {
    const table: Array<[unknown, boolean]> = [
      ['opencode-cursor-native', true],
      ['opencode-cursor-native@0.1.0', true],
      ['file:///home/me/src/opencode-cursor-native/dist/plugin/server.js', true],
      ['/home/me/node_modules/opencode-cursor-native', true],
      [['opencode-cursor-native', { x: 1 }], true],
      ['opencode-cursor-native-fork', false],
      ['opencode-cursor', false],
      [42, false],
    ]
    for (const [entry, expected] of table) assert.equal(namesThisPlugin(entry), expected, JSON.stringify(entry))
  })
})
