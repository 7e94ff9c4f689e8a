#!/usr/bin/env node
// A stand-in for Cursor's `cursor-agent` CLI, for tests and the offline demo. It checks the
// command line the native runner builds, records every invocation, and replays an NDJSON stream.
//
// Kept apart from replay-agent.mjs on purpose: that one serves the runner's own tests and must
// accept any argv and replay bytes unchanged; this one checks the command line against Cursor's
// CLI (a plugin that builds a wrong one fails here), answers `models`, `status`, `--version` and
// `mcp list-tools`, gives each run a chat id that follows `--resume`, and can change behaviour
// between turns.
//
// Like the real CLI, every run reads MCP servers from `<--workspace>/.cursor/mcp.json` and
// `$HOME/.cursor/mcp.json` (the workspace wins on a name clash); with any configured, a run without
// `--approve-mcps` fails at once (the real CLI would wait for an approval nobody gives).
//
// Environment:
//   FAKE_CURSOR_LOG_DIR        where each invocation writes `invocation-<time>-<pid>.json`
//                              ({argv, stdin, pid, pgid, cwd, envNames, apiKeySha256, mcpServers, approveMcps,
//                              allowedTools, grandchildPid?, wrapperPid?}); the `mcp` scenario
//                              rewrites it as it goes (mcpTools, mcpToolLists, mcpCalls, finished)
//   FAKE_CURSOR_STREAM         what to replay: a path, a capture name (`maestro/04_partial_output.jsonl`,
//                              looked up in `__test__/fixtures/captures/`, or in
//                              FAKE_CURSOR_CAPTURES_DIR), or `text:<answer>` for a generated stream
//                              (default `text:Hello from the fake cursor-agent.`)
//   FAKE_CURSOR_LINE_DELAY_MS  pause before each stdout line (default 0)
//   FAKE_CURSOR_SILENCE_MS     one gap with no output at all (stdout and stderr quiet) of this long,
//                              as Cursor's context compaction (25-39 s) or a long generation (757 s
//                              seen) leaves in a healthy turn (default 0: none); in a replay and in
//                              the `fail` scenario (there, before its partial stream's lines or its stderr)
//   FAKE_CURSOR_SILENCE_AFTER  how many stdout lines come before that gap (default 4: a generated
//                              stream's opening records, system/init, the prompt's echo and a thought;
//                              0: before anything; past the last line: after the last, before the exit)
//   FAKE_CURSOR_SCENARIO       `auth` | `quota` | `model` | `long` | `background` | `fail` | `mcp`
//                              (default: replay). `long` never finishes and keeps a `sleep 600`
//                              child; `background` leaves a `sleep 300` child running and answers
//                              as a replay does; `fail` streams FAKE_CURSOR_PARTIAL when it is set
//                              (without a result), prints FAKE_CURSOR_STDERR and exits with
//                              FAKE_CURSOR_EXIT_CODE (default 1); `mcp` connects to the configured
//                              MCP servers, lists their tools and runs FAKE_CURSOR_MCP_SCRIPT (a
//                              script of text and native steps only runs without any server)
//   FAKE_CURSOR_DROP           `before-answer` | `after-tool`: the connection to Cursor drops as
//                              reported of real runs: the records so far on stdout (system/init and
//                              the prompt's echo; with `after-tool` also a shell call that ran),
//                              then on stderr `Connection lost, reconnecting ...` and
//                              `RetriableError: WritableIterable is closed`, exit 1, no `result`.
//                              Once per FAKE_CURSOR_DROP_MARK (a file made by the drop; when it
//                              exists the run answers as it would without the drop); without a
//                              mark, every run drops
//   FAKE_CURSOR_MCP_SCRIPT     the `mcp` scenario's steps: a JSON array, or a path to a JSON file
//                              holding one (see runMcpScript for the step kinds); or an object of
//                              such arrays, chosen by the first key the prompt contains
//   FAKE_CURSOR_RESUME         `echo` (default): a `--resume <id>` run answers with that id;
//                              `replace`: it answers with a new id (Cursor silently started a new chat)
//   FAKE_CURSOR_SESSION_ID     the chat id of a fresh run (default: a new UUID per run)
//   FAKE_CURSOR_MODELS         `id - Name` pairs for `models`, separated by `;` (empty: none available)
//   FAKE_CURSOR_ANSWERS        {"<word>": "<answer>", ...} (JSON, or an object in FAKE_CURSOR_CONTROL): a
//                              prompt containing a word is answered with a generated stream of that
//                              answer (the first word found wins) instead of FAKE_CURSOR_STREAM
//   FAKE_CURSOR_USAGE          the `result` record's `usage` (JSON) of a generated stream; Cursor's own
//                              counts add up every model request of the turn, e.g.
//                              {"inputTokens":623821,"outputTokens":9120,"cacheReadTokens":1200640}
//   FAKE_CURSOR_LOGIN          `files`: logged in only when cursor-config.mjs findLogin finds a login
//                              (an API key or token in the environment, else a Linux
//                              `$XDG_CONFIG_HOME/cursor/auth.json`, default `~/.config/cursor/`);
//                              `status` says so and a run without one fails as Cursor's does
//                              (default: always logged in)
//
// Like the real CLI (cursor-config.mjs), a run reads `.cursor/cli.json` strictly: an MCP call
// that no `Mcp(<server>:<tool>)` rule allows, without `--force`, is `rejected` (the `mcp`
// scenario stops at the first); and it reads both hooks files, `//` cut to the line's end, and
// logs which it loaded (`hooks`: path, events, dropped).
//   FAKE_CURSOR_READ_BOUNDARY  `team` | `user`: a read boundary (`readBoundary: "workspace"`, @cursor/sdk
//                              1.0.32) makes a Read outside the workspace need an approval print mode
//                              cannot give, unless --force (or, for the user's own, a Read(...) allow)
//   FAKE_CURSOR_DESCRIBE_ATTACHMENTS  the answer says what the model read of the attachments the prompt
//                              names (each read goes through the Read rules and the preToolUse hooks and
//                              is logged in `attachmentReads` either way)
//   FAKE_CURSOR_PLAN           a run in `--mode plan` with a generated stream also reports this Markdown as
//                              Cursor's plan (`createPlanToolCall`), after the answer's text (`text:`
//                              for none, as a model that put everything into the plan)
//   FAKE_CURSOR_CONTROL        a JSON file read at every start; its keys (the names above) override
//                              the environment, so a test can change behaviour between turns
import { spawn } from 'node:child_process'
import { createHash, randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { basename, dirname, isAbsolute, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { findLogin, mcpPermission, preToolUse, readHooks, readPermission } from './cursor-config.mjs'
import { textIn } from './vision.mjs'

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
/** The values `--mode` accepts, in the order Cursor's refusal names them. */
const READ_ONLY_MODES = ['plan', 'ask']

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

/** Fields every run's log entry carries (the MCP servers it found), set once the flags are read. */
let runFields = {}
let logFile = null
let logEntry = null

function writeLog() {
  // Written whole, then renamed: a reader never sees half a file.
  const partial = join(dirname(logFile), `.${basename(logFile)}.partial`)
  writeFileSync(partial, JSON.stringify(logEntry, null, 2))
  renameSync(partial, logFile)
}

function record(entry) {
  if (!env.FAKE_CURSOR_LOG_DIR) return
  mkdirSync(env.FAKE_CURSOR_LOG_DIR, { recursive: true })
  logFile = join(env.FAKE_CURSOR_LOG_DIR, `invocation-${Date.now()}-${process.pid}.json`)
  const wrapperPid = env.FAKE_CURSOR_WRAPPER_PID ? Number(env.FAKE_CURSOR_WRAPPER_PID) : undefined
  // The names of the variables it was given (not their values, which may be secrets).
  const envNames = Object.keys(process.env).sort()
  // An API key is logged as its hash only: a test compares it, and no log holds the key.
  const apiKeySha256 = process.env.CURSOR_API_KEY
    ? createHash('sha256').update(process.env.CURSOR_API_KEY).digest('hex')
    : undefined
  logEntry = {
    argv,
    pid: process.pid,
    pgid: readProcStatGroup(),
    cwd: process.cwd(),
    wrapperPid,
    envNames,
    apiKeySha256,
    ...runFields,
    ...entry,
  }
  writeLog()
}

/** Adds fields to this run's entry and writes it again, so a test reads the latest after the exit. */
function recordMore(fields) {
  if (logEntry === null) return
  Object.assign(logEntry, fields)
  writeLog()
}

/**
 * The command line runCursorAgent builds: fixed flags, each value flag once, `--force` xor `--trust`;
 * `--mode` refused as Cursor's CLI refuses it, unless `plan` or `ask`.
 */
function parseRunArguments(args) {
  const flags = {
    print: false,
    outputFormat: null,
    partial: false,
    workspace: null,
    model: null,
    resume: null,
    allowedTools: null,
    force: false,
    trust: false,
    approveMcps: false,
    mode: null,
  }
  const valueAfter = (index, name) => {
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
      case '--approve-mcps':
        flags.approveMcps = true
        break
      case '--output-format':
      case '--workspace':
      case '--model':
      case '--resume':
      case '--allowed-tools':
      case '--mode': {
        const key = {
          '--output-format': 'outputFormat',
          '--workspace': 'workspace',
          '--model': 'model',
          '--resume': 'resume',
          '--allowed-tools': 'allowedTools',
          '--mode': 'mode',
        }[arg]
        if (flags[key] !== null) fail(`${arg} given twice`)
        flags[key] = valueAfter(index, arg)
        index += 1
        break
      }
      default:
        fail(`unexpected argument ${JSON.stringify(arg)}`)
    }
  }
  // Agent is the default and has no flag: Cursor's option parser allows only the read-only modes.
  if (flags.mode !== null && !READ_ONLY_MODES.includes(flags.mode)) {
    process.stderr.write(
      `error: option '--mode <mode>' argument '${flags.mode}' is invalid. Allowed choices are ${READ_ONLY_MODES.join(', ')}.\n`,
    )
    process.exit(1)
  }
  if (!flags.print) fail('--print is required')
  if (flags.outputFormat !== 'stream-json') fail('--output-format stream-json is required')
  if (!flags.partial) fail('--stream-partial-output is required')
  if (flags.workspace === null || !isAbsolute(flags.workspace)) fail('--workspace <absolute path> is required')
  if (resolve(process.cwd()) !== resolve(flags.workspace))
    fail(`cwd ${process.cwd()} is not the workspace ${flags.workspace}`)
  if (flags.model === null || flags.model === '' || flags.model.startsWith('cursor-acp/'))
    fail('--model <cursor model id> is required')
  if (flags.force === flags.trust) fail('exactly one of --force and --trust is required')
  if (flags.resume !== null && !CHAT_ID.test(flags.resume))
    fail(`--resume ${JSON.stringify(flags.resume)} is not a chat id`)
  if (flags.allowedTools !== null && flags.allowedTools.trim() === '') fail('--allowed-tools needs a tool list')
  return flags
}

/** `mcpServers` of the workspace's and the user's `.cursor/mcp.json`: the workspace's first, and it wins a clash. */
function readMcpServers(workspace) {
  const servers = {}
  for (const path of [join(workspace, '.cursor', 'mcp.json'), join(env.HOME ?? homedir(), '.cursor', 'mcp.json')]) {
    if (!existsSync(path)) continue
    let config
    try {
      config = JSON.parse(readFileSync(path, 'utf8'))
    } catch (error) {
      process.stderr.write(`Error: Failed to load MCP config ${path}: ${error.message}\n`)
      process.exit(1)
    }
    for (const [name, server] of Object.entries(config?.mcpServers ?? {}))
      if (!(name in servers)) servers[name] = server
  }
  return servers
}

/**
 * The always-apply rules a run sees, read as @cursor/sdk 1.0.32 reads them
 * (`LocalCursorRulesService.loadRulesFromDirAndAncestors`): `<dir>/.cursor/rules/**` `.mdc` files
 * whose front matter says `alwaysApply: true`, and `<dir>/AGENTS.md`, for the workspace and every
 * folder above it. Each as `{ path, body }`, the body without its front matter.
 */
function readAlwaysAppliedRules(workspace) {
  const rules = []
  const mdcFiles = (dir) =>
    existsSync(dir)
      ? readdirSync(dir, { withFileTypes: true, recursive: true })
          .filter((entry) => entry.isFile() && entry.name.endsWith('.mdc'))
          .map((entry) => join(entry.parentPath ?? entry.path, entry.name))
          .sort()
      : []
  for (let dir = resolve(workspace); ; dir = dirname(dir)) {
    for (const path of mdcFiles(join(dir, '.cursor', 'rules'))) {
      const match = /^---\n([\s\S]*?)\n---\n?([\s\S]*)$/.exec(readFileSync(path, 'utf8'))
      if (match !== null && /^alwaysApply:\s*true\s*$/m.test(match[1])) rules.push({ path, body: match[2] })
    }
    const agents = join(dir, 'AGENTS.md')
    if (existsSync(agents)) rules.push({ path: agents, body: readFileSync(agents, 'utf8') })
    if (dirname(dir) === dir) break
  }
  return rules
}

/**
 * The model, given a result Cursor moved to a file, Reads that file as a real model would try to:
 * with Cursor's read tool, which the permission rules (cli.json's `Read(...)`, the workspace) let
 * through or refuse. Each moved item becomes the file's text when the read went through; else the
 * model has only the reference.
 */
/**
 * What Cursor decides for the model's Read of `path`: the permission rules, then the
 * `preToolUse` hooks (the run's working folder is its workspace).
 */
function readVerdict(path) {
  const rules = readPermission(process.cwd(), path, process.argv.includes('--force'), env)
  return rules === 'allowed' ? preToolUse(process.cwd(), env, 'Read', { path }) : rules
}

/** A picture, PDF or text file the prompt names for the model to open (see `attachmentReads`). */
const ATTACHMENT = /saved for you at (\S+): (?:open that file|it belongs to an earlier message)/g

/**
 * The model opens each attachment the prompt names, as Cursor's Read tool does (a picture by its
 * extension, through the same rules and hooks as any Read): the stream reports each read, and the
 * invocation log keeps what was read (`attachmentReads`: path, verdict, bytes, SHA-256, file mode,
 * and the capitals a picture shows, read by vision.mjs).
 * With FAKE_CURSOR_DESCRIBE_ATTACHMENTS, the answer starts by saying what it read, as a model that
 * saw the pictures would.
 */
function attachmentReads(sessionId, prompt) {
  const reads = []
  const lines = []
  for (const [, path] of prompt.matchAll(ATTACHMENT)) {
    const callId = `toolu_fake_attachment_${randomUUID()}`
    const args = { path }
    const base = { type: 'tool_call', session_id: sessionId, call_id: callId, model_call_id: 'fake_model_call' }
    lines.push({ ...base, subtype: 'started', tool_call: { readToolCall: { args } }, timestamp_ms: Date.now() })
    const verdict = readVerdict(path)
    let read = { path, verdict }
    let result = { rejected: { path, reason: verdict } }
    if (verdict === 'allowed') {
      try {
        const bytes = readFileSync(path)
        read = {
          ...read,
          text: textIn(bytes),
          bytes: bytes.length,
          sha256: createHash('sha256').update(bytes).digest('hex'),
          mode: statSync(path).mode & 0o777,
          folderMode: statSync(dirname(path)).mode & 0o777,
        }
        result = { success: { path, totalLines: 0, fileSize: bytes.length, truncated: false } }
      } catch (error) {
        read = { ...read, verdict: 'missing', error: error.code }
        result = { error: { path, error: String(error.message) } }
      }
    }
    lines.push({
      ...base,
      subtype: 'completed',
      tool_call: { readToolCall: { args, result } },
      timestamp_ms: Date.now(),
    })
    reads.push(read)
  }
  recordMore({ attachmentReads: reads })
  return { reads, events: lines, lines: lines.map((event) => JSON.stringify(event)) }
}

/** What the model says it saw of attachment `read`: the words in a picture, or why it could not open it. */
function seen(read) {
  if (read === undefined) return 'nothing attached'
  return read.verdict === 'allowed' ? read.text : `could not open (${read.verdict})`
}

/** The reads of moved results this run made, for the invocation log. */
const spillReads = []

async function readWhatCursorMoved(content, { emit, toolCallEvent, modelCallId }) {
  const read = []
  for (const item of content) {
    if (item.handedOff !== true) {
      read.push(item)
      continue
    }
    const callId = `toolu_fake_read_${randomUUID()}`
    const args = { path: item.filePath }
    const startedAtMs = Date.now()
    await emit(toolCallEvent('started', callId, { readToolCall: { args } }, modelCallId, startedAtMs))
    // The run checked that its working folder is the workspace.
    const allowed = readVerdict(item.filePath) === 'allowed'
    const fileText = allowed ? readFileSync(item.filePath, 'utf8') : ''
    const result = allowed
      ? { success: { content: fileText, isEmpty: fileText === '', exceededLimit: false, path: item.filePath } }
      : { rejected: { path: item.filePath, reason: '' } }
    await emit(
      toolCallEvent('completed', callId, { readToolCall: { args, result } }, modelCallId, startedAtMs, Date.now()),
    )
    spillReads.push({ path: item.filePath, allowed })
    recordMore({ spillReads })
    read.push(allowed ? { type: 'text', text: fileText } : item)
  }
  return read
}

function findCapture(name) {
  const roots = []
  if (env.FAKE_CURSOR_CAPTURES_DIR) roots.push(env.FAKE_CURSOR_CAPTURES_DIR)
  roots.push(join(here, '..', '..', 'fixtures', 'captures'))
  const found = roots.map((root) => join(root, name)).find((path) => existsSync(path))
  if (found === undefined) fail(`capture ${name} not found in ${roots.join(', ')}`)
  return found
}

/** System init, the prompt's echo and a thought: how every run opens. */
function openingEvents(sessionId, prompt) {
  const base = { session_id: sessionId }
  const ts = Date.now()
  return [
    {
      type: 'system',
      subtype: 'init',
      apiKeySource: 'login',
      cwd: process.cwd(),
      ...base,
      model: 'Fake',
      permissionMode: 'default',
    },
    { type: 'user', message: { role: 'user', content: [{ type: 'text', text: prompt }] }, ...base },
    { type: 'thinking', subtype: 'delta', text: 'Thinking about the answer.', ...base, timestamp_ms: ts },
    { type: 'thinking', subtype: 'completed', ...base, timestamp_ms: ts },
  ]
}

/** A word-by-word delta per word (--stream-partial-output), then the whole message. */
function answerEvents(answer, sessionId) {
  const base = { session_id: sessionId }
  const ts = Date.now()
  // An empty answer (`text:`) has no text records at all, as a run that only wrote a plan.
  if (answer === '') return []
  const words = answer.match(/\S+\s*/g) ?? [answer]
  return [
    ...words.map((word) => ({
      type: 'assistant',
      message: { role: 'assistant', content: [{ type: 'text', text: word }] },
      ...base,
      timestamp_ms: ts,
    })),
    { type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: answer }] }, ...base },
  ]
}

function resultEvent(answer, sessionId) {
  const usage = env.FAKE_CURSOR_USAGE
    ? typeof env.FAKE_CURSOR_USAGE === 'string'
      ? JSON.parse(env.FAKE_CURSOR_USAGE)
      : env.FAKE_CURSOR_USAGE
    : { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 }
  return {
    type: 'result',
    subtype: 'success',
    duration_ms: 5,
    is_error: false,
    result: answer,
    session_id: sessionId,
    usage,
  }
}

function generatedStream(answer, sessionId, prompt) {
  return [...openingEvents(sessionId, prompt), ...answerEvents(answer, sessionId), resultEvent(answer, sessionId)].map(
    (event) => JSON.stringify(event),
  )
}

/** FAKE_CURSOR_ANSWERS: the answer of the first key the prompt contains, if any. */
function answerFor(prompt) {
  const answers = env.FAKE_CURSOR_ANSWERS
  if (answers === undefined || answers === '') return undefined
  const table = typeof answers === 'string' ? JSON.parse(answers) : answers
  const key = Object.keys(table).find((word) => prompt.includes(word))
  return key === undefined ? undefined : String(table[key])
}

/**
 * Cursor's plan as its client reports it: the plan request answered, then `createPlanToolCall`
 * started and completed (arguments `{name, overview, plan, todos}`, result `{success, planUri}`).
 */
function planRecords(markdown, sessionId) {
  const base = { session_id: sessionId, call_id: 'fake_plan_1', timestamp_ms: Date.now() }
  const args = { name: 'Plan', overview: 'What the plan does.', plan: markdown, todos: [] }
  const query = { id: 0, createPlanRequestQuery: { args, toolCallId: base.call_id } }
  const result = { success: {}, planUri: `file://${join(homedir(), '.cursor', 'plans', 'plan.plan.md')}` }
  return [
    { type: 'interaction_query', subtype: 'request', query_type: 'createPlanRequestQuery', query, ...base },
    {
      type: 'interaction_query',
      subtype: 'response',
      query_type: 'createPlanRequestQuery',
      response: { id: 0 },
      ...base,
    },
    { type: 'tool_call', subtype: 'started', tool_call: { createPlanToolCall: { args } }, ...base },
    { type: 'tool_call', subtype: 'completed', tool_call: { createPlanToolCall: { args, result } }, ...base },
  ]
}

/** FAKE_CURSOR_PLAN in `--mode plan`: the plan's records, after the answer's text. */
function planEvents(flags, sessionId) {
  if (flags.mode !== 'plan' || !env.FAKE_CURSOR_PLAN) return []
  return planRecords(env.FAKE_CURSOR_PLAN, sessionId).map((event) => JSON.stringify(event))
}

/** A generated stream with the plan, when there is one, before its result. */
function generatedWithPlan(flags, answer, sessionId, prompt) {
  const lines = generatedStream(answer, sessionId, prompt)
  return [...lines.slice(0, -1), ...planEvents(flags, sessionId), ...lines.slice(-1)]
}

function streamLines(flags, sessionId, prompt) {
  const answer = answerFor(prompt)
  if (answer !== undefined) return generatedWithPlan(flags, answer, sessionId, prompt)
  const source = env.FAKE_CURSOR_STREAM ?? 'text:Hello from the fake cursor-agent.'
  if (source.startsWith('text:')) return generatedWithPlan(flags, source.slice('text:'.length), sessionId, prompt)
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

/**
 * Prints `lines` as a run does: FAKE_CURSOR_LINE_DELAY_MS before each, and the one silence of
 * FAKE_CURSOR_SILENCE_MS after FAKE_CURSOR_SILENCE_AFTER of them.
 */
async function printLines(lines) {
  const delay = Number(env.FAKE_CURSOR_LINE_DELAY_MS ?? 0)
  const silence = Number(env.FAKE_CURSOR_SILENCE_MS ?? 0)
  const silentAfter = Number(env.FAKE_CURSOR_SILENCE_AFTER ?? 4)
  for (const [index, line] of lines.entries()) {
    if (silence > 0 && index === silentAfter) await sleep(silence)
    if (delay > 0) await sleep(delay)
    process.stdout.write(`${line}\n`)
  }
  if (silence > 0 && silentAfter >= lines.length) await sleep(silence)
}

/**
 * The `mcp` scenario's steps: FAKE_CURSOR_MCP_SCRIPT as JSON, or the JSON file it names. An object
 * instead of an array maps a word to steps: the first word the prompt contains chooses them.
 */
function readMcpScript(prompt) {
  let source = env.FAKE_CURSOR_MCP_SCRIPT
  if (typeof source !== 'string' || source.trim() === '') fail('the mcp scenario needs FAKE_CURSOR_MCP_SCRIPT')
  try {
    source = JSON.parse(/^\s*[[{]/.test(source) ? source : readFileSync(source, 'utf8'))
  } catch (error) {
    fail(`FAKE_CURSOR_MCP_SCRIPT: ${error.message}`)
  }
  if (source !== null && typeof source === 'object' && !Array.isArray(source)) {
    const word = Object.keys(source).find((key) => prompt.includes(key))
    if (word === undefined)
      fail(`FAKE_CURSOR_MCP_SCRIPT: the prompt contains none of ${Object.keys(source).join(', ')}`)
    source = source[word]
  }
  if (!Array.isArray(source)) fail('FAKE_CURSOR_MCP_SCRIPT is not an array of steps')
  return source
}

/** MCP content as Cursor's stream shows it in a tool result. */
function cursorContent(item) {
  if (item.type === 'text') return { text: { text: item.text } }
  if (item.type === 'image') return { image: { data: item.data, mimeType: item.mimeType } }
  const { type, ...rest } = item
  return { [type]: rest }
}

/** Both shapes Cursor names an MCP tool call in (captured from different CLI versions). */
function mcpToolCallArgs(shape, server, tool, args, callId) {
  if (shape === 'server')
    return { name: `${server}:${tool}`, args, toolCallId: callId, serverIdentifier: server, toolName: tool }
  if (shape === 'provider')
    return { name: `${server}-${tool}`, args, toolCallId: callId, providerIdentifier: server, toolName: tool }
  fail(`unknown mcpToolCall shape ${JSON.stringify(shape)}`)
}

/** Result `which` of the script's calls so far: a number counts from 0, `last` is the latest. */
function resultAt(results, which, placeholder, stepIndex) {
  const result = which === 'last' ? results.at(-1) : results[Number(which)]
  if (result === undefined) fail(`step ${stepIndex}: ${placeholder} names no tool result yet`)
  return result
}

/**
 * `text` with its placeholders filled in from the results so far: `{{result:N}}` the text,
 * `{{error:N}}` "true" or "false", `{{match:N:<regex>}}` the regex's first group in the text.
 */
function fillIn(text, results, stepIndex) {
  return text.replace(/\{\{(result|error|match):(\d+|last)(?::(.+?))?\}\}/g, (placeholder, kind, which, pattern) => {
    const result = resultAt(results, which, placeholder, stepIndex)
    if (kind === 'result') return result.text
    if (kind === 'error') return String(result.isError)
    const found = new RegExp(pattern).exec(result.text)
    if (found === null) fail(`step ${stepIndex}: ${placeholder} matches nothing in ${JSON.stringify(result.text)}`)
    return found[1] ?? found[0]
  })
}

/** A call's arguments with each string placeholder filled in; one that fills in a number becomes one. */
function fillArgs(args, results, stepIndex) {
  return Object.fromEntries(
    Object.entries(args).map(([key, value]) => {
      if (typeof value !== 'string' || !value.includes('{{')) return [key, value]
      const filled = fillIn(value, results, stepIndex)
      return [key, /^\d+$/.test(filled) && /^\{\{[^}]*\}\}$/.test(value) ? Number(filled) : filled]
    }),
  )
}

/**
 * The `mcp` scenario: connects to every configured server that has a url (`initialize`,
 * `notifications/initialized`), lists their tools, then runs the steps in order:
 *   {"text": "..."}              assistant text; `{{seen:N}}` is what the model saw of the N-th
 *                                attachment the prompt names (the capitals in a picture);
 *                                `{{result:N}}` is the N-th tool result's text (N
 *                                counts the script's calls from 0, or `last`; text entries joined
 *                                with "\n"; a JSON-RPC error's message), `{{error:N}}` "true" or
 *                                "false", `{{match:N:<regex>}}` the regex's first group in that text
 *   {"calls": [{"tool", "args"?, "server"?, "shape"?}], "parallel"?, "shape"?, "emitBefore"?, "repeatWhile"?}
 *                                MCP tool calls: a `started` record, `tools/call` on the call's server
 *                                (default: the first), a `completed` record with the answer.
 *                                `parallel: true` sends them all at once, else one after another;
 *                                `shape` `provider` (default) or `server`; `emitBefore: false` sends
 *                                `tools/call` first and prints `started` 30 ms later; string
 *                                arguments take the placeholders (`"{{match:0:job (\\d+)}}"` alone
 *                                gives a number); `repeatWhile: "<regex>"` sends the calls again
 *                                while the last answer matches it (at most 20 rounds)
 *   {"native": "shell", "command", "refused"?}
 *                                Cursor's own shell tool: started, then completed with exit 0, or
 *                                with `refused: true` rejected (as its permission rules do)
 *   {"plan": "<markdown>"}       Cursor's plan (`createPlanToolCall`, see planRecords)
 *   {"listTools": true}          `tools/list` again, into the log only
 * then prints the result record. A server that is unreachable, refuses the credentials or drops a
 * call ends the run with an error on stderr and exit code 1.
 */
async function runMcpScript(steps, servers, sessionId, prompt) {
  // Loaded here only: the SDK triples the start-up time, which runs with a short idle limit feel.
  const { connectMcp, McpFatalError, useSettings } = await import('./fake-mcp-client.mjs')
  useSettings(env)
  const delay = Number(env.FAKE_CURSOR_LINE_DELAY_MS ?? 0)
  let printed = Promise.resolve()
  // Lines go out in order even when parallel calls finish at once.
  const emit = (event) => {
    printed = printed.then(async () => {
      if (delay > 0) await sleep(delay)
      process.stdout.write(`${JSON.stringify(event)}\n`)
    })
    return printed
  }
  const toolCallEvent = (subtype, callId, toolCall, modelCallId, startedAtMs, completedAtMs) => ({
    type: 'tool_call',
    subtype,
    call_id: callId,
    tool_call: {
      ...toolCall,
      hookAdditionalContexts: [],
      toolCallId: callId,
      startedAtMs: String(startedAtMs),
      ...(completedAtMs === undefined ? {} : { completedAtMs: String(completedAtMs) }),
    },
    model_call_id: modelCallId,
    session_id: sessionId,
    timestamp_ms: Date.now(),
  })

  const connections = new Map()
  const listAll = async () => {
    const tools = []
    for (const connection of connections.values()) {
      for (const tool of await connection.listTools()) tools.push({ server: connection.name, ...tool })
    }
    return tools
  }
  const toolLists = []
  const mcpCalls = []
  const results = []
  try {
    for (const [name, config] of Object.entries(servers)) {
      if (typeof config?.url === 'string') connections.set(name, await connectMcp(name, config))
    }
    // Steps of text and native tools alone need no server: a plain run (no bridge) can be scripted too.
    const needsServer = steps.some((step) => Array.isArray(step?.calls) || step?.listTools === true)
    if (connections.size === 0 && needsServer)
      fail('the mcp scenario needs an MCP server with a url in .cursor/mcp.json')
    toolLists.push(await listAll())
    recordMore({ mcpTools: toolLists.at(-1), mcpToolLists: toolLists, mcpCalls })

    for (const event of openingEvents(sessionId, prompt)) emit(event)
    const attachments = attachmentReads(sessionId, prompt)
    for (const event of attachments.events) emit(event)
    const [firstServer] = connections.keys()
    let answer = ''
    let callCount = 0
    let nativeCount = 0
    for (const [stepIndex, step] of steps.entries()) {
      const modelCallId = `${sessionId}-${stepIndex}-fake`
      if (typeof step?.text === 'string') {
        const text = fillIn(step.text, results, stepIndex).replace(/\{\{seen:(\d+)\}\}/g, (_, n) =>
          seen(attachments.reads[Number(n)]),
        )
        answer += text
        for (const event of answerEvents(text, sessionId)) emit(event)
      } else if (Array.isArray(step?.calls)) {
        // The model reads each answer before its next call: a repeated step sends its calls again
        // while the last answer matches `repeatWhile`, with the placeholders filled in anew.
        for (let round = 0; ; round += 1) {
          const again =
            round === 0 ||
            (step.repeatWhile !== undefined &&
              round < 20 &&
              new RegExp(step.repeatWhile).test(results.at(-1)?.text ?? ''))
          if (!again) break
          const planned = step.calls.map((call) => {
            if (typeof call?.tool !== 'string') fail(`step ${stepIndex}: a call needs a tool name`)
            const server = call.server ?? firstServer
            const connection = connections.get(server)
            if (connection === undefined) fail(`step ${stepIndex}: no connected MCP server ${JSON.stringify(server)}`)
            const index = callCount
            callCount += 1
            const callId = `toolu_fake_mcp_${index}`
            const args = fillArgs(call.args ?? {}, results, stepIndex)
            return {
              index,
              callId,
              connection,
              tool: call.tool,
              args,
              mcpArgs: mcpToolCallArgs(call.shape ?? step.shape ?? 'provider', server, call.tool, args, callId),
            }
          })
          const emitBefore = step.emitBefore !== false
          const batch = async (calls) => {
            const startedAtMs = Date.now()
            const announce = () =>
              Promise.all(
                calls.map((call) =>
                  emit(
                    toolCallEvent(
                      'started',
                      call.callId,
                      { mcpToolCall: { args: call.mcpArgs } },
                      modelCallId,
                      startedAtMs,
                    ),
                  ),
                ),
              )
            if (emitBefore) await announce()
            const answered = calls.map((call) =>
              call.connection.callTool(call.tool, call.args).then((outcome) => ({ call, outcome })),
            )
            // Cursor's stdout can lag the request it has already sent to the server.
            const announced = emitBefore ? Promise.resolve() : sleep(30).then(announce)
            await Promise.all(
              answered.map(async (pending) => {
                const { call, outcome } = await pending
                await announced
                const failed = 'error' in outcome
                const text = failed
                  ? outcome.error
                  : (await readWhatCursorMoved(outcome.content, { emit, toolCallEvent, modelCallId }))
                      .filter((item) => item.type === 'text')
                      .map((item) => item.text)
                      .join('\n')
                results[call.index] = { text, isError: failed || outcome.isError }
                mcpCalls[call.index] = failed
                  ? {
                      server: call.connection.name,
                      tool: call.tool,
                      args: call.args,
                      result: null,
                      isError: true,
                      error: outcome.error,
                      code: outcome.code,
                    }
                  : {
                      server: call.connection.name,
                      tool: call.tool,
                      args: call.args,
                      result: { content: outcome.content, isError: outcome.isError },
                      isError: outcome.isError,
                    }
                recordMore({ mcpCalls })
                const result = failed
                  ? { error: { error: outcome.error } }
                  : { success: { content: outcome.content.map(cursorContent), isError: outcome.isError } }
                await emit(
                  toolCallEvent(
                    'completed',
                    call.callId,
                    { mcpToolCall: { args: call.mcpArgs, result } },
                    modelCallId,
                    startedAtMs,
                    Date.now(),
                  ),
                )
              }),
            )
          }
          if (step.parallel === true) await batch(planned)
          else for (const call of planned) await batch([call])
        }
      } else if (typeof step?.plan === 'string') {
        for (const event of planRecords(step.plan, sessionId)) emit(event)
      } else if (step?.native === 'shell') {
        if (typeof step.command !== 'string') fail(`step ${stepIndex}: a native shell step needs a command`)
        const callId = `toolu_fake_shell_${nativeCount}`
        nativeCount += 1
        const args = {
          command: step.command,
          workingDirectory: '',
          timeout: 30000,
          toolCallId: callId,
          isBackground: false,
        }
        const startedAtMs = Date.now()
        emit(toolCallEvent('started', callId, { shellToolCall: { args } }, modelCallId, startedAtMs))
        // As captured: a command the CLI's permissions refuse is `rejected`, and never runs.
        const result =
          step.refused === true
            ? { rejected: { command: step.command, reason: '', isReadonly: false } }
            : {
                success: {
                  command: step.command,
                  workingDirectory: '',
                  exitCode: 0,
                  signal: '',
                  stdout: 'fake output',
                  stderr: '',
                  executionTime: 1,
                  interleavedOutput: 'fake output',
                },
              }
        await emit(
          toolCallEvent(
            'completed',
            callId,
            { shellToolCall: { args, result, isBackground: false } },
            modelCallId,
            startedAtMs,
            Date.now(),
          ),
        )
      } else if (step?.listTools === true) {
        toolLists.push(await listAll())
        recordMore({ mcpTools: toolLists.at(-1), mcpToolLists: toolLists })
      } else {
        fail(`step ${stepIndex} is none of text, calls, native, listTools: ${JSON.stringify(step)}`)
      }
    }
    await emit(resultEvent(answer, sessionId))
    recordMore({ finished: true })
  } catch (error) {
    if (!(error instanceof McpFatalError)) throw error
    await printed
    recordMore({ mcpError: error.message })
    process.stderr.write(`Error: ${error.message}\n`)
    process.exit(1)
  } finally {
    for (const connection of connections.values()) await connection.close()
  }
  // A connection the SDK leaves open must not keep a finished run alive.
  setTimeout(() => process.exit(0), 1000).unref()
}

/**
 * `mcp list-tools <identifier>`: the tools of one server configured for the working folder (its
 * `.cursor/mcp.json`, then `$HOME/.cursor/mcp.json`), a name and description per line.
 */
async function listServerTools(args) {
  const [action, server] = args
  if (action !== 'list-tools' || server === undefined) fail('usage: mcp list-tools <identifier>')
  const servers = readMcpServers(process.cwd())
  record({ subcommand: 'mcp list-tools', server, mcpServers: Object.keys(servers) })
  const config = servers[server]
  if (typeof config?.url !== 'string') {
    process.stderr.write(`Error: MCP server "${server}" not found\n`)
    process.exit(1)
  }
  const { connectMcp, McpFatalError, useSettings } = await import('./fake-mcp-client.mjs')
  useSettings(env)
  let connection
  try {
    connection = await connectMcp(server, config)
    const tools = await connection.listTools()
    recordMore({ mcpTools: tools })
    process.stdout.write(
      `Tools for ${server} (${tools.length}):\n${tools.map((tool) => `- ${tool.name}: ${tool.description ?? ''}\n`).join('')}`,
    )
  } catch (error) {
    if (!(error instanceof McpFatalError)) throw error
    process.stderr.write(`Error: ${error.message}\n`)
    process.exit(1)
  } finally {
    await connection?.close()
  }
  setTimeout(() => process.exit(0), 1000).unref()
}

/** The login this run finds (FAKE_CURSOR_LOGIN), `undefined` when it has none. */
function loggedIn() {
  if (env.FAKE_CURSOR_SCENARIO === 'auth') return undefined
  if (env.FAKE_CURSOR_LOGIN === 'files') return findLogin(env)
  return { source: 'fake' }
}

/** The first scripted MCP call Cursor's permission rules would not let through, if any. */
function firstRefusedCall(steps, servers, flags) {
  const [firstServer] = Object.keys(servers).filter((name) => typeof servers[name]?.url === 'string')
  for (const step of steps) {
    for (const call of Array.isArray(step?.calls) ? step.calls : []) {
      const server = call.server ?? firstServer
      const permission = mcpPermission(flags.workspace, server, call.tool, flags.force, env)
      if (permission !== 'allowed') return { server, tool: call.tool, permission }
    }
  }
  return undefined
}

/** What Cursor prints when its permission rules reject an MCP call: the call, rejected, and the model's reply. */
function rejectedCallStream(refused, sessionId, prompt) {
  const callId = 'toolu_fake_rejected_0'
  const args = {
    name: `${refused.server}-${refused.tool}`,
    args: {},
    toolName: refused.tool,
    providerIdentifier: refused.server,
  }
  const call = (subtype, result) => ({
    type: 'tool_call',
    subtype,
    call_id: callId,
    tool_call: { mcpToolCall: { args, ...(result ? { result } : {}) }, toolCallId: callId },
    session_id: sessionId,
    timestamp_ms: Date.now(),
  })
  const reason = 'All the MCP tool calls were rejected.'
  return [
    ...openingEvents(sessionId, prompt),
    call('started'),
    call('completed', { rejected: { reason } }),
    ...answerEvents(reason, sessionId),
    resultEvent(reason, sessionId),
  ].map((event) => JSON.stringify(event))
}

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
    const login = loggedIn()
    record({ subcommand, login: login?.source ?? null })
    process.stdout.write(login === undefined ? 'Not logged in\n' : '✓ Logged in as fake@example.com\n')
    return
  }
  if (subcommand === 'mcp') {
    await listServerTools(argv.slice(1))
    return
  }
  if (subcommand === 'models' || subcommand === '--list-models') {
    record({ subcommand: 'models' })
    const pairs = (env.FAKE_CURSOR_MODELS ?? DEFAULT_MODELS).split(';').filter((pair) => pair.trim() !== '')
    // What Cursor prints for an account whose plan offers none.
    if (pairs.length === 0) process.stdout.write('No models available for this account.\n')
    else
      process.stdout.write(
        `Available models\n\n${pairs.map((pair) => pair.trim()).join('\n')}\n\nTip: use --model <id> to switch.\n` +
          // Newer builds end the list with ids that take parameters, as examples: not models.
          "Tip: models take parameters, e.g. agent --model 'claude-opus-4-8[context=1m,effort=high,fast=false]' - see --help\n",
      )
    return
  }

  const flags = parseRunArguments(argv)
  const mcpServers = readMcpServers(flags.workspace)
  const mcpNames = Object.keys(mcpServers)
  runFields = {
    hooks: readHooks(flags.workspace, env).map(({ path, hooks, dropped }) => ({
      path,
      events: Object.keys(hooks),
      dropped: dropped ?? null,
    })),
    mcpServers: mcpNames,
    alwaysAppliedRules: readAlwaysAppliedRules(flags.workspace),
    approveMcps: flags.approveMcps,
    allowedTools: flags.allowedTools?.split(',') ?? null,
  }
  const stdin = await readStdin()
  const scenario = env.FAKE_CURSOR_SCENARIO ?? 'replay'
  let sessionId = env.FAKE_CURSOR_SESSION_ID ?? randomUUID()
  if (flags.resume !== null) sessionId = env.FAKE_CURSOR_RESUME === 'replace' ? randomUUID() : flags.resume

  if (mcpNames.length > 0 && !flags.approveMcps) {
    // The real CLI stops to ask, and waits for an answer that a pipe never gives.
    record({ stdin, scenario })
    process.stderr.write(
      `Error: MCP servers need approval before this run can use them: ${mcpNames.join(', ')}\nRun with --approve-mcps to approve them, or run 'agent mcp enable <name>'.\n`,
    )
    process.exit(1)
  }
  if (loggedIn() === undefined) {
    record({ stdin, scenario: 'auth', login: null })
    process.stderr.write(STDERR.auth)
    process.exit(1)
  }
  if (scenario === 'mcp') {
    const steps = readMcpScript(stdin)
    record({ stdin, scenario, sessionId, mcpTools: [], mcpToolLists: [], mcpCalls: [], finished: false })
    const refused = firstRefusedCall(steps, mcpServers, flags)
    if (refused !== undefined) {
      recordMore({ rejectedCall: refused, finished: true })
      await printLines(rejectedCallStream(refused, sessionId, stdin))
      return
    }
    await runMcpScript(steps, mcpServers, sessionId, stdin)
    return
  }

  if (scenario === 'auth' || scenario === 'quota') {
    record({ stdin, scenario })
    process.stderr.write(STDERR[scenario])
    process.exit(1)
  }
  if (scenario === 'model') {
    record({ stdin, scenario })
    const available = (env.FAKE_CURSOR_MODELS ?? DEFAULT_MODELS)
      .split(';')
      .map((pair) => pair.split(' - ')[0].trim())
      .join(', ')
    process.stderr.write(`Cannot use this model: ${flags.model}. Available models: ${available}\n`)
    process.exit(1)
  }
  if (env.FAKE_CURSOR_DROP && !(env.FAKE_CURSOR_DROP_MARK && existsSync(env.FAKE_CURSOR_DROP_MARK))) {
    if (env.FAKE_CURSOR_DROP_MARK) writeFileSync(env.FAKE_CURSOR_DROP_MARK, `${process.pid}\n`)
    record({ stdin, scenario: 'drop', sessionId, drop: env.FAKE_CURSOR_DROP })
    const lines = openingEvents(sessionId, stdin).slice(0, 2)
    if (env.FAKE_CURSOR_DROP === 'after-tool') {
      const call = { session_id: sessionId, call_id: 'drop_shell', model_call_id: 'drop_model_call' }
      const args = { command: 'touch made-before-the-drop', workingDirectory: '' }
      const ran = { success: { command: args.command, exitCode: 0, stdout: '', stderr: '' } }
      lines.push(
        { type: 'tool_call', subtype: 'started', ...call, tool_call: { shellToolCall: { args } } },
        { type: 'tool_call', subtype: 'completed', ...call, tool_call: { shellToolCall: { args, result: ran } } },
      )
    }
    await printLines(lines.map((event) => JSON.stringify(event)))
    process.stderr.write(
      'Connection lost, reconnecting to https://agentn.global.api5.cursor.sh (attempt 1)...\n' +
        'RetriableError: WritableIterable is closed\n',
    )
    process.exit(1)
  }
  if (scenario === 'fail') {
    record({ stdin, scenario })
    const lines = env.FAKE_CURSOR_PARTIAL
      ? generatedStream(env.FAKE_CURSOR_PARTIAL, sessionId, stdin).filter((line) => !line.includes('"type":"result"'))
      : []
    await printLines(lines)
    process.stderr.write(`${env.FAKE_CURSOR_STDERR ?? 'Error: something went wrong'}\n`)
    process.exit(Number(env.FAKE_CURSOR_EXIT_CODE ?? 1))
  }
  if (scenario === 'long') {
    // A grandchild in the same process group: cancellation must stop the whole group.
    const grandchild = spawn('sleep', ['600'], { stdio: 'ignore' })
    record({ stdin, scenario, grandchildPid: grandchild.pid })
    const base = { session_id: sessionId }
    process.stdout.write(
      `${JSON.stringify({ type: 'system', subtype: 'init', cwd: process.cwd(), ...base, model: 'Fake' })}\n`,
    )
    process.stdout.write(
      `${JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'Working on it' }] }, ...base, timestamp_ms: Date.now() })}\n`,
    )
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
  const attachments = attachmentReads(sessionId, stdin)
  if (attachments.reads.length > 0 && env.FAKE_CURSOR_DESCRIBE_ATTACHMENTS) {
    const seen = attachments.reads
      .map((read) =>
        read.verdict === 'allowed' ? `saw ${read.sha256.slice(0, 16)}` : `could not open (${read.verdict})`,
      )
      .join(', ')
    const lines = generatedStream(`Attachments: ${seen}.`, sessionId, stdin)
    await printLines([...lines.slice(0, 2), ...attachments.lines, ...lines.slice(2)])
    return
  }
  const lines = streamLines(flags, sessionId, stdin)
  await printLines([...lines.slice(0, 2), ...attachments.lines, ...lines.slice(2)])
}

run().catch((error) => fail(error?.stack ?? String(error), 1))
