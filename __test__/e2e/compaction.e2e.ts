// OpenCode's automatic compaction through the real OpenCode CLI (1.18.33), in both tool modes.
// Cursor's usage adds up every model request of a turn; OpenCode reads a step's usage as the
// context's size, so the plugin reports an estimate of the conversation instead: large per-turn
// totals start no compaction, a conversation that really fills the window compacts once, and a
// host that would loop is stopped after one compaction and one continuation. Needs `npm run build`.
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { e2eFile, eventsOf, explain } from '../support/e2e.ts'
import type { Sandbox } from '../support/opencode.ts'

const MODEL = 'cursor-acp/auto'
const e2e = e2eFile()

/** What Cursor reported for one agentic turn of 15 tool steps (its totals over every request). */
const CURSOR_TURN_TOTALS = {
  inputTokens: 623_821,
  outputTokens: 9_120,
  cacheReadTokens: 1_200_640,
  cacheWriteTokens: 0,
}
/** A window small enough to fill in a test: OpenCode compacts at 60,000 − 4,000 tokens. */
const SMALL_WINDOW = { context: 60_000, output: 4_000 }
/** About 40,000 tokens by the estimate: with Cursor's base, over the small window's threshold. */
const LONG_ANSWER = `${'x'.repeat(999)} `.repeat(160)
const COMPACTION_WORDS = 'anchored summary'
const CONTINUATION_WORDS = 'Continue if you have next steps'

async function sandboxFor(
  toolMode: 'cursor' | 'opencode',
  control: Record<string, unknown>,
  window?: typeof SMALL_WINDOW,
): Promise<Sandbox> {
  const sandbox = await e2e.sandbox({
    env: { CURSOR_ACP_TOOL_MODE: toolMode, CURSOR_ACP_CHILD_ENV: 'FAKE_CURSOR_*' },
    ...(window === undefined
      ? {}
      : { config: { provider: { 'cursor-acp': { models: { auto: { limit: window } } } } } }),
  })
  const file = join(sandbox.root, 'fake-control.json')
  writeFileSync(file, JSON.stringify(control))
  sandbox.env.FAKE_CURSOR_CONTROL = file
  return sandbox
}

/** What each cursor-agent run was asked: a compaction, a continuation, or a turn of the user's. */
function runsOf(sandbox: Sandbox): string[] {
  return sandbox.invocations().map((invocation) => {
    const prompt = invocation.stdin ?? ''
    if (prompt.includes(COMPACTION_WORDS)) return 'compaction'
    if (prompt.includes(CONTINUATION_WORDS)) return 'continuation'
    return 'turn'
  })
}

const ask = (sandbox: Sandbox, words: string, more: string[] = []) =>
  sandbox.run(['run', ...more, '--format', 'json', '--model', MODEL, words])

describe('compaction through the real OpenCode CLI', { concurrency: 3 }, () => {
  for (const toolMode of ['cursor', 'opencode'] as const) {
    test(`tool mode ${toolMode}: two turns with Cursor's large per-turn totals start no compaction and no extra run`, async () => {
      const sandbox = await sandboxFor(toolMode, {
        FAKE_CURSOR_STREAM: 'text:All done.',
        FAKE_CURSOR_USAGE: CURSOR_TURN_TOTALS,
      })
      const first = await ask(sandbox, 'fix the build')
      assert.equal(first.code, 0, explain(first, sandbox))
      const second = await ask(sandbox, 'and now the tests', ['--continue'])
      const why = explain(second, sandbox)
      assert.equal(second.code, 0, why)
      assert.deepEqual(runsOf(sandbox), ['turn', 'turn'], why)
      // OpenCode's gauge reads the estimate: Cursor's base and a short conversation.
      for (const finish of [...eventsOf(first, 'step_finish'), ...eventsOf(second, 'step_finish')]) {
        const tokens = finish.part.tokens
        assert.ok(tokens.input + tokens.cache.read < 30_000, `${JSON.stringify(tokens)}\n${why}`)
      }
    })

    test(`tool mode ${toolMode}: a conversation that fills the window compacts once and goes on`, async () => {
      const sandbox = await sandboxFor(
        toolMode,
        {
          FAKE_CURSOR_ANSWERS: {
            [COMPACTION_WORDS]: '## Objective\nFix the build.',
            [CONTINUATION_WORDS]: 'Nothing left to do.',
            'long report': LONG_ANSWER,
          },
          FAKE_CURSOR_USAGE: CURSOR_TURN_TOTALS,
        },
        SMALL_WINDOW,
      )
      const result = await ask(sandbox, 'write the long report')
      const why = explain(result, sandbox)
      assert.equal(result.code, 0, why)
      assert.deepEqual(runsOf(sandbox), ['turn', 'compaction', 'continuation'], why)
      const compaction = sandbox.invocations()[1]
      assert.ok(!compaction?.argv.includes('--resume'), 'a compaction is a fresh chat')
      assert.ok(!compaction?.cwd.startsWith(sandbox.workspace), `it runs in the private folder: ${compaction?.cwd}`)
    })

    test(`tool mode ${toolMode}: when every run fills the window, one compaction and one continuation, then a refusal`, async () => {
      const sandbox = await sandboxFor(
        toolMode,
        {
          FAKE_CURSOR_ANSWERS: {
            [COMPACTION_WORDS]: LONG_ANSWER,
            [CONTINUATION_WORDS]: LONG_ANSWER,
            'long report': LONG_ANSWER,
          },
          FAKE_CURSOR_USAGE: CURSOR_TURN_TOTALS,
        },
        SMALL_WINDOW,
      )
      const result = await ask(sandbox, 'write the long report')
      const why = explain(result, sandbox)
      assert.deepEqual(runsOf(sandbox), ['turn', 'compaction', 'continuation'], why)
      const errors = eventsOf(result, 'error').map((event) => JSON.stringify(event))
      assert.ok(
        errors.some((error) => error.includes('E_AUTOMATIC_LIMIT')),
        `the refusal names the bound\n${errors.join('\n')}\n${why}`,
      )
    })
  }
})
