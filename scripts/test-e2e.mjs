#!/usr/bin/env node
// Runs the end-to-end files (`npm run test:e2e`, under `node --import tsx`): three at a time, the
// ones that wait in real time first, so that their waits overlap the others' work instead of
// ending the run with one file sleeping alone. Given file paths, runs only those.
//
//   node --import tsx scripts/test-e2e.mjs [file.e2e.ts...]
//
// The test runner of `node --test` sorts the files it is given by name; `run()` keeps this order.
import { readdirSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { run } from 'node:test'
import { tap } from 'node:test/reporters'
import { fileURLToPath } from 'node:url'

const folder = join(dirname(dirname(fileURLToPath(import.meta.url))), '__test__', 'e2e')

/** Files that spend most of their time waiting on a clock rather than working: they start first. */
const WAITS_IN_REAL_TIME = ['tool-mode-realtime.e2e.ts']

// Each file runs in a process of its own and keeps about one OpenCode busy at a time (a server its
// tests share, or one run after another), and now and then waits (on a TUI, a timeout, a clock):
// three files keep two cores busy without starving the suites that run beside them. The files
// that install the package share its packing (support/packing.ts): whichever comes first packs.
const CONCURRENCY = 3

const given = process.argv.slice(2).map((file) => resolve(file))
const all = readdirSync(folder)
  .filter((name) => name.endsWith('.e2e.ts'))
  .sort((a, b) => Number(WAITS_IN_REAL_TIME.includes(b)) - Number(WAITS_IN_REAL_TIME.includes(a)) || a.localeCompare(b))
  .map((name) => join(folder, name))
const files = given.length > 0 ? given : all

const stream = run({ files, concurrency: CONCURRENCY })
stream.on('test:fail', () => {
  process.exitCode = 1
})
stream.compose(tap).pipe(process.stdout)
