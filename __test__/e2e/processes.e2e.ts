// The real OpenCode CLI (1.18.33) with the plugin: nothing cursor-agent started outlives the run
// or OpenCode, however OpenCode ends. The agent runs under a shell wrapper without `exec`, the
// real cursor-agent's shape, so the agent proper is a grandchild in the wrapper's process group.
// Needs `npm run build` first.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { groupMembers, killGroupsAfter } from '../support/process.ts'
import { e2eFile } from '../support/e2e.ts'
import { isAlive, REPO_ROOT, waitFor, type Invocation, type Sandbox } from '../support/opencode.ts'

const MODEL = 'cursor-acp/auto'
const WRAPPED_AGENT = join(REPO_ROOT, '__test__', 'support', 'agents', 'wrapped-cursor-agent.sh')
const linuxOnly = process.platform !== 'linux' ? 'the OpenCode harness and /proc are Linux only' : false
const e2e = e2eFile()

// Whatever a failing test left behind.
const seenGroups = killGroupsAfter(after)

async function sandboxWith(scenario: string): Promise<Sandbox> {
  return e2e.sandbox({ env: { FAKE_CURSOR_SCENARIO: scenario }, agentExecutable: WRAPPED_AGENT })
}

/** Every pid the run recorded (wrapper, agent, the agent's own child), and its group. */
function recorded(invocation: Invocation): { pids: number[]; pgid: number } {
  const pids = [invocation.wrapperPid, invocation.pid, invocation.grandchildPid].filter(
    (pid): pid is number => pid !== undefined,
  )
  assert.equal(pids.length, 3, `wrapper, agent and child recorded: ${JSON.stringify(invocation)}`)
  assert.equal(invocation.pgid, invocation.wrapperPid, 'the wrapper leads the group')
  seenGroups.add(invocation.pgid!)
  return { pids, pgid: invocation.pgid! }
}

async function firstInvocation(sandbox: Sandbox, why: () => string): Promise<Invocation> {
  const started = await waitFor(() => sandbox.invocations().length > 0, 60_000, 50)
  assert.ok(started, `cursor-agent never started\n${why()}`)
  return sandbox.invocations()[0]!
}

async function assertAllGone({ pids, pgid }: { pids: number[]; pgid: number }, what: string): Promise<void> {
  const gone = await waitFor(() => groupMembers(pgid).length === 0 && pids.every((pid) => !isAlive(pid)), 30_000, 50)
  assert.ok(gone, `${what}: still running in group ${pgid}: ${groupMembers(pgid).join(', ')}`)
}

describe('nothing cursor-agent started outlives the run or OpenCode', { skip: linuxOnly }, () => {
  test('opencode run, normal finish: a background process the agent left is stopped', async () => {
    const sandbox = await sandboxWith('background')
    const result = await sandbox.run(['run', '--format', 'json', '--model', MODEL, 'say', 'hi'])
    assert.equal(result.code, 0, result.stderr)
    const [invocation] = sandbox.invocations()
    assert.ok(invocation, 'cursor-agent ran')
    await assertAllGone(recorded(invocation), 'after a normal finish')
  })

  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGKILL'] as const) {
    test(`opencode run ended by ${signal} while the agent runs`, async () => {
      const sandbox = await sandboxWith('long')
      // Its own group, as a shell would start it; only OpenCode itself gets the signal.
      const child = spawn(e2e.binary(), ['run', '--format', 'json', '--model', MODEL, 'work', 'long'], {
        cwd: sandbox.workspace,
        env: sandbox.env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let output = ''
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
      try {
        const family = recorded(await firstInvocation(sandbox, () => output))
        assert.ok(family.pids.every(isAlive))
        child.kill(signal)
        await exited
        await assertAllGone(family, `after ${signal}`)
      } finally {
        try {
          process.kill(-child.pid!, 'SIGKILL')
        } catch {}
      }
    })
  }

  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    test(`opencode serve ended by ${signal} during a request`, async () => {
      const sandbox = await sandboxWith('long')
      const server = await sandbox.serve()
      const session = await server.createSession()
      // Never answered: the server dies under it.
      server.prompt(session, 'work long').catch(() => {})
      const family = recorded(await firstInvocation(sandbox, () => server.output()))
      assert.ok(family.pids.every(isAlive))
      process.kill(server.pid, signal)
      await assertAllGone(family, `after ${signal}`)
      await server.close()
    })
  }
})
