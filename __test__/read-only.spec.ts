// Read-only agents: a run's `mode` on cursor-agent's command line (the fake cursor-agent checks it
// as Cursor's CLI does and records it), Cursor's plan shown as the answer, which OpenCode agents
// are read-only (their permission rules as OpenCode 1.18 and OpenCode 2 list them), and OpenCode
// 2's plan agent through its double. Expected command lines come from docs/plan-and-read-only.md.
// Needs `npm run build:test`.
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { after, describe, it } from 'node:test'
import { runCursorAgent } from '../index.js'
import type { RunResult } from '../index.js'
import { actionOnEverything, agentTurn, listedRules } from '../plugin/opencode/agent-access.ts'
import { agentRules } from '../plugin/opencode2/agents.ts'
import { BUILT_IN_AGENTS, createHost, loadPlugin, requestHeaders } from './support/opencode2-host.ts'
import { collect } from './support/stream.ts'

type RunOptions = Parameters<typeof runCursorAgent>[0]

const repo = resolve(__dirname, '..')
const fakeAgent = join(repo, '__test__', 'support', 'agents', 'fake-cursor-agent.mjs')
const entry = join(repo, 'dist', 'plugin', 'entry', 'server.js')
const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'read-only-spec-')))
const workspace = join(scratch, 'ws')
mkdirSync(workspace, { recursive: true })
after(() => rmSync(scratch, { recursive: true, force: true }))

let runs = 0
/** A folder of its own for the fake agent's records of one test. */
function logFolder(): string {
  runs += 1
  const folder = join(scratch, `log-${runs}`)
  mkdirSync(folder, { recursive: true })
  return folder
}

function recorded(folder: string): Array<{ argv: string[] }> {
  if (!existsSync(folder)) return []
  return readdirSync(folder)
    .sort()
    .map((file) => JSON.parse(readFileSync(join(folder, file), 'utf8')))
    .filter((record) => Array.isArray(record.argv) && record.argv.includes('--print'))
}

/** A run of the fake cursor-agent; its outputs' text (V3 parts) and its result. */
async function run(options: Partial<RunOptions>, env: Record<string, string>) {
  const parts: Array<Record<string, any>> = []
  const handle = runCursorAgent(
    {
      prompt: 'Plan the change',
      model: 'auto',
      workspace,
      executable: fakeAgent,
      env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: scratch, ...env },
      ...options,
    },
    (outputs) => parts.push(...(outputs as Array<Record<string, any>>)),
  )
  const result: RunResult = await handle.wait()
  const text = parts
    .filter((part) => part.type === 'text-delta')
    .map((part) => part.delta)
    .join('')
  return { result, text }
}

describe('a run in a read-only mode', () => {
  it('passes --mode and never --force; the default mode passes no --mode; readOnly plans', async () => {
    const cases: Array<[Partial<RunOptions>, string[]]> = [
      [{ readOnly: true }, ['--trust', '--mode', 'plan']],
      [{ readOnly: true, mode: 'ask' }, ['--trust', '--mode', 'ask']],
      [{ readOnly: false }, ['--force']],
      [{}, ['--force']],
      [{ mode: 'agent' }, ['--force']],
      [{ mode: 'plan' }, ['--trust', '--mode', 'plan']],
      [{ mode: 'plan', force: true }, ['--trust', '--mode', 'plan']],
      [{ mode: 'ask' }, ['--trust', '--mode', 'ask']],
    ]
    for (const [options, tail] of cases) {
      const folder = logFolder()
      const { result } = await run(options, { FAKE_CURSOR_LOG_DIR: folder })
      assert.equal(result.error, undefined, JSON.stringify(options))
      const [record] = recorded(folder)
      assert.deepEqual(record?.argv.slice(8), tail, JSON.stringify(options))
    }
  })

  it('refuses --force among extraArgs, before running anything', () => {
    for (const arg of ['--force', '-f', '--yolo']) {
      assert.throws(
        () => runCursorAgent({ prompt: 'p', model: 'auto', workspace, mode: 'plan', extraArgs: [arg] }, () => {}),
        (error: any) => error.code === 'E_INVALID_ARG' && error.message.includes(arg),
        arg,
      )
    }
  })

  it("the fake cursor-agent refuses --mode agent with Cursor's words", async () => {
    const { result } = await run({ extraArgs: ['--mode', 'agent'] }, {})
    assert.equal(
      result.error?.agentOutput,
      "error: option '--mode <mode>' argument 'agent' is invalid. Allowed choices are plan, ask.",
    )
  })

  it("shows Cursor's plan as the answer when no text came after it", async () => {
    const plan = '# Plan\n\n1. Read the code.\n2. Change it.'
    const cases: Array<[string, string]> = [
      ['text:', plan],
      ['text:Here is the plan.', `Here is the plan.${plan}`],
    ]
    for (const [stream, expected] of cases) {
      const { result, text } = await run({ mode: 'plan' }, { FAKE_CURSOR_STREAM: stream, FAKE_CURSOR_PLAN: plan })
      assert.equal(result.error, undefined, stream)
      assert.equal(text, expected, stream)
    }
    // Without plan mode the fake reports no plan: the answer is the text alone.
    const { text } = await run({}, { FAKE_CURSOR_STREAM: 'text:Only text.', FAKE_CURSOR_PLAN: plan })
    assert.equal(text, 'Only text.')
  })
})

describe("which OpenCode agents are read-only (the host's rule)", () => {
  const rule = (permission: string, pattern: string, action: string) => ({ permission, pattern, action })
  const allowAll = rule('*', '*', 'allow')

  it('an agent that may not edit every file runs in plan mode; one that may not run commands, without --force', () => {
    const cases: Array<[string, string, Array<ReturnType<typeof rule>> | undefined, object]> = [
      ['build', 'build', [allowAll], {}],
      [
        'plan',
        'plan',
        [allowAll, rule('edit', '*', 'deny'), rule('edit', '.opencode/plans/*.md', 'allow')],
        { cursorReadOnly: true },
      ],
      ['edit denied, then allowed again', 'x', [rule('edit', '*', 'deny'), rule('*', '*', 'allow')], {}],
      ['edit asked', 'x', [allowAll, rule('edit', '*', 'ask')], {}],
      ['bash denied', 'x', [allowAll, rule('bash', '*', 'deny')], { cursorForce: false }],
      ["OpenCode 2's shell denied", 'x', [allowAll, rule('shell', '*', 'deny')], { cursorForce: false }],
      ['one command denied', 'x', [allowAll, rule('bash', 'rm *', 'deny')], {}],
      ['everything denied', 'x', [rule('*', '*', 'deny')], { cursorReadOnly: true, cursorForce: false }],
      ['webfetch denied: nothing Cursor can be told', 'x', [allowAll, rule('webfetch', '*', 'deny')], {}],
      ['the Plan agent, rules unknown', 'plan', undefined, { cursorReadOnly: true }],
      ['another agent, rules unknown', 'review', undefined, {}],
    ]
    for (const [name, agent, rules, expected] of cases) assert.deepEqual(agentTurn(agent, rules), expected, name)
    assert.equal(actionOnEverything([], 'edit'), 'ask')
  })

  it("reads OpenCode 1.18's list of agents and OpenCode 2's agents", () => {
    const listed = [
      { name: 'odd', permission: 'not rules' },
      { name: 'review', mode: 'primary', permission: [{ permission: 'edit', pattern: '*', action: 'deny' }] },
    ]
    assert.deepEqual(listedRules(listed, 'review'), [{ permission: 'edit', pattern: '*', action: 'deny' }])
    assert.equal(listedRules(listed, 'odd'), undefined)
    assert.equal(listedRules({ error: 'x' }, 'review'), undefined)
    const rules = agentRules([...BUILT_IN_AGENTS, { id: 'broken' }])
    assert.deepEqual([...rules.keys()], ['build', 'plan'])
    assert.deepEqual(agentTurn('plan', rules.get('plan')), { cursorReadOnly: true })
  })
})

/** Runs `body` with the plugin's environment for the fake cursor-agent, logging into `folder`. */
async function withPluginEnv<T>(
  folder: string,
  body: () => Promise<T>,
  extra: Record<string, string> = {},
): Promise<T> {
  const saved = { ...process.env }
  Object.assign(process.env, {
    HOME: scratch,
    XDG_DATA_HOME: join(scratch, 'data'),
    CURSOR_AGENT_EXECUTABLE: fakeAgent,
    CURSOR_ACP_CHILD_ENV: 'FAKE_CURSOR_*',
    CURSOR_ACP_WORKSPACE: workspace,
    FAKE_CURSOR_LOG_DIR: folder,
    ...extra,
  })
  try {
    return await body()
  } finally {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key]
    Object.assign(process.env, saved)
  }
}

describe("the provider's per-call options (OpenCode 1.18)", () => {
  it('cursorMode, cursorReadOnly and cursorForce of the call reach the command line; another value fails the turn naming it', async () => {
    const folder = logFolder()
    await withPluginEnv(folder, async () => {
      const { createCursorAcp } = await import('../plugin/opencode/provider.ts')
      const model = createCursorAcp({}).languageModel('auto')
      const turn = async (options: Record<string, unknown>, id: string) => {
        const call = {
          prompt: [{ role: 'user', content: [{ type: 'text', text: `turn ${id}` }] }],
          headers: { 'x-session-id': `ses_${id}` },
          providerOptions: { 'cursor-acp': options },
        }
        return collect((await model.doStream(call as any)).stream)
      }
      await turn({ cursorMode: 'ask' }, 'ask')
      await turn({ cursorReadOnly: true }, 'read-only')
      await turn({ cursorReadOnly: true, cursorMode: 'ask' }, 'read-only-ask')
      await turn({ cursorReadOnly: true, cursorMode: 'agent' }, 'read-only-agent')
      await turn({ cursorForce: false }, 'no-force')
      await turn({ unrelated: 1 }, 'other')
      const refused = await turn({ cursorMode: 'yolo' }, 'refused')
      const error = refused.find((part) => part.type === 'error')?.error
      assert.equal(error?.code, 'E_INVALID_ARG')
      assert.match(error?.message ?? '', /cursorMode="yolo".*one of agent, ask, plan/)
      const tails = recorded(folder).map((record) => record.argv.slice(8))
      assert.deepEqual(
        tails,
        [
          ['--trust', '--mode', 'ask'],
          // Read-only: plan, unless the agent asked for another read-only mode.
          ['--trust', '--mode', 'plan'],
          ['--trust', '--mode', 'ask'],
          ['--trust', '--mode', 'plan'],
          ['--trust'],
          ['--force'],
        ],
        'the refused turn ran nothing',
      )
    })
  })
})

describe("OpenCode 2's agents (its double)", () => {
  it('a turn of the plan agent, or of an agent that may not edit, runs Cursor in plan mode; build does not', async () => {
    const folder = logFolder()
    const tails = await withPluginEnv(folder, () => planAgentsOfOpenCode2(folder))
    assert.deepEqual(tails, [['--trust', '--mode', 'plan'], ['--trust', '--mode', 'plan'], ['--force']])
  })

  it('in tool mode opencode too, beside the bridge’s arguments', async () => {
    const folder = logFolder()
    const tails = await withPluginEnv(folder, () => planAgentsOfOpenCode2(folder), { CURSOR_ACP_TOOL_MODE: 'opencode' })
    const bridge = ['--trust', '--approve-mcps', '--allowed-tools', 'mcp_tool_call,get_mcp_tools_tool_call']
    assert.deepEqual(tails, [[...bridge, '--mode', 'plan'], [...bridge, '--mode', 'plan'], bridge])
  })
})

/** Turns of OpenCode 2's plan agent, an agent of the user's that may not edit, and build, through its double. */
async function planAgentsOfOpenCode2(folder: string): Promise<string[][]> {
  const reviewer = {
    id: 'reviewer',
    mode: 'primary',
    hidden: false,
    permissions: [
      { action: '*', resource: '*', effect: 'allow' },
      { action: 'edit', resource: '*', effect: 'deny' },
      { action: 'shell', resource: '*', effect: 'deny' },
    ],
  }
  const host = createHost({ directory: workspace, project: { id: 'prj_test', worktree: workspace } }, [
    ...BUILT_IN_AGENTS,
    reviewer,
  ])
  const cleanup = (await (await loadPlugin(entry)).setup(host.ctx)) as () => Promise<void>
  try {
    host.state()
    const { language } = await host.language('cursor-acp', 'auto')
    const model = { id: 'auto', providerID: 'cursor-acp' }
    for (const agent of ['plan', 'reviewer', 'build']) {
      const context = await host.run('session', 'context', { sessionID: `ses_${agent}`, agent, model, options: {} })
      const call = {
        prompt: [{ role: 'user', content: [{ type: 'text', text: `hi from ${agent}` }] }],
        headers: requestHeaders({ id: `ses_${agent}` }),
        providerOptions: { 'cursor-acp': context.options },
      }
      await collect((await language.doStream(call as any)).stream)
    }
    return recorded(folder).map((record) => record.argv.slice(8))
  } finally {
    await cleanup()
  }
}
