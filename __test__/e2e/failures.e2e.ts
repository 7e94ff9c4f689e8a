// Failures through the real OpenCode CLI (1.18.33): each one runs cursor-agent exactly once,
// shows one readable error ending with its code, and makes `opencode run` exit non-zero. OpenCode
// retries an error it takes as transient (about six runs over a minute), so a retried failure
// shows up here as more than one agent run.
//
// The failures go through one `opencode serve`, a session each (see support/served.ts; an
// `opencode run` each would start OpenCode twenty times); OpenCode retries a served prompt as it
// does a run. One `opencode run` checks the exit status, and the TUI has a sandbox of its own.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { before, describe, test } from 'node:test'
import { assertFailedOnce, e2eFile, eventsOf, failingRun, failingTurn, textOf } from '../support/e2e.ts'
import { sharedServer } from '../support/served.ts'

const MODEL = 'cursor-acp/auto'
const e2e = e2eFile()
const shared = sharedServer(e2e)
before(() => shared.start())

describe('a failing cursor-agent runs once and says why', () => {
  // What cursor-agent printed, and the code it must map to.
  const table: [stderr: string, code: string][] = [
    ['TypeError: fetch failed', 'E_NETWORK'],
    ['Error: read ECONNRESET', 'E_NETWORK'],
    ['Error: socket hang up', 'E_NETWORK'],
    ['Error: rate limit exceeded', 'E_QUOTA'],
    ['Request failed: 429 Too Many Requests', 'E_QUOTA'],
    ['Request failed with HTTP 500', 'E_NETWORK'],
    ['502 Bad Gateway', 'E_NETWORK'],
    ['503 Service Unavailable', 'E_NETWORK'],
    ['Error: Overloaded', 'E_NETWORK'],
    ['ConnectError: [resource_exhausted] resource exhausted', 'E_NETWORK'],
    ['ConnectError: [unavailable] model channel not available', 'E_NETWORK'],
    ['Error: Your team admin has disabled Run Everything, so --force cannot be used.', 'E_AGENT_EXIT'],
    ['ConnectError: [unavailable] upstream unavailable', 'E_NETWORK'],
    ['Error: timeout', 'E_NETWORK'],
    [
      "Error: Authentication required. Please run 'agent login' first, or set CURSOR_API_KEY environment variable.",
      'E_AUTH',
    ],
    ['Cannot use this model: auto. Available models: composer-2.5, sonnet-4.6', 'E_MODEL'],
    ['Error: the agent crashed after 1500 ms (internal error 500)', 'E_NETWORK'],
    ['Error: something odd happened', 'E_AGENT_EXIT'],
  ]
  for (const [stderr, code] of table) {
    test(`"${stderr}" -> ${code}`, async () => {
      const turn = await shared.turn('say hi', { fake: { FAKE_CURSOR_SCENARIO: 'fail', FAKE_CURSOR_STDERR: stderr } })
      const why = turn.why
      const runs = turn.invocations.length
      const message = String(eventsOf(turn, 'error')[0]?.error.data?.message ?? '')
      assert.equal(runs, 1, `cursor-agent ran ${runs} times: OpenCode retried "${message}"\n${why}`)
      assert.ok(message.endsWith(`[${code}]`), `"${message}" should end with [${code}]\n${why}`)
      assert.ok(!message.startsWith('{'), `the message is readable text, not JSON: ${message}`)
      const answer = turn.messages
        .filter((message) => message.info.role === 'assistant')
        .flatMap((message) => message.parts)
      const text = answer.filter((part) => part.type === 'text')
      assert.deepEqual(text, [], 'an error is never shown as assistant text')
    })
  }

  test("Cursor's own words are quoted when OpenCode would not read them as transient; `opencode run` exits non-zero", async () => {
    const failed = await failingRun(e2e, {
      FAKE_CURSOR_SCENARIO: 'fail',
      FAKE_CURSOR_STDERR: 'Error: something odd happened',
    })
    assertFailedOnce(failed, 'E_AGENT_EXIT')
    assert.equal(textOf(failed.result), '', 'an error is never shown as assistant text')
    assert.match(failed.message, /cursor-agent said: Error: something odd happened \[E_AGENT_EXIT\]$/, failed.why)
  })

  // The idle limit's tests are in idle-timeout.e2e.ts.
})

describe('an answer that was cut off says so', () => {
  const partial = 'The first half of the answer'
  const quota =
    "Error: You've hit your usage limit\nchatMessage: *You've hit your free requests limit. It will reset when your monthly cycle ends on 1/1/2027.*"

  test('a usage limit after part of an answer: the text stays, the error says why and when it resets', async () => {
    const failed = await failingTurn(shared, {
      FAKE_CURSOR_SCENARIO: 'fail',
      FAKE_CURSOR_PARTIAL: partial,
      FAKE_CURSOR_STDERR: quota,
    })
    assertFailedOnce(failed, 'E_QUOTA')
    assert.equal(textOf(failed.result), partial, failed.why)
    assert.match(failed.message, /usage limit/i)
    assert.ok(failed.message.includes('resets on 1/1/2027'), failed.message)
    // The quota message must not suggest the model in use.
    assert.ok(
      !failed.message.includes(MODEL) && !/\bauto\b/i.test(failed.message.replace(/cursor-agent said:.*$/s, '')),
      failed.message,
    )
  })

  test('a network failure after part of an answer: the text stays, the error says why', async () => {
    const failed = await failingTurn(shared, {
      FAKE_CURSOR_SCENARIO: 'fail',
      FAKE_CURSOR_PARTIAL: partial,
      FAKE_CURSOR_STDERR: 'TypeError: fetch failed',
    })
    assertFailedOnce(failed, 'E_NETWORK')
    assert.equal(textOf(failed.result), partial, failed.why)
  })
})

describe('a connection to Cursor that drops', () => {
  test('before anything was answered: cursor-agent runs once more and the answer is shown, no error', async () => {
    // The mark lives in the sandbox: the first run drops and makes it, the rerun answers.
    const result = await shared.turn('say hi', {
      fake: {
        FAKE_CURSOR_DROP: 'before-answer',
        FAKE_CURSOR_DROP_MARK: join(shared.sandbox().root, 'dropped'),
        FAKE_CURSOR_STREAM: 'text:Answered after the drop.',
      },
    })
    const why = result.why
    // No error: what makes `opencode run` exit 0.
    assert.equal(eventsOf(result, 'error').length, 0, why)
    assert.equal(textOf(result), 'Answered after the drop.', why)
    assert.deepEqual(
      result.invocations.map((run) => run.scenario),
      ['drop', 'replay'],
      why,
    )
  })

  test('after a tool ran: no rerun (its edits are on disk); the error says the connection dropped', async () => {
    const failed = await failingTurn(shared, { FAKE_CURSOR_DROP: 'after-tool' })
    assertFailedOnce(failed, 'E_NETWORK')
    assert.match(failed.message, /connection to Cursor's servers dropped/, failed.why)
    assert.doesNotMatch(textOf(failed.result), /WritableIterable/, "Cursor's words are never the answer")
  })
})

describe('the OpenCode TUI shows a cut-off answer as cut off', () => {
  test('the partial text stays on screen, followed by the usage-limit error with its reset date', async () => {
    const sandbox = await e2e.sandboxWith({
      FAKE_CURSOR_SCENARIO: 'fail',
      FAKE_CURSOR_PARTIAL: 'The first half of the answer',
      FAKE_CURSOR_STDERR: "Error: You've hit your usage limit. It will reset when your monthly cycle ends on 1/1/2027.",
    })
    const tui = await sandbox.tui()
    await tui.ask('say hi')
    // The answer so far, then the error under it (and in OpenCode's error toast); long lines wrap.
    // The toast can be drawn before the message under the answer: the screen is read once both are.
    const errorUnderText = (screen: string) => {
      const text = screen.indexOf('The first half of the answer')
      return { text, error: text < 0 ? -1 : screen.indexOf("Cursor's usage limit for this account is reached", text) }
    }
    const screen = await tui.screenWhen(
      (screen) => screen.includes('E_QUOTA') && errorUnderText(screen).error >= 0,
      'the error under the answer',
    )
    const { text, error } = errorUnderText(screen)
    assert.ok(text >= 0 && error > text, screen)
    assert.ok(screen.includes('the answer stops here. It resets on 1/1/2027.'), screen)
    assert.equal(sandbox.invocations().length, 1, screen)
    await tui.close()
  })
})
