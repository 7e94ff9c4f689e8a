// How long the real OpenCode CLI takes to report a cursor-agent failure, next to a successful
// answer, and how many times it ran the agent: a failure OpenCode took as transient would cost
// about six runs and a minute of retries. Needs the build and OpenCode 1.18.33 (installed into
// .cache/ on first use): `node benchmark/failure.bench.mjs` (or `npm run bench -- failure`).
import { register } from 'tsx/esm/api'

register()
const { createSandbox, installOpenCode } = await import('../__test__/support/opencode.ts')

const RUNS = Number(process.env.BENCH_FAILURE_RUNS ?? 3)
const cases = [
  ['success', {}],
  ['E_NETWORK: "fetch failed"', { FAKE_CURSOR_SCENARIO: 'fail', FAKE_CURSOR_STDERR: 'TypeError: fetch failed' }],
  [
    'E_QUOTA: "rate limit exceeded"',
    { FAKE_CURSOR_SCENARIO: 'fail', FAKE_CURSOR_STDERR: 'Error: rate limit exceeded' },
  ],
  ['E_NETWORK: "HTTP 500"', { FAKE_CURSOR_SCENARIO: 'fail', FAKE_CURSOR_STDERR: 'Request failed with HTTP 500' }],
  ['E_TIMEOUT: idle 1500 ms', { FAKE_CURSOR_SCENARIO: 'long', CURSOR_ACP_IDLE_TIMEOUT_MS: '1500' }],
  [
    'E_QUOTA after part of an answer',
    {
      FAKE_CURSOR_SCENARIO: 'fail',
      FAKE_CURSOR_PARTIAL: 'Half.',
      FAKE_CURSOR_STDERR: "Error: You've hit your usage limit",
    },
  ],
]

await installOpenCode()
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
console.log(`| case | median wall time (n=${RUNS}) | agent runs | exit code |`)
console.log('| --- | --- | --- | --- |')
for (const [name, env] of cases) {
  const times = []
  const runs = new Set()
  const codes = new Set()
  for (let index = 0; index < RUNS; index += 1) {
    const sandbox = await createSandbox({ env })
    try {
      const start = performance.now()
      const result = await sandbox.run(['run', '--format', 'json', '--model', 'cursor-acp/auto', 'say', 'hi'], {
        timeoutMs: 180_000,
      })
      times.push(performance.now() - start)
      runs.add(sandbox.invocations().length)
      codes.add(result.code)
    } finally {
      await sandbox.dispose()
    }
  }
  console.log(
    `| ${name} | ${(median(times) / 1000).toFixed(2)} s | ${[...runs].join(', ')} | ${[...codes].join(', ')} |`,
  )
}
