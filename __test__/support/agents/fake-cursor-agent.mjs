#!/usr/bin/env node
// A stand-in for Cursor's `cursor-agent` CLI, for tests and the offline demo. It checks the
// command line the native runner builds, records every invocation, and replays an NDJSON stream.
//
// Kept apart from replay-agent.mjs on purpose: that one serves the runner's own tests and must
// accept any argv and replay bytes unchanged; this one checks the command line against Cursor's
// CLI (a plugin that builds a wrong one fails here), answers `models`/`status`, gives each run a
// chat id that follows `--resume`, and can change behaviour between turns.
//
// Environment:
//   FAKE_CURSOR_LOG_DIR        where each invocation writes `invocation-<time>-<pid>.json`
//                              ({argv, stdin, pid, pgid, cwd, envNames, grandchildPid?, wrapperPid?})
//   FAKE_CURSOR_STREAM         what to replay: a path, a capture name (`maestro/04_partial_output.jsonl`,
//                              looked up in `__test__/fixtures/captures/`, or in
//                              FAKE_CURSOR_CAPTURES_DIR), or `text:<answer>` for a generated stream
//                              (default `text:Hello from the fake cursor-agent.`)
//   FAKE_CURSOR_LINE_DELAY_MS  pause before each stdout line (default 0)
//   FAKE_CURSOR_SCENARIO       `auth` | `quota` | `model` | `long` | `background` | `fail`
//                              (default: replay). `long` never finishes and keeps a `sleep 600`
//                              child; `background` leaves a `sleep 300` child running and answers
//                              as a replay does; `fail` streams FAKE_CURSOR_PARTIAL when it is set
//                              (without a result), prints FAKE_CURSOR_STDERR and exits with
//                              FAKE_CURSOR_EXIT_CODE (default 1)
//   FAKE_CURSOR_RESUME         `echo` (default): a `--resume <id>` run answers with that id;
//                              `replace`: it answers with a new id (Cursor silently started a new chat)
//   FAKE_CURSOR_SESSION_ID     the chat id of a fresh run (default: a new UUID per run)
//   FAKE_CURSOR_MODELS         `id - Name` pairs for `models`, separated by `;`
//   FAKE_CURSOR_CONTROL        a JSON file read at every start; its keys (the names above) override
//                              the environment, so a test can change behaviour between turns
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const env = { ...process.env }
if (env.FAKE_CURSOR_CONTROL && existsSync(env.FAKE_CURSOR_CONTROL)) {
  Object.assign(env, JSON.parse(readFileSync(env.FAKE_CURSOR_CONTROL, 'utf8')))
}
const here = dirname(fileURLToPath(import.meta.url))
const argv = process.argv.slice(2)

/** Exact texts cursor-agent prints for these failures. */
const STDERR = {
  auth: "Error: Authentication required. Please run 'agent login' first, or set CURSOR_API_KEY environment variable.\n",
  quota:
    "Error: You've hit your usage limit\nGet Cursor Pro for more Agent usage, unlimited Tab, and more.\n" +
    'fallbackModel: \nspendLimitHit: false\n' +
    "chatMessage: *You've hit your free requests limit. It will reset when your monthly cycle ends on 1/1/2027.*\n" +
    'spendLimits: [50,100,200]\n',
}
const DEFAULT_MODELS = 'auto - Auto;fake-model - Fake Model;composer-2.5 - Composer 2.5'
const CHAT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]*$/

function fail(message, code = 2) {
  process.stderr.write(`fake-cursor-agent: ${message}\n`)
  process.exit(code)
}

function readProcStatGroup() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8')
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2])
  } catch {
    return null
  }
}

function record(entry) {
  if (!env.FAKE_CURSOR_LOG_DIR) return
  mkdirSync(env.FAKE_CURSOR_LOG_DIR, { recursive: true })
  const name = `invocation-${Date.now()}-${process.pid}.json`
  const file = join(env.FAKE_CURSOR_LOG_DIR, name)
  const partial = join(env.FAKE_CURSOR_LOG_DIR, `.${name}.partial`)
  const wrapperPid = env.FAKE_CURSOR_WRAPPER_PID ? Number(env.FAKE_CURSOR_WRAPPER_PID) : undefined
  // Written whole, then renamed: a reader never sees half a file.
  // The names of the variables it was given (not their values, which may be secrets).
  const envNames = Object.keys(process.env).sort()
  writeFileSync(partial, JSON.stringify({ argv, pid: process.pid, pgid: readProcStatGroup(), cwd: process.cwd(), wrapperPid, envNames, ...entry }, null, 2))
  renameSync(partial, file)
}

/** The command line runCursorAgent builds: fixed flags, each value flag once, `--force` xor `--trust`. */
function parseRunArguments(args) {
  const flags = { print: false, outputFormat: null, partial: false, workspace: null, model: null, resume: null, force: false, trust: false }
  const valueOf = (index, name) => {
    const value = args[index + 1]
    if (value === undefined) fail(`${name} needs a value`)
    return value
  }
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index]
    switch (arg) {
      case '--print':
      case '-p':
        flags.print = true
        break
      case '--stream-partial-output':
        flags.partial = true
        break
      case '--force':
      case '-f':
        flags.force = true
        break
      case '--trust':
        flags.trust = true
        break
      case '--output-format':
      case '--workspace':
      case '--model':
      case '--resume': {
        const key = { '--output-format': 'outputFormat', '--workspace': 'workspace', '--model': 'model', '--resume': 'resume' }[arg]
        if (flags[key] !== null) fail(`${arg} given twice`)
        flags[key] = valueOf(index, arg)
        index += 1
        break
      }
      default:
        fail(`unexpected argument ${JSON.stringify(arg)}`)
    }
  }
  if (!flags.print) fail('--print is required')
  if (flags.outputFormat !== 'stream-json') fail('--output-format stream-json is required')
  if (!flags.partial) fail('--stream-partial-output is required')
  if (flags.workspace === null || !isAbsolute(flags.workspace)) fail('--workspace <absolute path> is required')
  if (resolve(process.cwd()) !== resolve(flags.workspace)) fail(`cwd ${process.cwd()} is not the workspace ${flags.workspace}`)
  if (flags.model === null || flags.model === '' || flags.model.startsWith('cursor-acp/')) fail('--model <cursor model id> is required')
  if (flags.force === flags.trust) fail('exactly one of --force and --trust is required')
  if (flags.resume !== null && !CHAT_ID.test(flags.resume)) fail(`--resume ${JSON.stringify(flags.resume)} is not a chat id`)
  return flags
}

function findCapture(name) {
  const roots = []
  if (env.FAKE_CURSOR_CAPTURES_DIR) roots.push(env.FAKE_CURSOR_CAPTURES_DIR)
  roots.push(join(here, '..', '..', 'fixtures', 'captures'))
  const found = roots.map((root) => join(root, name)).find((path) => existsSync(path))
  if (found === undefined) fail(`capture ${name} not found in ${roots.join(', ')}`)
  return found
}

function generatedStream(answer, sessionId, prompt) {
  const base = { session_id: sessionId }
  const ts = Date.now()
  const words = answer.match(/\S+\s*/g) ?? [answer]
  return [
    { type: 'system', subtype: 'init', apiKeySource: 'login', cwd: process.cwd(), ...base, model: 'Fake', permissionMode: 'default' },
    { type: 'user', message: { role: 'user', content: [{ type: 'text', text: prompt }] }, ...base },
    { type: 'thinking', subtype: 'delta', text: 'Thinking about the answer.', ...base, timestamp_ms: ts },
    { type: 'thinking', subtype: 'completed', ...base, timestamp_ms: ts },
    ...words.map((word) => ({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: word }] }, ...base, timestamp_ms: ts })),
    { type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: answer }] }, ...base },
    { type: 'result', subtype: 'success', duration_ms: 5, is_error: false, result: answer, ...base, usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 } },
  ].map((event) => JSON.stringify(event))
}

function streamLines(flags, sessionId, prompt) {
  const source = env.FAKE_CURSOR_STREAM ?? 'text:Hello from the fake cursor-agent.'
  if (source.startsWith('text:')) return generatedStream(source.slice('text:'.length), sessionId, prompt)
  const path = isAbsolute(source) ? source : findCapture(source)
  // Replayed captures carry their own chat id; the run's id replaces it so resume can be tested.
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const event = JSON.parse(line)
      if (typeof event.session_id === 'string') event.session_id = sessionId
      return JSON.stringify(event)
    })
}

const sleep = (ms) => new Promise((done) => setTimeout(done, ms))

async function readStdin() {
  const chunks = []
  for await (const chunk of process.stdin) chunks.push(chunk)
  return Buffer.concat(chunks).toString('utf8')
}

async function run() {
  const subcommand = argv[0]
  if (subcommand === '--version') {
    process.stdout.write('2026.10.01-fake\n')
    return
  }
  if (subcommand === 'status' || subcommand === 'whoami') {
    record({ subcommand })
    process.stdout.write(env.FAKE_CURSOR_SCENARIO === 'auth' ? 'Not logged in\n' : '✓ Logged in as fake@example.com\n')
    return
  }
  if (subcommand === 'models' || subcommand === '--list-models') {
    record({ subcommand: 'models' })
    const pairs = (env.FAKE_CURSOR_MODELS ?? DEFAULT_MODELS).split(';').filter((pair) => pair.trim() !== '')
    process.stdout.write(`Available models\n\n${pairs.map((pair) => pair.trim()).join('\n')}\n\nTip: use --model <id> to switch.\n`)
    return
  }

  const flags = parseRunArguments(argv)
  const stdin = await readStdin()
  const scenario = env.FAKE_CURSOR_SCENARIO ?? 'replay'
  let sessionId = env.FAKE_CURSOR_SESSION_ID ?? randomUUID()
  if (flags.resume !== null) sessionId = env.FAKE_CURSOR_RESUME === 'replace' ? randomUUID() : flags.resume

  if (scenario === 'auth' || scenario === 'quota') {
    record({ stdin, scenario })
    process.stderr.write(STDERR[scenario])
    process.exit(1)
  }
  if (scenario === 'model') {
    record({ stdin, scenario })
    const available = (env.FAKE_CURSOR_MODELS ?? DEFAULT_MODELS).split(';').map((pair) => pair.split(' - ')[0].trim()).join(', ')
    process.stderr.write(`Cannot use this model: ${flags.model}. Available models: ${available}\n`)
    process.exit(1)
  }
  if (scenario === 'fail') {
    record({ stdin, scenario })
    if (env.FAKE_CURSOR_PARTIAL) {
      const lines = generatedStream(env.FAKE_CURSOR_PARTIAL, sessionId, stdin).filter((line) => !line.includes('"type":"result"'))
      for (const line of lines) process.stdout.write(`${line}\n`)
    }
    process.stderr.write(`${env.FAKE_CURSOR_STDERR ?? 'Error: something went wrong'}\n`)
    process.exit(Number(env.FAKE_CURSOR_EXIT_CODE ?? 1))
  }
  if (scenario === 'long') {
    // A grandchild in the same process group: cancellation must stop the whole group.
    const grandchild = spawn('sleep', ['600'], { stdio: 'ignore' })
    record({ stdin, scenario, grandchildPid: grandchild.pid })
    const base = { session_id: sessionId }
    process.stdout.write(`${JSON.stringify({ type: 'system', subtype: 'init', cwd: process.cwd(), ...base, model: 'Fake' })}\n`)
    process.stdout.write(`${JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'Working on it' }] }, ...base, timestamp_ms: Date.now() })}\n`)
    await sleep(600_000)
    return
  }

  if (scenario === 'background') {
    // Like `sleep 300 &` in a shell: a child in the agent's process group, left running.
    const grandchild = spawn('sleep', ['300'], { stdio: 'ignore' })
    grandchild.unref()
    record({ stdin, scenario, sessionId, grandchildPid: grandchild.pid })
  } else {
    record({ stdin, scenario, sessionId })
  }
  const delay = Number(env.FAKE_CURSOR_LINE_DELAY_MS ?? 0)
  for (const line of streamLines(flags, sessionId, stdin)) {
    if (delay > 0) await sleep(delay)
    process.stdout.write(`${line}\n`)
  }
}

run().catch((error) => fail(error?.stack ?? String(error), 1))
