#!/usr/bin/env node
// Fake cursor-agent for the capture tests (capture.spec.ts): prints a file's bytes on stdout
// exactly as they are, with nothing added or decoded, so a stream can end in a record without
// its line feed, or hold bytes that are not valid UTF-8 (replay-agent.mjs reads its file as
// UTF-8 lines and ends each with a line feed, so it can do neither).
//
// Environment:
//   FAKE_AGENT_RAW     file whose bytes go to stdout (default: nothing)
//   FAKE_AGENT_STDERR  text written to stderr before exiting
//   FAKE_AGENT_EXIT    exit code (default 0)
import { readFileSync } from 'node:fs'

const env = process.env
// The prompt is read whole first, as cursor-agent does.
for await (const _ of process.stdin);
if (env.FAKE_AGENT_RAW) {
  const bytes = readFileSync(env.FAKE_AGENT_RAW)
  await new Promise((done) => (process.stdout.write(bytes) ? done(undefined) : process.stdout.once('drain', done)))
}
if (env.FAKE_AGENT_STDERR) process.stderr.write(env.FAKE_AGENT_STDERR)
process.exitCode = Number(env.FAKE_AGENT_EXIT ?? 0)
