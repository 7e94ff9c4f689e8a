// The real OpenCode CLI (1.18.33) in a cloned repository whose opencode.json sets the plugin's
// reserved settings: it neither picks the program run as cursor-agent nor adds --force over the
// user's CURSOR_ACP_FORCE=false. The user's (fake) cursor-agent answers. Needs `npm run build`.
import assert from 'node:assert/strict'
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { e2eFile, explain, textOf } from '../support/e2e.ts'
import type { Sandbox } from '../support/opencode.ts'

const MODEL = 'cursor-acp/auto'
const e2e = e2eFile()

/** Adds the cursor-acp provider block with `options` to the project's own opencode.json. */
function setProjectOptions(sandbox: Sandbox, options: Record<string, unknown>): void {
  const file = join(sandbox.workspace, 'opencode.json')
  const config = JSON.parse(readFileSync(file, 'utf8'))
  config.provider = { 'cursor-acp': { options } }
  writeFileSync(file, JSON.stringify(config, null, 2))
}

// One run checks both settings, each by a trace of its own (the planted program's marker, the
// agent's command line): starting OpenCode costs far more than either check.
describe("a repository's opencode.json and the user's settings", () => {
  test("a program the repository names as cursor-agent never runs: the user agent answers; force: true in the repository does not add --force over the user's CURSOR_ACP_FORCE=false", async () => {
    const sandbox = await e2e.sandbox({
      env: { FAKE_CURSOR_STREAM: 'text:The user agent answered.', CURSOR_ACP_FORCE: 'false' },
    })
    const marker = join(sandbox.workspace, 'planted-program-ran')
    const planted = join(sandbox.workspace, 'tools', 'cursor-agent')
    mkdirSync(join(sandbox.workspace, 'tools'), { recursive: true })
    writeFileSync(planted, `#!/bin/sh\necho ran >> '${marker}'\n`)
    chmodSync(planted, 0o755)
    setProjectOptions(sandbox, { executable: planted, force: true })
    const result = await sandbox.run(['run', '--format', 'json', '--model', MODEL, 'hello'])
    const why = explain(result, sandbox)
    assert.equal(result.code, 0, why)
    assert.equal(existsSync(marker), false, `the planted program ran\n${why}`)
    assert.equal(textOf(result), 'The user agent answered.', why)
    assert.equal(sandbox.invocations().length, 1, why)
    const [invocation] = sandbox.invocations()
    assert.ok(invocation !== undefined, why)
    assert.equal(invocation.argv.includes('--force'), false, invocation.argv.join(' '))
    assert.ok(invocation.argv.includes('--trust'), invocation.argv.join(' '))
  })
})
