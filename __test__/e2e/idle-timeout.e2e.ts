// The idle limit through the real OpenCode CLI (1.18.33): like every failure (failures.e2e.ts) it
// runs cursor-agent once and says why, in seconds. The limit counts from cursor-agent's start, and
// the fake agent must have printed before it runs out: the shortest limit here (1.5 s) leaves a busy
// machine time to start it. How shorter limits read ("0.5 s") is the Rust table's
// (src/core/failure/duration.rs).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { assertFailedOnce, e2eFile, failingRun, textOf } from '../support/e2e.ts'

const e2e = e2eFile()

describe('a failing cursor-agent runs once and says why', () => {
  for (const idleMs of [1500, 2500, 5000]) {
    test(`an idle timeout of ${idleMs} ms is one run, stated in seconds`, async () => {
      const failed = await failingRun(e2e, { FAKE_CURSOR_SCENARIO: 'long', CURSOR_ACP_IDLE_TIMEOUT_MS: String(idleMs) })
      assertFailedOnce(failed, 'E_TIMEOUT')
      assert.ok(failed.message.includes(`${idleMs / 1000} s`), failed.message)
      assert.ok(!/\d+ ?ms\b/.test(failed.message), `no milliseconds in "${failed.message}"`)
      // What Cursor had said before it went quiet stays.
      assert.equal(textOf(failed.result), 'Working on it', failed.why)
    })
  }
})
