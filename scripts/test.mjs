#!/usr/bin/env node
// Runs npm scripts side by side, in chains of stages, and reports them one after the other: `npm
// test` is (see package.json)
//
//   node scripts/test.mjs build:test then test:e2e test:node test:bun typecheck also test:rust
//
// The scripts of a stage run at once; `then` starts the next stage of its chain once all of them
// ended, unless one of them failed (as `&&` would). `also` begins another chain, which runs beside
// the first from the start. Each script runs in its own process group, its output (stdout and
// stderr together) held until it ends and then printed in one piece, so that outputs never
// interleave. The exit status is non-zero when any failed. Ctrl+C (or SIGTERM) stops them all.
import { spawn } from 'node:child_process'

const words = process.argv.slice(2)
/** `a b then c` split at `then`: [[a, b], [c]]. */
function split(list, separator) {
  const parts = [[]]
  for (const word of list) {
    if (word === separator) parts.push([])
    else parts.at(-1).push(word)
  }
  return parts
}
const chains = split(words, 'also').map((chain) => split(chain, 'then'))
if (chains.some((chain) => chain.some((stage) => stage.length === 0))) {
  console.error('usage: node scripts/test.mjs <npm script>... [then <npm script>...]... [also <npm script>...]...')
  process.exit(2)
}

// Under npm, npm_execpath is the npm that runs us: the same one runs the scripts.
const npm = process.env.npm_execpath
const command = (name) =>
  npm?.endsWith('.js') || npm?.endsWith('.cjs')
    ? { file: process.execPath, args: [npm, 'run', name] }
    : { file: process.platform === 'win32' ? 'npm.cmd' : 'npm', args: ['run', name] }

const seconds = (ms) => `${Math.round(ms / 1000)} s`
const started = Date.now()
const children = new Set()

function run(name) {
  return new Promise((settle) => {
    const { file, args } = command(name)
    const begun = Date.now()
    const child = spawn(file, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
      shell: process.platform === 'win32',
    })
    children.add(child)
    const output = []
    child.stdout.on('data', (chunk) => output.push(chunk))
    child.stderr.on('data', (chunk) => output.push(chunk))
    let finished = false
    const finish = (code, signal, error) => {
      if (finished) return
      finished = true
      children.delete(child)
      const ms = Date.now() - begun
      const ok = code === 0 && !error
      const status = ok
        ? `passed in ${seconds(ms)}`
        : `FAILED (${error ? error.message : signal ? `signal ${signal}` : `exit ${code}`}) after ${seconds(ms)}`
      process.stdout.write(`\n━━━━ npm run ${name} ━━━━\n`)
      process.stdout.write(Buffer.concat(output))
      process.stdout.write(`━━━━ npm run ${name}: ${status} ━━━━\n`)
      settle({ name, ok, status })
    }
    child.once('error', (error) => finish(null, null, error))
    child.once('close', (code, signal) => finish(code, signal))
    process.stdout.write(`started: npm run ${name}\n`)
  })
}

function stopAll(signal) {
  for (const child of children) {
    try {
      if (process.platform === 'win32') child.kill()
      else process.kill(-child.pid, 'SIGTERM')
    } catch {
      // Already gone.
    }
  }
  process.exit(signal === 'SIGINT' ? 130 : 143)
}
process.once('SIGINT', () => stopAll('SIGINT'))
process.once('SIGTERM', () => stopAll('SIGTERM'))

async function runChain(stages) {
  const results = []
  for (const stage of stages) {
    if (results.some((result) => !result.ok)) {
      results.push(...stage.map((name) => ({ name, ok: false, status: 'not run (an earlier stage failed)' })))
      continue
    }
    results.push(...(await Promise.all(stage.map(run))))
  }
  return results
}

const results = (await Promise.all(chains.map(runChain))).flat()
process.stdout.write(`\n${results.map(({ name, status }) => `  ${name.padEnd(12)} ${status}`).join('\n')}\n`)
process.stdout.write(`all of them in ${seconds(Date.now() - started)}\n`)
process.exitCode = results.every((result) => result.ok) ? 0 : 1
