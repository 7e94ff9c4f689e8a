// The OpenAI-compatible server (`startProxy`, dist/plugin/proxy/server.js) under the real OpenCode CLI
// (1.18.33) configured WITHOUT this package's plugin: a provider block with OpenCode's bundled
// `@ai-sdk/openai-compatible` whose baseURL is the proxy's url and whose apiKey is its token. The
// proxy runs in this test process over the fake cursor-agent, so the fake's FAKE_CURSOR_*
// variables are set here (and `CURSOR_ACP_CHILD_ENV=FAKE_CURSOR_*` lets them through the minimal
// child environment). Needs `npm run build` (the proxy is loaded from dist/).
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { e2eFile, eventsOf, explain, textOf, steps } from '../support/e2e.ts'
import { FAKE_AGENT, REPO_ROOT, type Invocation, type RunResult, type Sandbox } from '../support/opencode.ts'

const PROVIDER = 'cursor-proxy'
const MODEL = `${PROVIDER}/auto`
const linuxOnly = process.platform !== 'linux' ? 'the OpenCode harness is Linux only' : false
const e2e = e2eFile()

// OpenCode knows only this provider (no plugin), as in §3 of the OpenCode integration notes:
// the bundled `@ai-sdk/openai-compatible`, so nothing is installed and nothing leaves loopback.
// The url and token are the proxy's, known once it listens.
const PROXY_CONFIG = {
  model: MODEL,
  small_model: MODEL,
  provider: {
    [PROVIDER]: {
      npm: '@ai-sdk/openai-compatible',
      name: 'Cursor through the OpenAI-compatible server',
      options: { baseURL: '{env:PROXY_E2E_BASE_URL}', apiKey: '{env:PROXY_E2E_TOKEN}' },
      models: { auto: { name: 'Auto' } },
    },
  },
}

type ToolMode = 'cursor' | 'opencode'
// The built copy is what runs (as in every end-to-end file); the source gives its type.
type StartProxy = typeof import('../../plugin/proxy/server.ts').startProxy

interface McpCall {
  tool: string
  args: Record<string, unknown>
  result: { content?: Array<{ type: string; text?: string }>; isError?: boolean } | null
}
type BridgedInvocation = Invocation & { mcpCalls?: Array<McpCall | null>; finished?: boolean }

// The test process's environment is the proxy's: cursor-agent's settings and the fake's script
// live here. Whatever the outer shell set for either is put aside for the file.
let savedEnv: NodeJS.ProcessEnv = {}
let proxyData = ''
let startProxy: StartProxy

before(async () => {
  savedEnv = { ...process.env }
  for (const name of Object.keys(process.env)) {
    if (/^(CURSOR_ACP_|CURSOR_AGENT_EXECUTABLE$)|^FAKE_CURSOR_(?!CAPTURES_DIR$)/.test(name)) delete process.env[name]
  }
  proxyData = mkdtempSync(join(tmpdir(), 'proxy-e2e-'))
  mkdirSync(join(proxyData, 'home'))
  Object.assign(process.env, {
    CURSOR_AGENT_EXECUTABLE: FAKE_AGENT,
    CURSOR_ACP_CHILD_ENV: 'FAKE_CURSOR_*',
    // The conversations' private folders and the model cache, and the fake's `~/.cursor`.
    HOME: join(proxyData, 'home'),
    XDG_DATA_HOME: join(proxyData, 'data'),
  })
  ;({ startProxy } = (await import(join(REPO_ROOT, 'dist', 'plugin', 'proxy', 'server.js'))) as {
    startProxy: StartProxy
  })
})

after(() => {
  for (const name of Object.keys(process.env)) if (!(name in savedEnv)) delete process.env[name]
  Object.assign(process.env, savedEnv)
  if (process.env.OPENCODE_E2E_KEEP !== '1') rmSync(proxyData, { recursive: true, force: true })
})

interface ProxyRun {
  result: RunResult
  sandbox: Sandbox
  why: string
  invocations: BridgedInvocation[]
  ms: number
}

/**
 * One `opencode run --format json` against a proxy started for it: `fake` is the fake agent's
 * environment for this run (its log goes to the sandbox), `script` the `mcp` scenario's steps,
 * built from the workspace path.
 */
async function runThroughProxy(options: {
  prompt: string[]
  toolMode?: ToolMode
  fake?: Record<string, string>
  script?: (workspace: string) => unknown[]
  files?: Record<string, string>
  flags?: string[]
  timeoutMs?: number
}): Promise<ProxyRun> {
  const sandbox = await e2e.sandbox({
    plugin: null,
    agentExecutable: null,
    files: options.files ?? {},
    config: PROXY_CONFIG,
  })
  const fake: Record<string, string> = { FAKE_CURSOR_LOG_DIR: sandbox.agentLog, ...options.fake }
  if (options.script !== undefined) fake.FAKE_CURSOR_MCP_SCRIPT = JSON.stringify(options.script(sandbox.workspace))
  Object.assign(process.env, fake)
  const proxy = await startProxy({ port: 0, workspace: sandbox.workspace, toolMode: options.toolMode ?? 'cursor' })
  try {
    sandbox.env.PROXY_E2E_BASE_URL = proxy.url
    sandbox.env.PROXY_E2E_TOKEN = proxy.token
    const started = Date.now()
    const result = await sandbox.run(
      ['run', '--format', 'json', ...(options.flags ?? []), '--model', MODEL, ...options.prompt],
      {
        timeoutMs: options.timeoutMs ?? 120_000,
      },
    )
    const ms = Date.now() - started
    return {
      result,
      sandbox,
      why: explain(result, sandbox),
      invocations: sandbox.invocations() as BridgedInvocation[],
      ms,
    }
  } finally {
    await proxy.close()
    for (const name of Object.keys(fake)) delete process.env[name]
  }
}

const resultText = (call: McpCall | null | undefined) =>
  (call?.result?.content ?? []).map((item) => item.text ?? '').join('\n')

describe('the OpenAI-compatible server under the real OpenCode CLI, without the plugin', { skip: linuxOnly }, () => {
  // OpenCode 1.18's openai-compatible model reads the proxy's `delta.reasoning_content` into
  // reasoning parts; `run --format json` prints them as `reasoning` events only with `--thinking`
  // (without it the same run shows the text alone).
  test("a text answer arrives, from one cursor-agent run in the workspace; the fake's thinking shows as OpenCode's reasoning part, before the text and not in it", async () => {
    const { result, why, invocations, sandbox } = await runThroughProxy({
      prompt: ['say', 'hi'],
      flags: ['--thinking'],
      fake: { FAKE_CURSOR_STREAM: 'text:Answered through the proxy.' },
    })
    assert.equal(result.code, 0, why)
    const config = JSON.parse(readFileSync(join(sandbox.workspace, 'opencode.json'), 'utf8'))
    assert.equal(config.plugin, undefined, "OpenCode runs without this package's plugin")
    assert.equal(textOf(result), 'Answered through the proxy.', why)
    assert.deepEqual(steps(result), [{ tools: [], reason: 'stop' }], why)
    // The fake's usage (10 in, 5 out) came through `stream_options.include_usage`.
    const [finish] = eventsOf(result, 'step_finish')
    assert.equal(finish?.part.tokens.input, 10, why)
    assert.equal(finish?.part.tokens.output, 5, why)
    // OpenCode's title request is answered by the proxy itself: the answer is the only run.
    assert.equal(invocations.length, 1, why)
    const [run] = invocations
    assert.equal(run!.cwd, sandbox.workspace, "in tool mode cursor, cursor-agent works in the proxy's workspace")
    assert.equal(run!.argv[run!.argv.indexOf('--model') + 1], 'auto')
    assert.match(run!.stdin ?? '', /USER: say hi$/, 'the prompt ends with the user message, unquoted')
    const reasoning = eventsOf(result, 'reasoning')
    assert.deepEqual(
      reasoning.map((event) => event.part.text),
      ['Thinking about the answer.'],
      `the fake's thinking delta is one reasoning part\n${why}`,
    )
    const order = result.events
      .filter((event) => event.type === 'reasoning' || event.type === 'text')
      .map((event) => event.type)
    assert.deepEqual(order, ['reasoning', 'text'], why)
  })

  // The proxy's outputs are SSE frames (strings), so the turn must recognise the hand-over in
  // them (`tool_calls`, then `finish_reason: "tool_calls"`) to end the first response and hold
  // the run; otherwise the first response never ends and OpenCode waits until the run times out.
  test('tool mode opencode: OpenCode runs its own read for the call, the next request answers it, and the same run finishes', async () => {
    const { result, why, invocations } = await runThroughProxy({
      prompt: ['what', 'do', 'the', 'notes', 'say'],
      toolMode: 'opencode',
      fake: { FAKE_CURSOR_SCENARIO: 'mcp' },
      files: { 'notes.txt': 'the secret word is teapot\n' },
      script: (ws) => [
        { text: 'Reading the notes.' },
        { calls: [{ tool: 'read', args: { filePath: join(ws, 'notes.txt') } }] },
        { text: 'The notes say: {{result:0}}' },
      ],
    })
    assert.equal(result.code, 0, why)
    // The first response ended with the call (`finish_reason: "tool_calls"`), the second with the answer.
    assert.deepEqual(
      steps(result),
      [
        { tools: ['read'], reason: 'tool-calls' },
        { tools: [], reason: 'stop' },
      ],
      why,
    )
    const [read] = eventsOf(result, 'tool_use').map((event) => event.part)
    assert.equal(read?.state.status, 'completed', why)
    // OpenCode's own read (its numbered <content> block), not anything Cursor ran.
    assert.match(read?.state.output as string, /<content>\n1: the secret word is teapot/, why)
    assert.equal(invocations.length, 1, `one cursor-agent process for both requests\n${why}`)
    const [run] = invocations
    assert.equal(run!.finished, true, 'the held run went on to its end')
    assert.equal(run!.stdin?.split('what do the notes say').length, 2, 'the prompt was written once')
    // The held call got exactly what OpenCode sent back in its next request's `role: "tool"` message.
    assert.equal(run!.mcpCalls?.length, 1, why)
    assert.equal(run!.mcpCalls?.[0]?.tool, 'read')
    assert.equal(
      resultText(run!.mcpCalls?.[0]),
      read?.state.output,
      'the tool message of the next request reached the held call',
    )
    assert.match(textOf(result), /Reading the notes\.[\s\S]*The notes say: [\s\S]*the secret word is teapot/, why)
  })

  // Whether OpenCode retries a failed request. OpenCode 1.18.33 (session/retry.ts, read from the
  // binary) retries an APIError when the AI SDK marks it retryable (status 408, 409, 429 or >= 500;
  // the `x-should-retry: false` header the proxy sends is not looked at), when its status is >= 500
  // whatever that flag says, or when its message or response body reads as transient ("rate limit",
  // "overloaded", "timeout", or any of 429/500/502/503/504/524 in the text). It then waits
  // `retry-after-ms`, else `retry-after`, else 2 s doubling with jitter (capped at 30 s only when
  // the response had no headers), up to 5 retries. The proxy answers a cursor-agent that is not
  // logged in with 401 E_AUTH, none of the above: OpenCode gives up at once, one run.
  test('a failure OpenCode does not retry: not logged in is one run, a 401 and exit 1', async () => {
    const { result, why, invocations, ms } = await runThroughProxy({
      prompt: ['say', 'hi'],
      fake: { FAKE_CURSOR_SCENARIO: 'auth' },
    })
    assert.equal(result.timedOut, false, why)
    assert.equal(result.code, 1, why)
    const errors = eventsOf(result, 'error')
    assert.equal(errors.length, 1, why)
    const data = errors[0]!.error.data
    assert.equal(errors[0]!.error.name, 'APIError', why)
    assert.equal(data.statusCode, 401, why)
    assert.equal(data.isRetryable, false, why)
    assert.equal(data.responseHeaders['x-should-retry'], 'false', why)
    assert.equal(JSON.parse(data.responseBody).error.code, 'E_AUTH', why)
    assert.match(data.message, /not logged in/, why)
    assert.equal(
      invocations.length,
      1,
      `observed: OpenCode did not retry the 401 (cursor-agent ran ${invocations.length} times)\n${why}`,
    )
    assert.ok(ms < 30_000, `no backoff wait (took ${ms} ms)`)
  })

  // Not tested here, because each takes minutes: statuses OpenCode retries whatever
  // `x-should-retry` says. Observed with OpenCode 1.18.33: a 502 (E_AGENT_EXIT) ran cursor-agent 6
  // times over about 75 s (2-4-8-16-32 s apart); a 429 E_QUOTA with a reset date makes OpenCode
  // wait out `retry-after` (capped at 24.8 days) with nothing on screen. docs/server.md says so,
  // and points OpenCode users at the plugin, whose errors OpenCode never retries.
})
