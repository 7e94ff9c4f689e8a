#!/usr/bin/env node
// The package's command line (`npx opencode-cursor-native <command>`).
import { readFileSync } from 'node:fs'
import { isAbsolute, join, parse, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { DEFAULT_LIVE_MODEL, runDoctor } from './doctor.js'
import { LIVE_IDS } from './doctor-live-checks.js'
import { formatReport } from './doctor-report.js'
import { startLogging } from '../opencode/host-options.js'
import { readSettings, TOOL_MODES, type ToolMode } from '../turn/env.js'
import { packageRoot } from '../turn/native.js'

const USAGE = `Usage: opencode-cursor-native <command>

Commands:
  doctor [--json] [--live [--check <id>]...] [--model <id>]
      Check that this machine can use Cursor from OpenCode: cursor-agent, its login and models,
      the native addon, OpenCode's configuration and the data folder. --live also makes a plain
      round trip and the checks that use your Cursor account (a few short requests; --model
      picks the model, default ${DEFAULT_LIVE_MODEL}; --check runs only the live checks it names,
      besides the round trip). --json prints {ok, checks: [{id, status, detail, fix}]}.
      Exits with 1 when a check found a problem.

  replay <capture> [--json]
      Feed a run's capture (CURSOR_ACP_CAPTURE=1; a failure's message names it) through the
      translation again, offline, and show what the process, framing, reconciliation and the
      consumer made of it, whether that matches the live run, and where the answer stopped.
      <capture> is a capture's name or file. Exits with 1 when the replay does not match.

  serve [--port N] [--host ADDRESS] [--workspace DIR] [--tool-mode cursor|opencode]
      A server for OpenAI and Anthropic clients (Codex CLI, Claude Code, their SDKs) at
      http://127.0.0.1:32125/v1 by default: OpenAI's Chat Completions (POST /v1/chat/completions)
      and Responses (POST /v1/responses), Anthropic's Messages (POST /v1/messages and
      /v1/messages/count_tokens), GET /v1/models and /v1/models/<id>, GET /health. Every request
      but /health needs the bearer token it prints (or CURSOR_ACP_PROXY_TOKEN). Stop it with Ctrl+C.
`

function version(): string {
  try {
    return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version
  } catch {
    return 'unknown'
  }
}

/** Whether a command's arguments ask for the usage. */
const HELP = { help: { type: 'boolean', short: 'h', default: false } } as const

async function doctor(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      json: { type: 'boolean', default: false },
      live: { type: 'boolean', default: false },
      model: { type: 'string', default: DEFAULT_LIVE_MODEL },
      check: { type: 'string', multiple: true },
      ...HELP,
    },
    strict: true,
  })
  if (values.help) {
    process.stdout.write(USAGE)
    return 0
  }
  const checks = values.check === undefined ? undefined : new Set(values.check)
  const unknown = [...(checks ?? [])].filter((id) => !LIVE_IDS.includes(id))
  if (unknown.length > 0 || (checks !== undefined && !values.live))
    throw new Error(`--check names live checks, with --live: one of ${LIVE_IDS.join(', ')}`)
  const report = await runDoctor({
    live: values.live,
    model: values.model,
    ...(checks === undefined ? {} : { checks }),
    cwd: process.cwd(),
    env: process.env,
  })
  process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report, version()))
  return report.ok ? 0 : 1
}

async function replay(args: string[]): Promise<number> {
  const { replayCapture, formatReplay } = await import('./replay.js')
  const { values, positionals } = parseArgs({
    args,
    options: { json: { type: 'boolean', default: false }, ...HELP },
    allowPositionals: true,
    strict: true,
  })
  if (values.help) {
    process.stdout.write(USAGE)
    return 0
  }
  const [target] = positionals
  if (target === undefined || positionals.length > 1)
    throw new Error('replay needs one capture: its name (cap-...) or its file')
  const report = replayCapture(target)
  process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatReplay(report))
  return report.matches ? 0 : 1
}

async function serve(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      workspace: { type: 'string' },
      'tool-mode': { type: 'string' },
      ...HELP,
    },
    strict: true,
  })
  if (values.help) {
    process.stdout.write(USAGE)
    return 0
  }
  // Loaded here only: `doctor` must run even where the server's dependencies do not load.
  const { DEFAULT_HOST, DEFAULT_PORT, startProxy } = await import('../proxy/server.js')
  // Digits only: `Number('')` is 0, which would quietly listen on some free port.
  const port = values.port === undefined ? DEFAULT_PORT : /^\d{1,5}$/.test(values.port) ? Number(values.port) : -1
  if (port < 0 || port > 65535)
    throw new Error(`--port ${JSON.stringify(values.port)} is not a port number (0 to 65535; 0 picks a free one)`)
  const workspace = values.workspace
  if (workspace !== undefined && (!isAbsolute(workspace) || resolve(workspace) === parse(resolve(workspace)).root))
    throw new Error(`--workspace ${JSON.stringify(workspace)} must be an absolute folder, not the filesystem root`)
  const toolMode = values['tool-mode']
  if (toolMode !== undefined && !(TOOL_MODES as readonly string[]).includes(toolMode))
    throw new Error(`--tool-mode must be one of ${TOOL_MODES.join(', ')}`)
  const host = values.host ?? DEFAULT_HOST
  // CURSOR_ACP_LOG_LEVEL and CURSOR_ACP_LOG_FILE, as the plugin honours them.
  const { settings, warnings } = readSettings(process.env)
  startLogging(settings, warnings)
  for (const warning of warnings) process.stderr.write(`warning: ${warning}\n`)
  const proxy = await startProxy({
    port,
    host,
    ...(workspace === undefined ? {} : { workspace }),
    ...(toolMode === undefined ? {} : { toolMode: toolMode as ToolMode }),
  })
  if (!['127.0.0.1', 'localhost', '::1'].includes(host)) {
    process.stderr.write(
      `warning: listening on ${host}: anyone who can reach it and has the token can run cursor-agent on this machine\n`,
    )
  }
  process.stdout.write(`opencode-cursor-native ${version()} serving ${proxy.url}\ntoken: ${proxy.token}\n`)
  await new Promise<void>((stop) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop())
  })
  await proxy.close()
  return 0
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv
  if (name === 'doctor') return doctor(rest)
  if (name === 'serve') return serve(rest)
  if (name === 'replay') return replay(rest)
  if (name === '--version' || name === '-v') {
    process.stdout.write(`${version()}\n`)
    return 0
  }
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(USAGE)
    return 0
  }
  process.stderr.write(`opencode-cursor-native: unknown command ${JSON.stringify(name)}\n\n${USAGE}`)
  return 2
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    process.stderr.write(`opencode-cursor-native: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exitCode = 2
  },
)
