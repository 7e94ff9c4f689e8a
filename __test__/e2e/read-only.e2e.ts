// The real OpenCode CLI (1.18.33), offline, loading this repository as its plugin, against the fake
// cursor-agent: a turn of OpenCode's Plan agent, or of an agent of the user's configuration that may
// not edit, runs cursor-agent in plan mode and never with --force, in both tool modes; the build
// agent keeps its command line; Cursor's plan is the answer when no text follows it. Expected
// command lines come from docs/plan-and-read-only.md. Needs `npm run build` first.
import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import { e2eFile, textOf } from '../support/e2e.ts'
import type { Invocation } from '../support/opencode.ts'
import { type SharedServer, sharedServer } from '../support/served.ts'

const e2e = e2eFile()
const MODEL = 'cursor-acp/fake-model'

/** Agents of the user's configuration, in OpenCode's configuration shape. */
const AGENTS = {
  review: { mode: 'primary', description: 'Reviews', permission: { edit: 'deny', webfetch: 'deny' } },
  careful: { mode: 'primary', description: 'No commands', permission: { bash: 'deny' } },
  // May edit, but asks for Cursor's `ask` mode in its options.
  asker: { mode: 'primary', description: 'Questions', options: { cursorMode: 'ask' } },
  // May not edit, and asks for Cursor's other read-only mode.
  questions: {
    mode: 'primary',
    description: 'Questions only',
    permission: { edit: 'deny' },
    options: { cursorMode: 'ask' },
  },
}

// One `opencode serve` per tool mode, a turn per agent (as `opencode run --agent` picks it).
const inCursorMode = sharedServer(e2e, { config: { agent: AGENTS } })
const inOpenCodeMode = sharedServer(e2e, {
  config: { agent: AGENTS },
  env: { CURSOR_ACP_TOOL_MODE: 'opencode', CURSOR_ACP_CHILD_ENV: 'FAKE_CURSOR_*' },
})
before(() => Promise.all([inCursorMode.start(), inOpenCodeMode.start()]))

/** What the fake cursor-agent was given after `--workspace <folder> --model <id>`. */
const tail = (invocation: Invocation) => invocation.argv.slice(8)

async function turnOf(shared: SharedServer, agent: string, prompt: string, fake: Record<string, unknown> = {}) {
  const turn = await shared.turn(prompt, { agent, model: MODEL, fake })
  assert.equal(turn.invocations.length, 1, `${agent}: one cursor-agent run\n${turn.why}`)
  return { turn, argv: tail(turn.invocations[0]!) }
}

// The servers take one turn at a time; the two tool modes' tests run side by side.
describe('read-only agents run Cursor read-only', { concurrency: 2 }, () => {
  test('tool mode cursor: plan and an agent without edit rights in plan mode, build as before', async () => {
    const expected: Array<[string, string[]]> = [
      ['plan', ['--trust', '--mode', 'plan']],
      ['review', ['--trust', '--mode', 'plan']],
      // May edit but not run commands: no --mode, no --force.
      ['careful', ['--trust']],
      ['asker', ['--trust', '--mode', 'ask']],
      ['questions', ['--trust', '--mode', 'ask']],
      ['build', ['--force']],
    ]
    for (const [agent, argv] of expected) {
      const { argv: seen } = await turnOf(inCursorMode, agent, `hello from ${agent}`)
      assert.deepEqual(seen, argv, agent)
    }
  })

  test('tool mode opencode: the bridge keeps its arguments, and plan adds its mode', async () => {
    const bridge = ['--trust', '--approve-mcps', '--allowed-tools', 'mcp_tool_call,get_mcp_tools_tool_call']
    for (const [agent, argv] of [
      ['plan', [...bridge, '--mode', 'plan']],
      ['review', [...bridge, '--mode', 'plan']],
      ['build', bridge],
    ] as const) {
      const { argv: seen } = await turnOf(inOpenCodeMode, agent, `hello from ${agent}`)
      assert.deepEqual(seen, argv, agent)
    }
  })

  test("the plan agent's answer is Cursor's plan when the model wrote no text after it", async () => {
    const plan = '# Plan\n\n1. Read the parser.\n2. Fix the off-by-one.'
    const fake = { FAKE_CURSOR_STREAM: 'text:', FAKE_CURSOR_PLAN: plan }
    const { turn, argv } = await turnOf(inCursorMode, 'plan', 'Plan the fix', fake)
    assert.deepEqual(argv, ['--trust', '--mode', 'plan'])
    assert.equal(textOf(turn), plan, turn.why)
  })
})
