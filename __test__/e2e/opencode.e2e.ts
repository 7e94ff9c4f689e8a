// The real OpenCode CLI (1.18.33), offline, loading this repository as its plugin, against the fake
// cursor-agent. Needs `npm run build` first (the plugin loads from dist/ and the addon).
//
// Expectations come from the captures' hand-written expected files in __test__/fixtures/captures/maestro
// (what a correct translation must show) and from the documented API and error codes (index.d.ts,
// docs/troubleshooting.md).
//
// The turns that need no OpenCode of their own go through one `opencode serve` with the default
// settings, a session each (see support/served.ts); a setting of OpenCode's environment, a flag of
// `opencode run` or its exit status gets an `opencode run` of its own.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { before, describe, test } from 'node:test'
import { replayCapture } from '../../index.js'
import { captureExpectation, type CaptureExpectation } from '../support/captures.ts'
import { e2eFile, eventsOf, explain, type Printed, textOf } from '../support/e2e.ts'
import { groupAlive, isAlive, waitFor } from '../support/opencode.ts'
import { sharedServer } from '../support/served.ts'

const MODEL = 'cursor-acp/auto'
const e2e = e2eFile()
const sandboxWith = e2e.sandboxWith
/** The default settings; a variable of OpenCode's own that cursor-agent gets by default. */
const shared = sharedServer(e2e, { env: { UNRELATED_SECRET: 's3cret' } })
before(() => shared.start())

const reasoningOf = (result: Printed) =>
  eventsOf(result, 'reasoning')
    .map((event) => event.part.text as string)
    .join('')
const toolsOf = (result: Printed) => eventsOf(result, 'tool_use').map((event) => event.part)

const textBlocks = (expected: CaptureExpectation, kind: 'text' | 'reasoning') =>
  expected.blocks.flatMap((block) => (block.kind === kind ? [block.text] : []))
const toolBlocks = (expected: CaptureExpectation) =>
  expected.blocks.flatMap((block) => (block.kind === 'tool' ? [block] : []))

function occurrences(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1
}

/** Every file under `directory` (none when it does not exist). */
function filesUnder(directory: string): string[] {
  if (!existsSync(directory)) return []
  return readdirSync(directory).flatMap((entry) => {
    const path = join(directory, entry)
    return statSync(path).isDirectory() ? filesUnder(path) : [path]
  })
}

/** Where `opencode auth login` keeps an API key (OpenCode's data folder), in its format. */
function storeApiKey(xdgDataHome: string, key: string): void {
  const store = join(xdgDataHome, 'opencode')
  mkdirSync(store, { recursive: true })
  writeFileSync(join(store, 'auth.json'), JSON.stringify({ 'cursor-acp': { type: 'api', key } }), { mode: 0o600 })
}

/** The plugin's capture folder on Linux: `$XDG_DATA_HOME/opencode-cursor-native/captures`. */
const captureFolderOf = (xdgDataHome: string) => join(xdgDataHome, 'opencode-cursor-native', 'captures')

describe('a turn through OpenCode with the cursor-acp plugin', { concurrency: 2 }, () => {
  test('partial output and recaps: the answer appears exactly once, thinking as reasoning (capture 04)', async () => {
    const result = await shared.turn('check the sample', {
      fake: { FAKE_CURSOR_STREAM: 'maestro/04_partial_output.jsonl' },
      thinking: true,
    })
    const why = result.why
    assert.deepEqual(eventsOf(result, 'error'), [], why)
    const expected = captureExpectation('maestro/04_partial_output.jsonl')
    const text = textOf(result)
    // Fragments "Checking", " now", "." then the recap "Checking now." which must add nothing.
    for (const block of textBlocks(expected, 'text')) assert.equal(occurrences(text, block), 1, why)
    assert.equal(occurrences(text, 'contained'), 1, why)
    const reasoning = reasoningOf(result)
    for (const block of textBlocks(expected, 'reasoning')) assert.ok(reasoning.includes(block), why)
    assert.ok(!text.includes('Preparing to check'), 'thinking must not appear as answer text')
    const tools = toolsOf(result)
    assert.deepEqual(
      tools.map((part) => [part.tool, part.state.status]),
      toolBlocks(expected).map((tool) => [tool.opencode.tool, tool.opencode.status]),
      why,
    )
    assert.equal(result.invocations.length, 1, 'one cursor-agent run for one prompt (titles are local)')
    // By default (no CURSOR_ACP_CHILD_ENV) cursor-agent gets OpenCode's variables, all of them.
    assert.ok(result.invocations[0]?.envNames.includes('UNRELATED_SECRET'))
  })

  test("the dual entry loads without a failure in OpenCode 1.18.33's log (--print-logs); CURSOR_ACP_CHILD_ENV keeps OpenCode's other variables from cursor-agent", async () => {
    const sandbox = await sandboxWith({
      FAKE_CURSOR_STREAM: 'text:Answered with a trimmed environment.',
      UNRELATED_SECRET: 's3cret',
      CURSOR_ACP_CHILD_ENV: 'FAKE_CURSOR_*',
    })
    const result = await sandbox.run(['run', '--print-logs', '--format', 'json', '--model', MODEL, 'say', 'hi'])
    const why = explain(result, sandbox)
    assert.equal(result.code, 0, why)
    const log = `${result.stderr}\n${sandbox.openCodeLog()}`
    assert.match(log, /llm\.provider=cursor-acp/, "the log shows the plugin's provider serving the turn")
    const failed = log
      .split('\n')
      .filter((line) => /fail|error/i.test(line) && /opencode-cursor-native|cursor-acp|\[v2\]/.test(line))
    assert.deepEqual(failed, [], 'no log line names the plugin as failed')
    assert.equal(textOf(result), 'Answered with a trimmed environment.', why)
    const [run] = sandbox.invocations()
    assert.ok(run !== undefined && !run.envNames.includes('UNRELATED_SECRET'), JSON.stringify(run?.envNames))
    assert.ok(
      run.envNames.includes('PATH') && run.envNames.includes('HOME') && run.envNames.includes('FAKE_CURSOR_STREAM'),
    )
    // OpenCode's own variables (OPENCODE_*) are not in the base list either.
    assert.deepEqual(
      run.envNames.filter((name) => name.startsWith('OPENCODE')),
      [],
    )
    // That by default cursor-agent has them all, capture 04's turn shows (the shared server's).
  })

  test('an API key stored with opencode auth login reaches cursor-agent, and no log holds it; CURSOR_ACP_CAPTURE=1 captures the turn without it, and the capture replays to the same outputs', async () => {
    const key = 'crsr_e2e_capture_0123456789abcdef0123456789abcdef'
    const sandbox = await sandboxWith({
      FAKE_CURSOR_STREAM: 'text:Answered and captured.',
      CURSOR_ACP_CAPTURE: '1',
      CURSOR_ACP_LOG_LEVEL: 'debug',
    })
    const data = sandbox.env.XDG_DATA_HOME!
    storeApiKey(data, key)
    const result = await sandbox.run(['run', '--format', 'json', '--model', MODEL, 'say', 'hi'])
    const why = explain(result, sandbox)
    assert.equal(result.code, 0, why)
    assert.equal(textOf(result), 'Answered and captured.', why)
    const hash = createHash('sha256').update(key).digest('hex')
    const [run] = sandbox.invocations() as Array<{ apiKeySha256?: string }>
    assert.equal(run?.apiKeySha256, hash, 'the run got the stored key')
    // `models` too, when the plugin lists them.
    const runs = sandbox.allInvocations() as Array<{ subcommand?: string; apiKeySha256?: string }>
    assert.ok(runs.length >= 1)
    for (const run of runs) assert.equal(run.apiKeySha256, hash, `${run.subcommand ?? 'the run'} got the stored key`)

    const folder = captureFolderOf(data)
    const captures = filesUnder(folder).filter((file) => /\/cap-[a-z]+-[a-z]+\.ndjson$/.test(file))
    assert.equal(captures.length, 1, `one run, one capture: ${filesUnder(folder).join(', ')}`)
    // The capture folder, the plugin's log (next to it), OpenCode's log and the output hold no copy of the key.
    const pluginData = join(data, 'opencode-cursor-native')
    assert.ok(existsSync(join(pluginData, 'log')), 'the plugin logged at debug level')
    for (const file of [...filesUnder(pluginData), ...filesUnder(join(data, 'opencode', 'log'))]) {
      assert.ok(!readFileSync(file, 'utf8').includes(key), `${file} does not hold the key`)
    }
    for (const [name, text] of [
      ["OpenCode's log", sandbox.openCodeLog()],
      ["the plugin's log", readFileSync(join(pluginData, 'log'), 'utf8')],
      ['the output', result.stdout + result.stderr],
    ] as const) {
      assert.ok(!text.includes(key), `${name} does not hold the key`)
    }
    const [capture] = captures
    const start = JSON.parse(readFileSync(capture!, 'utf8').split('\n')[0]!)
    assert.equal(start.kind, 'start')
    assert.ok(start.env.includes('CURSOR_API_KEY'), JSON.stringify(start.env))
    assert.ok(start.masked.secrets.includes('CURSOR_API_KEY'), JSON.stringify(start.masked))
    assert.equal(start.masked.prompt, true, 'the prompt is masked by default')
    assert.equal(start.prompt.text, undefined)
    const report = replayCapture(capture!)
    assert.equal(report.matches, true, JSON.stringify(report.mismatch))
    assert.equal(report.textStopped, undefined, JSON.stringify(report.textStopped))
    assert.equal(report.consumer.text, 'Answered and captured.')
  })

  test('a failing turn with CURSOR_ACP_CAPTURE=1: the error OpenCode shows names the capture, once, with no retry', async () => {
    const key = 'crsr_e2e_failing_0123456789abcdef0123456789abcdef'
    const sandbox = await sandboxWith({
      FAKE_CURSOR_SCENARIO: 'fail',
      FAKE_CURSOR_PARTIAL: 'Starting to',
      // cursor-agent naming the key it was given: what it says is captured, the key is not.
      FAKE_CURSOR_STDERR: `Error: the API key ${key} was not accepted`,
      CURSOR_ACP_CAPTURE: '1',
    })
    const data = sandbox.env.XDG_DATA_HOME!
    storeApiKey(data, key)
    const result = await sandbox.run(['run', '--format', 'json', '--model', MODEL, 'say', 'hi'])
    const why = explain(result, sandbox)
    assert.ok(!result.timedOut, why)
    assert.notEqual(result.code, 0, why)
    const errors = eventsOf(result, 'error')
    assert.equal(errors.length, 1, why)
    const message = String(errors[0]!.error.data?.message ?? '')
    const named =
      /The run was captured as (cap-[a-z]+-[a-z]+): `npx opencode-cursor-native replay \1` shows where it went wrong\./.exec(
        message,
      )
    assert.ok(named, `the message names the capture: ${message}`)
    assert.match(message, /\[E_[A-Z_]+\]$/, 'and still ends with its code')
    assert.equal(sandbox.invocations().length, 1, `OpenCode did not retry "${message}"`)
    const capture = join(captureFolderOf(data), `${named[1]}.ndjson`)
    assert.ok(existsSync(capture), `${capture} exists`)
    assert.ok(!readFileSync(capture, 'utf8').includes(key), 'the capture does not hold the key')
    const report = replayCapture(capture)
    assert.equal(report.matches, true, JSON.stringify(report.mismatch))
    assert.equal(report.textStopped?.stage, 'process', JSON.stringify(report.textStopped))
    assert.match(report.process.stderr, /\[masked CURSOR_API_KEY\] was not accepted/)
  })

  test('a provider block of the earlier proxy bridge (port 32124) is taken over, keeping its model names', async () => {
    const sandbox = await e2e.sandbox({
      env: { FAKE_CURSOR_STREAM: 'text:Answered without the proxy.' },
      config: {
        provider: {
          'cursor-acp': {
            name: 'Cursor',
            npm: '@ai-sdk/openai-compatible',
            options: { baseURL: 'http://127.0.0.1:32124/v1' },
            models: { 'my-model': { name: 'My Model' } },
          },
        },
      },
    })
    const result = await sandbox.run(['run', '--format', 'json', '--model', 'cursor-acp/my-model', 'say', 'hi'])
    const why = explain(result, sandbox)
    assert.equal(result.code, 0, why)
    assert.equal(textOf(result), 'Answered without the proxy.', why)
    const [run] = sandbox.invocations()
    assert.equal(run!.argv[run!.argv.indexOf('--model') + 1], 'my-model')
  })

  // Each message says what to do (docs/troubleshooting.md) and ends with its code. What the fake
  // does goes through the shared server (`fake`); another cursor-agent is a setting of OpenCode's
  // environment (`env`), an `opencode run` of its own, which also checks its exit status.
  const failures: {
    name: string
    fake?: Record<string, string>
    env?: Record<string, string>
    message: RegExp
    runs: number
  }[] = [
    {
      name: 'not logged in',
      fake: { FAKE_CURSOR_SCENARIO: 'auth' },
      message: /cursor-agent login[\s\S]*opencode auth login[\s\S]*\[E_AUTH\]$/,
      runs: 1,
    },
    {
      name: 'usage limit',
      fake: { FAKE_CURSOR_SCENARIO: 'quota' },
      // Cursor's diagnostic lines (spendLimitHit, ...) stay out of what the user reads.
      message: /^(?![\s\S]*spendLimit)[\s\S]*usage limit[\s\S]*no answer was started[\s\S]*\[E_QUOTA\]$/i,
      runs: 1,
    },
    {
      name: 'unknown model',
      fake: { FAKE_CURSOR_SCENARIO: 'model' },
      message: /auto, fake-model, composer-2\.5[\s\S]*\[E_MODEL\]$/,
      runs: 1,
    },
    {
      name: 'cursor-agent not found',
      env: { CURSOR_AGENT_EXECUTABLE: '/nonexistent/cursor-agent' },
      message: /not found[\s\S]*\/nonexistent\/cursor-agent[\s\S]*install[\s\S]*\[E_AGENT_NOT_FOUND\]$/i,
      runs: 0,
    },
  ]
  for (const failure of failures) {
    test(`${failure.name}: the run fails with a clear message and no retry`, async () => {
      const { result, runs, why } = await failedTurn(failure)
      if ('code' in result) {
        assert.ok(!result.timedOut, why)
        assert.notEqual(result.code, 0, why)
      }
      const errors = eventsOf(result, 'error')
      assert.equal(errors.length, 1, why)
      const message = String(errors[0]!.error.data?.message ?? '')
      assert.match(message, failure.message, why)
      assert.ok(!message.startsWith('{'), `the message is readable text, not JSON: ${message}`)
      assert.equal(textOf(result), '', 'an error is never shown as assistant text')
      assert.equal(runs, failure.runs, why)
    })
  }
})

/** A turn with the fake doing `fake` through the shared server, or an `opencode run` with `env`. */
async function failedTurn(failure: { fake?: Record<string, string>; env?: Record<string, string> }) {
  if (failure.env === undefined) {
    const turn = await shared.turn('say hi', { fake: failure.fake ?? {} })
    return { result: turn, runs: turn.invocations.length, why: turn.why }
  }
  const sandbox = await sandboxWith(failure.env)
  const result = await sandbox.run(['run', '--format', 'json', '--model', MODEL, 'say', 'hi'])
  return { result, runs: sandbox.invocations().length, why: explain(result, sandbox) }
}

describe('opencode serve with the cursor-acp plugin', () => {
  test('session resume: turn 2 resumes with only the new text; a replaced chat reruns fresh once', async () => {
    const sandbox = await sandboxWith({ CURSOR_ACP_SESSION_RESUME: '1' })
    const control = join(sandbox.root, 'fake-control.json')
    sandbox.env.FAKE_CURSOR_CONTROL = control
    writeFileSync(control, JSON.stringify({ FAKE_CURSOR_STREAM: 'text:First answer.' }))
    const server = await sandbox.serve()
    const session = await server.createSession()

    const first = await server.prompt(session, 'first question')
    assert.equal(first.info.error, undefined, JSON.stringify(first))
    let runs = sandbox.invocations()
    assert.equal(runs.length, 1)
    assert.ok(!runs[0]!.argv.includes('--resume'))
    assert.ok(runs[0]!.stdin!.includes('first question'))
    const chatId = runs[0]!.sessionId!
    // The session title was answered locally (docs/sessions-and-usage.md: Session titles), not by a
    // cursor-agent run.
    let title = ''
    await waitFor(() => {
      void server.request('GET', `/session/${session}`).then((info) => (title = info.title))
      return title === 'first question'
    }, 15_000)
    assert.equal(title, 'first question')
    assert.equal(sandbox.invocations().length, 1)

    writeFileSync(control, JSON.stringify({ FAKE_CURSOR_STREAM: 'text:Second answer.' }))
    const second = await server.prompt(session, 'second question')
    assert.equal(second.info.error, undefined, JSON.stringify(second))
    runs = sandbox.invocations()
    assert.equal(runs.length, 2)
    const resumeAt = runs[1]!.argv.indexOf('--resume')
    assert.ok(resumeAt >= 0, JSON.stringify(runs[1]!.argv))
    assert.equal(runs[1]!.argv[resumeAt + 1], chatId)
    assert.equal(runs[1]!.stdin!.trim(), 'second question')

    // Cursor answers the resume with another chat id: the runner stops it, the provider reruns fresh.
    writeFileSync(control, JSON.stringify({ FAKE_CURSOR_STREAM: 'text:Third answer.', FAKE_CURSOR_RESUME: 'replace' }))
    const third = await server.prompt(session, 'third question')
    assert.equal(third.info.error, undefined, JSON.stringify(third))
    runs = sandbox.invocations()
    assert.equal(runs.length, 4, JSON.stringify(runs.map((run) => run.argv)))
    assert.ok(runs[2]!.argv.includes('--resume'))
    assert.ok(!runs[3]!.argv.includes('--resume'))
    for (const text of ['first question', 'second question', 'third question'])
      assert.ok(runs[3]!.stdin!.includes(text), runs[3]!.stdin)
    const answer = third.parts
      .filter((part: any) => part.type === 'text')
      .map((part: any) => part.text)
      .join('')
    assert.equal(answer, 'Third answer.')
  })

  test('abort stops the whole cursor-agent process group', async () => {
    // The shared server, once the turns above are done (this describe runs after theirs).
    shared.control({ FAKE_CURSOR_SCENARIO: 'long' })
    const server = shared.server()
    const started = shared.watch()
    const session = await server.createSession()
    const reply = server.prompt(session, 'work for a long time').catch((error: unknown) => error)
    assert.ok(await waitFor(() => started().some((run) => run.grandchildPid !== undefined), 60_000), server.output())
    const run = started()[0]!
    assert.ok(isAlive(run.pid) && isAlive(run.grandchildPid!))
    await server.abort(session)
    await reply
    const gone = await waitFor(
      () => !isAlive(run.pid) && !isAlive(run.grandchildPid!) && (run.pgid === null || !groupAlive(run.pgid)),
      30_000,
    )
    assert.ok(gone, `cursor-agent ${run.pid} (group ${run.pgid}) or its child ${run.grandchildPid} survived the abort`)
  })
})
