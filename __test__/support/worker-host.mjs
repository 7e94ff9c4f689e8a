// A worker_threads host: starts `runs` runs of the given agent, which never finish, and posts
// 'started' once each agent recorded its invocation. The test then terminates the worker.
import { existsSync, readdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { parentPort, workerData } from 'node:worker_threads'

const require = createRequire(import.meta.url)
const { runCursorAgent } = require('../../index.js')
const { agent, workspace, env, runs, logDir } = workerData

for (let index = 0; index < runs; index += 1) {
  runCursorAgent({ prompt: `run ${index}`, model: 'auto', workspace, executable: agent, env }, () => {})
}
const timer = setInterval(() => {
  const recorded = existsSync(logDir) ? readdirSync(logDir).filter((file) => file.startsWith('invocation-')) : []
  if (recorded.length < runs) return
  clearInterval(timer)
  parentPort.postMessage('started')
}, 10)
