#!/usr/bin/env node
// A host process: starts a run of the hang agent, waits until the agent wrote its pid file,
// then either calls process.exit() (mode "exit") or prints "ready" and idles until killed
// (mode "idle"). With a capture folder, the run is captured there.
// Usage: exit-host.mjs <agent> <pid file> <workspace> <mode> [capture folder]
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { runCursorAgent } = require('../../index.js')
const [agent, pidFile, workspace, mode, captureFolder] = process.argv.slice(2)

runCursorAgent(
  {
    prompt: 'hi',
    model: 'auto',
    workspace,
    executable: agent,
    env: { ...process.env, FAKE_AGENT_PID_FILE: pidFile },
    ...(captureFolder ? { capture: { folder: captureFolder } } : {}),
  },
  () => {},
)
const timer = setInterval(() => {
  if (!existsSync(pidFile) || readFileSync(pidFile, 'utf8').trim().split(/\s+/).length !== 2) return
  clearInterval(timer)
  if (mode === 'exit') process.exit(0)
  process.stdout.write('ready\n')
}, 10)
