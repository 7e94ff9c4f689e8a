// OpenCode's automatic compaction through the real OpenCode CLI (1.18.33), in both tool modes.
// Cursor's usage adds up every model request of a turn; OpenCode reads a step's usage as the
// context's size, so the plugin reports an estimate of the conversation instead: large per-turn
// totals start no compaction, a conversation that really fills the window compacts once, and a
// host that would loop is stopped after one compaction and one continuation. Needs `npm run build`.
import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import { e2eFile, eventsOf } from '../support/e2e.ts'
import type { Invocation } from '../support/opencode.ts'
import { sharedServer } from '../support/served.ts'

const e2e = e2eFile()

/** What Cursor reported for one agentic turn of 15 tool steps (its totals over every request). */
const CURSOR_TURN_TOTALS = {
  inputTokens: 623_821,
  outputTokens: 9_120,
  cacheReadTokens: 1_200_640,
  cacheWriteTokens: 0,
}
/**
 * A window small enough to fill in a test: OpenCode compacts at 60,000 − 4,000 tokens. Every
 * conversation here has it: a short one stays well under it, as under a larger window.
 */
const SMALL_WINDOW = { context: 60_000, output: 4_000 }
/** About 40,000 tokens by the estimate: with Cursor's base, over the small window's threshold. */
const LONG_ANSWER = `${'x'.repeat(999)} `.repeat(160)
const COMPACTION_WORDS = 'anchored summary'
const CONTINUATION_WORDS = 'Continue if you have next steps'

/** What each cursor-agent run was asked: a compaction, a continuation, or a turn of the user's. */
function runsOf(invocations: Invocation[]): string[] {
  return invocations.map((invocation) => {
    const prompt = invocation.stdin ?? ''
    if (prompt.includes(COMPACTION_WORDS)) return 'compaction'
    if (prompt.includes(CONTINUATION_WORDS)) return 'continuation'
    return 'turn'
  })
}

// One `opencode serve` per tool mode, a session per test (see support/served.ts): the tool mode is
// OpenCode's environment, the fake's answers are set per turn.
describe('compaction through the real OpenCode CLI', { concurrency: 2 }, () => {
  for (const toolMode of ['cursor', 'opencode'] as const) {
    describe(`tool mode ${toolMode}`, { concurrency: 1 }, () => {
      const shared = sharedServer(e2e, {
        env: { CURSOR_ACP_TOOL_MODE: toolMode, CURSOR_ACP_CHILD_ENV: 'FAKE_CURSOR_*' },
        config: { provider: { 'cursor-acp': { models: { auto: { limit: SMALL_WINDOW } } } } },
      })
      before(() => shared.start())

      test(`tool mode ${toolMode}: two turns with Cursor's large per-turn totals start no compaction and no extra run`, async () => {
        const fake = { FAKE_CURSOR_STREAM: 'text:All done.', FAKE_CURSOR_USAGE: CURSOR_TURN_TOTALS }
        const first = await shared.turn('fix the build', { fake })
        assert.deepEqual(eventsOf(first, 'error'), [], first.why)
        const second = await shared.turn('and now the tests', { fake, session: first.session })
        const why = second.why
        assert.deepEqual(eventsOf(second, 'error'), [], why)
        assert.deepEqual(runsOf([...first.invocations, ...second.invocations]), ['turn', 'turn'], why)
        // OpenCode's gauge reads the estimate: Cursor's base and a short conversation.
        for (const finish of [...eventsOf(first, 'step_finish'), ...eventsOf(second, 'step_finish')]) {
          const tokens = finish.part.tokens
          assert.ok(tokens.input + tokens.cache.read < 30_000, `${JSON.stringify(tokens)}\n${why}`)
        }
      })

      test(`tool mode ${toolMode}: a conversation that fills the window compacts once and goes on`, async () => {
        const result = await shared.turn('write the long report', {
          fake: {
            FAKE_CURSOR_ANSWERS: {
              [COMPACTION_WORDS]: '## Objective\nFix the build.',
              [CONTINUATION_WORDS]: 'Nothing left to do.',
              'long report': LONG_ANSWER,
            },
            FAKE_CURSOR_USAGE: CURSOR_TURN_TOTALS,
          },
        })
        const why = result.why
        assert.deepEqual(eventsOf(result, 'error'), [], why)
        assert.deepEqual(runsOf(result.invocations), ['turn', 'compaction', 'continuation'], why)
        const compaction = result.invocations[1]
        assert.ok(!compaction?.argv.includes('--resume'), 'a compaction is a fresh chat')
        assert.ok(
          !compaction?.cwd.startsWith(shared.sandbox().workspace),
          `it runs in the private folder: ${compaction?.cwd}`,
        )
      })

      test(`tool mode ${toolMode}: when every run fills the window, one compaction and one continuation, then a refusal`, async () => {
        const result = await shared.turn('write the long report', {
          fake: {
            FAKE_CURSOR_ANSWERS: {
              [COMPACTION_WORDS]: LONG_ANSWER,
              [CONTINUATION_WORDS]: LONG_ANSWER,
              'long report': LONG_ANSWER,
            },
            FAKE_CURSOR_USAGE: CURSOR_TURN_TOTALS,
          },
        })
        const why = result.why
        assert.deepEqual(runsOf(result.invocations), ['turn', 'compaction', 'continuation'], why)
        const errors = eventsOf(result, 'error').map((event) => JSON.stringify(event))
        assert.ok(
          errors.some((error) => error.includes('E_AUTOMATIC_LIMIT')),
          `the refusal names the bound\n${errors.join('\n')}\n${why}`,
        )
      })
    })
  }
})
