// The real OpenCode CLI (1.18.33), offline, loading this repository as its plugin, against the fake
// cursor-agent: a turn of OpenCode's Plan agent, or of an agent of the user's configuration that may
// not edit, runs cursor-agent in plan mode and never with --force, in both tool modes; the build
// agent keeps its command line; Cursor's plan is the answer when no text follows it. Expected
// command lines come from docs/plan-and-read-only.md. Needs `npm run build` first.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { e2eFile, explain, textOf } from '../support/e2e.ts'
import type { Sandbox } from '../support/opencode.ts'

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

/** What the fake cursor-agent was given after `--workspace <folder> --model <id>`, run by run. */
const tails = (sandbox: Sandbox) => sandbox.invocations().map((invocation) => invocation.argv.slice(8))

async function turnOf(sandbox: Sandbox, agent: string, prompt: string) {
  const before = sandbox.invocations().length
  const result = await sandbox.run(['run', '--agent', agent, '--format', 'json', '-m', MODEL, prompt])
  assert.equal(result.code, 0, explain(result, sandbox))
  const runs = tails(sandbox).slice(before)
  assert.equal(runs.length, 1, `${agent}: one cursor-agent run\n${explain(result, sandbox)}`)
  return { result, argv: runs[0]! }
}

describe('read-only agents run Cursor read-only', () => {
  test('tool mode cursor: plan and an agent without edit rights in plan mode, build as before', async () => {
    const sandbox = await e2e.sandbox({ config: { agent: AGENTS } })
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
      const { argv: seen } = await turnOf(sandbox, agent, `hello from ${agent}`)
      assert.deepEqual(seen, argv, agent)
    }
  })

  test('tool mode opencode: the bridge keeps its arguments, and plan adds its mode', async () => {
    const sandbox = await e2e.sandbox({
      config: { agent: AGENTS },
      env: { CURSOR_ACP_TOOL_MODE: 'opencode', CURSOR_ACP_CHILD_ENV: 'FAKE_CURSOR_*' },
    })
    const bridge = ['--trust', '--approve-mcps', '--allowed-tools', 'mcp_tool_call,get_mcp_tools_tool_call']
    for (const [agent, argv] of [
      ['plan', [...bridge, '--mode', 'plan']],
      ['review', [...bridge, '--mode', 'plan']],
      ['build', bridge],
    ] as const) {
      const { argv: seen } = await turnOf(sandbox, agent, `hello from ${agent}`)
      assert.deepEqual(seen, argv, agent)
    }
  })

  test("the plan agent's answer is Cursor's plan when the model wrote no text after it", async () => {
    const plan = '# Plan\n\n1. Read the parser.\n2. Fix the off-by-one.'
    const sandbox = await e2e.sandboxWith({ FAKE_CURSOR_STREAM: 'text:', FAKE_CURSOR_PLAN: plan })
    const { result, argv } = await turnOf(sandbox, 'plan', 'Plan the fix')
    assert.deepEqual(argv, ['--trust', '--mode', 'plan'])
    assert.equal(textOf(result), plan, explain(result, sandbox))
  })
})
