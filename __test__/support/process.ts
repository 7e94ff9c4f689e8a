// Process checks shared by the specs and the end-to-end harness (Linux `/proc`, signal 0 elsewhere).
import { readFileSync } from 'node:fs'

/** Whether a process still runs: a zombie (exited, not yet reaped by its parent) counts as gone. */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    try {
      process.kill(pid, 0)
      return true
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'EPERM'
    }
  }
}

/** Polls `condition` every `intervalMs` until it holds or `timeoutMs` passes; returns the last answer. */
export async function waitFor(condition: () => boolean, timeoutMs: number, intervalMs = 100): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (condition()) return true
    if (Date.now() > deadline) return false
    await new Promise((done) => setTimeout(done, intervalMs))
  }
}
