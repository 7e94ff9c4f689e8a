// The one test of tool mode `opencode` with Cursor's real limits, unscaled: its MCP client gives
// up on a call after 60 s, the bridge answers every call by its default 45 s deadline, and the tool
// takes 75 s. It costs about 80 s of wall time but little CPU (two sleeps), so it runs beside the
// other e2e files, not alone. Every other test scales these limits (tool-mode-limits.e2e.ts).
// Needs `npm run build`.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { assertAnsweredAfterWaiting, e2eFile } from '../support/e2e.ts'
import type { Invocation } from '../support/opencode.ts'

const MODEL = 'cursor-acp/auto'
const linuxOnly = process.platform !== 'linux' ? 'the OpenCode harness and /proc are Linux only' : false
const e2e = e2eFile()

type BridgedInvocation = Invocation & {
  mcpCalls?: Array<{ tool: string; error?: string; result: { content?: Array<{ text?: string }> } | null } | null>
}

describe('tool mode opencode with the real 60 s MCP timeout', { skip: linuxOnly }, () => {
  test('a 75 s command reaches the answer: "still running" at 45 s, then opencode_wait; no call times out', async () => {
    const command = 'sleep 75 && echo ran >> ran.txt && echo seventy-five-seconds-later'
    const sandbox = await e2e.sandbox({
      // No FAKE_CURSOR_MCP_TIMEOUT_MS and no CURSOR_ACP_TOOL_DEADLINE_MS: the real figures.
      env: { CURSOR_ACP_TOOL_MODE: 'opencode', CURSOR_ACP_CHILD_ENV: 'FAKE_CURSOR_*', FAKE_CURSOR_SCENARIO: 'mcp' },
    })
    sandbox.env.FAKE_CURSOR_MCP_SCRIPT = JSON.stringify([
      { calls: [{ tool: 'bash', args: { command, description: 'A long build', timeout: 150_000 } }] },
      {
        calls: [{ tool: 'opencode_wait', args: { job: '{{match:0:job (\\d+)}}' } }],
        repeatWhile: 'is still running',
      },
      { text: 'The build said: {{result:last}}' },
    ])
    const result = await sandbox.run(['run', '--format', 'json', '--model', MODEL, 'run the long build'], {
      timeoutMs: 240_000,
    })
    assertAnsweredAfterWaiting(result, sandbox, /The build said: [\s\S]*seventy-five-seconds-later/)
    const invocations = sandbox.invocations() as BridgedInvocation[]
    assert.equal(invocations.length, 1, 'one cursor-agent process for the whole turn')
    const calls = invocations[0]!.mcpCalls ?? []
    assert.deepEqual(
      calls.map((call) => call?.tool),
      ['bash', 'opencode_wait'],
      `one "still running" answer at 45 s, then one wait that gets the result: ${JSON.stringify(calls)}`,
    )
    assert.ok(
      calls.every((call) => call?.error === undefined),
      `no call timed out at Cursor's 60 s: ${JSON.stringify(calls)}`,
    )
  })
})
