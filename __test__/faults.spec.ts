// runCursorAgent under faults, bad input and load: agents that die mid-line, crash, hang, flood
// stderr, close stdout, leave a grandchild on the pipe or ignore SIGTERM; a consumer that throws
// or is slow; a resumed run that never names its chat; an over-long record; a host out of file
// descriptors; relative PATH entries and executables. Each fault test asserts the outcome, that
// the text printed before the fault arrived, and that no process of the run is left.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, describe, it } from 'node:test'

import { listCursorModels, runCursorAgent, setLogging } from '../index.js'
import type { RunResult } from '../index.js'
import { groupMembers, isAlive, waitFor } from './support/process.ts'
import { answerOf, partsOf } from './support/stream.ts'

type RunCursorAgentOptions = Parameters<typeof runCursorAgent>[0]
type Output = string | Record<string, any>

const linuxOnly = process.platform !== 'linux' ? 'needs Linux /proc and POSIX shells' : false
const addon = join(__dirname, '..', 'index.js')
const scratch = mkdtempSync(join(tmpdir(), 'ocn-faults-'))
const workspace = join(scratch, 'ws')
mkdirSync(workspace, { recursive: true })
after(() => rmSync(scratch, { recursive: true, force: true }))

let counter = 0
function tmpFile(name: string): string {
  counter += 1
  return join(scratch, `${counter}-${name}`)
}

/** Writes an executable agent script; `body` runs after the prompt was read. */
function agent(name: string, body: string, interpreter = '/bin/sh'): string {
  const file = tmpFile(name)
  const read = interpreter === '/bin/sh' ? 'cat > /dev/null\n' : ''
  writeFileSync(file, `#!${interpreter}\n${read}${body}\n`)
  chmodSync(file, 0o755)
  return file
}

const INIT = '{"type":"system","subtype":"init","session_id":"s-1","model":"Auto"}'
function deltaLine(text: string, session = true): string {
  const sid = session ? ',"session_id":"s-1"' : ''
  return `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":${JSON.stringify(text)}}]}${sid},"timestamp_ms":1}`
}
const RESULT = '{"type":"result","subtype":"success","is_error":false,"result":"","session_id":"s-1"}'
/** Shell `printf` of whole lines (single-quoted: the texts used here hold no single quote). */
function printLines(...lines: string[]): string {
  return lines.map((l) => `printf '%s\\n' '${l}'`).join('\n')
}

function agentEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, ...extra }
}

interface Collected {
  batches: Output[][]
  result: RunResult
}

/** Runs to the end; `onEach` sees every batch so far after each `onOutput` call. */
async function collect(options: RunCursorAgentOptions, onEach?: (batches: Output[][]) => void): Promise<Collected> {
  const batches: Output[][] = []
  const run = runCursorAgent(options, (outputs) => {
    batches.push(outputs)
    onEach?.(batches)
  })
  return { batches, result: await run.wait() }
}

function base(executable: string, extra: Partial<RunCursorAgentOptions> = {}): RunCursorAgentOptions {
  return { prompt: 'Say hi', model: 'auto', workspace, executable, ...extra }
}

function readPids(file: string): number[] {
  if (!existsSync(file)) return []
  return readFileSync(file, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
}

/** Every pid written to `pidFile`, and every member of their groups, is gone (zombies count as gone). */
async function assertNothingLeft(pidFile: string): Promise<void> {
  const pids = readPids(pidFile)
  assert.ok(pids.length > 0, 'the agent wrote its pid')
  const gone = await waitFor(() => pids.every((p) => !isAlive(p) && groupMembers(p).length === 0), 30000, 50)
  if (!gone) {
    for (const p of pids) if (isAlive(p)) process.kill(p, 'SIGKILL')
    assert.fail(`processes left: ${pids.filter(isAlive).join(' ')}`)
  }
}

describe('faults: every ending is reported, text before it delivered, nothing left', { skip: linuxOnly }, () => {
  it('the agent exits mid-line: E_AGENT_EXIT, the text before delivered, the cut line dropped', async () => {
    const pidFile = tmpFile('pid')
    const exe = agent(
      'cut.sh',
      `echo $$ > "$PID_FILE"\n${printLines(INIT, deltaLine('before the cut'))}\nprintf '%s' '${deltaLine('CUT')}'\nexit 3`,
    )
    const { batches, result } = await collect(base(exe, { env: agentEnv({ PID_FILE: pidFile }) }))
    assert.equal(result.error?.code, 'E_AGENT_EXIT')
    assert.equal(result.exitCode, 3)
    assert.equal(answerOf(partsOf(batches)), 'before the cut')
    await assertNothingLeft(pidFile)
  })

  it('the agent dies by SIGSEGV: E_AGENT_EXIT naming the signal', async () => {
    const pidFile = tmpFile('pid')
    const exe = agent('segv.sh', `echo $$ > "$PID_FILE"\n${printLines(INIT, deltaLine('crashing'))}\nkill -SEGV $$`)
    const { batches, result } = await collect(base(exe, { env: agentEnv({ PID_FILE: pidFile }) }))
    assert.equal(result.error?.code, 'E_AGENT_EXIT')
    assert.equal(result.signal, 'SIGSEGV')
    assert.equal(answerOf(partsOf(batches)), 'crashing')
    await assertNothingLeft(pidFile)
  })

  it('a silent hang ends with E_TIMEOUT', async () => {
    const pidFile = tmpFile('pid')
    const exe = agent(
      'silent.sh',
      `echo $$ > "$PID_FILE"\n${printLines(INIT, deltaLine('thinking...'))}\nsleep 1000 & wait`,
    )
    // The limit counts from the agent's start: long enough for a busy machine to print first.
    const { batches, result } = await collect(base(exe, { idleTimeoutMs: 2_000, env: agentEnv({ PID_FILE: pidFile }) }))
    assert.equal(result.error?.code, 'E_TIMEOUT')
    assert.equal(answerOf(partsOf(batches)), 'thinking...')
    await assertNothingLeft(pidFile)
  })

  it('100 MB of stderr: a success stays one; on a failure only a capped tail is quoted', async () => {
    for (const exit of [0, 1]) {
      const pidFile = tmpFile('pid')
      const exe = agent(
        'stderr-flood.sh',
        `echo $$ > "$PID_FILE"\n${printLines(INIT, deltaLine('despite the noise'))}\n` +
          `head -c 104857600 /dev/zero | tr '\\0' 'e' >&2\necho >&2\n${exit === 0 ? printLines(RESULT) : ''}\nexit ${exit}`,
      )
      const { batches, result } = await collect(base(exe, { env: agentEnv({ PID_FILE: pidFile }) }))
      assert.equal(answerOf(partsOf(batches)), 'despite the noise')
      if (exit === 0) {
        assert.equal(result.error, undefined)
      } else {
        assert.equal(result.error?.code, 'E_AGENT_EXIT')
        assert.ok((result.error?.agentOutput ?? '').length < 1024 * 1024, 'the quoted stderr is a capped tail')
      }
      await assertNothingLeft(pidFile)
    }
  })

  it('stdout closed while the agent keeps running: the run ends at its exit', async () => {
    const pidFile = tmpFile('pid')
    const exe = agent(
      'close-stdout.sh',
      `echo $$ > "$PID_FILE"\n${printLines(INIT, deltaLine('said before closing'), RESULT)}\nexec 1>&-\nsleep 1\nexit 0`,
    )
    const { batches, result } = await collect(base(exe, { env: agentEnv({ PID_FILE: pidFile }) }))
    assert.equal(result.error, undefined)
    assert.equal(result.exitCode, 0)
    assert.equal(answerOf(partsOf(batches)), 'said before closing')
    await assertNothingLeft(pidFile)
  })

  it('a grandchild holding the pipe: the run ends when the agent exits and the group is stopped', async () => {
    const pidFile = tmpFile('pid')
    const exe = agent(
      'grandchild.sh',
      `sleep 1000 &\necho "$$ $!" > "$PID_FILE"\n${printLines(INIT, deltaLine('left a sleeper'), RESULT)}\nexit 0`,
    )
    const { batches, result } = await collect(base(exe, { env: agentEnv({ PID_FILE: pidFile }) }))
    assert.equal(result.error, undefined)
    assert.equal(answerOf(partsOf(batches)), 'left a sleeper')
    assert.equal(readPids(pidFile).length, 2)
    await assertNothingLeft(pidFile)
  })

  it('SIGTERM ignored: cancel() ends with SIGKILL after the grace period', async () => {
    const pidFile = tmpFile('pid')
    const exe = agent(
      'stubborn.sh',
      `trap '' TERM\n${printLines(INIT, deltaLine('not stopping'))}\necho $$ > "$PID_FILE"\nwhile :; do sleep 1; done`,
    )
    const batches: Output[][] = []
    const run = runCursorAgent(base(exe, { env: agentEnv({ PID_FILE: pidFile }) }), (o) => {
      batches.push(o)
    })
    assert.ok(await waitFor(() => readPids(pidFile).length === 1 && answerOf(partsOf(batches)) !== '', 30000, 20))
    run.cancel()
    const result = await run.wait()
    assert.equal(result.cancelled, true)
    assert.equal(result.signal, 'SIGKILL')
    assert.equal(answerOf(partsOf(batches)), 'not stopping')
    await assertNothingLeft(pidFile)
  })
})

describe('secrets cursor-agent prints on stderr', { skip: linuxOnly }, () => {
  const key = 'key_live_0123456789abcdefghijklmnop'
  /** Every piece of the key of eight characters or more. */
  function assertNoPiece(text: string, where: string): void {
    for (let at = 0; at + 8 <= key.length; at += 1) {
      assert.ok(!text.includes(key.slice(at, at + 8)), `${where} holds a piece of the key: ${text.slice(0, 300)}`)
    }
  }

  it('are masked in the error and in the log file', async () => {
    const log = tmpFile('secrets.log')
    setLogging({ level: 'warn', file: log })
    try {
      const exe = agent('prints-key.sh', 'echo "Error: request failed with key $CURSOR_API_KEY" >&2\nexit 1')
      const { result } = await collect(base(exe, { env: agentEnv({ CURSOR_API_KEY: key }) }))
      assert.equal(result.error?.code, 'E_AGENT_EXIT')
      assert.match(result.error?.agentOutput ?? '', /with key \[masked CURSOR_API_KEY\]/)
      assertNoPiece(JSON.stringify(result.error), 'the error')
      const logged = readFileSync(log, 'utf8')
      assert.match(logged, /\[masked CURSOR_API_KEY\]/)
      assertNoPiece(logged, 'the log')
    } finally {
      setLogging({ level: 'off' })
    }
  })

  it('a key cut where the kept stderr tail begins, or where a quoted line is clipped, is masked', async () => {
    // The tail keeps the newest 64 KiB of a line with no break: it begins 12 characters before
    // the key's end. A quoted line is clipped at 400 characters: 10 of the key's remain.
    const cases = [
      [
        `printf '%s' "$CURSOR_API_KEY" >&2\nhead -c ${64 * 1024 - 12} /dev/zero | tr '\\0' 'e' >&2`,
        /^\[masked CURSOR_API_KEY\]e+$/,
      ],
      [`head -c 390 /dev/zero | tr '\\0' 'e' >&2\necho "$CURSOR_API_KEY" >&2`, /^e{390}\[masked/],
    ] as const
    for (const [print, quoted] of cases) {
      const exe = agent('cut-key.sh', `${print}\nexit 1`)
      const { result } = await collect(base(exe, { env: agentEnv({ CURSOR_API_KEY: key }) }))
      assert.equal(result.error?.code, 'E_AGENT_EXIT')
      assert.match(result.error?.agentOutput ?? '', quoted)
      assertNoPiece(JSON.stringify(result.error), 'the error')
    }
  })
})

describe('the consumer', { skip: linuxOnly }, () => {
  it('a callback that throws on the first batch of a short run is always E_CALLBACK', async () => {
    const exe = agent('short.sh', printLines(INIT, deltaLine('quick'), RESULT))
    for (let i = 0; i < 25; i += 1) {
      let calls = 0
      const run = runCursorAgent(base(exe, { env: agentEnv() }), () => {
        calls += 1
        throw new Error(`consumer broke ${i}`)
      })
      const result = await run.wait()
      assert.equal(result.error?.code, 'E_CALLBACK', `run ${i}`)
      assert.match(result.error!.message, new RegExp(`consumer broke ${i}`))
      assert.equal(calls, 1, 'no batch is delivered after the callback threw')
    }
  })

  it('a slow consumer still lets the event loop turn between two onOutput calls', async () => {
    // The agent writes its words in groups, one line per write, and starts a group only after the
    // consumer has seen the whole group before it: at least one call per group, however the
    // machine's load coalesces the reads in between.
    const GROUPS = 4
    const PER_GROUP = 100
    const lines = Array.from({ length: GROUPS * PER_GROUP }, (_, i) => deltaLine(`w${i} `))
    const gate = (group: number) => tmpFile(`seen-${group}`)
    const gates = Array.from({ length: GROUPS }, (_, g) => gate(g))
    const groups = gates.map((seen, g) => {
      const replay = tmpFile(`group-${g}.ndjson`)
      writeFileSync(replay, `${lines.slice(g * PER_GROUP, (g + 1) * PER_GROUP).join('\n')}\n`)
      return `while IFS= read -r line; do printf '%s\\n' "$line"; done < '${replay}'\nn=0; until [ -e '${seen}' ] || [ $n -ge 3000 ]; do sleep 0.01; n=$((n+1)); done`
    })
    const exe = agent('many.sh', `${printLines(INIT)}\n${groups.join('\n')}\n${printLines(RESULT)}`)
    let immediateRan = true
    const missed: number[] = []
    let calls = 0
    const { batches, result } = await collect(base(exe, { env: agentEnv() }), (seen) => {
      calls += 1
      if (!immediateRan) missed.push(calls)
      immediateRan = false
      setImmediate(() => {
        immediateRan = true
      })
      const words = answerOf(partsOf(seen)).split(' ').length - 1
      for (let g = 0; g < GROUPS && words >= (g + 1) * PER_GROUP; g++) writeFileSync(gates[g] as string, '')
      const until = Date.now() + 2
      while (Date.now() < until) {
        // a consumer slower than the agent
      }
    })
    assert.equal(result.error, undefined)
    assert.ok(calls >= GROUPS, `one call per group at least (${calls})`)
    assert.deepEqual(missed, [], 'a setImmediate from one call runs before the next call')
    assert.equal(answerOf(partsOf(batches)), lines.map((_, i) => `w${i} `).join(''))
  })
})

describe('bounded batches and counted records', { skip: linuxOnly }, () => {
  it('a resumed run that never names its chat is held only up to a bound, then streams', async () => {
    // 8 MB of deltas without a session id, after a --resume: not one batch at the end.
    const chunk = 'x'.repeat(8000)
    const script = `const line = ${JSON.stringify(deltaLine(chunk, false))} + '\\n'
process.stdin.resume(); process.stdin.on('end', () => {
  let left = 1000
  const write = () => {
    while (left > 0) { left -= 1; if (!process.stdout.write(line)) return process.stdout.once('drain', write) }
    process.stdout.write(${JSON.stringify(RESULT.replace('"session_id":"s-1"', '"duration_ms":1'))} + '\\n')
  }
  write()
})`
    const exe = agent('no-session.mjs', script, '/usr/bin/env node')
    const { batches, result } = await collect(base(exe, { resumeChatId: 'chat-1', env: agentEnv() }))
    assert.equal(result.error, undefined)
    assert.equal(answerOf(partsOf(batches)).length, 8000 * 1000)
    const largest = Math.max(...batches.map((b) => answerOf(b as Record<string, any>[]).length))
    // The bound alone splits the 8 MB into four batches at least; how many more depends on how
    // the machine's load coalesces reads, so no count is asserted beyond it.
    assert.ok(largest <= 2 * 1024 * 1024, `the largest batch held ${largest} characters of text`)
  })

  it('an over-long record is skipped and counted, not an error (70 MB against the 64 MiB cap)', async () => {
    const exe = agent(
      'long-line.sh',
      `${printLines(INIT, deltaLine('before'))}\nhead -c 73400320 /dev/zero | tr '\\0' 'y'\necho\n${printLines(deltaLine(' after'), RESULT)}`,
    )
    const { batches, result } = await collect(base(exe, { env: agentEnv() }))
    assert.equal(result.error, undefined)
    assert.equal(result.exitCode, 0)
    assert.equal(result.skippedLines, 1)
    assert.equal(answerOf(partsOf(batches)), 'before after')
  })

  it('skippedLines is 0 when every record was usable', async () => {
    const exe = agent('clean.sh', printLines(INIT, deltaLine('fine'), RESULT))
    const { result } = await collect(base(exe, { env: agentEnv() }))
    assert.equal(result.skippedLines, 0)
  })

  it('`cursor-agent models` printing over 4 MB is read to its end without stalling', async () => {
    const exe = agent(
      'big-models.sh',
      `printf 'auto - Auto\\nbig-model - Big Model\\n'\nhead -c 6291456 /dev/zero | tr '\\0' 'z'\necho`,
    )
    const models = await listCursorModels({ executable: exe, env: agentEnv() })
    assert.deepEqual(
      models.map((m) => m.id),
      ['auto', 'big-model'],
    )
  })
})

describe('wrong codes and NUL', { skip: linuxOnly }, () => {
  it('a NUL in any option that reaches the command line or the environment is E_INVALID_ARG', () => {
    const exe = agent('never.sh', 'exit 9')
    const cases: [string, Partial<RunCursorAgentOptions>][] = [
      ['model', { model: 'gpt\0-5' }],
      ['executable', { executable: `${exe}\0x` }],
      ['extraArgs', { extraArgs: ['a\0b'] }],
      ['env', { env: { A: 'x\0y' } }],
      ['id', { id: 'c\0' }],
    ]
    for (const [name, change] of cases) {
      assert.throws(
        () => runCursorAgent(base(exe, change), () => {}),
        (e: any) => e.code === 'E_INVALID_ARG' && e.message.includes(name),
        name,
      )
    }
    assert.throws(
      () => listCursorModels({ executable: `${exe}\0` }),
      (e: any) => e.code === 'E_INVALID_ARG' && e.message.includes('executable'),
    )
  })

  it('running out of file descriptors is E_AGENT_EXIT naming the OS error, not "not found"', () => {
    const exe = agent('fine.sh', printLines(INIT, deltaLine('hi'), RESULT))
    const host = `
const fs = require('node:fs')
const { runCursorAgent } = require(${JSON.stringify(addon)})
const fds = []
try { for (;;) fds.push(fs.openSync('/dev/null', 'r')) } catch {}
const run = runCursorAgent({ prompt: 'hi', model: 'auto', workspace: ${JSON.stringify(workspace)}, executable: ${JSON.stringify(exe)} }, () => {})
run.wait().then((r) => { for (const fd of fds) fs.closeSync(fd); fs.writeSync(1, JSON.stringify(r.error ?? null)); process.exit(0) })
`
    const out = spawnSync(
      '/bin/sh',
      ['-c', `ulimit -n 256 && exec "${process.execPath}" -e '${host.replace(/'/g, `'\\''`)}'`],
      {
        encoding: 'utf8',
        timeout: 60000,
      },
    )
    assert.equal(out.status, 0, out.stderr)
    const error = JSON.parse(out.stdout)
    assert.equal(error?.code, 'E_AGENT_EXIT', out.stdout)
    assert.match(error.message, /Too many open files/)
    assert.doesNotMatch(error.message, /Reinstall/)
  })
})

describe('the binary that is checked is the binary that runs', { skip: linuxOnly }, () => {
  /** A host folder and a workspace, each with its own `cursor-agent` and `bin/agent.sh` telling which ran. */
  function twoCopies(): { hostDir: string; repo: string; marker: string } {
    const hostDir = tmpFile('host')
    const repo = tmpFile('repo')
    const marker = tmpFile('ran')
    for (const [dir, who] of [
      [hostDir, 'host'],
      [repo, 'planted'],
    ]) {
      mkdirSync(join(dir, 'bin'), { recursive: true })
      const body = `#!/bin/sh\ncat > /dev/null\necho ${who} >> '${marker}'\n${printLines(INIT, deltaLine(who), RESULT)}\n`
      for (const file of [join(dir, 'cursor-agent'), join(dir, 'bin', 'agent.sh')]) {
        writeFileSync(file, body)
        chmodSync(file, 0o755)
      }
    }
    return { hostDir, repo, marker }
  }

  function runFrom(hostDir: string, options: Record<string, unknown>): any {
    const host = `
const { runCursorAgent } = require(${JSON.stringify(addon)})
const run = runCursorAgent(${JSON.stringify({ prompt: 'hi', model: 'auto', ...options })}, () => {})
run.wait().then((r) => { process.stdout.write(JSON.stringify(r)); process.exit(0) })
`
    const out = spawnSync(process.execPath, ['-e', host], { cwd: hostDir, encoding: 'utf8', timeout: 60000 })
    assert.equal(out.status, 0, out.stderr)
    return JSON.parse(out.stdout)
  }

  it('a relative PATH entry is skipped: the copy planted in the workspace never runs', () => {
    const { hostDir, repo, marker } = twoCopies()
    const result = runFrom(hostDir, { workspace: repo, env: { PATH: '.:/usr/bin:/bin' } })
    assert.equal(existsSync(marker) ? readFileSync(marker, 'utf8') : '', '')
    assert.equal(result.error?.code, 'E_AGENT_NOT_FOUND')
    assert.match(result.error.message, /relative PATH entry, skipped/)
  })

  it('a relative executable runs as the absolute path it was checked as', () => {
    const { hostDir, repo, marker } = twoCopies()
    const result = runFrom(hostDir, { workspace: repo, executable: './bin/agent.sh', env: agentEnv() })
    assert.equal(result.error, undefined)
    assert.equal(readFileSync(marker, 'utf8'), 'host\n')
  })
})
