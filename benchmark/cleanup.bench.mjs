// How long until nothing a run started is left: after a run ends (the agent left `sleep 300 &`
// behind), and after its host dies by a signal (the watchdog's case). Linux (/proc) only.
// Build first, then `node benchmark/cleanup.bench.mjs` (or `npm run bench -- cleanup`).
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const { runCursorAgent } = require('../index.js')

const here = dirname(fileURLToPath(import.meta.url))
const agents = join(here, '..', '__test__', 'support', 'agents')
const exitHost = join(here, '..', '__test__', 'support', 'exit-host.mjs')
const scratch = mkdtempSync(join(tmpdir(), 'ocn-cleanup-bench-'))
const RUNS = Number(process.env.BENCH_CLEANUP_RUNS ?? 20)
const HOST_KILLS = Number(process.env.BENCH_CLEANUP_HOST_KILLS ?? 5)

if (process.platform !== 'linux') {
  console.log('skipped: counts processes through Linux /proc')
  process.exit(0)
}

/** Running (not zombie) members of a process group. */
function members(pgid) {
  let count = 0
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') count += 1
    } catch {}
  }
  return count
}

/** Milliseconds from now until the group has no running member (polled every 5 ms). */
async function untilGone(pgid, limitMs = 30_000) {
  const start = performance.now()
  while (members(pgid) > 0) {
    if (performance.now() - start > limitMs) throw new Error(`group ${pgid} still runs after ${limitMs} ms`)
    await new Promise((done) => setTimeout(done, 5))
  }
  return performance.now() - start
}

function summary(values) {
  const s = [...values].sort((a, b) => a - b)
  const at = (p) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))].toFixed(1)
  return `p50 ${at(50)} ms, max ${s.at(-1).toFixed(1)} ms (n=${s.length})`
}

const env = { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, FAKE_CURSOR_SCENARIO: 'background' }
const afterRun = []
for (let index = 0; index < RUNS; index += 1) {
  const logDir = join(scratch, `run-${index}`)
  const run = runCursorAgent(
    {
      prompt: 'hi',
      model: 'auto',
      workspace: scratch,
      executable: join(agents, 'fake-cursor-agent.mjs'),
      env: { ...env, FAKE_CURSOR_LOG_DIR: logDir },
    },
    () => {},
  )
  await run.wait()
  const [file] = readdirSync(logDir).filter((name) => name.startsWith('invocation-'))
  const { pgid } = JSON.parse(readFileSync(join(logDir, file), 'utf8'))
  afterRun.push(await untilGone(pgid))
}
console.log(`group gone after wait() resolved (background child left): ${summary(afterRun)}`)

for (const signal of ['SIGTERM', 'SIGKILL']) {
  const afterHost = []
  for (let index = 0; index < HOST_KILLS; index += 1) {
    const pidFile = join(scratch, `host-${signal}-${index}`)
    const host = spawn(process.execPath, [exitHost, join(agents, 'hang-agent.sh'), pidFile, scratch, 'idle'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const exited = new Promise((done) => host.once('exit', done))
    await new Promise((done) => host.stdout.once('data', done))
    const [pgid] = readFileSync(pidFile, 'utf8').trim().split(/\s+/).map(Number)
    host.kill(signal)
    await exited
    afterHost.push(await untilGone(pgid))
  }
  console.log(`group gone after the host died by ${signal}: ${summary(afterHost)}`)
}
if (existsSync(scratch)) rmSync(scratch, { recursive: true, force: true })
