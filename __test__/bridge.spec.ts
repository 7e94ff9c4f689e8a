// The tool bridge (`hostTools`): cursor-agent calls the host's tools over a loopback MCP server,
// each call is handed to the host and held until `answerToolCalls`. Driven through the public
// package entry with the fake cursor-agent's `mcp` scenario (support/agents/fake-cursor-agent.mjs),
// whose invocation log records what the MCP server answered it. Expected outcomes come from the
// documented contract (index.d.ts `HostToolsOptions`, `ToolAnswer`, `answerToolCalls`).
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { networkInterfaces, tmpdir } from 'node:os'
import { dirname, join, relative, sep } from 'node:path'
import { after, describe, it } from 'node:test'

import { runCursorAgent } from '../index.js'
import type { CursorAgentRun, RunResult, RunStep, StreamOutput, StreamPart } from '../index.js'
import { mcpRuleMatches, readCliJsonText, readHooksText } from './support/agents/cursor-config.mjs'
import { groupMembers, killGroupsAfter, waitFor } from './support/process.ts'

type RunCursorAgentOptions = Parameters<typeof runCursorAgent>[0]

const here = __dirname
const fakeAgent = join(here, 'support', 'agents', 'fake-cursor-agent.mjs')
const unix = process.platform !== 'win32'
const linuxOnly = process.platform !== 'linux' ? 'reads process groups from Linux /proc' : false
const unixOnly = unix ? false : 'the hook and file modes are Unix-only'
// Each test takes about a second; the limit only turns a hang into a failure (Bun's default is 5 s).
const LIMIT = { timeout: 90_000 }

const scratch = mkdtempSync(join(tmpdir(), 'ocn-bridge-spec-'))
after(() => rmSync(scratch, { recursive: true, force: true }))

let counter = 0
function freshDir(name: string): string {
  counter += 1
  const dir = join(scratch, `${counter}-${name}`)
  mkdirSync(dir, { recursive: true })
  return dir
}

// Whatever a failing test left running.
const seenGroups = killGroupsAfter(after)

/** The host's tools, in the AI SDK V3 shape OpenCode passes (`read` with what it does, as its host declares it). */
const TOOLS = [
  {
    type: 'function',
    name: 'read',
    description: 'Read a file',
    annotations: { readOnlyHint: true, openWorldHint: false },
    inputSchema: {
      type: 'object',
      properties: { filePath: { type: 'string' }, offset: { type: 'number' } },
      required: ['filePath'],
      additionalProperties: false,
    },
  },
  {
    type: 'function',
    name: 'glob',
    description: 'Find files by pattern',
    inputSchema: { type: 'object', properties: { pattern: { type: 'string' } }, required: ['pattern'] },
  },
]

/** A step of the fake's `mcp` scenario (see runMcpScript in the fake agent). */
type Step = Record<string, unknown>

interface McpCallLog {
  server: string
  tool: string
  args: Record<string, unknown>
  result: { content: Array<{ type: string; text?: string }>; isError: boolean } | null
  isError: boolean
  error?: string
}

interface Invocation {
  argv: string[]
  pid: number
  pgid: number
  cwd: string
  envNames: string[]
  mcpServers: string[]
  mcpTools: Array<{ name: string; annotations: Record<string, boolean> | null }>
  mcpCalls: Array<McpCallLog | null>
  finished: boolean
  mcpError?: string
}

function invocations(logDir: string): Invocation[] {
  if (!existsSync(logDir)) return []
  return readdirSync(logDir)
    .filter((file) => file.startsWith('invocation-'))
    .map((file) => JSON.parse(readFileSync(join(logDir, file), 'utf8')) as Invocation)
}

/** The only invocation of a run. */
function onlyInvocation(logDir: string): Invocation {
  const all = invocations(logDir)
  assert.equal(all.length, 1, 'one cursor-agent invocation')
  return all[0]
}

/** The text of an MCP result as the fake received it. */
function resultText(call: McpCallLog | null | undefined): string {
  assert.ok(call, 'the fake recorded the call')
  if (call.result === null) return call.error ?? ''
  return call.result.content
    .filter((item) => item.type === 'text')
    .map((item) => item.text)
    .join('\n')
}

async function until(condition: () => boolean, what: string, limitMs = 15_000): Promise<void> {
  if (!(await waitFor(condition, limitMs, 10))) assert.fail(`gave up waiting for ${what}`)
}

interface Bridged {
  run: CursorAgentRun
  folder: string
  workspace: string
  logDir: string
  /** Every part delivered so far, in order. */
  parts: StreamPart[]
  /** Each step the run said ended, with how many parts had been delivered by then. */
  steps: Array<{ step: RunStep; afterParts: number }>
  /** The parts split into responses: each starts with a `stream-start`. */
  responses(): StreamPart[][]
  /** Waits for the `n`-th (from 1) `tool-calls` finish; the `tool-call` parts of that response. */
  handOver(n: number): Promise<Array<Extract<StreamPart, { type: 'tool-call' }>>>
  result: Promise<RunResult>
}

function isToolCallsFinish(part: StreamPart): boolean {
  return part.type === 'finish' && (part as any).finishReason?.unified === 'tool-calls'
}

function bridged(
  script: Step[],
  options: {
    hostTools?: Partial<RunCursorAgentOptions['hostTools']>
    env?: Record<string, string>
    executable?: string
  } = {},
): Bridged {
  const base = freshDir('run')
  const folder = join(base, 'conversation')
  const workspace = join(base, 'project')
  const logDir = join(base, 'log')
  mkdirSync(workspace)
  writeFileSync(join(workspace, 'a.txt'), 'alpha')
  const parts: StreamPart[] = []
  const steps: Bridged['steps'] = []
  const env = {
    PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
    FAKE_CURSOR_SCENARIO: 'mcp',
    FAKE_CURSOR_MCP_SCRIPT: JSON.stringify(script),
    FAKE_CURSOR_LOG_DIR: logDir,
    ...options.env,
  }
  const run = runCursorAgent(
    {
      prompt: 'Use the tools',
      model: 'auto',
      workspace,
      executable: options.executable ?? fakeAgent,
      env,
      hostTools: { tools: TOOLS, folder, ...options.hostTools },
    },
    (outputs: StreamOutput[], step: RunStep | null) => {
      for (const output of outputs) {
        assert.equal(typeof output, 'object', 'ai-sdk output is parts')
        parts.push(output as StreamPart)
      }
      if (step !== null) steps.push({ step, afterParts: parts.length })
    },
  )
  const result = run.wait()
  const responses = () => {
    const split: StreamPart[][] = []
    for (const part of parts) {
      if (part.type === 'stream-start' || split.length === 0) split.push([])
      split[split.length - 1].push(part)
    }
    return split
  }
  const handOver = async (n: number) => {
    await until(() => parts.filter(isToolCallsFinish).length >= n, `hand-over ${n}`)
    const response = responses().filter((r) => r.some(isToolCallsFinish))[n - 1]
    return response.filter((p): p is Extract<StreamPart, { type: 'tool-call' }> => p.type === 'tool-call')
  }
  // Record the group as soon as the fake logged it, for the cleanup above.
  void waitFor(() => invocations(logDir).length > 0, 10_000, 20).then(() => {
    for (const invocation of invocations(logDir)) seenGroups.add(invocation.pgid)
  })
  return { run, folder, workspace, logDir, parts, steps, responses, handOver, result }
}

/** The visible text of some parts. */
function textOf(parts: StreamPart[]): string {
  return parts
    .filter((p) => p.type === 'text-delta')
    .map((p) => (p as Extract<StreamPart, { type: 'text-delta' }>).delta)
    .join('')
}

function lastIndexWhere(parts: StreamPart[], test: (part: StreamPart) => boolean): number {
  for (let at = parts.length - 1; at >= 0; at -= 1) if (test(parts[at])) return at
  return -1
}

const toolPartTypes = new Set(['tool-input-start', 'tool-input-delta', 'tool-input-end', 'tool-call', 'tool-result'])

function toolPartIds(parts: StreamPart[]): string[] {
  return parts.filter((p) => toolPartTypes.has(p.type)).map((p: any) => p.toolCallId ?? p.id)
}

function finishOf(response: StreamPart[]): any {
  const last = response[response.length - 1]
  assert.equal(last?.type, 'finish', 'a response ends with its finish')
  return last
}

function assertNoUsage(finish: any): void {
  for (const side of ['inputTokens', 'outputTokens']) {
    for (const [field, value] of Object.entries(finish.usage?.[side] ?? {})) {
      assert.equal(value, undefined, `usage.${side}.${field} is absent on a hand-over`)
    }
  }
  assert.equal(finish.usage?.raw, undefined, 'no raw usage on a hand-over')
}

/** The fake's usage (10 in, 5 out), reported by the final finish. */
function assertFakeUsage(finish: any): void {
  assert.equal(finish.usage.inputTokens.total, 10)
  assert.equal(finish.usage.outputTokens.total, 5)
}

async function groupGone(logDir: string): Promise<void> {
  const { pgid } = onlyInvocation(logDir)
  assert.ok(pgid > 0)
  await until(() => groupMembers(pgid).length === 0, `process group ${pgid} to be gone`)
}

function readMcpConfig(folder: string): {
  mcpServers: Record<string, { url: string; headers: Record<string, string> }>
} {
  return JSON.parse(readFileSync(join(folder, 'home', '.cursor', 'mcp.json'), 'utf8'))
}

/** Every path under `dir`, relative, sorted. */
function listing(dir: string): string[] {
  const found: string[] = []
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name)
      found.push(relative(dir, path))
      if (entry.isDirectory()) walk(path)
    }
  }
  walk(dir)
  return found.sort()
}

function inside(folder: string, path: string): boolean {
  const rel = relative(realpathSync(folder), realpathSync(path))
  return rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep)
}

describe('hostTools: handing calls over', () => {
  it(
    'hands the calls of a parallel step over as Cursor sends them (one at a time), under the model ids',
    LIMIT,
    async () => {
      const b = bridged([
        { text: 'Let me look.' },
        {
          calls: [
            { tool: 'read', args: { filePath: '/p/a.txt' }, shape: 'provider' },
            { tool: 'glob', args: { pattern: '**/*.ts' }, shape: 'server' },
          ],
          parallel: true,
        },
        { text: 'Read gave [{{result:0}}] and glob gave [{{result:1}}]' },
      ])
      // Cursor announces both calls, then sends the second request only once the first is answered.
      const first = await b.handOver(1)
      assert.equal(first.length, 1)
      assert.equal(first[0].toolName, 'read')
      assert.equal(first[0].toolCallId, 'toolu_fake_mcp_0', "the model's id, from Cursor's started record")
      assert.deepEqual(JSON.parse(first[0].input), { filePath: '/p/a.txt' })
      const [opening] = b.responses()
      assert.equal(textOf(opening), 'Let me look.')
      assert.deepEqual(finishOf(opening).finishReason, { unified: 'tool-calls', raw: 'tool-calls' })
      assertNoUsage(finishOf(opening))
      for (const id of toolPartIds(opening)) assert.equal(id, 'toolu_fake_mcp_0')
      assert.equal(b.run.answerToolCalls([{ id: first[0].toolCallId, output: 'alpha contents' }]), true)

      const second = await b.handOver(2)
      assert.equal(second.length, 1)
      assert.equal(second[0].toolName, 'glob')
      assert.equal(second[0].toolCallId, 'toolu_fake_mcp_1')
      assert.equal(
        b.run.answerToolCalls([{ id: second[0].toolCallId, output: 'no files matched', isError: true }]),
        true,
      )
      const result = await b.result
      assert.equal(result.error, undefined)
      const responses = b.responses()
      assert.equal(responses.length, 3)
      // A failure is marked twice: in its text (for Cursor builds that drop isError) and isError.
      assert.equal(textOf(responses[2]), 'Read gave [alpha contents] and glob gave [Error: no files matched]')
      assert.deepEqual(toolPartIds(responses[2]), [])
      assert.equal(finishOf(responses[2]).finishReason.unified, 'stop')
      const invocation = onlyInvocation(b.logDir)
      assert.equal(invocation.mcpCalls.length, 2)
      assert.equal(invocation.mcpCalls[1]?.isError, true, 'isError reaches Cursor (1.0.32 forwards it)')
    },
  )

  it('hands sequential calls over one at a time, each after the previous answer', LIMIT, async () => {
    const b = bridged([
      {
        calls: [
          { tool: 'read', args: { filePath: '/p/one' } },
          { tool: 'read', args: { filePath: '/p/two' } },
        ],
        parallel: false,
      },
      { text: 'one={{result:0}} two={{result:1}}' },
    ])
    const firstStep = await b.handOver(1)
    assert.equal(firstStep.length, 1)
    assert.deepEqual(JSON.parse(firstStep[0].input), { filePath: '/p/one' })
    // The second call is only made once the first is answered.
    assert.equal(onlyInvocation(b.logDir).mcpCalls.filter(Boolean).length, 0)
    assert.equal(b.run.answerToolCalls([{ id: firstStep[0].toolCallId, output: 'ONE' }]), true)

    const secondStep = await b.handOver(2)
    assert.equal(secondStep.length, 1)
    assert.deepEqual(JSON.parse(secondStep[0].input), { filePath: '/p/two' })
    assert.notEqual(secondStep[0].toolCallId, firstStep[0].toolCallId)
    const responses = b.responses()
    assert.equal(responses.length, 2)
    assert.equal(responses[1][0].type, 'stream-start')
    assertNoUsage(finishOf(responses[1]))
    assert.equal(resultText(onlyInvocation(b.logDir).mcpCalls[0]), 'ONE')
    assert.equal(b.run.answerToolCalls([{ id: secondStep[0].toolCallId, output: 'TWO' }]), true)

    const result = await b.result
    assert.equal(result.error, undefined)
    const all = b.responses()
    assert.equal(all.length, 3)
    assert.equal(textOf(all[2]), 'one=ONE two=TWO')
    assert.equal(finishOf(all[2]).finishReason.unified, 'stop')
    assertFakeUsage(finishOf(all[2]))
    assert.equal(invocations(b.logDir).length, 1)
  })

  it('delivers the text before the calls when the MCP requests come before Cursor reports them', LIMIT, async () => {
    const b = bridged([
      { text: 'Before the calls.' },
      {
        calls: [
          { tool: 'read', args: { filePath: '/p/a' } },
          { tool: 'glob', args: { pattern: '*' }, shape: 'server' },
        ],
        parallel: true,
        emitBefore: false,
      },
      { text: 'After: {{result:0}} {{result:1}}' },
    ])
    const first = await b.handOver(1)
    assert.equal(first.length, 1)
    assert.equal(first[0].toolCallId, 'toolu_fake_mcp_0', 'the lagging started record still names the call')
    const [opening] = b.responses()
    assert.equal(textOf(opening), 'Before the calls.')
    const lastText = lastIndexWhere(opening, (p) => p.type === 'text-delta' || p.type === 'text-end')
    const firstTool = opening.findIndex((p) => toolPartTypes.has(p.type))
    assert.ok(lastText >= 0 && firstTool > lastText, 'all text comes before the first tool part')
    assert.equal(b.run.answerToolCalls([{ id: first[0].toolCallId, output: 'read-done' }]), true)
    const second = await b.handOver(2)
    assert.equal(second[0].toolName, 'glob')
    assert.equal(b.run.answerToolCalls([{ id: second[0].toolCallId, output: 'glob-done' }]), true)
    const result = await b.result
    assert.equal(result.error, undefined)
    const responses = b.responses()
    assert.equal(responses.length, 3)
    assert.equal(textOf(responses[2]), 'After: read-done glob-done')
    assert.deepEqual(toolPartIds(responses[2]), [])
  })
})

describe("hostTools: Cursor's 60 s limit (scaled)", () => {
  it('answers "still running" by the deadline, and the wait tool brings the real result, run once', LIMIT, async () => {
    const b = bridged(
      [
        { calls: [{ tool: 'read', args: { filePath: '/p/slow' } }] },
        { calls: [{ tool: 'opencode_wait', args: { job: 1 } }] },
        { text: 'first=[{{result:0}}] then=[{{result:1}}]' },
      ],
      // Cursor's 60 s scaled to 1.6 s; the bridge's 45 s deadline to 600 ms.
      { hostTools: { deadlineMs: 600 }, env: { FAKE_CURSOR_MCP_TIMEOUT_MS: '1600' } },
    )
    const [call] = await b.handOver(1)
    assert.equal(call.toolName, 'read')
    // OpenCode answers after the deadline, while the model's wait call is pending.
    await new Promise((done) => setTimeout(done, 900))
    assert.equal(b.run.answerToolCalls([{ id: call.toolCallId, output: 'slow contents' }]), true)
    const result = await b.result
    assert.equal(result.error, undefined)
    const text = textOf(b.responses().at(-1) ?? [])
    assert.match(text, /^first=\[The tool `read` is still running in OpenCode \(job 1\)/)
    assert.match(text, /then=\[slow contents\]$/)
    // The wait call was never handed to the host; the read ran once.
    assert.equal(b.steps.filter((s) => s.step.reason === 'tool-calls').length, 1)
    const invocation = onlyInvocation(b.logDir)
    assert.deepEqual(
      invocation.mcpCalls.map((c) => c?.tool),
      ['read', 'opencode_wait'],
    )
    assert.ok(
      invocation.mcpCalls.every((c) => c?.error === undefined),
      'no call timed out at Cursor',
    )
  })
})

describe('hostTools: calls that are answered at once', () => {
  it('answers a call whose arguments break the schema with the reasons, without handing it over', LIMIT, async () => {
    const b = bridged([
      { calls: [{ tool: 'read', args: {} }] },
      { calls: [{ tool: 'read', args: { filePath: 7 } }] },
      { text: 'missing={{error:0}} wrongType={{error:1}}. ' },
      { calls: [{ tool: 'read', args: { filePath: '/p/ok' } }] },
      { text: 'ok={{result:2}}' },
    ])
    // Only the valid call reaches the host.
    const calls = await b.handOver(1)
    assert.equal(calls.length, 1)
    assert.deepEqual(JSON.parse(calls[0].input), { filePath: '/p/ok' })
    assert.equal(b.responses().length, 1)
    // The failure is marked twice: isError (forwarded by Cursor 1.0.32) and its text (below).
    assert.equal(textOf(b.responses()[0]), 'missing=true wrongType=true. ')

    const [missing, wrongType] = onlyInvocation(b.logDir).mcpCalls
    assert.match(resultText(missing) ?? '', /^Error: /)
    assert.match(resultText(missing), /^Error: The arguments do not match the schema of read:\n/)
    assert.match(resultText(missing), /filePath/)
    assert.match(resultText(wrongType) ?? '', /^Error: /)
    assert.match(resultText(wrongType), /^Error: The arguments do not match the schema of read:\n/)
    assert.match(resultText(wrongType), /\/filePath/)
    assert.match(resultText(wrongType), /string/)

    assert.equal(b.run.answerToolCalls([{ id: calls[0].toolCallId, output: 'fine' }]), true)
    const result = await b.result
    assert.equal(result.error, undefined)
    assert.equal(b.parts.filter((p) => p.type === 'tool-call').length, 1, 'the refused calls were never shown')
    const last = b.responses().at(-1)!
    assert.equal(textOf(last), 'ok=fine')
    assert.equal(finishOf(last).finishReason.unified, 'stop')
  })

  it('answers a call to a tool it does not serve with an error, without handing it over', LIMIT, async () => {
    const b = bridged([
      { calls: [{ tool: 'webfetch', args: { url: 'https://example.com' } }] },
      { text: 'unknown={{error:0}}' },
    ])
    const result = await b.result
    assert.equal(result.error, undefined)
    assert.equal(result.exitCode, 0)
    assert.deepEqual(toolPartIds(b.parts), [], 'nothing was handed over')
    assert.equal(b.parts.filter(isToolCallsFinish).length, 0)
    assert.equal(b.responses().length, 1)
    assert.equal(textOf(b.parts), 'unknown=true')
    assert.equal(finishOf(b.parts).finishReason.unified, 'stop')
    const [call] = onlyInvocation(b.logDir).mcpCalls
    assert.match(resultText(call) ?? '', /^Error: /)
    assert.match(resultText(call), /There is no tool named "webfetch"/)
    assert.deepEqual(
      onlyInvocation(b.logDir)
        .mcpTools.map((t) => t.name)
        .sort(),
      ['glob', 'opencode_more', 'opencode_wait', 'read'],
      'the server lists the host tools and its own wait and paging tools',
    )
    // Declared as MCP annotations, which Cursor 1.0.32 sends on to its backend: what the host
    // declared of its tools, as it declared it (a team's `reads` policy admits a read-only one);
    // a tool declared without them gets none; the bridge's own are read-only.
    const annotations = Object.fromEntries(onlyInvocation(b.logDir).mcpTools.map((t) => [t.name, t.annotations]))
    assert.deepEqual(annotations.read, { readOnlyHint: true, openWorldHint: false })
    assert.equal(annotations.glob, null)
    for (const tool of ['opencode_wait', 'opencode_more'])
      assert.deepEqual(annotations[tool], { readOnlyHint: true, openWorldHint: false }, tool)
  })
})

describe('hostTools: answers', () => {
  it(
    'ignores answers for unknown ids (the run stays held) and refuses answers once the run is over',
    LIMIT,
    async () => {
      const b = bridged([{ calls: [{ tool: 'read', args: { filePath: '/p/a' } }] }, { text: 'got {{result:0}}' }])
      const [call] = await b.handOver(1)
      assert.equal(b.run.answerToolCalls([{ id: 'cursor_mcp_999_notacall', output: 'wrong' }]), true)
      // Still held: the fake has no answer, and nothing new was delivered.
      await new Promise((done) => setTimeout(done, 300))
      assert.equal(onlyInvocation(b.logDir).mcpCalls.filter(Boolean).length, 0)
      assert.equal(b.responses().length, 1)
      assert.equal(b.run.answerToolCalls([{ id: call.toolCallId, output: 'right' }]), true)
      const result = await b.result
      assert.equal(result.error, undefined)
      assert.equal(textOf(b.responses()[1]), 'got right')
      assert.equal(resultText(onlyInvocation(b.logDir).mcpCalls[0]), 'right')
      assert.equal(b.run.answerToolCalls([{ id: call.toolCallId, output: 'again' }]), false)
    },
  )

  it('ends with E_TIMEOUT when the calls wait longer than waitMs, and stops the process group', {
    ...LIMIT,
    skip: linuxOnly,
  }, async () => {
    const b = bridged([{ calls: [{ tool: 'read', args: { filePath: '/p/a' } }] }, { text: 'never' }], {
      hostTools: { waitMs: 500 },
    })
    await b.handOver(1)
    const result = await b.result
    assert.equal(result.cancelled, false)
    assert.equal(result.error?.code, 'E_TIMEOUT')
    assert.match(result.error!.message, /did not answer Cursor's tool calls/)
    assert.match(result.error!.message, /tool wait/)
    assert.doesNotMatch(textOf(b.parts), /never/)
    const finish = finishOf(b.parts)
    assert.equal(finish.finishReason.unified, 'error')
    assert.ok(
      b.parts.some((p) => p.type === 'error'),
      'an error part before the finish',
    )
    await groupGone(b.logDir)
    const invocation = onlyInvocation(b.logDir)
    // The held call is answered with an error before the group is stopped.
    const [held] = invocation.mcpCalls
    assert.match(resultText(held) ?? '', /^Error: /, JSON.stringify(held))
    assert.match(resultText(held), /The run ended before OpenCode answered this tool call/)
    assert.equal(b.run.answerToolCalls([{ id: 'x', output: 'late' }]), false)
  })

  it('cancel() while calls are held ends the run as cancelled and stops the process group', {
    ...LIMIT,
    skip: linuxOnly,
  }, async () => {
    const b = bridged([{ calls: [{ tool: 'read', args: { filePath: '/p/a' } }] }, { text: 'never' }])
    const [call] = await b.handOver(1)
    b.run.cancel()
    const result = await b.result
    assert.equal(result.cancelled, true)
    assert.equal(result.error, undefined)
    await groupGone(b.logDir)
    const [held] = onlyInvocation(b.logDir).mcpCalls
    assert.match(resultText(held) ?? '', /^Error: /, JSON.stringify(held))
    assert.doesNotMatch(textOf(b.parts), /never/)
    assert.equal(b.run.answerToolCalls([{ id: call.toolCallId, output: 'late' }]), false)
  })

  // The fake is stopped with its group, so whether it could still record the answer is a race;
  // a client of the test's own, which outlives the run, shows what the server answered.
  for (const ending of ['times out', 'is cancelled'] as const) {
    it(`answers a call still held with an error result when the run ${ending}`, LIMIT, async () => {
      const b = bridged([{ calls: [{ tool: 'read', args: { filePath: '/p/a' } }] }, { text: 'never' }], {
        // Long enough for the test's own client to connect and send its call on a loaded machine.
        hostTools: ending === 'times out' ? { waitMs: 3_000 } : {},
      })
      await b.handOver(1)
      const session = await mcpSession(b.folder)
      const held = session.callTool('glob', { pattern: '*' })
      // The call is in: the server holds it (nothing answers it while the run waits).
      await until(() => session.pending() === 1, 'the own call to be sent')
      if (ending === 'is cancelled') b.run.cancel()
      const result = await b.result
      assert.equal(
        ending === 'is cancelled' ? result.cancelled : result.error?.code,
        ending === 'is cancelled' ? true : 'E_TIMEOUT',
      )
      const answer = await held
      assert.equal(answer.lost, false, 'the held request got an answer, not a dropped connection')
      assert.equal(answer.message?.result?.isError, true)
      assert.match(answer.message?.result?.content?.[0]?.text ?? '', /run ended before OpenCode answered/)
    })
  }
})

interface McpAnswer {
  /** The connection ended without an answer. */
  lost: boolean
  message?: any
}

/** A minimal MCP client over Streamable HTTP with the folder's own credentials. */
async function mcpSession(
  folder: string,
): Promise<{ callTool(name: string, args: object): Promise<McpAnswer>; pending(): number }> {
  const { url, headers } = readMcpConfig(folder).mcpServers.opencode
  const base = { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
  const initialized = await fetch(url, {
    method: 'POST',
    headers: base,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bridge-spec', version: '1' } },
    }),
  })
  assert.equal(initialized.status, 200)
  await initialized.text()
  const sessionId = initialized.headers.get('mcp-session-id')
  const withSession = sessionId === null ? base : { ...base, 'mcp-session-id': sessionId }
  const notified = await fetch(url, {
    method: 'POST',
    headers: withSession,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  })
  assert.ok(notified.status < 300)
  await notified.text()
  let sent = 0
  let next = 2
  return {
    pending: () => sent,
    async callTool(name, args) {
      const id = next++
      const response = await fetch(url, {
        method: 'POST',
        headers: withSession,
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }),
      })
      sent += 1
      let body: string
      try {
        body = await response.text()
      } catch {
        return { lost: true }
      }
      const messages = (response.headers.get('content-type') ?? '').startsWith('application/json')
        ? [JSON.parse(body)]
        : body
            .split(/\r?\n/)
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5).trim())
            .filter((data) => data !== '')
            .map((data) => JSON.parse(data))
      const message = messages.find((m) => m?.id === id)
      return message === undefined ? { lost: true } : { lost: false, message }
    },
  }
}

describe('hostTools: the MCP server and the private folder', () => {
  it('serves only 127.0.0.1, on its path, with its bearer token', LIMIT, async () => {
    const b = bridged([{ calls: [{ tool: 'read', args: { filePath: '/p/a' } }] }, { text: 'done' }])
    const [call] = await b.handOver(1)
    const config = readMcpConfig(b.folder)
    const { url, headers } = config.mcpServers.opencode
    const target = new URL(url)
    assert.equal(target.protocol, 'http:')
    assert.equal(target.hostname, '127.0.0.1')
    assert.match(headers.Authorization, /^Bearer \S{16,}$/)
    const token = headers.Authorization.slice('Bearer '.length)

    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bridge-spec', version: '1' } },
    })
    const post = (at: string, authorization?: string) =>
      fetch(at, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(authorization === undefined ? {} : { authorization }),
        },
        body: initialize,
      })

    const none = await post(url)
    assert.equal(none.status, 401)
    assert.equal(none.headers.get('www-authenticate'), 'Bearer')
    const wrong = await post(url, `Bearer ${token.slice(0, -1)}${token.endsWith('0') ? '1' : '0'}`)
    assert.equal(wrong.status, 401)
    assert.equal(wrong.headers.get('www-authenticate'), 'Bearer')
    const basic = await post(url, `Basic ${token}`)
    assert.equal(basic.status, 401)
    const otherPath = new URL(url)
    otherPath.pathname = `${otherPath.pathname}x`
    assert.equal((await post(otherPath.href, `Bearer ${token}`)).status, 404)
    otherPath.pathname = '/'
    assert.equal((await post(otherPath.href, `Bearer ${token}`)).status, 404)
    // The same request with the token gets through: the refusals were about the credentials.
    const right = await post(url, `Bearer ${token}`)
    assert.equal(right.status, 200)
    await right.body?.cancel()

    // Not reachable on any other address of this machine.
    const external = Object.values(networkInterfaces())
      .flat()
      .find((address) => address !== undefined && address.family === 'IPv4' && !address.internal)
    if (external !== undefined) {
      await assert.rejects(
        fetch(`http://${external.address}:${target.port}${target.pathname}`, {
          method: 'POST',
          signal: AbortSignal.timeout(2000),
        }),
      )
    }

    assert.equal(b.run.answerToolCalls([{ id: call.toolCallId, output: 'x' }]), true)
    assert.equal((await b.result).error, undefined)
  })

  it(
    'writes one MCP server into a private folder the child works in, and nothing into the workspace',
    LIMIT,
    async () => {
      const b = bridged([{ calls: [{ tool: 'read', args: { filePath: '/p/a' } }] }, { text: 'done' }])
      const workspaceBefore = listing(b.workspace)
      const [call] = await b.handOver(1)

      const config = readMcpConfig(b.folder)
      assert.deepEqual(Object.keys(config.mcpServers), ['opencode'])
      const mcpJson = join(b.folder, 'home', '.cursor', 'mcp.json')
      if (unix) assert.equal(statSync(mcpJson).mode & 0o777, 0o600)
      assert.equal(existsSync(join(b.folder, 'workspace', '.cursor', 'mcp.json')), false)

      const invocation = onlyInvocation(b.logDir)
      assert.equal(realpathSync(invocation.cwd), realpathSync(join(b.folder, 'workspace')))
      const at = invocation.argv.indexOf('--workspace')
      assert.ok(at >= 0)
      assert.equal(realpathSync(invocation.argv[at + 1]), realpathSync(join(b.folder, 'workspace')))
      assert.ok(inside(b.folder, invocation.cwd))
      for (const name of ['HOME', 'CURSOR_DATA_DIR']) assert.ok(invocation.envNames.includes(name), name)
      assert.deepEqual(invocation.mcpServers, ['opencode'])
      assert.ok(invocation.argv.includes('--approve-mcps'))
      assert.ok(!invocation.argv.includes('--force'))

      assert.equal(b.run.answerToolCalls([{ id: call.toolCallId, output: 'x' }]), true)
      assert.equal((await b.result).error, undefined)
      assert.deepEqual(listing(b.workspace), workspaceBefore, 'nothing written into the workspace option')
    },
  )

  it(
    "points HOME, CURSOR_DATA_DIR and CURSOR_CONFIG_DIR into the folder and XDG_CONFIG_HOME at the user's",
    LIMIT,
    async () => {
      const dir = freshDir('env-agent')
      const record = join(dir, 'env.json')
      const agent = join(dir, 'env-agent.mjs')
      writeFileSync(
        agent,
        `#!/usr/bin/env node
import { writeFileSync } from 'node:fs'
const { HOME, CURSOR_DATA_DIR, CURSOR_CONFIG_DIR, XDG_CONFIG_HOME } = process.env
writeFileSync(${JSON.stringify(record)}, JSON.stringify({ cwd: process.cwd(), HOME, CURSOR_DATA_DIR, CURSOR_CONFIG_DIR, XDG_CONFIG_HOME }))
for await (const _ of process.stdin) {}
const session_id = 'env-agent-chat'
const lines = [
  { type: 'system', subtype: 'init', session_id, model: 'Fake', cwd: process.cwd() },
  { type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'env written' }] }, session_id },
  { type: 'result', subtype: 'success', is_error: false, result: 'env written', session_id },
]
for (const line of lines) process.stdout.write(JSON.stringify(line) + '\\n')
`,
      )
      chmodSync(agent, 0o755)
      const userHome = join(dir, 'user-home')
      const b = bridged([], { executable: agent, env: { HOME: userHome } })
      const result = await b.result
      assert.equal(result.error, undefined)
      const seen = JSON.parse(readFileSync(record, 'utf8'))
      assert.equal(realpathSync(seen.cwd), realpathSync(join(b.folder, 'workspace')))
      assert.equal(seen.HOME, join(b.folder, 'home'))
      assert.equal(seen.CURSOR_DATA_DIR, join(b.folder, 'cursor-data'))
      assert.ok(inside(b.folder, seen.HOME) && inside(b.folder, seen.CURSOR_DATA_DIR))
      // The user's cli-config.json (approval mode, permissions, sandbox) is not read; a Linux
      // login (`$XDG_CONFIG_HOME/cursor/auth.json`) is.
      assert.equal(seen.CURSOR_CONFIG_DIR, join(b.folder, 'config'))
      if (unix) assert.equal(seen.XDG_CONFIG_HOME, join(userHome, '.config'))
      assert.equal(existsSync(userHome), false, "nothing written into the user's home")
    },
  )

  it('shows a tool Cursor ran itself, with a notice naming it', LIMIT, async () => {
    const b = bridged([{ text: 'Running it.' }, { native: 'shell', command: 'ls -la' }, { text: 'Done.' }])
    const result = await b.result
    assert.equal(result.error, undefined)
    assert.equal(b.parts.filter(isToolCallsFinish).length, 0, 'nothing handed over')
    const start = b.parts.find((p) => p.type === 'tool-input-start') as any
    const call = b.parts.find((p) => p.type === 'tool-call') as any
    const done = b.parts.find((p) => p.type === 'tool-result') as any
    assert.ok(start && call && done)
    // As Cursor reported it: Cursor's name and tool kind (the plugin shows it as OpenCode's bash).
    assert.equal(call.toolName, 'shell')
    assert.deepEqual(call.providerMetadata, { cursor: { kind: 'shellToolCall' } })
    assert.equal(call.providerExecuted, true)
    assert.equal(start.providerExecuted, true)
    assert.equal(JSON.parse(call.input).command, 'ls -la')
    assert.equal(done.toolCallId, call.toolCallId)
    assert.equal(done.providerExecuted, true)
    assert.equal(done.isError, false)
    const text = textOf(b.parts)
    assert.match(
      text,
      /Cursor ran its own tool `[^`]+` instead of one of OpenCode's: OpenCode did not ask for permission and cannot undo it\./,
    )
    assert.ok(text.startsWith('Running it.') && text.endsWith('Done.'))
    assert.equal(finishOf(b.parts).finishReason.unified, 'stop')
  })

  it("the folder's hook denies Cursor's own tools and allows the MCP server's", {
    ...LIMIT,
    skip: unixOnly,
  }, async () => {
    const b = bridged([{ text: 'nothing' }])
    assert.equal((await b.result).error, undefined)
    const script = join(b.folder, 'workspace', '.cursor', 'hooks', 'opencode-tools-only.sh')
    for (const hooks of [
      join(b.folder, 'workspace', '.cursor', 'hooks.json'),
      join(b.folder, 'home', '.cursor', 'hooks.json'),
    ]) {
      // Read as Cursor reads it: `//` cut to the line's end, a bad file dropped silently.
      const config = readHooksText(readFileSync(hooks, 'utf8'))
      assert.equal(config.dropped, undefined, hooks)
      assert.equal(config.version, 1)
      for (const event of ['preToolUse', 'beforeMCPExecution']) {
        const [hook] = config.hooks[event]
        assert.equal(hook.failClosed, true)
        assert.ok(existsSync(hook.command), hooks)
      }
    }
    const rules = readCliJsonText(readFileSync(join(b.folder, 'workspace', '.cursor', 'cli.json'), 'utf8')).rules
    assert.ok(rules?.allow.some((rule: string) => mcpRuleMatches(rule, 'opencode', 'read')))
    assert.ok(!rules?.allow.some((rule: string) => mcpRuleMatches(rule, 'planted', 'read')))
    const decide = (input: object) => {
      const ran = spawnSync('/bin/sh', [script], { input: JSON.stringify(input), encoding: 'utf8' })
      assert.equal(ran.status, 0)
      return JSON.parse(ran.stdout).permission
    }
    assert.equal(
      decide({ hook_event_name: 'preToolUse', tool_name: 'Shell', tool_input: { command: 'rm -rf /' } }),
      'deny',
    )
    assert.equal(decide({ hook_event_name: 'preToolUse', tool_name: 'Write', tool_input: { path: '/etc/x' } }), 'deny')
    assert.equal(decide({ hook_event_name: 'preToolUse', tool_name: 'MCP:opencode-read', tool_input: {} }), 'allow')
    assert.equal(decide({ hook_event_name: 'preToolUse', tool_name: 'GetMcpTools', tool_input: {} }), 'allow')
    const mcp = (server: string) => ({
      hook_event_name: 'beforeMCPExecution',
      tool_name: 'read',
      tool_input: '{}',
      mcp_server_name: server,
    })
    assert.equal(decide(mcp('opencode')), 'allow')
    assert.equal(decide(mcp('planted')), 'deny')
    // Judged as JSON.parse reads the event: a quote in the path is part of it, `..` is resolved as
    // the tool resolves it, and only the event's own server name counts, not its arguments'.
    const tools = join(b.folder, 'cursor-data', 'projects', 'x', 'agent-tools')
    const read = (path: string) => ({ hook_event_name: 'preToolUse', tool_name: 'Read', tool_input: { path } })
    assert.equal(decide(read(`${tools}/a"/../../../../etc/passwd`)), 'deny')
    assert.equal(decide(read(`${tools}/sub/../1.txt`)), 'allow')
    const planted = { hook_event_name: 'beforeMCPExecution', tool_name: 'read', mcp_server_name: 'planted' }
    assert.equal(decide({ ...planted, tool_input: { mcp_server_name: 'opencode' } }), 'deny')
  })
})
