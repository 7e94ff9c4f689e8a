// runCursorAgent, resolveCursorAgent and listCursorModels against fake cursor-agent executables
// (__test__/support/agents/*). Expected outputs come from the real capture's expected file and the
// documented finish rules (index.d.ts, docs/how-it-works.md, docs/troubleshooting.md), never from
// the code under test.
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, describe, it } from 'node:test'

import {
  cursorModelToRun,
  describeCursorModel,
  groupCursorModels,
  listCursorModels,
  resolveCursorAgent,
  runCursorAgent,
  runCursorAgentCommand,
  StreamTransformer,
} from '../index.js'
import type { RunResult } from '../index.js'
import { captureExpectation, capturesDir } from './support/captures.ts'
import { isAlive, waitFor } from './support/process.ts'
import { answerOf, fixture, partsOf, randomChunks, sseContentOf } from './support/stream.ts'

type RunCursorAgentOptions = Parameters<typeof runCursorAgent>[0]

const here = __dirname
const agents = join(here, 'support', 'agents')
const replayAgent = join(agents, 'replay-agent.mjs')
const hangAgent = join(agents, 'hang-agent.sh')
const floodAgent = join(agents, 'stderr-flood-agent.sh')
const authAgent = join(agents, 'auth-fail-agent.sh')
const modelsAgent = join(agents, 'models-agent.sh')
const exitHost = join(here, 'support', 'exit-host.mjs')
const capture = join(capturesDir, 'maestro', '04_partial_output.jsonl')
const captureLocal = join(agents, 'tool-open.ndjson')

// What capture 04 must show, from its expected file: the visible text exactly once (its `result`
// text), its chat id and usage.
const expected = captureExpectation('maestro/04_partial_output.jsonl')
const CAPTURE_SESSION = expected.sessionId
const CAPTURE_TEXT = expected.resultText
const CAPTURE_USAGE = expected.usage

const scratch = mkdtempSync(join(tmpdir(), 'ocn-agent-spec-'))
const workspace = join(scratch, 'ws')
const emptyDir = join(scratch, 'empty')
for (const d of [workspace, emptyDir]) mkdirSync(d, { recursive: true })
after(() => rmSync(scratch, { recursive: true, force: true }))

let counter = 0
function tmpFile(name: string): string {
  counter += 1
  return join(scratch, `${counter}-${name}`)
}

/** The child's complete environment: only what a fake agent needs, plus the given variables. */
function agentEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, ...extra }
}

type Output = string | Record<string, any>

interface Collected {
  batches: Output[][]
  result: RunResult
  batchesWhenSettled: number
}

async function collect(options: RunCursorAgentOptions, onEach?: () => void): Promise<Collected> {
  const batches: Output[][] = []
  const run = runCursorAgent(options, (outputs) => {
    batches.push(outputs)
    onEach?.()
  })
  const result = await run.wait()
  const batchesWhenSettled = batches.length
  return { batches, result, batchesWhenSettled }
}

async function until(condition: () => boolean, what: string, limitMs = 15000): Promise<void> {
  if (!(await waitFor(condition, limitMs, 20))) assert.fail(`gave up waiting for ${what}`)
}

// Every agent pid a test saw; a failing test must not leave them running.
const seenPids = new Set<number>()
after(() => {
  for (const pid of seenPids) {
    let cmdline = ''
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
    } catch {}
    // only our own leftovers: a pid may have been reused by now
    if (isAlive(pid) && (cmdline.includes('hang-agent') || cmdline === 'sleep\u00001000\u0000')) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {}
    }
  }
})

function readPids(file: string): number[] | null {
  if (!existsSync(file)) return null
  const pids = readFileSync(file, 'utf8').trim().split(/\s+/).map(Number)
  if (!(pids.length >= 1 && pids.every((p) => p > 0))) return null
  for (const pid of pids) seenPids.add(pid)
  return pids
}

function base(extra: Partial<RunCursorAgentOptions> = {}): RunCursorAgentOptions {
  return { prompt: 'Say hi', model: 'auto', workspace, executable: replayAgent, ...extra }
}

describe('runCursorAgent: command line, prompt, environment', () => {
  it('passes the documented arguments, cwd, the complete env, and the prompt on stdin', async () => {
    const record = tmpFile('record.json')
    const { result } = await collect(
      base({
        model: 'cursor-acp/gpt-5',
        env: agentEnv({ FAKE_AGENT_RECORD: record, FAKE_AGENT_MARKER: 'm1', FAKE_AGENT_REPLAY: capture }),
      }),
    )
    assert.equal(result.error, undefined)
    const seen = JSON.parse(readFileSync(record, 'utf8'))
    assert.deepEqual(seen.argv, [
      '--print',
      '--output-format',
      'stream-json',
      '--stream-partial-output',
      '--workspace',
      workspace,
      '--model',
      'gpt-5',
      '--force',
    ])
    assert.equal(realpathSync(seen.cwd), realpathSync(workspace))
    assert.equal(seen.marker, 'm1')
    assert.equal(seen.inheritedPath, agentEnv().PATH)
    assert.equal(seen.stdinBytes, Buffer.byteLength('Say hi'))
  })

  it('adds --resume, --trust instead of --force, and extraArgs last', async () => {
    const record = tmpFile('record.json')
    await collect(
      base({
        resumeChatId: CAPTURE_SESSION,
        force: false,
        extraArgs: ['--sandbox', 'enabled'],
        env: agentEnv({ FAKE_AGENT_RECORD: record, FAKE_AGENT_REPLAY: capture }),
      }),
    )
    const seen = JSON.parse(readFileSync(record, 'utf8'))
    assert.deepEqual(seen.argv.slice(6), [
      '--model',
      'auto',
      '--resume',
      CAPTURE_SESSION,
      '--trust',
      '--sandbox',
      'enabled',
    ])
  })

  it('delivers a 10 MB prompt intact', async () => {
    const record = tmpFile('record.json')
    const line = 'The quick brown fox jumps over the lazy dog. ünïcödé ✓\n'
    const prompt = line.repeat(Math.ceil((10 * 1024 * 1024) / Buffer.byteLength(line)))
    const { result } = await collect(
      base({ prompt, env: agentEnv({ FAKE_AGENT_RECORD: record, FAKE_AGENT_REPLAY: capture }) }),
    )
    assert.equal(result.error, undefined)
    const seen = JSON.parse(readFileSync(record, 'utf8'))
    assert.equal(seen.stdinBytes, Buffer.byteLength(prompt))
    assert.ok(seen.stdinBytes >= 10 * 1024 * 1024)
    assert.equal(seen.stdinSha256, createHash('sha256').update(prompt).digest('hex'))
  })

  it('refuses bad options synchronously with E_INVALID_ARG', () => {
    const cases: Partial<RunCursorAgentOptions>[] = [
      { prompt: '' },
      { prompt: '   ' },
      { resumeChatId: '-1' },
      { resumeChatId: 'a/b' },
      { workspace: join(scratch, 'missing') },
      { model: '' },
      { format: 'sse' as any },
      { idleTimeoutMs: -5 },
      // The same numeric rule as StreamTransformer's options.
      { created: 1.5 },
      { maxLineBytes: 0 },
      { maxLineBytes: 2.5 },
    ]
    for (const c of cases) {
      let called = false
      assert.throws(
        () => runCursorAgent(base(c), () => (called = true)),
        (e: any) => e.code === 'E_INVALID_ARG' && typeof e.message === 'string',
        JSON.stringify(c),
      )
      assert.equal(called, false)
    }
  })
})

describe('runCursorAgent: delivery', () => {
  it('delivers the capture in order, in several batches, all before wait() settles', async () => {
    // The agent writes the rest only once the first batch has arrived: several batches however
    // the machine's load coalesces reads.
    const seen = join(scratch, 'first-batch-seen')
    const { batches, result, batchesWhenSettled } = await collect(
      base({ env: agentEnv({ FAKE_AGENT_REPLAY: capture, FAKE_AGENT_DELAY_MS: '3', FAKE_AGENT_GATE: seen }) }),
      () => writeFileSync(seen, ''),
    )
    assert.ok(batches.length > 1, `expected several batches, got ${batches.length}`)
    // wait() settled after the last batch: the finish part had arrived by then, and nothing
    // arrives afterwards
    assert.equal(partsOf(batches.slice(0, batchesWhenSettled)).at(-1)!.type, 'finish')
    await new Promise((r) => setTimeout(r, 100))
    assert.equal(batches.length, batchesWhenSettled)
    const ps = partsOf(batches)
    assert.equal(ps[0].type, 'stream-start')
    assert.equal(ps.at(-1)!.type, 'finish')
    assert.equal(ps.at(-1)!.finishReason.unified, 'stop')
    assert.equal(answerOf(ps), CAPTURE_TEXT)
    assert.equal(result.exitCode, 0)
    assert.equal(result.cancelled, false)
    assert.equal(result.error, undefined)
    assert.equal(result.sessionId, CAPTURE_SESSION)
    assert.deepEqual({ ...result.usage }, CAPTURE_USAGE)
  })

  it('wait() may be called more than once and gives the same result', async () => {
    const run = runCursorAgent(base({ env: agentEnv({ FAKE_AGENT_REPLAY: capture }) }), () => {})
    const [a, b] = await Promise.all([run.wait(), run.wait()])
    const c = await run.wait()
    assert.deepEqual(a, b)
    assert.deepEqual(a, c)
  })

  it('encodes OpenAI SSE frames when asked', async () => {
    const { batches, result } = await collect(
      base({ format: 'openai-sse', env: agentEnv({ FAKE_AGENT_REPLAY: capture }) }),
    )
    const frames = batches.flat() as string[]
    assert.ok(frames.every((f) => typeof f === 'string' && f.startsWith('data: ') && f.endsWith('\n\n')))
    assert.equal(frames.at(-1), 'data: [DONE]\n\n')
    const text = frames
      .filter((f) => f !== 'data: [DONE]\n\n')
      .map((f) => JSON.parse(f.slice(6)))
      .map((c) => c.choices?.[0]?.delta?.content ?? '')
      .join('')
    assert.equal(text, sseContentOf(expected.blocks))
    assert.equal(result.error, undefined)
  })

  it('hands JS the same outputs as a StreamTransformer given the same stdout, in both formats', async () => {
    // The two cross into JS by different routes (a run's batches as frames and JSON, a
    // transformer's as sliced strings): thinking, text past U+00FF and past U+FFFF, tool calls.
    const streams = ['unicode.ndjson', 'thinking-deltas.ndjson', 'parallel-tools.ndjson', 'partial-then-recap.ndjson']
    for (const name of streams) {
      const stdout = fixture(name)
      const file = tmpFile(name)
      writeFileSync(file, stdout)
      for (const format of ['openai-sse', 'ai-sdk'] as const) {
        const options = { format, id: 'chatcmpl-same', created: 1_790_000_000 }
        const { batches, result } = await collect(base({ ...options, env: agentEnv({ FAKE_AGENT_REPLAY: file }) }))
        assert.equal(result.exitCode, 0, name)
        for (const chunks of [[stdout], randomChunks(stdout, 7, 13)]) {
          const transformer = new StreamTransformer({ ...options, model: 'auto' })
          const outputs = chunks.flatMap((chunk) => transformer.push(chunk))
          outputs.push(...transformer.finish({ exitCode: 0 }))
          assert.deepEqual(outputs, batches.flat(), `${name} ${format}`)
        }
      }
    }
  })

  it('a throwing callback stops the run and reports E_CALLBACK', async () => {
    const pidFile = tmpFile('pid')
    let calls = 0
    const run = runCursorAgent(base({ executable: hangAgent, env: agentEnv({ FAKE_AGENT_PID_FILE: pidFile }) }), () => {
      calls += 1
      throw new Error('consumer broke')
    })
    const result = await run.wait()
    assert.equal(result.error?.code, 'E_CALLBACK')
    assert.match(result.error!.message, /consumer broke/)
    assert.equal(calls, 1)
    const pids = readPids(pidFile)!
    await until(() => pids.every((p) => !isAlive(p)), 'the agent and its grandchild to be gone')
  })

  it('keeps reading stderr so a flood cannot block the child', async () => {
    const { batches, result } = await collect(
      base({ executable: floodAgent, env: agentEnv({ FAKE_AGENT_REPLAY: capture }) }),
    )
    assert.equal(result.error, undefined)
    assert.equal(result.exitCode, 0)
    assert.equal(answerOf(partsOf(batches)), CAPTURE_TEXT)
  })
})

describe('runCursorAgent: stopping', () => {
  it('cancel() stops the whole process group and finishes as cancelled', async () => {
    const pidFile = tmpFile('pid')
    const batches: Output[][] = []
    const run = runCursorAgent(
      base({ executable: hangAgent, env: agentEnv({ FAKE_AGENT_PID_FILE: pidFile }) }),
      (o) => {
        batches.push(o)
      },
    )
    await until(() => readPids(pidFile)?.length === 2, 'the agent to start')
    const pids = readPids(pidFile)!
    assert.ok(pids.every(isAlive))
    run.cancel()
    const result = await run.wait()
    assert.equal(result.cancelled, true)
    assert.equal(result.error, undefined)
    const last = partsOf(batches).at(-1)!
    assert.equal(last.type, 'finish')
    assert.deepEqual(last.finishReason, { unified: 'other', raw: 'cancelled' })
    await until(() => pids.every((p) => !isAlive(p)), 'the agent and its grandchild to be gone')
  })

  it('idleTimeoutMs ends a silent run with E_TIMEOUT and the failure outputs', async () => {
    const pidFile = tmpFile('pid')
    const { batches, result } = await collect(
      base({
        // Long enough for a busy machine to start the agent and print its first lines: the limit
        // counts from the start.
        idleTimeoutMs: 2_000,
        env: agentEnv({ FAKE_AGENT_REPLAY: capture, FAKE_AGENT_HANG_AFTER: '5', FAKE_AGENT_PID_FILE: pidFile }),
      }),
    )
    assert.equal(result.error?.code, 'E_TIMEOUT')
    assert.equal(result.cancelled, false)
    const ps = partsOf(batches)
    assert.equal(ps.find((p) => p.type === 'error')?.error?.code, 'E_TIMEOUT', 'the error part carries the same code')
    assert.equal(ps.at(-1)!.type, 'finish')
    assert.deepEqual(ps.at(-1)!.finishReason, { unified: 'error', raw: 'E_TIMEOUT' })
    const [pid] = readPids(pidFile)!
    await until(() => !isAlive(pid), 'the agent to be gone')
  })

  it('the idle timer is paused while a Cursor tool call is open', async () => {
    // tool-open.ndjson stays silent for 4 s between tool_call started and completed, twice the
    // limit; the limit leaves a busy machine time to start the agent.
    const { batches, result } = await collect(
      base({ idleTimeoutMs: 2_000, env: agentEnv({ FAKE_AGENT_REPLAY: captureLocal }) }),
    )
    assert.equal(result.error, undefined)
    const ps = partsOf(batches)
    assert.ok(ps.some((p) => p.type === 'tool-result' && p.isError === false))
    assert.equal(answerOf(ps), 'Done waiting.')
    assert.equal(ps.at(-1)!.finishReason.unified, 'stop')
  })

  it('timeoutMs bounds the whole run', async () => {
    const pidFile = tmpFile('pid')
    const { result } = await collect(
      base({
        executable: hangAgent,
        timeoutMs: 300,
        idleTimeoutMs: 0,
        env: agentEnv({ FAKE_AGENT_PID_FILE: pidFile }),
      }),
    )
    assert.equal(result.error?.code, 'E_TIMEOUT')
    const pids = readPids(pidFile)!
    await until(() => pids.every((p) => !isAlive(p)), 'the agent and its grandchild to be gone')
  })
})

describe('runCursorAgent: failures', () => {
  it('a resumed run that reports another chat id ends with E_RESUME and no output at all', async () => {
    const { batches, result } = await collect(
      base({ resumeChatId: 'a1b2c3', env: agentEnv({ FAKE_AGENT_REPLAY: capture }) }),
    )
    assert.equal(batches.length, 0)
    assert.equal(result.error?.code, 'E_RESUME')
  })

  it('a resumed run that keeps its chat id streams normally', async () => {
    const { batches, result } = await collect(
      base({ resumeChatId: CAPTURE_SESSION, env: agentEnv({ FAKE_AGENT_REPLAY: capture }) }),
    )
    assert.equal(result.error, undefined)
    assert.equal(answerOf(partsOf(batches)), CAPTURE_TEXT)
  })

  it('a resumed run failing with resume-specific text before any output is E_RESUME with no output', async () => {
    const { batches, result } = await collect(
      base({
        resumeChatId: 'a1b2c3',
        env: agentEnv({ FAKE_AGENT_STDERR: 'Error: chat a1b2c3 not found\n', FAKE_AGENT_EXIT: '1' }),
      }),
    )
    assert.equal(batches.length, 0)
    assert.equal(result.error?.code, 'E_RESUME')
    assert.equal(result.exitCode, 1)
  })

  it('the same failure without resume is reported through the outputs', async () => {
    const { batches, result } = await collect(
      base({ env: agentEnv({ FAKE_AGENT_STDERR: 'Error: chat a1b2c3 not found\n', FAKE_AGENT_EXIT: '1' }) }),
    )
    assert.notEqual(result.error, undefined)
    assert.notEqual(result.error!.code, 'E_RESUME')
    assert.ok(partsOf(batches).some((p) => p.type === 'error'))
  })

  it('not logged in is E_AUTH, delivered as outputs too', async () => {
    const { batches, result } = await collect(base({ executable: authAgent, env: agentEnv() }))
    assert.equal(result.error?.code, 'E_AUTH')
    assert.equal(result.exitCode, 1)
    const err = partsOf(batches).find((p) => p.type === 'error')
    assert.equal(err?.error?.code, 'E_AUTH')
  })

  it('a missing binary is E_AGENT_NOT_FOUND listing every place tried and how to install', async () => {
    const missing = join(emptyDir, 'no-such-agent')
    const { batches, result } = await collect(base({ executable: missing, env: { PATH: emptyDir, HOME: emptyDir } }))
    assert.equal(result.error?.code, 'E_AGENT_NOT_FOUND')
    assert.equal(partsOf(batches).find((p) => p.type === 'error')?.error?.code, 'E_AGENT_NOT_FOUND')
    const message = result.error!.message
    for (const place of [
      missing,
      join(emptyDir, 'cursor-agent'),
      join(emptyDir, 'agent'),
      join(emptyDir, '.local/bin/cursor-agent'),
      join(emptyDir, '.cursor-agent/cursor-agent'),
    ]) {
      assert.ok(message.includes(place), `message names ${place}: ${message}`)
    }
    assert.ok(message.includes('curl https://cursor.com/install -fsS | bash'))
    const ps = partsOf(batches)
    assert.ok(ps.some((p) => p.type === 'error'))
    assert.equal(ps.at(-1)!.finishReason.unified, 'error')
  })
})

describe('resolveCursorAgent', () => {
  it('finds cursor-agent on the given PATH and lists what it tried', () => {
    const found = resolveCursorAgent({
      env: { PATH: `${emptyDir}:${agents}`, HOME: emptyDir },
      executable: 'models-agent.sh',
    })
    assert.equal(found.path, modelsAgent)
    assert.deepEqual(found.tried, [join(emptyDir, 'models-agent.sh'), modelsAgent])
  })

  it('reports every place when nothing is installed', () => {
    const none = resolveCursorAgent({ env: { PATH: emptyDir, HOME: emptyDir } })
    assert.equal(none.path ?? null, null)
    assert.deepEqual(none.tried, [
      join(emptyDir, 'cursor-agent'),
      join(emptyDir, 'agent'),
      join(emptyDir, '.local/bin/cursor-agent'),
      join(emptyDir, '.cursor-agent/cursor-agent'),
    ])
  })
})

describe('listCursorModels', () => {
  it('parses the model list', async () => {
    const models = await listCursorModels({ executable: modelsAgent, env: agentEnv() })
    assert.deepEqual(
      models.map((m) => ({ ...m })),
      // Cursor's 200k window outside Max Mode, or the one its label names; output limits as the
      // vendor publishes them (OpenAI: 128,000), 32,000 where none is published. Pictures as the
      // vendor documents its models' input (OpenAI's take images); none documented for Cursor's
      // `auto` and Composer.
      [
        { id: 'auto', name: 'Auto', contextWindow: 200_000, maxOutputTokens: 32_000, reasoning: true, pictures: false },
        {
          id: 'composer-2.5',
          name: 'Composer 2.5',
          contextWindow: 200_000,
          maxOutputTokens: 32_000,
          reasoning: true,
          pictures: false,
        },
        {
          id: 'gpt-5.5-high',
          name: 'GPT-5.5 1M High',
          contextWindow: 1_000_000,
          maxOutputTokens: 128_000,
          reasoning: true,
          pictures: true,
        },
      ],
    )
  })

  it('describes a model without asking Cursor, as the listing would', async () => {
    const listed = await listCursorModels({ executable: modelsAgent, env: agentEnv() })
    for (const model of listed) assert.deepEqual({ ...describeCursorModel(model.id, model.name) }, { ...model })
    // Without a label naming a window, Cursor's 200k; the name defaults to the id.
    assert.deepEqual(
      { ...describeCursorModel('gpt-5.5-high') },
      {
        id: 'gpt-5.5-high',
        name: 'gpt-5.5-high',
        contextWindow: 200_000,
        maxOutputTokens: 128_000,
        reasoning: true,
        pictures: true,
      },
    )
  })

  it('keeps an id with parameters whole, its context= as the window, and skips the tips after the list', async () => {
    const listed = await listCursorModels({ executable: modelsAgent, env: agentEnv({ FAKE_MODELS: 'parameters' }) })
    assert.deepEqual(
      listed.map((m) => [m.id, m.contextWindow]),
      [
        ['claude-opus-4-8', 128_000],
        ['claude-opus-4-8[context=1m,effort=high]', 1_000_000],
      ],
    )
  })

  it('resolves [] when Cursor says no models are available', async () => {
    assert.deepEqual(await listCursorModels({ executable: modelsAgent, env: agentEnv({ FAKE_MODELS: 'none' }) }), [])
  })

  it('rejects with a stable error code when the command fails', async () => {
    await assert.rejects(listCursorModels({ executable: modelsAgent, env: agentEnv({ FAKE_MODELS: 'auth' }) }), {
      code: 'E_AUTH',
    })
    await assert.rejects(
      listCursorModels({ executable: join(emptyDir, 'nope'), env: { PATH: emptyDir, HOME: emptyDir } }),
      (e: any) =>
        e instanceof Error && (e as any).code === 'E_AGENT_NOT_FOUND' && e.message.includes(join(emptyDir, 'nope')),
    )
  })
})

describe('groupCursorModels and cursorModelToRun', () => {
  // A listing of the grammar's shapes; the rules are tested in full beside the grouping in Rust.
  const listing = [
    ['auto', 'Auto'],
    ['gpt-5.4-low', 'GPT-5.4 1M Low'],
    ['gpt-5.4-medium', 'GPT-5.4 1M'],
    ['gpt-5.4-high-fast', 'GPT-5.4 1M High Fast'],
    ['gpt-5.5-extra-high', 'GPT-5.5 Extra High'],
    ['gpt-5.5-medium', 'GPT-5.5 272K'],
    ['gpt-5.3-codex', 'GPT-5.3 Codex'],
  ].map(([id, name]) => ({ id: id as string, name: name as string }))

  it('groups the ids into families, each variant naming the id it runs, with the limits of all', () => {
    assert.deepEqual(
      groupCursorModels(listing).map((family) => ({ ...family, variants: family.variants.map((v) => ({ ...v })) })),
      [
        {
          id: 'auto',
          name: 'Auto',
          model: 'auto',
          variants: [],
          contextWindow: 200_000,
          maxOutputTokens: 32_000,
          reasoning: true,
          pictures: false,
        },
        {
          id: 'gpt-5.4',
          name: 'GPT-5.4 1M',
          model: 'gpt-5.4-medium',
          variants: [
            { name: 'low', model: 'gpt-5.4-low' },
            { name: 'high-fast', model: 'gpt-5.4-high-fast' },
          ],
          contextWindow: 1_000_000,
          maxOutputTokens: 128_000,
          reasoning: true,
          pictures: true,
        },
        {
          id: 'gpt-5.5',
          name: 'GPT-5.5 272K',
          model: 'gpt-5.5-medium',
          variants: [{ name: 'xhigh', model: 'gpt-5.5-extra-high' }],
          // The smaller window of its two ids.
          contextWindow: 200_000,
          maxOutputTokens: 128_000,
          reasoning: true,
          pictures: true,
        },
        {
          id: 'gpt-5.3-codex',
          name: 'GPT-5.3 Codex',
          model: 'gpt-5.3-codex',
          variants: [],
          contextWindow: 200_000,
          maxOutputTokens: 128_000,
          reasoning: true,
          pictures: true,
        },
      ],
    )
  })

  it('runs the rung an effort names, the default without one, and any other name as given', () => {
    for (const [model, effort, runs] of [
      ['gpt-5.5', 'xhigh', 'gpt-5.5-extra-high'],
      ['gpt-5.5', 'extra-high', 'gpt-5.5-extra-high'],
      ['gpt-5.4', 'high', 'gpt-5.4-high-fast'],
      ['gpt-5.4', undefined, 'gpt-5.4-medium'],
      ['gpt-5.4', 'max', 'gpt-5.4-medium'],
      ['gpt-5.4-low', 'high', 'gpt-5.4-low'],
      ['unlisted', 'high', 'unlisted'],
    ] as const) {
      assert.equal(cursorModelToRun(listing, model, effort), runs, `${model} ${effort}`)
    }
  })
})

describe('runCursorAgentCommand', () => {
  it('resolves with the exit and output of any command, a failing one included', async () => {
    const ok = await runCursorAgentCommand({
      args: ['--version'],
      executable: replayAgent,
      env: agentEnv({ FAKE_AGENT_REPLAY: capture }),
    })
    assert.equal(ok.exitCode, 0)
    const failing = await runCursorAgentCommand({ args: ['status'], executable: authAgent, env: agentEnv() })
    assert.notEqual(failing.exitCode, 0)
    assert.match(failing.stderr, /Authentication required/)
  })

  it('a command past timeoutMs rejects with E_TIMEOUT, and its whole group is gone', async () => {
    const pidFile = tmpFile('pid')
    await assert.rejects(
      runCursorAgentCommand({
        args: ['status'],
        executable: hangAgent,
        env: agentEnv({ FAKE_AGENT_PID_FILE: pidFile }),
        timeoutMs: 300,
      }),
      (e: any) => e.code === 'E_TIMEOUT',
    )
    const pids = readPids(pidFile)!
    await until(() => pids.every((p) => !isAlive(p)), 'the command and its grandchild to be gone')
  })

  it('refuses bad options with E_INVALID_ARG before anything starts', () => {
    for (const options of [
      { args: [] },
      { args: ['mcp\0list'] },
      { args: ['x'], timeoutMs: 0 },
      { args: ['x'], hostTools: { tools: [], folder: 'relative' } },
    ]) {
      assert.throws(
        () => runCursorAgentCommand({ executable: replayAgent, ...options } as never),
        { code: 'E_INVALID_ARG' },
        JSON.stringify(options),
      )
    }
  })
})

describe('a finished run lets its host go', () => {
  it('a script that awaits a run and a command, and does nothing else, exits on its own', () => {
    // No process.exit(): what keeps the event loop alive after the run (an `onOutput` that is
    // only released by the garbage collector, say) makes this hang until the timeout.
    const script = `
      const { runCursorAgent, runCursorAgentCommand } = require(${JSON.stringify(join(here, '..', 'index.js'))})
      const run = runCursorAgent({ prompt: 'hi', model: 'auto', workspace: ${JSON.stringify(workspace)}, executable: ${JSON.stringify(replayAgent)}, env: ${JSON.stringify(agentEnv({ FAKE_AGENT_REPLAY: capture }))} }, () => {})
      run.wait().then(async (result) => {
        const version = await runCursorAgentCommand({ args: ['--version'], executable: ${JSON.stringify(replayAgent)}, env: ${JSON.stringify(agentEnv({ FAKE_AGENT_REPLAY: capture }))} })
        process.stdout.write(JSON.stringify({ exitCode: result.exitCode, error: result.error ?? null, command: version.exitCode }))
      })`
    const host = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30_000 })
    assert.equal(host.error, undefined, 'the host exited by itself within 30 s')
    assert.equal(host.status, 0, host.stderr)
    assert.deepEqual(JSON.parse(host.stdout), { exitCode: 0, error: null, command: 0 })
  })
})

describe('children never outlive the host', () => {
  async function startHost(mode: 'exit' | 'idle') {
    const pidFile = tmpFile('pid')
    const host = spawn(process.execPath, [exitHost, hangAgent, pidFile, workspace, mode], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const exited = new Promise<number | null>((resolve) => host.on('exit', (code) => resolve(code)))
    return { host, pidFile, exited }
  }

  it('process.exit() in the host kills the live child and its group', async () => {
    const { pidFile, exited } = await startHost('exit')
    assert.equal(await exited, 0)
    const pids = readPids(pidFile)!
    assert.equal(pids.length, 2)
    await until(() => pids.every((p) => !isAlive(p)), 'the agent and its grandchild to be gone')
  })

  it('a host killed with SIGKILL takes the child and its whole group along (the watchdog)', async () => {
    const { host, pidFile, exited } = await startHost('idle')
    await new Promise<void>((resolve) => host.stdout!.once('data', () => resolve()))
    const pids = readPids(pidFile)!
    host.kill('SIGKILL')
    await exited
    await until(() => pids.every((p) => !isAlive(p)), 'the agent and its grandchild to be gone')
  })
})
