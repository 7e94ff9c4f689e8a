#!/usr/bin/env node
// The real OpenCode CLI, with this package as its plugin, answers one prompt non-interactively.
// It uses the real cursor-agent when it is installed and logged in, else the bundled replay agent.
// Only OpenCode's own folders are isolated (in a temp folder); HOME stays, so Cursor's login is found.
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { delimiter, join } from 'node:path'
import { tsImport } from 'tsx/esm/api'

const PROMPT = ['In', 'one', 'short', 'sentence,', 'what', 'is', 'OpenCode?']
const require = createRequire(import.meta.url)
const harness = await tsImport('../__test__/support/opencode.ts', import.meta.url)

function findOnPath(name) {
  for (const directory of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(directory, name)
    if (directory !== '' && existsSync(candidate)) return candidate
  }
  return null
}

/** The installed cursor-agent, found the way the plugin finds it. */
function realCursorAgent() {
  if (process.env.CURSOR_AGENT_EXECUTABLE) return process.env.CURSOR_AGENT_EXECUTABLE
  try {
    return require('../index.js').resolveCursorAgent().path ?? null
  } catch {
    // Without a loadable addon: a PATH lookup.
  }
  return findOnPath('cursor-agent') ?? findOnPath('agent')
}

function loggedIn(executable) {
  try {
    const status = execFileSync(executable, ['status'], {
      encoding: 'utf8',
      timeout: 20_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    return /logged in/i.test(status) && !/not logged in/i.test(status)
  } catch {
    return false
  }
}

const real = realCursorAgent()
const useReal = real !== null && loggedIn(real)
console.log(
  useReal
    ? `Using the real cursor-agent (${real}), logged in.`
    : `Using the bundled replay agent (${real === null ? 'cursor-agent is not installed' : 'cursor-agent is not logged in'}).`,
)
console.log(`Installing OpenCode ${harness.OPENCODE_VERSION} into .cache/opencode (once)...`)
const binary = await harness.installOpenCode()
const sandbox = await harness.createSandbox({
  binary,
  isolateHome: false,
  agentExecutable: useReal ? real : harness.FAKE_AGENT,
  env: useReal
    ? {}
    : { FAKE_CURSOR_STREAM: 'text:OpenCode is an open-source AI coding agent that runs in your terminal.' },
})
try {
  console.log(`$ opencode run --thinking --model cursor-acp/auto ${PROMPT.join(' ')}\n`)
  const started = Date.now()
  const result = await sandbox.run(['run', '--thinking', '--model', 'cursor-acp/auto', ...PROMPT], {
    timeoutMs: 300_000,
  })
  // OpenCode writes its header (`> build · auto`) to stderr and the answer to stdout.
  if (result.stderr.trim() !== '') process.stderr.write(result.stderr)
  process.stdout.write(result.stdout)
  console.log(
    `\n(OpenCode exited with ${result.timedOut ? 'a timeout' : result.code} after ${((Date.now() - started) / 1000).toFixed(1)} s)`,
  )
  process.exitCode = result.code === 0 ? 0 : 1
} finally {
  await sandbox.dispose()
}
