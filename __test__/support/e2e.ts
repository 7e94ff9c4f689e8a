// What every end-to-end file through the real OpenCode CLI shares: the file's set-up (the build
// exists, OpenCode is installed) and clean-up, a sandbox factory, how a run is explained when an
// assertion fails, and the failing run every failure test starts from.
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before } from 'node:test'
import {
  createSandbox,
  installOpenCode,
  REPO_ROOT,
  type RunResult,
  type Sandbox,
  type SandboxOptions,
} from './opencode.ts'
import type { SharedServer, Turn } from './served.ts'

export interface E2eFile {
  /** A sandbox, disposed of after the file; OpenCode's bundled model catalogue left out unless asked for. */
  sandbox(options?: SandboxOptions): Promise<Sandbox>
  /** A sandbox with this extra environment, disposed of after the file. */
  sandboxWith(env: Record<string, string>): Promise<Sandbox>
  /** The OpenCode binary, once the file's set-up ran. */
  binary(): string
}

/** Registers the file's `before` (build present, OpenCode installed) and `after` (sandboxes disposed). */
export function e2eFile(): E2eFile {
  const sandboxes: Sandbox[] = []
  let binary = ''
  before(async () => {
    assert.ok(
      existsSync(join(REPO_ROOT, 'dist', 'plugin', 'opencode', 'server.js')),
      'dist/plugin/opencode/server.js is missing: run `npm run build` (or `npm run build:debug`) first',
    )
    binary = await installOpenCode()
  })
  after(async () => {
    await Promise.all(sandboxes.map((sandbox) => sandbox.dispose()))
  })
  const sandbox = async (options: SandboxOptions = {}) => {
    const created = await createSandbox({ bundledModels: false, ...options })
    sandboxes.push(created)
    return created
  }
  return { sandbox, sandboxWith: (env) => sandbox({ env }), binary: () => binary }
}

/** A run's exit, output and the end of OpenCode's log, for an assertion's message. */
export function explain(result: RunResult, sandbox: Sandbox): string {
  return `exit ${result.code}${result.timedOut ? ' (timed out)' : ''}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}\nlog:\n${sandbox.openCodeLog().slice(-3000)}`
}

/** A turn as `opencode run --format json` prints it: an `opencode run`'s result, or a served turn. */
export type Printed = Pick<RunResult, 'events'>

export const eventsOf = (result: Printed, type: string) => result.events.filter((event) => event.type === type)
export const textOf = (result: Printed) =>
  eventsOf(result, 'text')
    .map((event) => event.part.text as string)
    .join('')

/** The `tool_use` events between each `step_start` and its `step_finish`, with the finish reason. */
export function steps(result: Printed): Array<{ tools: string[]; reason: string }> {
  const found: Array<{ tools: string[]; reason: string }> = []
  let current: string[] | null = null
  for (const event of result.events) {
    if (event.type === 'step_start') current = []
    if (event.type === 'tool_use') current?.push(event.part.tool as string)
    if (event.type === 'step_finish') {
      found.push({ tools: current ?? [], reason: event.part.reason as string })
      current = null
    }
  }
  return found
}

/** A failing turn: its result (an `opencode run`'s or a served turn), the one error's message, how often cursor-agent ran. */
export interface FailedRun {
  result: RunResult | Turn
  message: string
  runs: number
  why: string
}

/** `opencode run` with `cursor-acp/auto` in a sandbox with `env`, which must fail with one error. */
export async function failingRun(e2e: E2eFile, env: Record<string, string>): Promise<FailedRun> {
  const sandbox = await e2e.sandboxWith(env)
  const args = ['run', '--format', 'json', '--model', 'cursor-acp/auto', 'say', 'hi']
  const result = await sandbox.run(args, { timeoutMs: 120_000 })
  const why = `exit ${result.code}${result.timedOut ? ' (timed out)' : ''}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr.slice(-3000)}`
  return failedWith(result, sandbox.invocations().length, why)
}

/** A turn through `shared` with the fake set by `fake`, which must fail with one error. */
export async function failingTurn(shared: SharedServer, fake: Record<string, unknown>): Promise<FailedRun> {
  const result = await shared.turn('say hi', { fake })
  return failedWith(result, result.invocations.length, result.why)
}

function failedWith(result: RunResult | Turn, runs: number, why: string): FailedRun {
  const errors = eventsOf(result, 'error')
  assert.equal(errors.length, 1, why)
  const message = String(errors[0]!.error.data?.message ?? '')
  return { result, message, runs, why }
}

/**
 * The turn failed once (no retry by OpenCode) and its message is text ending with `[code]`; an
 * `opencode run` ended by itself and exited non-zero (a served turn has no exit status: the one
 * error `failingTurn` found is what sets it).
 */
export function assertFailedOnce(failed: FailedRun, code: string): void {
  const { result, message, runs, why } = failed
  if ('code' in result) assert.ok(!result.timedOut, why)
  assert.equal(runs, 1, `cursor-agent ran ${runs} times: OpenCode retried "${message}"\n${why}`)
  if ('code' in result) assert.notEqual(result.code, 0, why)
  assert.ok(message.endsWith(`[${code}]`), `"${message}" should end with [${code}]\n${why}`)
  assert.ok(!message.startsWith('{'), `the message is readable text, not JSON: ${message}`)
}

/**
 * A bash call that outlasted the bridge's deadline reached `answer`: OpenCode ran it once (its
 * command appends `ran` to `ran.txt`) and saw one bash call in one tool step, then the answer; the
 * `opencode_wait` calls are the bridge's own.
 */
export function assertAnsweredAfterWaiting(outcome: RunResult | Turn, sandbox: Sandbox, answer: RegExp): void {
  const why = 'why' in outcome ? outcome.why : explain(outcome, sandbox)
  // A run exits 0 when OpenCode reported no error of the turn; a served turn is read for that error.
  if ('code' in outcome) assert.equal(outcome.code, 0, why)
  else assert.deepEqual(eventsOf(outcome, 'error'), [], why)
  assert.match(textOf(outcome), answer, why)
  assert.equal(readFileSync(join(sandbox.workspace, 'ran.txt'), 'utf8'), 'ran\n', 'the command ran once')
  assert.deepEqual(
    eventsOf(outcome, 'tool_use').map((event) => event.part.tool),
    ['bash'],
    why,
  )
  assert.deepEqual(
    steps(outcome).map((step) => step.reason),
    ['tool-calls', 'stop'],
    why,
  )
}
