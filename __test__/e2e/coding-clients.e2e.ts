// Codex CLI and Claude Code, installed from the npm registry at the versions the server is measured
// with, configured by docs/server.md's recipes and run offline against `serve` (the built command
// line) over the fake cursor-agent: each client as a user runs it, one test per thing it needs of
// the server. Needs `npm run build` (the server is loaded from dist/).
import assert from 'node:assert/strict'
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import {
  claude,
  clientHome,
  clientsSkip,
  codex,
  installCodingClients,
  type Served,
  scratchFolder,
  startServe,
} from '../support/coding-clients.ts'
import { REPO_ROOT } from '../support/opencode.ts'
import { groupMembers, waitFor } from '../support/process.ts'

const scratch = scratchFolder()
/** One second of the server's clock stands for 100 s: its keep-alive every 0.3 s, its idle limit 18 s. */
const TIME_SCALE = '0.01'
let cursorMode: Served
let toolMode: Served

before(async () => {
  if (clientsSkip) return
  const cli = join(REPO_ROOT, 'dist', 'plugin', 'cli', 'main.js')
  assert.ok(existsSync(cli), `${cli} is missing: run \`npm run build\` (or \`npm run build:debug\`) first`)
  await installCodingClients()
  // As a user who wants a second turn to go on in Cursor's chat sets it.
  const settings = { CURSOR_ACP_SESSION_RESUME: 'true', CURSOR_ACP_TEST_TIME_SCALE: TIME_SCALE }
  cursorMode = await startServe(`${scratch}/cursor`, 'cursor', settings)
  toolMode = await startServe(`${scratch}/opencode`, 'opencode')
})
after(async () => {
  await Promise.all([cursorMode?.stop(), toolMode?.stop()])
  rmSync(scratch, { recursive: true, force: true })
})

/** The runs `served` started while `body` ran, and what `body` gave. */
async function newRuns<T>(served: Served, body: () => Promise<T>): Promise<[T, ReturnType<Served['runs']>]> {
  const before = served.runs().length
  const result = await body()
  return [result, served.runs().slice(before)]
}

const home = (served: Served) => clientHome(served === cursorMode ? `${scratch}/cursor` : `${scratch}/opencode`)

describe('Claude Code 2.1.328 through serve', { skip: clientsSkip }, () => {
  test('its first request, with system messages among the messages, is answered', async () => {
    cursorMode.control({ FAKE_CURSOR_STREAM: 'text:Hello from Cursor.' })
    const [run, runs] = await newRuns(cursorMode, () => claude(cursorMode, home(cursorMode), ['Say hello']))
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`)
    assert.match(run.stdout, /Hello from Cursor\./)
    assert.equal(runs.length, 1)
    assert.match(runs[0]?.stdin ?? '', /# Environment/, 'its mid-conversation system message reached the prompt')
  })

  test("a failure runs cursor-agent once and shows Cursor's reason", async () => {
    cursorMode.control({ FAKE_CURSOR_SCENARIO: 'auth' })
    const [run, runs] = await newRuns(cursorMode, () => claude(cursorMode, home(cursorMode), ['Say hello']))
    assert.notEqual(run.code, 0)
    assert.match(`${run.stdout}${run.stderr}`, /not logged in/, `${run.stdout}\n${run.stderr}`)
    assert.equal(runs.length, 1, 'x-should-retry: false keeps it from rerunning')
  })

  test("a second turn resumes Cursor's chat", async () => {
    cursorMode.control({ FAKE_CURSOR_STREAM: 'text:Noted.', FAKE_CURSOR_SESSION_ID: 'claude-chat' })
    const user = home(cursorMode)
    const [last, runs] = await newRuns(cursorMode, async () => {
      const answered = await claude(cursorMode, user, ['Remember the word tangerine'])
      assert.equal(answered.code, 0, `${answered.stdout}\n${answered.stderr}`)
      const resumed = await claude(cursorMode, user, ['--continue', 'Which word?'])
      assert.equal(resumed.code, 0, `${resumed.stdout}\n${resumed.stderr}`)
      return cursorMode.runs().at(-1)
    })
    assert.equal(runs.length, 2)
    assert.equal(last?.argv[last.argv.indexOf('--resume') + 1], 'claude-chat', last?.argv.join(' '))
    assert.match(last?.stdin ?? '', /Which word\?/)
    assert.doesNotMatch(last?.stdin ?? '', /tangerine/, 'only what is new is sent')
  })

  test('tool mode opencode: ToolSearch answers the held call, and the tool it loads reaches the model', async () => {
    // The first word the prompt holds picks the fake's steps: the run after the search sees its result.
    const script = {
      'tool_reference omitted': [{ text: 'Loaded and done.' }],
      'Schedule it': [{ calls: [{ tool: 'ToolSearch', args: { query: 'select:CronList', max_results: 5 } }] }],
    }
    toolMode.control({ FAKE_CURSOR_SCENARIO: 'mcp', FAKE_CURSOR_MCP_SCRIPT: script })
    const [run, runs] = await newRuns(toolMode, () => claude(toolMode, home(toolMode), ['Schedule it']))
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}\n${toolMode.output()}`)
    assert.match(run.stdout, /Loaded and done\./)
    const offers = (index: number, name: string) => runs[index]?.mcpTools.some((tool) => tool.name === name)
    assert.equal(runs.length, 2, 'the search ran once; a new run offers what it loaded')
    assert.ok(!offers(0, 'DeferredToolPlaceholder') && !offers(0, 'CronList'), 'deferred tools are not offered')
    assert.ok(offers(1, 'CronList'), 'the loaded tool reaches the model')
  })
})

describe('Codex CLI 0.169.0 through serve', { skip: clientsSkip }, () => {
  test("a failure runs cursor-agent once and shows Cursor's reason", async () => {
    cursorMode.control({ FAKE_CURSOR_SCENARIO: 'auth' })
    const [run, runs] = await newRuns(cursorMode, () => codex(cursorMode, home(cursorMode), ['Say hello']))
    assert.notEqual(run.code, 0)
    assert.match(`${run.stdout}${run.stderr}`, /not logged in/, `${run.stdout}\n${run.stderr}`)
    assert.equal(runs.length, 1, 'the recipe keeps Codex from rerunning it')
  })

  test("a second turn resumes Cursor's chat", async () => {
    cursorMode.control({ FAKE_CURSOR_STREAM: 'text:Noted.', FAKE_CURSOR_SESSION_ID: 'codex-chat' })
    const user = home(cursorMode)
    const [first, second] = await newRuns(cursorMode, async () => {
      const answered = await codex(cursorMode, user, ['Remember the word tangerine'])
      assert.equal(answered.code, 0, `${answered.stdout}\n${answered.stderr}`)
      const resumed = await codex(cursorMode, user, ['resume', '--last', 'Which word?'])
      assert.equal(resumed.code, 0, `${resumed.stdout}\n${resumed.stderr}`)
      return cursorMode.runs().at(-1)
    })
    assert.equal(second.length, 2)
    assert.equal(first?.argv[first.argv.indexOf('--resume') + 1], 'codex-chat', first?.argv.join(' '))
    assert.equal(first?.stdin.trim(), 'Which word?', 'only the new message is sent')
  })

  test('a turn survives a silence longer than its idle timer', async () => {
    cursorMode.control({
      FAKE_CURSOR_STREAM: 'text:After the silence.',
      FAKE_CURSOR_SILENCE_MS: '5000',
      FAKE_CURSOR_SILENCE_AFTER: '0',
    })
    // Codex's idle timer, 5 minutes by default, shortened as the server's clock is.
    const idle = 'stream_idle_timeout_ms = 2000\n'
    const [run, runs] = await newRuns(cursorMode, () => codex(cursorMode, home(cursorMode), ['Take your time'], idle))
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`)
    assert.match(run.stdout, /After the silence\./)
    assert.equal(runs.length, 1, 'no disconnection, no rerun')
  })

  test('tool mode opencode: it runs its shell tool, and serve stops on the first SIGTERM while a run waits', async () => {
    const served = await startServe(`${scratch}/signal`, 'opencode')
    const script = [
      { calls: [{ tool: 'exec_command', args: { cmd: 'echo ran-by-codex' } }] },
      { calls: [{ tool: 'exec_command', args: { cmd: 'sleep 60' } }] },
      { text: 'Never reached.' },
    ]
    served.control({ FAKE_CURSOR_SCENARIO: 'mcp', FAKE_CURSOR_MCP_SCRIPT: script })
    const running = codex(served, clientHome(`${scratch}/signal`), ['-s', 'workspace-write', 'Run it'])
    const waiting = () => (served.runs()[0]?.mcpCalls ?? []).length === 2
    assert.ok(await waitFor(waiting, 60_000), `the second call is held:\n${served.output()}`)
    const [run] = served.runs()
    assert.match(JSON.stringify(run?.mcpCalls[0]), /ran-by-codex/, 'Codex ran the first call and answered it')
    assert.equal(await served.stop('SIGTERM'), 0, 'the first signal stops the server')
    assert.ok(await waitFor(() => groupMembers(run?.pgid ?? 0).length === 0, 5000), 'the held run is ended')
    await running
  })
})
