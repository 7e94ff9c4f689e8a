// Nothing cursor-agent starts outlives its run or its host: a normal finish, a terminated
// worker_threads Worker, and a host that dies by a signal, with the fake agent run directly and
// under a shell wrapper without `exec` (the real cursor-agent's shape). Processes are counted
// before and after, from Linux `/proc`.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, describe, it } from 'node:test'
import { Worker } from 'node:worker_threads'

import { runCursorAgent } from '../index.js'
import { childrenOf, groupMembers, isAlive, isReaped, killGroupsAfter, waitFor } from './support/process.ts'

const here = __dirname
const agents = join(here, 'support', 'agents')
const fakeAgent = join(agents, 'fake-cursor-agent.mjs')
const wrappedAgent = join(agents, 'wrapped-cursor-agent.sh')
const workerHost = join(here, 'support', 'worker-host.mjs')
const exitHost = join(here, 'support', 'exit-host.mjs')
const hangAgent = join(agents, 'hang-agent.sh')
const linuxOnly = process.platform !== 'linux' ? 'counts processes through Linux /proc' : false

const scratch = mkdtempSync(join(tmpdir(), 'ocn-processes-spec-'))
const workspace = join(scratch, 'ws')
mkdirSync(workspace, { recursive: true })
after(() => rmSync(scratch, { recursive: true, force: true }))

let counter = 0
function freshDir(name: string): string {
  counter += 1
  const dir = join(scratch, `${counter}-${name}`)
  mkdirSync(dir, { recursive: true })
  return dir
}

interface Invocation {
  pid: number
  pgid: number
  grandchildPid?: number
  wrapperPid?: number
}

function invocations(logDir: string): Invocation[] {
  if (!existsSync(logDir)) return []
  return readdirSync(logDir)
    .filter((file) => file.startsWith('invocation-'))
    .map((file) => JSON.parse(readFileSync(join(logDir, file), 'utf8')) as Invocation)
}

/** Every pid an invocation recorded: the agent, its wrapper, its own child. */
function pidsOf(invocation: Invocation): number[] {
  return [invocation.pid, invocation.wrapperPid, invocation.grandchildPid].filter(
    (pid): pid is number => pid !== undefined,
  )
}

function agentEnv(logDir: string, scenario: string): Record<string, string> {
  return {
    PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
    FAKE_CURSOR_LOG_DIR: logDir,
    FAKE_CURSOR_SCENARIO: scenario,
  }
}

/** The watchdog is a child of this process by design and outlives every run; leave it out. */
function isWatchdog(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes("trap '' INT HUP TERM QUIT")
  } catch {
    return false
  }
}

const ownChildren = () => childrenOf(process.pid).filter((pid) => !isWatchdog(pid))

async function until(condition: () => boolean, what: string): Promise<void> {
  if (!(await waitFor(condition, 30_000, 20))) assert.fail(`gave up waiting for ${what}`)
}

// Whatever a failing test left behind.
const seenGroups = killGroupsAfter(after)

const shapes = [
  { name: 'the agent itself', executable: fakeAgent },
  { name: 'a shell wrapper without exec', executable: wrappedAgent },
]

describe('a run leaves nothing behind', { skip: linuxOnly }, () => {
  for (const shape of shapes) {
    it(`a background process the agent left is stopped after a normal finish (${shape.name})`, async () => {
      const logDir = freshDir('background')
      const before = ownChildren()
      const run = runCursorAgent(
        { prompt: 'hi', model: 'auto', workspace, executable: shape.executable, env: agentEnv(logDir, 'background') },
        () => {},
      )
      const result = await run.wait()
      assert.equal(result.error, undefined)
      assert.equal(result.exitCode, 0)
      const [invocation] = invocations(logDir)
      assert.ok(invocation?.grandchildPid, 'the agent recorded its background child')
      seenGroups.add(invocation.pgid)
      await until(() => groupMembers(invocation.pgid).length === 0, `group ${invocation.pgid} to be gone`)
      assert.ok(pidsOf(invocation).every((pid) => !isAlive(pid)))
      await until(() => ownChildren().length === before.length, 'the agent to be reaped')
      assert.deepEqual(ownChildren(), before)
    })
  }
})

describe('a terminated worker leaves nothing behind', { skip: linuxOnly }, () => {
  it('worker.terminate() with four active runs: every agent, wrapper and grandchild is gone, no zombies', async () => {
    const logDir = freshDir('worker')
    const runs = 4
    const before = ownChildren()
    const worker = new Worker(workerHost, {
      workerData: { agent: wrappedAgent, workspace, env: agentEnv(logDir, 'long'), runs, logDir },
    })
    await new Promise<void>((resolve, reject) => {
      worker.once('message', () => resolve())
      worker.once('error', reject)
    })
    const recorded = invocations(logDir)
    assert.equal(recorded.length, runs)
    for (const invocation of recorded) seenGroups.add(invocation.pgid)
    const pids = recorded.flatMap(pidsOf)
    assert.equal(pids.length, runs * 3, 'a wrapper, an agent and a grandchild per run')
    assert.ok(pids.every(isAlive))
    assert.equal(ownChildren().length, before.length + runs, "the wrappers are this process's children")

    await worker.terminate()
    await until(
      () => recorded.every((invocation) => groupMembers(invocation.pgid).length === 0),
      'every group to be gone',
    )
    assert.ok(pids.every((pid) => !isAlive(pid)))
    // The wrappers were children of this process: reaped, not left as zombies.
    await until(() => recorded.every((invocation) => isReaped(invocation.wrapperPid!)), 'the wrappers to be reaped')
    assert.deepEqual(ownChildren(), before)
  })
})

describe('a host that dies by a signal leaves nothing behind', { skip: linuxOnly }, () => {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGKILL'] as const) {
    it(`${signal}: the agent and its whole group are gone`, async () => {
      const pidFile = join(freshDir(signal), 'pids')
      const host = spawn(process.execPath, [exitHost, hangAgent, pidFile, workspace, 'idle'], {
        stdio: ['ignore', 'pipe', 'inherit'],
      })
      const exited = new Promise<NodeJS.Signals | null>((resolve) => host.on('exit', (_code, got) => resolve(got)))
      await new Promise<void>((resolve) => host.stdout!.once('data', () => resolve()))
      const [agentPid, grandchild] = readFileSync(pidFile, 'utf8').trim().split(/\s+/).map(Number)
      seenGroups.add(agentPid!)
      assert.ok(isAlive(agentPid!) && isAlive(grandchild!))
      host.kill(signal)
      assert.equal(await exited, signal)
      await until(() => groupMembers(agentPid!).length === 0, `group ${agentPid} to be gone`)
      assert.ok(!isAlive(agentPid!) && !isAlive(grandchild!))
    })
  }

  // A host killed as its first run starts must still find the agent's group known to the watchdog:
  // started after the agent, the watchdog (a /bin/sh) can be told of it too late.
  it('the watchdog is running before the first agent starts', async () => {
    const pidFile = join(freshDir('watchdog-first'), 'pids')
    const host = spawn(process.execPath, [exitHost, hangAgent, pidFile, workspace, 'idle'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const exited = new Promise<void>((resolve) => host.on('exit', () => resolve()))
    await new Promise<void>((resolve) => host.stdout!.once('data', () => resolve()))
    const [agentPid] = readFileSync(pidFile, 'utf8').trim().split(/\s+/).map(Number)
    seenGroups.add(agentPid!)
    const watchdog = childrenOf(host.pid!).find(isWatchdog)
    const inOrder = watchdog !== undefined && startedBefore(watchdog, agentPid!)
    host.kill('SIGKILL')
    await exited
    assert.ok(watchdog !== undefined, 'the host started a watchdog')
    assert.ok(inOrder, `the watchdog (${watchdog}) started after the agent (${agentPid})`)
    await until(() => groupMembers(agentPid!).length === 0, `group ${agentPid} to be gone`)
  })
})

/** Whether `first` started before `second`: by start time (in clock ticks), then by pid. */
function startedBefore(first: number, second: number): boolean {
  const startOf = (pid: number) => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19])
  }
  const [a, b] = [startOf(first), startOf(second)]
  return a < b || (a === b && first < second)
}
