// Tool mode `opencode` against Cursor's real MCP client limits, through the real OpenCode CLI
// (1.18.33), every limit scaled so the file runs in seconds: the fake cursor-agent gives up on a
// call after FAKE_CURSOR_MCP_TIMEOUT_MS (Cursor: 60 s) and the bridge answers by
// CURSOR_ACP_TOOL_DEADLINE_MS (default 45 s); Cursor sends one call at a time, and moves a long
// result to a file, by the rules of @cursor/sdk 1.0.32 (all text joined, 40,000 UTF-8 bytes;
// `isError` forwarded) or 1.0.18 (each item, 40,000 UTF-16 units; `isError` dropped). The turns
// go through one `opencode serve` in tool mode `opencode`, a session each, the fake's script and
// client rules set per turn (see support/served.ts); the TUI has a sandbox of its own. Needs
// `npm run build`.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { before, describe, test } from 'node:test'
import { assertAnsweredAfterWaiting, e2eFile, eventsOf, steps, textOf } from '../support/e2e.ts'
import type { Invocation, Sandbox } from '../support/opencode.ts'
import { sharedServer, type Turn } from '../support/served.ts'

const linuxOnly = process.platform !== 'linux' ? 'the OpenCode harness and /proc are Linux only' : false
const e2e = e2eFile()

interface McpCall {
  tool: string
  result: { content?: Array<{ type: string; text?: string; handedOff?: boolean }> } | null
  error?: string
}
type BridgedInvocation = Invocation & { mcpCalls?: Array<McpCall | null> }

/** Tool mode `opencode`, Cursor's 60 s scaled to 3 s, the bridge's 45 s deadline to 1.5 s. */
const LIMITED = {
  CURSOR_ACP_TOOL_MODE: 'opencode',
  CURSOR_ACP_CHILD_ENV: 'FAKE_CURSOR_*',
  FAKE_CURSOR_SCENARIO: 'mcp',
  CURSOR_ACP_TOOL_DEADLINE_MS: '1500',
  FAKE_CURSOR_MCP_TIMEOUT_MS: '3000',
}

/** A sandbox of its own with the limits scaled, whose fake agent runs `script`, for the TUI. */
async function limitedSandbox(
  script: (workspace: string) => unknown[],
  config: Record<string, unknown>,
): Promise<Sandbox> {
  const sandbox = await e2e.sandbox({ env: LIMITED, config })
  sandbox.env.FAKE_CURSOR_MCP_SCRIPT = JSON.stringify(script(sandbox.workspace))
  return sandbox
}

/** The one cursor-agent run of the turn, as the fake logged it. */
function onlyRun(turn: { invocations: Invocation[] }): BridgedInvocation {
  const invocations = turn.invocations as BridgedInvocation[]
  assert.equal(invocations.length, 1, 'one cursor-agent process for the whole turn')
  return invocations[0]!
}

/** Milliseconds from OpenCode's first assistant message of the turn to the end of its last. */
function span(turn: Turn): number {
  const times = turn.messages.filter((message) => message.info.role === 'assistant').map((message) => message.info.time)
  return Number(times.at(-1)?.completed) - Number(times[0]?.created)
}

/** A file of 120,000 characters whose last line a model must quote. */
function bigFile(): string {
  // 1,200 lines of 100 characters, and a line of non-ASCII text (more bytes than characters);
  // OpenCode's read gives at most 50 KB a call.
  const lines = Array.from({ length: 1200 }, (_, index) => `line ${index + 1} `.padEnd(99, '.'))
  lines[600] = `${'漢字'.repeat(40)}`.padEnd(99, '.')
  lines[1199] = 'the last line: zebra-1200 at the end'.padEnd(99, '.')
  return `${lines.join('\n')}\n`
}
/** The files the turns' scripts read, in the shared workspace. */
const FILES = { 'a.txt': 'alpha\n', 'b.txt': 'bravo\n', 'c.txt': 'charlie\n', 'big.txt': bigFile() }

const shared = sharedServer(e2e, { env: LIMITED, files: FILES })

/** One turn through the shared server, the fake running `script` (built from the workspace path). */
function turn(prompt: string, script: (workspace: string) => unknown[], fake: Record<string, string> = {}) {
  const workspace = shared.sandbox().workspace
  return shared.turn(prompt, { fake: { ...fake, FAKE_CURSOR_MCP_SCRIPT: JSON.stringify(script(workspace)) } })
}

const texts = (call: McpCall | null | undefined) =>
  (call?.result?.content ?? []).filter((item) => item.type === 'text').map((item) => item.text ?? '')

describe('tool mode opencode against Cursor’s MCP limits (scaled)', { skip: linuxOnly }, () => {
  before(() => shared.start())

  test('a tool that outlasts the MCP timeout reaches the answer through opencode_wait, run once', async (t) => {
    // Runs 4 s: past the bridge's deadline (1.5 s) and Cursor's timeout (3 s).
    const command = 'sleep 4 && echo ran >> ran.txt && echo slept-and-done'
    const result = await turn('run the slow command', () => [
      { calls: [{ tool: 'bash', args: { command, description: 'Wait a while' } }] },
      {
        calls: [{ tool: 'opencode_wait', args: { job: '{{match:0:job (\\d+)}}' } }],
        repeatWhile: 'is still running',
      },
      { text: 'The command said: {{result:last}}' },
    ])
    assertAnsweredAfterWaiting(result, shared.sandbox(), /The command said: [\s\S]*slept-and-done/)
    const calls = onlyRun(result).mcpCalls ?? []
    t.diagnostic(
      `4 s command: ${calls.length - 1} opencode_wait calls, ${span(result)} ms from the first step to the last`,
    )
    assert.equal(calls[0]?.tool, 'bash')
    assert.match(texts(calls[0]).join(''), /still running in OpenCode \(job \d+\)/)
    assert.ok(calls.length >= 2, `the model waited: ${JSON.stringify(calls)}`)
    assert.ok(
      calls.slice(1).every((call) => call?.tool === 'opencode_wait'),
      JSON.stringify(calls),
    )
    assert.ok(
      calls.every((call) => call?.error === undefined),
      `no call timed out at Cursor: ${JSON.stringify(calls)}`,
    )
  })

  test("a 3-call 'parallel' step: Cursor sends the calls one by one, OpenCode gets one a step, all results come back", async (t) => {
    const result = await turn('read all three', (ws) => [
      {
        calls: ['a', 'b', 'c'].map((name) => ({ tool: 'read', args: { filePath: join(ws, `${name}.txt`) } })),
        parallel: true,
      },
      { text: 'A={{result:0}} B={{result:1}} C={{result:2}}' },
    ])
    const why = result.why
    assert.deepEqual(eventsOf(result, 'error'), [], why)
    // A step never waits for a call Cursor sends only once the one before is answered.
    assert.deepEqual(
      steps(result),
      [
        { tools: ['read'], reason: 'tool-calls' },
        { tools: ['read'], reason: 'tool-calls' },
        { tools: ['read'], reason: 'tool-calls' },
        { tools: [], reason: 'stop' },
      ],
      why,
    )
    const calls = onlyRun(result).mcpCalls ?? []
    assert.deepEqual(
      calls.map(
        (call) =>
          texts(call)
            .join('')
            .match(/alpha|bravo|charlie/)?.[0],
      ),
      ['alpha', 'bravo', 'charlie'],
    )
    assert.match(textOf(result), /A=[\s\S]*alpha[\s\S]*B=[\s\S]*bravo[\s\S]*C=[\s\S]*charlie/, why)
    // For the figure in docs/performance-and-reliability.md (not asserted): OpenCode's time from
    // the first step to the last.
    t.diagnostic(`3-call step: ${steps(result).length} OpenCode steps in ${span(result)} ms`)
  })

  // Each Cursor client a user may run, and one whose limit is below the bridge's budget (moved to
  // a file after all: the model then Reads it where Cursor's rules let it).
  const clients: Array<{ name: string; env: Record<string, string>; moved: boolean }> = [
    { name: '@cursor/sdk 1.0.32', env: { FAKE_CURSOR_SDK_RULES: '1.0.32' }, moved: false },
    { name: '@cursor/sdk 1.0.18', env: { FAKE_CURSOR_SDK_RULES: '1.0.18' }, moved: false },
    {
      name: 'a client whose limit is 20,000 bytes',
      env: { FAKE_CURSOR_SDK_RULES: '1.0.32', FAKE_CURSOR_MCP_ITEM_LIMIT: '20000' },
      moved: true,
    },
  ]
  for (const client of clients)
    test(`a read of a 120,000-character file reaches the model whole under ${client.name}: its last line is quoted`, async () => {
      assert.equal(FILES['big.txt'].length, 120_000)
      const result = await turn(
        'how does big.txt end',
        (ws) => [
          { calls: [{ tool: 'read', args: { filePath: join(ws, 'big.txt') } }] },
          // As a model reads on: from the last numbered line shown, while the result says there
          // is more (OpenCode's own hint, or the bridge's note on a result it cut).
          {
            calls: [
              {
                tool: 'read',
                args: {
                  filePath: join(ws, 'big.txt'),
                  offset: '{{match:last:(\\d+): [^\\n]*\\n(?![\\s\\S]*\\n\\d+: )}}',
                },
              },
            ],
            repeatWhile: 'Use offset=\\d+ to continue|This result was cut',
          },
          { text: 'The file ends with: {{match:last:(the last line: zebra-\\d+ at the end)}}' },
        ],
        client.env,
      )
      const why = result.why
      assert.deepEqual(eventsOf(result, 'error'), [], why)
      assert.match(textOf(result), /The file ends with: the last line: zebra-1200 at the end/, why)
      const run = onlyRun(result) as BridgedInvocation & { spillReads?: Array<{ allowed: boolean }> }
      const calls = (run.mcpCalls ?? []).filter((call) => call !== null)
      assert.ok(calls.length >= 3, `the model read on, page by page: ${calls.length} calls`)
      // Every answer went to Cursor as one text item under both clients' limits.
      for (const call of calls) {
        const items = texts(call)
        assert.equal(items.length, 1, `one item: ${items.map((item) => item.length)}`)
        if (!client.moved)
          assert.ok(Buffer.byteLength(items[0] ?? '', 'utf8') <= 40_000, `${Buffer.byteLength(items[0] ?? '')} bytes`)
      }
      const moved = calls.some((call) => (call.result?.content ?? []).some((item) => item.handedOff))
      assert.equal(moved, client.moved, "moved to a file only where the client's limit is below the budget")
      if (client.moved)
        assert.ok(
          (run.spillReads ?? []).length > 0 && (run.spillReads ?? []).every((read) => read.allowed),
          `the model read the moved results through Cursor's Read rule: ${JSON.stringify(run.spillReads)}`,
        )
    })

  for (const [rules, isError] of [
    ['1.0.32', true],
    ['1.0.18', false],
  ] as const)
    test(`a failing tool is marked twice: isError (${rules} passes ${isError}) and its text's Error:`, async () => {
      const result = await turn(
        'read the missing file',
        (ws) => [
          { calls: [{ tool: 'read', args: { filePath: join(ws, 'missing.txt') } }] },
          { text: 'The read failed: {{result:0}} (isError {{error:0}})' },
        ],
        { FAKE_CURSOR_SDK_RULES: rules },
      )
      const why = result.why
      assert.deepEqual(eventsOf(result, 'error'), [], why)
      const [read] = eventsOf(result, 'tool_use').map((event) => event.part)
      assert.equal(read?.state.status, 'error', why)
      assert.match(
        textOf(result),
        new RegExp(`The read failed: Error: [^\\n]*(not found|no such file)[\\s\\S]*\\(isError ${isError}\\)`, 'i'),
        why,
      )
    })
})

describe('tool mode opencode in the OpenCode TUI against Cursor’s MCP timeout (scaled)', { skip: linuxOnly }, () => {
  test('a permission prompt answered after the MCP timeout still delivers the command’s output', async () => {
    const marker = 'The late-allowed command went through.'
    const sandbox = await limitedSandbox(
      () => [
        { calls: [{ tool: 'bash', args: { command: 'echo allowed-late', description: 'Say something' } }] },
        {
          calls: [{ tool: 'opencode_wait', args: { job: '{{match:0:job (\\d+)}}' } }],
          repeatWhile: 'is still running',
        },
        { text: `The command said: {{result:last}} ${marker}` },
      ],
      { permission: { bash: 'ask' } },
    )
    const tui = await sandbox.tui()
    await tui.ask('say something')
    await tui.screenWhen(
      (screen) => screen.includes('Permission required') && screen.includes('Allow once'),
      "OpenCode's permission prompt",
    )
    // The user reads the prompt past Cursor's (scaled) timeout before allowing the command.
    await new Promise((done) => setTimeout(done, 4_000))
    const [held] = sandbox.invocations() as BridgedInvocation[]
    assert.match(texts(held?.mcpCalls?.[0]).join(''), /still running in OpenCode/, 'answered in time')
    await tui.press('Enter')
    const screen = await tui.screenWhen((screen) => screen.includes(marker), 'the answer')
    assert.match(screen, /The command said: [\s\S]*allowed-late/, screen)
    const calls = onlyRun({ invocations: sandbox.invocations() }).mcpCalls ?? []
    assert.ok(
      calls.every((call) => call?.error === undefined),
      `no call timed out at Cursor: ${JSON.stringify(calls)}`,
    )
    await tui.close()
  })
})
