// Process checks shared by the specs and the end-to-end harness (Linux `/proc`, signal 0 elsewhere).
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'

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

/** The running (not zombie) members of process group `pgid`, read from Linux `/proc`. */
export function groupMembers(pgid: number): number[] {
  const members: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') members.push(Number(entry))
    } catch {
      // The process ended while we looked.
    }
  }
  return members
}

/**
 * Groups a test saw, SIGKILLed (every running member) after the file: whatever a failing test
 * left behind. Register with `add` as groups appear.
 */
export function killGroupsAfter(register: (hook: () => void) => void): Set<number> {
  const groups = new Set<number>()
  register(() => {
    if (process.platform !== 'linux') return
    for (const pgid of groups) {
      for (const pid of groupMembers(pgid)) {
        try {
          process.kill(pid, 'SIGKILL')
        } catch {}
      }
    }
  })
  return groups
}

/** Whether `pid` is gone for good: not running and not a zombie either (its parent reaped it). */
export function isReaped(pid: number): boolean {
  return !existsSync(`/proc/${pid}`)
}

/** The children of `ppid` (zombies included: they are not reaped yet), from Linux `/proc`. */
export function childrenOf(ppid: number): number[] {
  const children: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (Number(fields[1]) === ppid) children.push(Number(entry))
    } catch {
      // The process ended while we looked.
    }
  }
  return children
}

/**
 * Runs `body` holding `lock` (a folder, made in a folder that exists): test files run in processes
 * side by side, and the first to take the lock does the work the others then wait for. The lock
 * names its holder, so a lock left by a killed run is taken over.
 */
export async function withLock<T>(lock: string, body: () => Promise<T> | T, timeoutMs = 600_000): Promise<T> {
  const holderFile = `${lock}/pid`
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      mkdirSync(lock)
      writeFileSync(holderFile, String(process.pid))
      break
    } catch {
      const holder = Number(existsSync(holderFile) ? readFileSync(holderFile, 'utf8') : Number.NaN)
      if (Number.isInteger(holder) && holder > 0 && !isAlive(holder)) {
        rmSync(lock, { recursive: true, force: true })
        continue
      }
      if (Date.now() > deadline) throw new Error(`${lock} is held for too long; remove it if no test runs`)
      await new Promise((done) => setTimeout(done, 500))
    }
  }
  try {
    return await body()
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}
