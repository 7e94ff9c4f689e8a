// A response's parts through a host's view of Cursor's own tools (plugin/turn/tool-view.ts), here
// OpenCode 1.18's: what reaches the host, part by part. The neutral parts are written as the
// `ai-sdk` format documents them (index.d.ts `StreamPart`); every expected part is written by hand
// from what OpenCode reads. Runs under Node and Bun.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'

import type { StreamPart } from '../index.js'
import { openCodeToolView } from '../plugin/opencode/tool-view.ts'
import { type CursorResult, type ShownPart, sortedJson, toolViewStream } from '../plugin/turn/tool-view.ts'

const cursorMetadata = (kind: string, server?: string) => ({
  cursor: server === undefined ? { kind } : { kind, server },
})

/** The neutral parts of one of Cursor's own calls, as the `ai-sdk` format writes them. */
function cursorCall(
  id: string,
  toolName: string,
  kind: string,
  input: string,
  result?: CursorResult,
  server?: string,
): StreamPart[] {
  const providerMetadata = cursorMetadata(kind, server)
  const executed = { providerExecuted: true, dynamic: true, providerMetadata } as const
  const parts: StreamPart[] = [
    { type: 'tool-input-start', id, toolName, ...executed },
    { type: 'tool-input-delta', id, delta: input },
    { type: 'tool-input-end', id },
    { type: 'tool-call', toolCallId: id, toolName, input, ...executed },
  ]
  if (result !== undefined)
    parts.push({
      type: 'tool-result',
      toolCallId: id,
      toolName,
      result,
      isError: false,
      ...executed,
    })
  return parts
}

function shownThrough(parts: StreamPart[]): ShownPart[] {
  const map = toolViewStream(openCodeToolView)
  const shown: ShownPart[] = []
  for (const part of parts) map(part, (out) => shown.push(out))
  return shown
}

describe('a response through the view', () => {
  it("Cursor's call becomes OpenCode's tool, with its input and a {title, output, metadata} result", () => {
    const args = '{"command":"ls","workingDirectory":"","toolCallId":"c1","description":"List"}'
    const result: CursorResult = { status: 'success', exitCode: 0, stdout: 'a\n', stderr: '' }
    const shown = shownThrough([
      { type: 'text-start', id: 'text-0' },
      { type: 'text-delta', id: 'text-0', delta: 'Listing.' },
      { type: 'text-end', id: 'text-0' },
      ...cursorCall('c1', 'shell', 'shellToolCall', args, result),
    ])
    const executed = { providerExecuted: true, dynamic: true } as const
    const input = '{"command":"ls","description":"List"}'
    assert.deepEqual(shown, [
      { type: 'text-start', id: 'text-0' },
      { type: 'text-delta', id: 'text-0', delta: 'Listing.' },
      { type: 'text-end', id: 'text-0' },
      { type: 'tool-input-start', id: 'c1', toolName: 'bash', ...executed },
      { type: 'tool-input-delta', id: 'c1', delta: input },
      { type: 'tool-input-end', id: 'c1' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'bash', input, ...executed },
      {
        type: 'tool-result',
        toolCallId: 'c1',
        toolName: 'bash',
        result: { title: 'ls', output: 'a\n', metadata: { output: 'a\n', exit: 0, description: 'List' } },
        isError: false,
        ...executed,
      },
    ])
  })

  it('an MCP call is named after its server; a failed result is its error text', () => {
    const parts = cursorCall('m1', 'search', 'mcpToolCall', '{"args":{"q":"x"},"toolName":"search"}', undefined, 'docs')
    parts.push({
      type: 'tool-result',
      toolCallId: 'm1',
      toolName: 'search',
      result: { status: 'success', content: [{ text: { text: 'server down' } }], isError: true },
      isError: true,
      providerExecuted: true,
      dynamic: true,
      providerMetadata: cursorMetadata('mcpToolCall', 'docs'),
    })
    const shown = shownThrough(parts)
    assert.deepEqual(
      shown.map((part) => ('toolName' in part ? part.toolName : part.type)),
      ['docs_search', 'tool-input-delta', 'tool-input-end', 'docs_search', 'docs_search'],
    )
    const result = shown.at(-1) as Extract<ShownPart, { type: 'tool-result' }>
    assert.equal(result.result, 'server down')
    assert.equal(result.isError, true)
  })

  it('input arriving in several deltas is shown whole, once', () => {
    const [start, , end, call] = cursorCall('r1', 'read', 'readToolCall', '{"path":"/w/a","limit":5}')
    const shown = shownThrough([
      start!,
      { type: 'tool-input-delta', id: 'r1', delta: '{"path":' },
      { type: 'tool-input-delta', id: 'r1', delta: '"/w/a","limit":5}' },
      end!,
      call!,
    ])
    const deltas = shown.filter((part) => part.type === 'tool-input-delta')
    assert.deepEqual(deltas, [{ type: 'tool-input-delta', id: 'r1', delta: '{"filePath":"/w/a","limit":5}' }])
  })

  it("the input's keys are in sorted order, as OpenCode has always been shown them", () => {
    const shown = shownThrough(cursorCall('g1', 'grep', 'grepToolCall', '{"pattern":"a","path":"/w","glob":"*.ts"}'))
    const call = shown.find((part) => part.type === 'tool-call') as Extract<ShownPart, { type: 'tool-call' }>
    assert.equal(call.input, '{"include":"*.ts","path":"/w","pattern":"a"}')
    assert.equal(
      sortedJson({ b: { d: 1, c: [{ f: 1, e: 2 }] }, a: null }),
      '{"a":null,"b":{"c":[{"e":2,"f":1}],"d":1}}',
    )
  })

  it('a result whose call the response never saw is still shown, titled by its tool', () => {
    const shown = shownThrough([
      {
        type: 'tool-result',
        toolCallId: 'earlier',
        toolName: 'read',
        result: { status: 'success', content: 'A' },
        isError: false,
        providerExecuted: true,
        dynamic: true,
        providerMetadata: cursorMetadata('readToolCall'),
      },
    ])
    assert.deepEqual(shown, [
      {
        type: 'tool-result',
        toolCallId: 'earlier',
        toolName: 'read',
        result: { title: 'read', output: 'A', metadata: { truncated: false } },
        isError: false,
        providerExecuted: true,
        dynamic: true,
      },
    ])
  })

  it('a call handed to OpenCode, and every other part, passes unchanged', () => {
    const parts: StreamPart[] = [
      { type: 'stream-start', warnings: [] },
      { type: 'tool-input-start', id: 'h1', toolName: 'read' },
      { type: 'tool-input-delta', id: 'h1', delta: '{"filePath":"/w/a"}' },
      { type: 'tool-input-end', id: 'h1' },
      { type: 'tool-call', toolCallId: 'h1', toolName: 'read', input: '{"filePath":"/w/a"}' },
      {
        type: 'finish',
        finishReason: { unified: 'tool-calls', raw: 'tool-calls' },
        usage: { inputTokens: {}, outputTokens: {} },
      },
    ]
    assert.deepEqual(shownThrough(parts), parts)
  })
})
