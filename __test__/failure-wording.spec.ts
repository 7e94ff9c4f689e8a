// OpenCode retries any error whose message reads like a transient fault, about six times over a
// minute, rerunning cursor-agent each time. The package's own explanations must never read so;
// Cursor's words, which often do ("fetch failed", "HTTP 500"), travel apart as `agentOutput`.
// OpenCode's phrases live in one place, `readsAsTransient` (plugin/opencode/errors.ts), which the
// plugin and this test both use.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'

import { StreamTransformer, type StreamPart } from '../index.js'
import { CursorAcpError, readsAsTransient } from '../plugin/opencode/errors.ts'

/** What Cursor printed, for every kind of failure the package explains (one or more each). */
const CURSOR_FAILURES: Array<[string, string]> = [
  ['E_AUTH', "Error: Authentication required. Please run 'agent login' first, or set CURSOR_API_KEY."],
  ['E_AUTH', '401 Unauthorized: invalid API key'],
  ['E_QUOTA', "Error: You've hit your usage limit\nspendLimitHit: false"],
  ['E_QUOTA', "You've hit your free requests limit. It will reset when your monthly cycle ends on 1/1/2027."],
  ['E_QUOTA', 'Request failed: 429 Too Many Requests'],
  ['E_NETWORK', 'ConnectError: [resource_exhausted] resource exhausted'],
  ['E_NETWORK', 'ConnectError: [unavailable] model channel not available'],
  ['E_AGENT_EXIT', 'Error: Your team admin has disabled Run Everything, so --force cannot be used.'],
  ['E_NETWORK', 'Connection lost, reconnecting to https://api2.cursor.sh\nRetriableError: WritableIterable is closed'],
  ['E_NETWORK', 'Error: T: WritableIterable is closed'],
  ['E_MODEL', 'Cannot use this model: gpt-9. Available models: auto, composer-2.5, gpt-5.5-high'],
  ['E_MODEL', 'Error: model not found: gpt-9'],
  ['E_NETWORK', 'TypeError: fetch failed'],
  ['E_NETWORK', 'Error: read ECONNRESET'],
  ['E_NETWORK', 'Error: socket hang up'],
  ['E_NETWORK', 'Request failed with HTTP 500'],
  ['E_NETWORK', '503 Service Unavailable'],
  ['E_NETWORK', 'Error: Overloaded'],
  ['E_NETWORK', 'RetriableError: [internal] self-signed certificate in certificate chain'],
  ['E_AGENT_EXIT', "RetriableError: [invalid_argument] unknown option '--system-prompt'"],
  ['E_AGENT_EXIT', 'Workspace Trust Required\nPass --trust, --yolo, or -f if you trust this directory'],
  ['E_AGENT_EXIT', 'Error: something odd happened'],
  ['E_AGENT_EXIT', ''],
]

/** The error part a stream ends with when cursor-agent exited 1 after printing `stderr`. */
function failureOf(stderr: string): { code: string; message: string; agentOutput?: string } {
  const transformer = new StreamTransformer({ format: 'ai-sdk' })
  const parts = transformer.finish({ exitCode: 1, stderr }) as StreamPart[]
  const error = parts.find((part) => part.type === 'error')
  assert.ok(error !== undefined && error.type === 'error', stderr)
  return error.error
}

describe('the package explains failures in words OpenCode takes as final', () => {
  for (const [code, stderr] of CURSOR_FAILURES) {
    it(`${code}: ${JSON.stringify(stderr.split('\n')[0])}`, () => {
      const failure = failureOf(stderr)
      assert.equal(failure.code, code)
      assert.equal(readsAsTransient(failure.message), false, failure.message)
      // And the message OpenCode shows, Cursor's words included only where they read as final.
      const shown = new CursorAcpError(failure.code as never, failure.message, failure.agentOutput)
      assert.equal(readsAsTransient(shown.message), false, shown.message)
      assert.equal(shown.isRetryable, false)
    })
  }

  it('each front end words the way to log in for its users: OpenCode names `opencode auth login`', async () => {
    const failure = failureOf("Error: Authentication required. Please run 'agent login' first.")
    assert.match(failure.message, /cursor-agent login/)
    assert.doesNotMatch(failure.message, /OpenCode/, 'the native API names no host')
    const shown = new CursorAcpError(failure.code as never, failure.message, failure.agentOutput)
    assert.match(shown.message, /opencode auth login/)
    assert.match(shown.message, /\[E_AUTH\]$/)
    assert.equal(readsAsTransient(shown.message), false)
    const { refusalOf } = await import('../plugin/proxy/refusal.ts')
    const refused = refusalOf(failure as never)
    assert.equal(refused.status, 401)
    assert.match(refused.message, /start the server with CURSOR_API_KEY/)
    assert.doesNotMatch(refused.message, /OpenCode runs in/)
  })

  it("a usage limit is told in the package's words: Cursor's diagnostic lines stay in agentOutput", () => {
    const stderr =
      "Error: You've hit your usage limit\nfallbackModel: \nspendLimitHit: false\n" +
      'chatMessage: *It will reset when your monthly cycle ends on 1/1/2027.*\nspendLimits: [50,100,200]'
    const failure = failureOf(stderr)
    const shown = new CursorAcpError(failure.code as never, failure.message, failure.agentOutput)
    assert.match(
      shown.message,
      /usage limit for this account is reached; no answer was started\. It resets on 1\/1\/2027\./,
    )
    for (const raw of ['fallbackModel', 'spendLimitHit', 'spendLimits']) {
      assert.ok(!shown.message.includes(raw), shown.message)
      assert.ok(shown.agentOutput?.includes(raw), raw)
    }
  })

  it('the phrases do catch what Cursor says', () => {
    for (const said of ['TypeError: fetch failed', 'Request failed with HTTP 500', 'Error: Overloaded', 'rate limit']) {
      assert.equal(readsAsTransient(said), true, said)
    }
  })
})
