// The OpenAI-compatible server in tool mode `opencode`, through the official `openai` client: the
// client's own tools reach Cursor's model over the bridge, the response ends with `tool_calls`,
// and the client's next request with the results continues the same cursor-agent run. The fake
// cursor-agent speaks MCP as the real CLI is documented to (`FAKE_CURSOR_SCENARIO=mcp`). Needs
// `npm run build` first.
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, before, describe, it } from 'node:test'

import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { startProxy, type RunningProxy } from '../plugin/proxy/server.ts'
import { groupMembers, waitFor } from './support/process.ts'

const fakeAgent = join(__dirname, 'support', 'agents', 'fake-cursor-agent.mjs')
const scratch = mkdtempSync(join(tmpdir(), 'ocn-proxy-tools-'))
const logDir = join(scratch, 'log')
const WEATHER = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'The weather in a city.',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    },
  },
}

let proxy: RunningProxy
let client: OpenAI
const saved = { ...process.env }

before(async () => {
  Object.assign(process.env, {
    HOME: scratch,
    XDG_DATA_HOME: join(scratch, 'data'),
    PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
    CURSOR_AGENT_EXECUTABLE: fakeAgent,
    CURSOR_ACP_CHILD_ENV: 'FAKE_CURSOR_*',
    FAKE_CURSOR_SCENARIO: 'mcp',
    FAKE_CURSOR_LOG_DIR: logDir,
    FAKE_CURSOR_MCP_SCRIPT: JSON.stringify([
      { text: 'Looking it up.' },
      { calls: [{ tool: 'get_weather', args: { city: 'Paris' } }] },
      { text: 'The weather in Paris: {{result:0}}' },
    ]),
  })
  proxy = await startProxy({ port: 0, workspace: scratch, toolMode: 'opencode' })
  client = new OpenAI({ baseURL: proxy.url, apiKey: proxy.token })
})

after(async () => {
  await proxy?.close()
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key]
  Object.assign(process.env, saved)
  rmSync(scratch, { recursive: true, force: true })
})

const invocations = () =>
  (existsSync(logDir) ? readdirSync(logDir) : [])
    .filter((file) => file.startsWith('invocation-'))
    // Named by the time each started: oldest first.
    .sort()
    .map((file) => JSON.parse(readFileSync(join(logDir, file), 'utf8')))

describe('the server in tool mode opencode', () => {
  it("a client's tool call goes out as tool_calls, and its result continues the same run", async () => {
    const question = { role: 'user' as const, content: 'What is the weather in Paris?' }
    const first = await client.chat.completions.create({ model: 'auto', messages: [question], tools: [WEATHER] })
    const choice = first.choices[0]!
    assert.equal(choice.finish_reason, 'tool_calls')
    assert.equal(choice.message.content, 'Looking it up.')
    const [call] = choice.message.tool_calls ?? []
    assert.ok(call !== undefined && call.type === 'function', 'one function call')
    assert.equal(call.function.name, 'get_weather')
    assert.deepEqual(JSON.parse(call.function.arguments), { city: 'Paris' })

    const stream = client.chat.completions.stream({
      model: 'auto',
      messages: [question, choice.message, { role: 'tool', tool_call_id: call.id, content: 'sunny, 24 degrees' }],
      tools: [WEATHER],
    })
    const done = await stream.finalChatCompletion()
    assert.equal(done.choices[0]!.finish_reason, 'stop')
    assert.equal(done.choices[0]!.message.content, 'The weather in Paris: sunny, 24 degrees')

    const runs = invocations()
    assert.equal(runs.length, 1, 'one cursor-agent process served both requests')
    assert.equal(runs[0].mcpCalls[0].tool, 'get_weather')
    assert.equal(runs[0].mcpCalls[0].isError, false)
    assert.equal(runs[0].finished, true)
    assert.equal(runs[0].stdin.split('What is the weather in Paris?').length, 2, 'the prompt was written once')
  })
})

/** The runs logged since `before` runs (the log is shared by the tests). */
const newRuns = (before: number) => invocations().slice(before)

describe('the Responses and Messages APIs in tool mode opencode, as Chat Completions', () => {
  it('Responses: a function_call item goes out, and its function_call_output continues the same run', async () => {
    const earlier = invocations().length
    const tool = { type: 'function' as const, strict: false, ...WEATHER.function }
    const first = await client.responses.create({
      model: 'auto',
      input: 'What is the weather in Paris?',
      tools: [tool],
    })
    const call = first.output.find((item) => item.type === 'function_call')
    assert.ok(call?.type === 'function_call', `a function call: ${JSON.stringify(first.output)}`)
    assert.equal(call.name, 'get_weather')
    assert.deepEqual(JSON.parse(call.arguments), { city: 'Paris' })
    assert.equal(first.output_text, 'Looking it up.')
    const done = await client.responses.create({
      model: 'auto',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'sunny, 24 degrees' }],
      tools: [tool],
    })
    assert.equal(done.output_text, 'The weather in Paris: sunny, 24 degrees')
    assert.equal(newRuns(earlier).length, 1, 'one cursor-agent process served both requests')
  })

  it('Messages: a tool_use block goes out with stop_reason tool_use, and its tool_result continues the same run', async () => {
    const earlier = invocations().length
    const anthropic = new Anthropic({ baseURL: proxy.url.replace(/\/v1$/, ''), apiKey: proxy.token })
    const tool = {
      name: WEATHER.function.name,
      description: WEATHER.function.description,
      input_schema: { ...WEATHER.function.parameters, type: 'object' as const },
    }
    const question = { role: 'user' as const, content: 'What is the weather in Paris?' }
    const first = await anthropic.messages.create({
      model: 'auto',
      max_tokens: 256,
      messages: [question],
      tools: [tool],
    })
    assert.equal(first.stop_reason, 'tool_use')
    const use = first.content.find((block) => block.type === 'tool_use')
    assert.ok(use?.type === 'tool_use', JSON.stringify(first.content))
    assert.equal(use.name, 'get_weather')
    assert.deepEqual(use.input, { city: 'Paris' })
    const done = await anthropic.messages
      .stream({
        model: 'auto',
        max_tokens: 256,
        tools: [tool],
        messages: [
          question,
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'sunny, 24 degrees' }] },
        ],
      })
      .finalMessage()
    assert.equal(done.stop_reason, 'end_turn')
    assert.equal((done.content.at(-1) as Anthropic.TextBlock).text, 'The weather in Paris: sunny, 24 degrees')
    assert.equal(newRuns(earlier).length, 1, 'one cursor-agent process served both requests')
  })
})

const anthropicClient = () => new Anthropic({ baseURL: proxy.url.replace(/\/v1$/, ''), apiKey: proxy.token })
const WEATHER_FOR_ANTHROPIC = {
  name: WEATHER.function.name,
  description: WEATHER.function.description,
  input_schema: { ...WEATHER.function.parameters, type: 'object' as const },
}
/** A tool Claude Code defers: not there to call until a tool result loads it by a `tool_reference`. */
const DEFERRED = {
  name: 'get_time',
  description: 'The time in a city.',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } },
  defer_loading: true,
}

/** A Messages request's first turn that ends with the weather tool's call; its question and answer. */
async function weatherCall(tools: unknown[]) {
  const question = { role: 'user' as const, content: 'What is the weather in Paris?' }
  const first = await anthropicClient().messages.create({
    model: 'auto',
    max_tokens: 256,
    messages: [question],
    tools: tools as Anthropic.Tool[],
  })
  const use = first.content.find((block) => block.type === 'tool_use')
  assert.ok(use?.type === 'tool_use', JSON.stringify(first.content))
  return { history: [question, { role: 'assistant' as const, content: first.content }], use }
}

describe("Claude Code's tool results and tools in tool mode opencode", () => {
  it('a tool_result with text beside it answers the held call: the text goes with the result', async () => {
    const earlier = invocations().length
    const { history, use } = await weatherCall([WEATHER_FOR_ANTHROPIC])
    const results = [
      { type: 'tool_result', tool_use_id: use.id, content: 'sunny, 24 degrees', is_error: false },
      { type: 'text', text: 'Tool loaded.' },
    ]
    const done = await anthropicClient().messages.create({
      model: 'auto',
      max_tokens: 256,
      tools: [WEATHER_FOR_ANTHROPIC],
      messages: [...history, { role: 'user', content: results as never }],
    })
    assert.equal(
      (done.content.at(-1) as Anthropic.TextBlock).text,
      'The weather in Paris: sunny, 24 degrees\n\nTool loaded.',
    )
    assert.equal(newRuns(earlier).length, 1, 'one cursor-agent process served both requests')
  })

  it('a deferred tool is not offered until a result loads it; a tool a later request adds reaches a new run', async () => {
    const script = { sunny: [{ text: 'Answered with the new tools.' }], Paris: BRANCHES.BRANCH }
    await withScript(script, async () => {
      const earlier = invocations().length
      const { history, use } = await weatherCall([WEATHER_FOR_ANTHROPIC, DEFERRED])
      const loaded = [
        { type: 'tool_result', tool_use_id: use.id, content: [{ type: 'tool_reference', tool_name: 'get_time' }] },
        { type: 'text', text: 'sunny: Tool loaded.' },
      ]
      const done = await anthropicClient().messages.create({
        model: 'auto',
        max_tokens: 256,
        tools: [WEATHER_FOR_ANTHROPIC, DEFERRED] as Anthropic.Tool[],
        messages: [...history, { role: 'user', content: loaded as never }],
      })
      assert.equal((done.content.at(-1) as Anthropic.TextBlock).text, 'Answered with the new tools.')
      const [held, fresh] = newRuns(earlier)
      const offers = (run: { mcpTools: Array<{ name: string }> }, name: string) =>
        run.mcpTools.some((tool) => tool.name === name)
      assert.ok(offers(held, 'get_weather') && !offers(held, 'get_time'), 'the deferred tool is not offered')
      assert.ok(offers(fresh, 'get_weather') && offers(fresh, 'get_time'), 'the loaded tool reaches the model')
      assert.ok(await waitFor(() => groupMembers(held.pgid).length === 0, 3000), 'the held run is ended')
    })
  })
})

/** The private folders of conversations under the data folder. */
const conversationFolders = (): string[] => {
  const folder = join(scratch, 'data', 'opencode-cursor-native', 'conversations')
  return existsSync(folder) ? readdirSync(folder) : []
}

/** Runs `body` with the fake's MCP script set to `script`, then the file's own again. */
async function withScript<T>(script: unknown, body: () => Promise<T>): Promise<T> {
  const saved = process.env.FAKE_CURSOR_MCP_SCRIPT
  process.env.FAKE_CURSOR_MCP_SCRIPT = JSON.stringify(script)
  try {
    return await body()
  } finally {
    process.env.FAKE_CURSOR_MCP_SCRIPT = saved
  }
}

const WEATHER_TOOL = { type: 'function' as const, strict: false, ...WEATHER.function }
/** A prompt that names `BRANCH` calls the tool and answers with its result; one that names only `FIRST` answers at once. */
const BRANCHES = {
  BRANCH: [
    { text: 'Looking.' },
    { calls: [{ tool: 'get_weather', args: { city: 'Paris' } }] },
    { text: 'Result: {{result:0}}' },
  ],
  FIRST: [{ text: 'Plain.' }],
}

describe("the server's conversations in tool mode opencode", () => {
  it('two continuations of one response are two conversations: each tool result reaches its own run', async () => {
    await withScript(BRANCHES, async () => {
      const earlier = invocations().length
      const first = await client.responses.create({ model: 'auto', input: 'FIRST question', tools: [WEATHER_TOOL] })
      assert.equal(first.output_text, 'Plain.')
      const branch = (word: string) =>
        client.responses.create({
          model: 'auto',
          input: `BRANCH ${word}`,
          previous_response_id: first.id,
          tools: [WEATHER_TOOL],
        })
      const calls = await Promise.all([branch('a'), branch('b')])
      const answers = await Promise.all(
        calls.map((response, index) => {
          const call = response.output.find((item) => item.type === 'function_call')
          assert.ok(call?.type === 'function_call', JSON.stringify(response.output))
          return client.responses.create({
            model: 'auto',
            previous_response_id: response.id,
            input: [{ type: 'function_call_output', call_id: call.call_id, output: `sunny ${index}` }],
            tools: [WEATHER_TOOL],
          })
        }),
      )
      assert.deepEqual(
        answers.map((answer) => answer.output_text),
        ['Result: sunny 0', 'Result: sunny 1'],
      )
      assert.equal(newRuns(earlier).length, 3, 'one run for the first response, one per branch')
    })
  })
  it("a conversation's private folder goes once it can no longer continue", async () => {
    const question = { role: 'user' as const, content: 'What is the weather in Paris?' }
    await waitFor(() => conversationFolders().length === 0, 30_000)
    assert.deepEqual(conversationFolders(), [], 'the finished conversations of the tests before left none')
    const first = await client.chat.completions.create({ model: 'auto', messages: [question], tools: [WEATHER] })
    const call = first.choices[0]!.message.tool_calls![0]!
    assert.equal(conversationFolders().length, 1, 'a run waiting for its tool result keeps its folder')
    await client.chat.completions.create({
      model: 'auto',
      messages: [question, first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: 'rain' }],
      tools: [WEATHER],
    })
    assert.ok(await waitFor(() => conversationFolders().length === 0, 30_000), `${conversationFolders()}`)
    await withScript(BRANCHES, () =>
      client.chat.completions.create({
        model: 'auto',
        messages: [{ role: 'user', content: 'FIRST' }],
        tools: [WEATHER],
      }),
    )
    assert.ok(await waitFor(() => conversationFolders().length === 0, 30_000), `${conversationFolders()}`)
  })

  it('close() ends the runs that wait for tool results, and a server counts only its own', async () => {
    const other = await startProxy({ port: 0, workspace: scratch, toolMode: 'opencode' })
    const held = await new OpenAI({ baseURL: other.url, apiKey: other.token }).chat.completions.create({
      model: 'auto',
      messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
      tools: [WEATHER],
    })
    assert.equal(held.choices[0]!.finish_reason, 'tool_calls')
    const live = invocations().filter((logged) => groupMembers(logged.pgid).length > 0)
    assert.equal(live.length, 1, 'the held run lives')
    const [run] = live
    const single = await startProxy({ port: 0, workspace: scratch, toolMode: 'opencode', maxConcurrent: 1 })
    try {
      await withScript(BRANCHES, async () => {
        const served = await new OpenAI({
          baseURL: single.url,
          apiKey: single.token,
          maxRetries: 0,
        }).chat.completions.create({
          model: 'auto',
          messages: [{ role: 'user', content: 'FIRST' }],
        })
        assert.equal(
          served.choices[0]!.message.content,
          'Plain.',
          "another server's held run takes no slot of this one",
        )
      })
    } finally {
      await single.close()
    }
    await other.close()
    assert.ok(await waitFor(() => groupMembers(run.pgid).length === 0, 30_000), `group ${run.pgid} still runs`)
    assert.ok(await waitFor(() => conversationFolders().length === 0, 30_000), `${conversationFolders()}`)
  })
})
