#!/usr/bin/env node
// The package's command line (`npx opencode-cursor-native <command>`).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { DEFAULT_LIVE_MODEL, formatReport, runDoctor } from './doctor.js'
import { packageRoot } from './native.js'

const USAGE = `Usage: opencode-cursor-native <command>

Commands:
  doctor [--json] [--live] [--model <id>]
      Check that this machine can use Cursor from OpenCode: cursor-agent, its login and models,
      the native addon, OpenCode's configuration and the data folder. --live also runs the checks
      of tool mode opencode with your Cursor account (three short requests; --model picks the
      model, default ${DEFAULT_LIVE_MODEL}). --json prints {ok, checks: [{id, status, detail, fix}]}.
      Exits with 1 when a check found a problem.
`

function version(): string {
  try {
    return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version
  } catch {
    return 'unknown'
  }
}

async function doctor(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { json: { type: 'boolean', default: false }, live: { type: 'boolean', default: false }, model: { type: 'string', default: DEFAULT_LIVE_MODEL } },
    strict: true,
  })
  const report = await runDoctor({ live: values.live, model: values.model, cwd: process.cwd(), env: process.env })
  process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report, version()))
  return report.ok ? 0 : 1
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv
  if (name === 'doctor') return doctor(rest)
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
