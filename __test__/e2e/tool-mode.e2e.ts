// Tool mode `opencode` in the real OpenCode CLI (1.18.33): Cursor's model calls OpenCode's own
// tools through the bridge, OpenCode runs them (its permission rules included), the results reach
// the held calls, and the same cursor-agent process finishes the answer. The fake cursor-agent
// speaks MCP as the real CLI is documented to (`FAKE_CURSOR_SCENARIO=mcp`). Needs `npm run build`.
//
// The turns go through one `opencode serve`, a session each, the fake's script set per turn (see
// support/served.ts); `opencode run` itself (its answer to a permission it cannot ask) and the TUI
// have sandboxes of their own.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { e2eFile, eventsOf, explain, textOf, steps } from '../support/e2e.ts'
import { groupAlive, waitFor, type Invocation, type Sandbox } from '../support/opencode.ts'
import { killGroupsAfter } from '../support/process.ts'
import { messagesOf, sharedServer } from '../support/served.ts'

const MODEL = 'cursor-acp/auto'
const linuxOnly = process.platform !== 'linux' ? 'the OpenCode harness and /proc are Linux only' : false
const e2e = e2eFile()

interface McpCall {
  tool: string
  args: Record<string, unknown>
  result: { content?: Array<{ type: string; text?: string }>; isError?: boolean } | null
  isError?: boolean
}
type BridgedInvocation = Invocation & {
  mcpCalls?: Array<McpCall | null>
  mcpTools?: Array<{ name: string }>
  finished?: boolean
}

const TOOL_MODE = {
  CURSOR_ACP_TOOL_MODE: 'opencode',
  CURSOR_ACP_CHILD_ENV: 'FAKE_CURSOR_*',
  FAKE_CURSOR_SCENARIO: 'mcp',
}
const NOTES = 'the secret word is teapot\n'

/** A sandbox of its own in tool mode `opencode` whose fake agent runs `script` (built from the workspace path). */
async function toolModeSandbox(
  script: (workspace: string) => unknown[],
  config: Record<string, unknown>,
): Promise<Sandbox> {
  const sandbox = await e2e.sandbox({ env: TOOL_MODE, files: { 'notes.txt': NOTES }, config })
  sandbox.env.FAKE_CURSOR_MCP_SCRIPT = JSON.stringify(script(sandbox.workspace))
  return sandbox
}

/**
 * The server the turns share. Its project is in git (OpenCode's snapshots, which revert restores,
 * need it); bash may run anything but `touch`, which is refused, and `touch asked`, which asks;
 * and, as after a Linux `cursor-agent login`, there is no API key and no XDG_CONFIG_HOME: the
 * login is in `~/.config/cursor/auth.json` (the sandbox's config folder is that one anyway), which
 * a private HOME alone would hide. The turn that reads the login says so (`FAKE_CURSOR_LOGIN`).
 */
const shared = sharedServer(
  e2e,
  {
    env: TOOL_MODE,
    files: { 'notes.txt': NOTES, 'more.txt': 'and a kettle\n' },
    config: { permission: { bash: { '*': 'allow', 'touch *': 'deny', 'touch asked': 'ask' } } },
  },
  (sandbox) => {
    delete sandbox.env.CURSOR_API_KEY
    assert.equal(sandbox.env.XDG_CONFIG_HOME, join(sandbox.home, '.config'))
    delete sandbox.env.XDG_CONFIG_HOME
    const config = join(sandbox.home, '.config', 'cursor')
    mkdirSync(config, { recursive: true })
    writeFileSync(join(config, 'auth.json'), JSON.stringify({ accessToken: 'a', refreshToken: 'r' }))
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=e2e', '-c', 'user.email=e2e@example.com', ...args], {
        cwd: sandbox.workspace,
        env: sandbox.env,
        stdio: 'pipe',
      })
    git('init', '-q')
    git('add', '-A')
    git('commit', '-q', '-m', 'start')
  },
)

/** The fake's settings for a turn whose script is `script` (built from the workspace path). */
function scripted(script: (workspace: string) => unknown[], more: Record<string, string> = {}) {
  return { ...more, FAKE_CURSOR_MCP_SCRIPT: JSON.stringify(script(shared.sandbox().workspace)) }
}

const seenGroups = killGroupsAfter(after)

const invocationsOf = (sandbox: Sandbox) => sandbox.invocations() as BridgedInvocation[]
const resultText = (call: McpCall | null | undefined) =>
  (call?.result?.content ?? []).map((c) => c.text ?? '').join('\n')

/** Polls `check` every 100 ms until it holds, up to `timeoutMs`; says whether it did. */
async function eventually(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await check()) return true
    if (Date.now() > deadline) return false
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe('tool mode opencode through the real OpenCode CLI', { skip: linuxOnly }, () => {
  before(() => shared.start())

  test('OpenCode runs its own read for the held call; one process, one prompt, the answer quotes it', async () => {
    const result = await shared.turn('what do the notes say', {
      fake: scripted((ws) => [
        { text: 'Reading the notes.' },
        { calls: [{ tool: 'read', args: { filePath: join(ws, 'notes.txt') } }] },
        { text: 'The notes say: {{result:0}}' },
      ]),
    })
    const why = result.why
    assert.deepEqual(eventsOf(result, 'error'), [], why)
    const [read] = eventsOf(result, 'tool_use').map((event) => event.part)
    assert.equal(read?.tool, 'read', why)
    assert.equal(read?.state.status, 'completed', why)
    // OpenCode's own read output (numbered lines in its <content> block), not Cursor's.
    assert.match(read?.state.output as string, /<content>\n1: the secret word is teapot/, why)
    assert.deepEqual(
      steps(result).map((step) => step.reason),
      ['tool-calls', 'stop'],
      why,
    )
    const invocations = result.invocations as BridgedInvocation[]
    assert.equal(invocations.length, 1, 'one cursor-agent process for the whole turn')
    const [invocation] = invocations
    assert.equal(invocation!.stdin?.split('what do the notes say').length, 2, 'the prompt was written once')
    // OpenCode's system prompt went to Cursor's rules channel, not into the prompt text.
    const hostRules = (invocation!.alwaysAppliedRules ?? []).filter((rule) => rule.path.endsWith('opencode-host.mdc'))
    assert.equal(hostRules.length, 1, JSON.stringify(invocation!.alwaysAppliedRules?.map((rule) => rule.path)))
    assert.match(hostRules[0]!.body, /^You are opencode, an interactive CLI tool/)
    assert.ok(!invocation!.stdin?.includes('You are opencode'), 'the prompt text keeps the conversation only')
    assert.ok(invocation!.argv.includes('--approve-mcps'))
    assert.ok(!invocation!.argv.includes('--force'))
    assert.ok(
      !invocation!.cwd.startsWith(shared.sandbox().workspace),
      `cursor-agent works in the private folder, not the project: ${invocation!.cwd}`,
    )
    assert.deepEqual(
      invocation!.mcpTools
        ?.map((tool) => tool.name)
        .filter((name) => ['read', 'bash', 'edit'].includes(name))
        .sort(),
      ['bash', 'edit', 'read'],
      "OpenCode's own tools are offered",
    )
    assert.match(resultText(invocation!.mcpCalls?.[0]), /the secret word is teapot/)
    assert.match(textOf(result), /The notes say: [\s\S]*teapot/, why)
  })

  test('a Linux `cursor-agent login` (auth.json under the real config dir, no API key) works in tool mode', async () => {
    // The usual case, as the shared server has it: no XDG_CONFIG_HOME, the login in ~/.config/cursor/.
    const result = await shared.turn('what do the notes say', {
      fake: scripted(
        (ws) => [
          { calls: [{ tool: 'read', args: { filePath: join(ws, 'notes.txt') } }] },
          { text: 'The notes say: {{result:0}}' },
        ],
        { FAKE_CURSOR_LOGIN: 'files' },
      ),
    })
    const why = result.why
    assert.deepEqual(eventsOf(result, 'error'), [], why)
    const [invocation] = result.invocations
    assert.ok(!invocation!.envNames.includes('CURSOR_API_KEY'), 'no API key')
    assert.match(textOf(result), /The notes say: [\s\S]*teapot/, why)
  })

  test('two calls of one step are handed over one a step, as Cursor sends them, and both results come back', async () => {
    // The model makes both calls in one step (both `started` records come together), but Cursor's
    // client sends the second `tools/call` only once the first is answered: the bridge hands each
    // over as it comes, so no OpenCode step waits for a call Cursor sends later.
    const result = await shared.turn('look around', {
      fake: scripted((ws) => [
        {
          calls: [
            { tool: 'read', args: { filePath: join(ws, 'notes.txt') } },
            { tool: 'read', args: { filePath: join(ws, 'more.txt') } },
          ],
          parallel: true,
        },
        { text: 'Read: {{result:0}} And: {{result:1}}' },
      ]),
    })
    const why = result.why
    assert.deepEqual(eventsOf(result, 'error'), [], why)
    assert.deepEqual(
      steps(result),
      [
        { tools: ['read'], reason: 'tool-calls' },
        { tools: ['read'], reason: 'tool-calls' },
        { tools: [], reason: 'stop' },
      ],
      why,
    )
    const [invocation] = result.invocations as BridgedInvocation[]
    assert.equal(result.invocations.length, 1)
    assert.match(resultText(invocation!.mcpCalls?.[0]), /teapot/)
    assert.match(resultText(invocation!.mcpCalls?.[1]), /kettle/)
    assert.match(textOf(result), /teapot[\s\S]*kettle/, why)
  })

  test("a call OpenCode's permission rule denies is answered with the refusal, and OpenCode goes on", async () => {
    // The shared server's rule: `touch *` is denied.
    const result = await shared.turn('make the file', {
      fake: scripted(() => [
        { calls: [{ tool: 'bash', args: { command: 'touch made-by-cursor', description: 'Make a file' } }] },
        { text: 'The command failed: {{result:0}} (isError {{error:0}})' },
      ]),
    })
    const why = result.why
    assert.deepEqual(eventsOf(result, 'error'), [], why)
    const [invocation] = result.invocations as BridgedInvocation[]
    assert.equal(result.invocations.length, 1)
    // Marked twice: the refusal says it failed in its text (for clients that drop `isError`), and
    // `isError` (which the default fake, as @cursor/sdk 1.0.32, passes on).
    assert.match(resultText(invocation!.mcpCalls?.[0]), /^Error: The user has specified a rule/)
    assert.match(textOf(result), /The command failed: Error: The user has specified a rule[\s\S]*\(isError true\)/, why)
    assert.equal(existsSync(join(shared.sandbox().workspace, 'made-by-cursor')), false, 'nothing ran')
  })

  test("a call that needs 'ask' under opencode run stops OpenCode: the held run ends, no process is left", async () => {
    const sandbox = await toolModeSandbox(
      () => [
        { calls: [{ tool: 'bash', args: { command: 'touch asked', description: 'Make a file' } }] },
        { text: 'never shown' },
      ],
      { permission: { bash: 'ask' } },
    )
    const result = await sandbox.run(['run', '--format', 'json', '--model', MODEL, 'make the file'])
    const why = explain(result, sandbox)
    const [invocation] = invocationsOf(sandbox)
    assert.ok(invocation?.pgid != null, why)
    assert.ok(
      await waitFor(() => !groupAlive(invocation!.pgid!), 30_000),
      `cursor-agent's group ${invocation!.pgid} is gone`,
    )
    assert.doesNotMatch(textOf(result), /never shown/, why)
    const [bash] = eventsOf(result, 'tool_use').map((event) => event.part)
    assert.equal(bash?.tool, 'bash', why)
    assert.equal(bash?.state.status, 'error', why)
    // The user sees why: OpenCode reports the rejected permission.
    assert.match(`${bash?.state.error ?? ''}${result.stdout}${result.stderr}`, /reject|denied|permission/i, why)
    assert.equal(existsSync(join(sandbox.workspace, 'asked')), false)
  })

  test('an abort while a call is held (OpenCode waits for a permission) stops the run', async () => {
    // The shared server's rule: `touch asked` asks.
    shared.control(
      scripted(() => [
        { calls: [{ tool: 'bash', args: { command: 'touch asked', description: 'Make a file' } }] },
        { text: 'never shown' },
      ]),
    )
    const server = shared.server()
    const started = shared.watch()
    const session = await server.createSession()
    const answer = server.prompt(session, 'make the file', MODEL).catch(() => null)
    // The call is held while OpenCode waits for the permission reply: OpenCode shows its bash
    // call as running.
    const held = await eventually(async () =>
      (await messagesOf(server, session)).some((message) =>
        message.parts.some((part) => part.type === 'tool' && part.tool === 'bash' && part.state?.status === 'running'),
      ),
    )
    assert.ok(held, `OpenCode waits for the permission: ${server.output()}`)
    const [invocation] = started()
    assert.ok(groupAlive(invocation!.pgid!), 'the run is held, alive')
    await server.abort(session)
    assert.ok(
      await waitFor(() => !groupAlive(invocation!.pgid!), 30_000),
      `cursor-agent's group ${invocation!.pgid} is gone after the abort`,
    )
    await answer
    assert.equal(started().length, 1)
  })

  test("an edit through OpenCode's edit tool is undone by OpenCode's revert through opencode serve", async () => {
    const original = NOTES
    const notes = join(shared.sandbox().workspace, 'notes.txt')
    const server = shared.server()
    const result = await shared.turn('rename the secret word', {
      fake: scripted((ws) => [
        // OpenCode's edit refuses a file the session has not read.
        { calls: [{ tool: 'read', args: { filePath: join(ws, 'notes.txt') } }] },
        {
          calls: [
            { tool: 'edit', args: { filePath: join(ws, 'notes.txt'), oldString: 'teapot', newString: 'kettle' } },
          ],
        },
        { text: 'Edited: {{result:1}}' },
      ]),
    })
    const why = result.why
    const invocations = result.invocations as BridgedInvocation[]
    assert.equal(invocations.length, 1, `one cursor-agent process for the whole turn: ${why}`)
    const [read, edit] = invocations[0]!.mcpCalls ?? []
    assert.equal(read?.isError, false, `OpenCode's read answered the first held call: ${JSON.stringify(read)}`)
    assert.equal(edit?.tool, 'edit', why)
    assert.equal(edit?.isError, false, `OpenCode's edit answered the held call with success: ${JSON.stringify(edit)}`)
    assert.equal(readFileSync(notes, 'utf8'), 'the secret word is kettle\n', `OpenCode's edit changed the file: ${why}`)
    const messages = await messagesOf(server, result.session)
    const parts = messages.flatMap((message) => message.parts)
    const editPart = parts.find((part) => part.type === 'tool' && part.tool === 'edit')
    assert.equal(editPart?.state?.status, 'completed', why)
    assert.ok(
      parts.some((part) => part.type === 'text' && /Edited: /.test(part.text)),
      `the same run finished the answer: ${why}`,
    )
    const user = messages.find((message) => message.info.role === 'user')
    assert.ok(user, why)
    // Reverting the turn's user message undoes everything after it, the edit included.
    await server.request('POST', `/session/${result.session}/revert`, { messageID: user.info.id })
    assert.equal(readFileSync(notes, 'utf8'), original, `OpenCode's revert restored the file: ${server.output()}`)
  })

  test('an abort while a step is still streaming stops the run', async () => {
    // About 60 s of text, one word a line, then a call the run must never reach.
    const long = Array.from({ length: 300 }, (_, index) => `word${index}`).join(' ')
    shared.control(
      scripted(
        (ws) => [
          { text: long },
          { calls: [{ tool: 'read', args: { filePath: join(ws, 'notes.txt') } }] },
          { text: 'never shown' },
        ],
        { FAKE_CURSOR_LINE_DELAY_MS: '200' },
      ),
    )
    const server = shared.server()
    const started = shared.watch()
    const session = await server.createSession()
    const answer = server.prompt(session, 'tell me a long story', MODEL).catch(() => null)
    // OpenCode stores a text part when its first delta comes, and its text only at the end: a
    // text part in a step that has not finished is a step that streams.
    const streaming = await eventually(async () =>
      (await messagesOf(server, session)).some(
        (message) =>
          message.info.role === 'assistant' &&
          message.parts.some((part) => part.type === 'text') &&
          !message.parts.some((part) => part.type === 'step-finish'),
      ),
    )
    assert.ok(streaming, `the text streams: ${server.output()}`)
    const [invocation] = started() as BridgedInvocation[]
    assert.ok(invocation?.pgid != null, `one cursor-agent runs: ${JSON.stringify(invocation)}`)
    seenGroups.add(invocation.pgid)
    assert.ok(groupAlive(invocation.pgid), 'the run still streams')
    await server.abort(session)
    assert.ok(
      await waitFor(() => !groupAlive(invocation.pgid!), 30_000),
      `cursor-agent's group ${invocation.pgid} is gone after the abort`,
    )
    await answer
    const [ended] = started() as BridgedInvocation[]
    assert.equal(started().length, 1)
    assert.deepEqual(ended!.mcpCalls, [], 'no call was made')
    assert.notEqual(ended!.finished, true, 'the run did not finish its script')
    const parts = (await messagesOf(server, session)).flatMap((message) => message.parts)
    assert.ok(!parts.some((part) => part.type === 'tool'), `no tool call reached OpenCode: ${JSON.stringify(parts)}`)
    assert.ok(!parts.some((part) => part.type === 'text' && /never shown/.test(part.text)))
    assert.deepEqual(await server.request('GET', '/session/status'), {}, 'the session is idle, nothing is held')
  })
})

describe('tool mode opencode in the OpenCode TUI', { skip: linuxOnly }, () => {
  test("the held bash call waits for OpenCode's own permission prompt; allow once runs it and the same run answers", async () => {
    const marker = 'The bash call went through OpenCode.'
    const sandbox = await toolModeSandbox(
      () => [
        { calls: [{ tool: 'bash', args: { command: 'touch made-by-opencode.txt', description: 'Make a file' } }] },
        { text: `The command said: {{result:0}} ${marker}` },
      ],
      { permission: { bash: 'ask' } },
    )
    const made = join(sandbox.workspace, 'made-by-opencode.txt')
    const tui = await sandbox.tui()
    await tui.ask('make the file')
    const asked = await tui.screenWhen(
      (screen) => screen.includes('Permission required') && screen.includes('Allow once'),
      "OpenCode's permission prompt",
    )
    assert.match(asked, /\$ touch made-by-opencode\.txt/, asked)
    assert.match(asked, /Allow once\s+Allow always\s+Reject/, asked)
    const [held] = invocationsOf(sandbox)
    assert.ok(held?.pgid != null, `cursor-agent runs: ${JSON.stringify(held)}`)
    seenGroups.add(held.pgid)
    assert.ok(groupAlive(held.pgid), 'the run is held, alive')
    assert.deepEqual(held.mcpCalls, [], 'the call is still held, unanswered')
    assert.equal(existsSync(made), false, 'nothing ran before the answer')
    // "Allow once" is selected first.
    await tui.press('Enter')
    const screen = await tui.screenWhen((screen) => screen.includes(marker), 'the answer')
    assert.equal(screen.split(marker).length, 2, `the answer shows once:\n${screen}`)
    assert.ok(existsSync(made), `OpenCode ran the command in the project folder:\n${screen}`)
    const invocations = invocationsOf(sandbox)
    assert.equal(invocations.length, 1, 'one cursor-agent process for the whole turn')
    const call = invocations[0]!.mcpCalls?.[0]
    assert.equal(call?.tool, 'bash', JSON.stringify(call))
    assert.equal(call?.isError, false, `the command's result reached the held call: ${JSON.stringify(call)}`)
    await tui.close()
  })
})
