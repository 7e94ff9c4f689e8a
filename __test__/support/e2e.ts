// What every end-to-end file through the real OpenCode CLI shares: the file's set-up (the build
// exists, OpenCode is installed) and clean-up, a sandbox factory, and how a run is explained when an
// assertion fails.
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
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
      existsSync(join(REPO_ROOT, 'dist', 'plugin', 'server.js')),
      'dist/plugin/server.js is missing: run `npm run build` (or `npm run build:debug`) first',
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

export const eventsOf = (result: RunResult, type: string) => result.events.filter((event) => event.type === type)
export const textOf = (result: RunResult) =>
  eventsOf(result, 'text')
    .map((event) => event.part.text as string)
    .join('')

/** The `tool_use` events between each `step_start` and its `step_finish`, with the finish reason. */
export function steps(result: RunResult): Array<{ tools: string[]; reason: string }> {
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
