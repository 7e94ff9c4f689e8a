#!/usr/bin/env node
// Fake cursor-agent for the native runner's own tests (agent.spec.ts): records what it was given,
// then replays an NDJSON file on stdout byte for byte.
//
// Kept apart from fake-cursor-agent.mjs on purpose. That one plays Cursor's CLI for the plugin
// and OpenCode tests and refuses a command line Cursor would not take; this one interprets
// nothing: runCursorAgent passes `extraArgs` through unseen, so the test must see any argv as
// given, and the capture's own bytes (its own chat id included, which the resume checks rely
// on) must reach the runner unchanged. It also drives process behaviour the CLI stand-in has no
// use for: pauses inside the stream, hanging after N lines, any exit code and stderr.
//
// Environment:
//   FAKE_AGENT_RECORD      write {argv, cwd, stdinBytes, stdinSha256, marker, inheritedPath}
//                          here as JSON
//   FAKE_AGENT_MARKER      recorded as `marker` (shows the given env reached the child)
//   FAKE_AGENT_REPLAY      NDJSON file to print (default: nothing); a line {"__sleep_ms": N}
//                          is not printed but pauses N ms
//   FAKE_AGENT_DELAY_MS    pause before each line (default 0)
//   FAKE_AGENT_HANG_AFTER  after this many lines, print nothing more and never exit
//   FAKE_AGENT_STDERR      text written to stderr before exiting
//   FAKE_AGENT_EXIT        exit code (default 0)
//   FAKE_AGENT_PID_FILE    write this process's pid here
//   FAKE_AGENT_GATE        after the first line a reader shows (an assistant, thinking or tool_call
//                          record), wait until this file exists; not there within 30 s: exit 3
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'

const env = process.env
if (env.FAKE_AGENT_PID_FILE) writeFileSync(env.FAKE_AGENT_PID_FILE, String(process.pid))

const chunks = []
for await (const chunk of process.stdin) chunks.push(chunk)
const stdin = Buffer.concat(chunks)
if (env.FAKE_AGENT_RECORD) {
  writeFileSync(
    env.FAKE_AGENT_RECORD,
    JSON.stringify({
      argv: process.argv.slice(2),
      cwd: process.cwd(),
      stdinBytes: stdin.length,
      stdinSha256: createHash('sha256').update(stdin).digest('hex'),
      marker: env.FAKE_AGENT_MARKER ?? null,
      inheritedPath: env.PATH ?? null,
    }),
  )
}

const lines = env.FAKE_AGENT_REPLAY
  ? readFileSync(env.FAKE_AGENT_REPLAY, 'utf8')
      .split('\n')
      .filter((l) => l.length > 0)
  : []
const delay = Number(env.FAKE_AGENT_DELAY_MS ?? 0)
const hangAfter = env.FAKE_AGENT_HANG_AFTER === undefined ? Infinity : Number(env.FAKE_AGENT_HANG_AFTER)
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
/** Waits until the file at `path` exists (the reader's signal that it saw what came before). */
async function gate(path) {
  const limit = Date.now() + 30_000
  while (!existsSync(path)) {
    if (Date.now() > limit) {
      process.stderr.write(`the gate ${path} did not open within 30 s\n`)
      process.exit(3)
    }
    await sleep(10)
  }
}
/** Whether a reader shows something of this line: the gate waits after the first such line. */
const shown = (line) => /^\{"type":"(assistant|thinking|tool_call)"/.test(line)
let gated = !env.FAKE_AGENT_GATE
const write = (text) => new Promise((r) => (process.stdout.write(text) ? r() : process.stdout.once('drain', r)))

for (let i = 0; i < lines.length; i++) {
  if (i >= hangAfter) {
    setInterval(() => {}, 1 << 30)
    await new Promise(() => {})
  }
  if (delay > 0) await sleep(delay)
  const line = lines[i]
  if (line.startsWith('{"__sleep_ms"')) {
    await sleep(JSON.parse(line).__sleep_ms)
    continue
  }
  await write(`${line}\n`)
  if (!gated && shown(line)) {
    gated = true
    await gate(env.FAKE_AGENT_GATE)
  }
}
if (hangAfter !== Infinity && lines.length <= hangAfter) {
  setInterval(() => {}, 1 << 30)
  await new Promise(() => {})
}
if (env.FAKE_AGENT_STDERR) process.stderr.write(env.FAKE_AGENT_STDERR)
process.exitCode = Number(env.FAKE_AGENT_EXIT ?? 0)
