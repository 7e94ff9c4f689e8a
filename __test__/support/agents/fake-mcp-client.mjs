// The MCP client of the fake cursor-agent: the official SDK's Client over Streamable HTTP, as the
// real CLI talks to the servers named in `.cursor/mcp.json`. It behaves as Cursor's own client does
// (read from the code Cursor's npm package `@cursor/sdk` bundles, 1.0.32 by default, 1.0.18 with
// FAKE_CURSOR_SDK_RULES=1.0.18):
// - every request (initialize, tools/list, tools/call) gives up after the MCP SDK's default 60 s,
//   with no progress token and no reset, sends `notifications/cancelled` and shows the model
//   "MCP error -32001: Request timed out" (FAKE_CURSOR_MCP_TIMEOUT_MS scales it for tests);
// - the calls to one server go strictly one after another, and carry no call id;
// - `structuredContent` is dropped; `isError` is forwarded (1.0.32: `isError:!0===e.isError`), or
//   dropped (1.0.18: `isError:void 0!==e.error`);
// - text too long for the result goes to `<CURSOR_DATA_DIR or ~/.cursor>/projects/<slug>/agent-tools/
//   <uuid>.txt` and the model gets only `{filePath, sizeBytes, lineCount}`: 1.0.32 joins all text
//   items with "\n\n" and moves them all, as one file, once their UTF-8 bytes pass 40,000
//   (`Buffer.byteLength(o,"utf8")<=t`); 1.0.18 moves each text item over 40,000 UTF-16 code units
//   (`n=4e4`). FAKE_CURSOR_MCP_ITEM_LIMIT scales the limit.
// HTTP goes through node:http without any timeout of its own, and a `tools/call` whose response
// stream ends without its answer (the server went away) fails the call at once.
import { randomUUID } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import { homedir } from 'node:os'
import { basename, join } from 'node:path'
import { Readable } from 'node:stream'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'

/** The fake agent's settings: its environment, which its control file overrides (see `useSettings`). */
let settings = process.env
/** Reads the client's settings from `env` (the fake agent's environment with its control file applied). */
export function useSettings(env) {
  settings = env
}
/** The MCP SDK's default request timeout, which Cursor never overrides. */
const callTimeoutMs = () => Number(settings.FAKE_CURSOR_MCP_TIMEOUT_MS ?? 60_000)
/** Text past this goes to a file (Cursor's `n=4e4` and `s=4e4`). */
const itemLimit = () => Number(settings.FAKE_CURSOR_MCP_ITEM_LIMIT ?? 40_000)
/** Whose rules the client follows: `1.0.32` (the registry's latest) or `1.0.18`. */
const sdkRules = () => (settings.FAKE_CURSOR_SDK_RULES === '1.0.18' ? '1.0.18' : '1.0.32')

/** `text` written where Cursor puts results too big to inline, as the model then gets it: a file to Read. */
function handOff(text, workspace) {
  const dataDir = process.env.CURSOR_DATA_DIR || join(homedir(), '.cursor')
  const folder = join(dataDir, 'projects', basename(workspace ?? process.cwd()), 'agent-tools')
  mkdirSync(folder, { recursive: true })
  const filePath = join(folder, `${randomUUID()}.txt`)
  writeFileSync(filePath, text)
  const sizeBytes = Buffer.byteLength(text)
  const lineCount = text.split('\n').length
  return { type: 'text', text: JSON.stringify({ filePath, sizeBytes, lineCount }), handedOff: true, filePath }
}

/** A server's answer as Cursor's client hands it to the model, by {@link sdkRules}. */
function asCursorGivesIt(result, workspace) {
  const content = result.content ?? []
  const limit = itemLimit()
  if (sdkRules() === '1.0.18')
    return {
      content: content.map((item) =>
        item?.type === 'text' && typeof item.text === 'string' && item.text.length > limit
          ? handOff(item.text, workspace)
          : item,
      ),
      isError: false,
    }
  const texts = content.filter((item) => item?.type === 'text').map((item) => item.text ?? '')
  const joined = texts.join('\n\n')
  const isError = result.isError === true
  if (Buffer.byteLength(joined, 'utf8') <= limit) return { content, isError }
  return { content: [handOff(joined, workspace), ...content.filter((item) => item?.type !== 'text')], isError }
}

/** An error that ends the run (unreachable server, refused credentials, lost connection). */
export class McpFatalError extends Error {}

/** Watches an SSE response body for the answer to request `id`; `onLost` when it ends without it. */
async function watchAnswer(body, id, onLost) {
  let answered = false
  // A stream that sent an event id can be resumed: the SDK reconnects and the answer may still come.
  let resumable = false
  let buffer = ''
  let data = []
  const line = (text) => {
    if (text === '') {
      if (data.length > 0) {
        try {
          const message = JSON.parse(data.join('\n'))
          if (message?.id === id && ('result' in message || 'error' in message)) answered = true
        } catch {
          // Not JSON: not the answer.
        }
      }
      data = []
    } else if (text.startsWith('data:')) {
      data.push(text.slice(5).replace(/^ /, ''))
    } else if (text.startsWith('id:')) {
      resumable = true
    }
  }
  try {
    for await (const chunk of body.pipeThrough(new TextDecoderStream())) {
      buffer += chunk
      const lines = buffer.split(/\r\n|\r|\n/)
      buffer = lines.pop()
      for (const text of lines) line(text)
    }
  } catch {
    // Cut off: judged below like an end.
  }
  if (!answered && !resumable) onLost()
}

/** fetch over node:http(s) with no timeouts; `onPost(message, response)` sees each POST. */
function untimedFetch(onPost) {
  return (url, init = {}) =>
    new Promise((resolve, reject) => {
      const target = new URL(url)
      const method = init.method ?? 'GET'
      const headers = Object.fromEntries(new Headers(init.headers ?? {}))
      const request = (target.protocol === 'https:' ? https : http).request(target, {
        method,
        headers,
        agent: false,
        signal: init.signal,
      })
      request.on('error', reject)
      request.on('response', (incoming) => {
        const responseHeaders = new Headers()
        for (const [name, value] of Object.entries(incoming.headers)) {
          for (const each of [value].flat()) if (each !== undefined) responseHeaders.append(name, each)
        }
        const status = incoming.statusCode ?? 500
        const empty = method === 'HEAD' || [204, 205, 304].includes(status)
        if (empty) incoming.resume()
        let body = empty ? null : Readable.toWeb(incoming)
        if (body !== null && method === 'POST' && typeof init.body === 'string') {
          let message
          try {
            message = JSON.parse(init.body)
          } catch {
            message = null
          }
          const watched = onPost(message, responseHeaders)
          if (watched !== null) {
            const [forClient, forWatch] = body.tee()
            body = forClient
            watched(forWatch)
          }
        }
        resolve(new Response(body, { status, statusText: incoming.statusMessage, headers: responseHeaders }))
      })
      request.end(init.body ?? undefined)
    })
}

/** The error's message, with the HTTP status when the server answered with one (401 for a wrong token). */
function errorText(error) {
  if (!(error instanceof Error)) return String(error)
  return error instanceof StreamableHTTPError && typeof error.code === 'number' && error.code > 0
    ? `HTTP ${error.code}: ${error.message}`
    : error.message
}

/**
 * Connects to one server of mcp.json (`{url, headers}`): `initialize`, then
 * `notifications/initialized`. Throws McpFatalError when it is unreachable or refuses.
 */
export async function connectMcp(name, config, workspace) {
  if (typeof config?.url !== 'string')
    throw new McpFatalError(`MCP server "${name}" has no url (only Streamable HTTP servers are supported)`)
  let lost = null
  const lostCall = new Promise((_, reject) => {
    lost = reject
  })
  lostCall.catch(() => {})
  const watchPost = (message, headers) => {
    const isCall =
      message !== null && !Array.isArray(message) && message.method === 'tools/call' && message.id !== undefined
    if (!isCall || !(headers.get('content-type') ?? '').startsWith('text/event-stream')) return null
    const tool = message.params?.name
    return (stream) =>
      watchAnswer(stream, message.id, () =>
        lost(new McpFatalError(`MCP server "${name}" closed the connection during tools/call ${tool}`)),
      )
  }
  const transport = new StreamableHTTPClientTransport(new URL(config.url), {
    requestInit: { headers: config.headers ?? {} },
    fetch: untimedFetch(watchPost),
  })
  const client = new Client({ name: 'fake-cursor-agent', version: '2026.10.01-fake' }, { capabilities: {} })
  const transportErrors = []
  client.onerror = (error) => transportErrors.push(errorText(error))
  try {
    await client.connect(transport, { timeout: callTimeoutMs() })
  } catch (error) {
    await client.close().catch(() => {})
    throw new McpFatalError(`Failed to connect to MCP server "${name}": ${errorText(error)}`)
  }

  /** Every tool, following `nextCursor`: [{name, inputSchema}]. */
  async function listTools() {
    const tools = []
    let cursor
    do {
      let page
      try {
        page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: callTimeoutMs() })
      } catch (error) {
        throw new McpFatalError(`tools/list on MCP server "${name}" failed: ${errorText(error)}`)
      }
      // 1.0.32 sends the annotations on to Cursor's backend, where a team's read policy uses them.
      for (const tool of page.tools)
        tools.push({ name: tool.name, inputSchema: tool.inputSchema, annotations: tool.annotations ?? null })
      cursor = page.nextCursor
    } while (cursor !== undefined)
    return tools
  }

  // One call at a time per server (Cursor's `_callToolLock`): the next is sent once this one is answered.
  let callLock = Promise.resolve()

  /**
   * `{content, isError}` for an answered call (`isError` as {@link sdkRules} passes it on),
   * `{error, code}` for a JSON-RPC error or a timeout; throws McpFatalError when the connection fails.
   */
  async function callTool(tool, args) {
    const previous = callLock
    let release
    callLock = new Promise((resolve) => {
      release = resolve
    })
    try {
      await previous
      return await callOnce(tool, args)
    } finally {
      release()
    }
  }

  async function callOnce(tool, args) {
    try {
      const result = await Promise.race([
        client.callTool({ name: tool, arguments: args }, undefined, { timeout: callTimeoutMs() }),
        lostCall,
      ])
      return asCursorGivesIt(result, workspace)
    } catch (error) {
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        timedOut.push(tool)
        return { error: error.message, code: error.code }
      }
      const local = error instanceof McpError && error.code === ErrorCode.ConnectionClosed
      if (error instanceof McpError && !local)
        return { error: error.message.replace(/^MCP error -?\d+: /, ''), code: error.code }
      if (error instanceof McpFatalError) throw error
      throw new McpFatalError(`tools/call ${tool} on MCP server "${name}" failed: ${errorText(error)}`)
    }
  }

  const timedOut = []
  return { name, listTools, callTool, transportErrors, timedOut, close: () => client.close().catch(() => {}) }
}
