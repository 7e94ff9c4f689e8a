// The fake cursor-agent's runs, as a spec of the server sets and reads them: each call of `fake`
// clears the fake's settings, points its invocation log at a fresh folder and sets new ones;
// `runs` reads what the runs of that folder logged.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

export interface Invocation {
  argv: string[]
  stdin: string
  pid: number
  pgid: number
  grandchildPid?: number
  /** The names of the variables it was started with. */
  envNames: string[]
  /** What the model read of the attachments the prompt named (see the fake's `attachmentReads`). */
  attachmentReads?: Array<{ path: string; verdict: string; sha256?: string }>
}

export interface FakeRuns {
  /** The fake's behaviour for the runs that start from now on; returns their (fresh) log folder. */
  fake(settings?: Record<string, string>): string
  /** The runs the fake logged in `logDir`. */
  runs(logDir: string): Invocation[]
}

export function fakeRuns(scratch: string): FakeRuns {
  let logCount = 0
  return {
    fake(settings = {}) {
      for (const name of Object.keys(process.env)) if (name.startsWith('FAKE_CURSOR_')) delete process.env[name]
      logCount += 1
      const logDir = join(scratch, `log-${logCount}`)
      Object.assign(process.env, { FAKE_CURSOR_LOG_DIR: logDir, ...settings })
      return logDir
    },
    runs(logDir) {
      if (!existsSync(logDir)) return []
      return readdirSync(logDir)
        .filter((file) => file.startsWith('invocation-'))
        .map((file) => JSON.parse(readFileSync(join(logDir, file), 'utf8')) as Invocation)
    },
  }
}

/** Cursor's usage-limit text, naming a reset date `days` from now (M/D/YYYY, as Cursor writes it). */
export function quotaText(days: number): { stderr: string; resetsAt: number } {
  const date = new Date(Date.now() + days * 86_400_000)
  const [month, day, year] = [date.getUTCMonth() + 1, date.getUTCDate(), date.getUTCFullYear()]
  const stderr = `Error: You've hit your usage limit\nchatMessage: *You've hit your free requests limit. It will reset when your monthly cycle ends on ${month}/${day}/${year}.*`
  return { stderr, resetsAt: Date.UTC(year, month - 1, day) }
}
