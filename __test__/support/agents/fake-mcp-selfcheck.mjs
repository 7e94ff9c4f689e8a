#!/usr/bin/env node
// Checks the fake cursor-agent's MCP side against a real MCP server (the SDK's McpServer over
// Streamable HTTP on 127.0.0.1, a random path, a bearer token), without the package:
// - a run reads `.cursor/mcp.json` from its workspace, connects with the configured headers,
//   lists the tools and records them;
// - two parallel `tools/call`s are both in flight while the server holds each for 2 s (they
//   overlap, the run takes about 2 s, not 4), and the stream shows both `started` records before
//   the `completed` ones, then text quoting both results;
// - the `server` shape, `emitBefore: false`, a native shell call, `listTools` and a failing call;
// - a wrong token and a missing `--approve-mcps` each end the run at once with exit code 1.
// Run: node __test__/support/agents/fake-mcp-selfcheck.mjs (prints `ok` and exits 0, or throws).
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { z } from 'zod'

const here = dirname(fileURLToPath(import.meta.url))
const agent = join(here, 'fake-cursor-agent.mjs')
const HOLD_MS = 2000
const SERVER = 'opencode'

const token = randomBytes(16).toString('hex')
const path = `/mcp-${randomUUID()}`
/** Every `read` the server ran: {path, start, end}. */
const reads = []

function mcpServer() {
  const server = new McpServer({ name: 'selfcheck', version: '1.0.0' })
  server.registerTool(
    'read',
    { description: 'Reads a file', inputSchema: { path: z.string() } },
    async ({ path: file }) => {
      const entry = { path: file, start: Date.now(), end: null }
      reads.push(entry)
      await new Promise((done) => setTimeout(done, HOLD_MS))
      entry.end = Date.now()
      return { content: [{ type: 'text', text: `contents of ${file}` }] }
    },
  )
  return server
}

// Stateless: a server and a transport per request.
const http = createServer(async (request, response) => {
  if (request.url !== path) return response.writeHead(404).end()
  if (request.headers.authorization !== `Bearer ${token}`)
    return response.writeHead(401, { 'content-type': 'text/plain' }).end('unauthorized')
  if (request.method !== 'POST') return response.writeHead(405, { allow: 'POST' }).end()
  const server = mcpServer()
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })
  response.on('close', () => {
    transport.close()
    server.close()
  })
  await server.connect(transport)
  await transport.handleRequest(request, response)
})
await new Promise((done) => http.listen(0, '127.0.0.1', done))
const url = `http://127.0.0.1:${http.address().port}${path}`

const root = mkdtempSync(join(tmpdir(), 'fake-mcp-selfcheck-'))

/** Runs the fake agent in a fresh workspace and private HOME; {code, stderr, events, log, ms}. */
async function runAgent({ script, bearer = token, approve = true }) {
  const workspace = mkdtempSync(join(root, 'ws-'))
  const home = mkdtempSync(join(root, 'home-'))
  const logDir = join(root, `log-${randomUUID()}`)
  mkdirSync(join(workspace, '.cursor'))
  writeFileSync(
    join(workspace, '.cursor', 'mcp.json'),
    JSON.stringify({ mcpServers: { [SERVER]: { url, headers: { Authorization: `Bearer ${bearer}` } } } }),
  )
  const args = [
    '--print',
    '--output-format',
    'stream-json',
    '--stream-partial-output',
    '--workspace',
    workspace,
    '--model',
    'fake-model',
    '--trust',
  ]
  if (approve) args.push('--approve-mcps')
  args.push('--allowed-tools', 'mcp_tool_call,get_mcp_tools_tool_call')
  const started = Date.now()
  const child = spawn(process.execPath, [agent, ...args], {
    cwd: workspace,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      FAKE_CURSOR_LOG_DIR: logDir,
      FAKE_CURSOR_SCENARIO: 'mcp',
      FAKE_CURSOR_MCP_SCRIPT: JSON.stringify(script),
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  child.stderr.on('data', (chunk) => (stderr += chunk))
  child.stdin.end('Read two files.')
  const code = await new Promise((done) => child.on('close', done))
  const [file] = readdirSync(logDir).filter((name) => name.startsWith('invocation-'))
  const log = JSON.parse(readFileSync(join(logDir, file), 'utf8'))
  const events = stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line))
  return { code, stderr, events, log, ms: Date.now() - started }
}

const toolCalls = (events, subtype) => events.filter((event) => event.type === 'tool_call' && event.subtype === subtype)
const finalTexts = (events) =>
  events
    .filter((event) => event.type === 'assistant' && event.timestamp_ms === undefined)
    .map((event) => event.message.content[0].text)

try {
  // Two held calls at once, then text quoting both.
  {
    const run = await runAgent({
      script: [
        {
          calls: [
            { tool: 'read', args: { path: 'a.txt' } },
            { tool: 'read', args: { path: 'b.txt' } },
          ],
          parallel: true,
        },
        { text: 'A: {{result:0}} B: {{result:1}} failed: {{error:0}}' },
      ],
    })
    assert.equal(run.code, 0, run.stderr)
    const [init, user] = run.events
    assert.equal(init.type, 'system')
    assert.equal(user.message.content[0].text, 'Read two files.')
    const sessionId = init.session_id
    const started = toolCalls(run.events, 'started')
    const completed = toolCalls(run.events, 'completed')
    assert.equal(started.length, 2)
    assert.equal(completed.length, 2)
    assert.ok(
      run.events.indexOf(started[1]) < run.events.indexOf(completed[0]),
      'both calls start before either completes',
    )
    assert.deepEqual(started[0].tool_call.mcpToolCall.args, {
      name: `${SERVER}-read`,
      args: { path: 'a.txt' },
      toolCallId: started[0].call_id,
      providerIdentifier: SERVER,
      toolName: 'read',
    })
    for (const event of [...started, ...completed]) {
      assert.equal(event.session_id, sessionId)
      assert.equal(typeof event.model_call_id, 'string')
      assert.equal(typeof event.timestamp_ms, 'number')
      assert.deepEqual(event.tool_call.hookAdditionalContexts, [])
      assert.equal(event.tool_call.toolCallId, event.call_id)
    }
    const byId = Object.fromEntries(completed.map((event) => [event.call_id, event.tool_call.mcpToolCall.result]))
    assert.deepEqual(byId[started[0].call_id], {
      success: { content: [{ text: { text: 'contents of a.txt' } }], isError: false },
    })
    assert.deepEqual(byId[started[1].call_id], {
      success: { content: [{ text: { text: 'contents of b.txt' } }], isError: false },
    })
    assert.deepEqual(finalTexts(run.events), ['A: contents of a.txt B: contents of b.txt failed: false'])
    const result = run.events.at(-1)
    assert.equal(result.type, 'result')
    assert.equal(result.session_id, sessionId)
    assert.equal(result.result, 'A: contents of a.txt B: contents of b.txt failed: false')
    assert.ok(result.usage)
    // Held on the server, side by side.
    const [first, second] = reads
    assert.ok(
      first.end - first.start >= HOLD_MS - 50 && second.start < first.end,
      `the calls overlap: ${JSON.stringify(reads)}`,
    )
    assert.ok(run.ms < 2 * HOLD_MS, `parallel calls take one hold, not two (${run.ms} ms)`)

    assert.deepEqual(run.log.mcpServers, [SERVER])
    assert.equal(run.log.approveMcps, true)
    assert.deepEqual(run.log.allowedTools, ['mcp_tool_call', 'get_mcp_tools_tool_call'])
    assert.equal(run.log.finished, true)
    const [read] = run.log.mcpTools
    assert.equal(read.name, 'read')
    assert.equal(read.inputSchema.properties.path.type, 'string')
    assert.deepEqual(
      run.log.mcpCalls.map(({ tool, args, result, isError }) => ({ tool, args, result, isError })),
      ['a.txt', 'b.txt'].map((file) => ({
        tool: 'read',
        args: { path: file },
        result: { content: [{ type: 'text', text: `contents of ${file}` }], isError: false },
        isError: false,
      })),
    )
  }

  // The server shape with `started` after the request, a native shell call, listTools, a failing call.
  {
    const run = await runAgent({
      script: [
        { calls: [{ tool: 'read', args: { path: 'c.txt' } }], shape: 'server', emitBefore: false },
        { native: 'shell', command: 'ls' },
        { listTools: true },
        { calls: [{ tool: 'missing', args: {} }] },
        { text: '{{result:0}} / {{error:1}}' },
      ],
    })
    assert.equal(run.code, 0, run.stderr)
    const started = toolCalls(run.events, 'started')
    assert.deepEqual(started[0].tool_call.mcpToolCall.args, {
      name: `${SERVER}:read`,
      args: { path: 'c.txt' },
      toolCallId: started[0].call_id,
      serverIdentifier: SERVER,
      toolName: 'read',
    })
    assert.equal(started[1].tool_call.shellToolCall.args.command, 'ls')
    const shellDone = toolCalls(run.events, 'completed')[1].tool_call.shellToolCall.result.success
    assert.equal(shellDone.exitCode, 0)
    assert.equal(shellDone.stdout, 'fake output')
    assert.equal(run.log.mcpToolLists.length, 2)
    assert.equal(run.log.mcpCalls[1].isError, true)
    assert.deepEqual(finalTexts(run.events), ['contents of c.txt / true'])
  }

  // A wrong token: the server answers 401 and the run fails at once.
  {
    const run = await runAgent({ script: [{ text: 'never' }], bearer: 'wrong' })
    assert.equal(run.code, 1)
    assert.match(run.stderr, /Failed to connect to MCP server "opencode".*401/)
    assert.equal(run.events.length, 0)
  }

  // MCP configured without --approve-mcps: exit 1 at once instead of waiting for an approval.
  {
    const run = await runAgent({ script: [{ text: 'never' }], approve: false })
    assert.equal(run.code, 1)
    assert.match(run.stderr, /--approve-mcps/)
    assert.equal(run.log.approveMcps, false)
    assert.deepEqual(run.log.mcpServers, [SERVER])
  }
  process.stdout.write('ok\n')
} finally {
  http.close()
  http.closeAllConnections()
  rmSync(root, { recursive: true, force: true })
}
