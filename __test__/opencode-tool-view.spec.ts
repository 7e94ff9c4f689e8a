// OpenCode 1.18's view of the tool calls Cursor runs itself (plugin/opencode/tool-view.ts): for each
// of Cursor's tool kinds, OpenCode's tool, input and result (a response's parts through it:
// tool-view.spec.ts). Every expected tool, input and result below is written by hand from
// OpenCode's renderers (which fields each reads) and from Cursor's protocol reference; none is
// produced by the code under test. Runs under Node and Bun.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'

import type { JsonValue } from '../index.js'
import { openCodeToolView, RENDERED_KINDS } from '../plugin/opencode/tool-view.ts'
import { argumentsOf, type CursorResult, type CursorTool, type JsonObject } from '../plugin/turn/tool-view.ts'

/** One Cursor call (its kind, the name Cursor gives it, its MCP server, arguments and result) and
 * what OpenCode must get: the tool, the input, and the `tool-result` result (a string for a
 * failed call, whose `isError` is then set). */
interface Case {
  kind: string
  name: string
  server?: string
  args: JsonObject
  result: CursorResult
  tool: string
  input: JsonObject
  shown: JsonValue
}

const GREP_RESULT: CursorResult = {
  status: 'success',
  pattern: 'TODO',
  path: '/w',
  outputMode: 'content',
  workspaceResults: {
    '/w': {
      content: {
        matches: [
          {
            file: 'src/a.rs',
            matches: [
              { lineNumber: 3, content: '// TODO one', isContextLine: false },
              { lineNumber: 4, content: 'context', isContextLine: true },
              { lineNumber: 9, content: '// TODO two', isContextLine: false },
            ],
          },
        ],
      },
    },
  },
}

const CASES: Case[] = [
  {
    kind: 'shellToolCall',
    name: 'shell',
    args: {
      command: 'ls',
      workingDirectory: '',
      timeout: 30000,
      toolCallId: 'c1',
      simpleCommands: ['ls'],
      parsingResult: { parsingFailed: false },
      timeoutBehavior: 'TIMEOUT_BEHAVIOR_BACKGROUND',
      adminCommandDenylist: [],
      description: 'List files',
    },
    result: { status: 'success', command: 'ls', exitCode: 0, stdout: 'a\n', stderr: '', interleavedOutput: 'a\n' },
    tool: 'bash',
    input: { command: 'ls', description: 'List files' },
    shown: { title: 'ls', output: 'a\n', metadata: { output: 'a\n', exit: 0, description: 'List files' } },
  },
  {
    kind: 'shellToolCall',
    name: 'shell',
    args: { command: 'false', workingDirectory: '/w' },
    result: { status: 'failure', command: 'false', exitCode: 1, stdout: '', stderr: 'boom\n', aborted: false },
    tool: 'bash',
    input: { command: 'false', workdir: '/w' },
    shown: { title: 'false', output: 'boom\n', metadata: { output: 'boom\n', exit: 1 } },
  },
  {
    // @cursor/sdk 1.0.32: a long output kept as its head and tail, the count between as an int64 string.
    kind: 'shellToolCall',
    name: 'shell',
    args: { command: 'seq 100000' },
    result: {
      status: 'success',
      command: 'seq 100000',
      exitCode: 0,
      outputHead: '1\n2\n',
      outputTail: '99999\n100000\n',
      elidedChars: '588879',
    },
    tool: 'bash',
    input: { command: 'seq 100000' },
    shown: {
      title: 'seq 100000',
      output: '1\n2\n[… 588879 characters of output left out by Cursor …]\n99999\n100000\n',
      metadata: {
        output: '1\n2\n[… 588879 characters of output left out by Cursor …]\n99999\n100000\n',
        exit: 0,
        elidedChars: 588879,
      },
    },
  },
  {
    kind: 'shellToolCall',
    name: 'shell',
    args: { command: 'uname -a' },
    result: { status: 'rejected', command: 'uname -a', reason: 'blocked by policy' },
    tool: 'bash',
    input: { command: 'uname -a' },
    shown: 'blocked by policy',
  },
  {
    kind: 'readToolCall',
    name: 'read',
    args: { path: '/w/a.txt', limit: 20 },
    result: { status: 'success', content: 'hello\n', totalLines: 1, exceededLimit: false },
    tool: 'read',
    input: { filePath: '/w/a.txt', limit: 20 },
    shown: { title: '/w/a.txt', output: 'hello\n', metadata: { truncated: false } },
  },
  {
    kind: 'readToolCall',
    name: 'read',
    args: { path: '/w/missing' },
    result: { status: 'error', error: 'File not found: /w/missing' },
    tool: 'read',
    input: { filePath: '/w/missing' },
    shown: 'File not found: /w/missing',
  },
  {
    kind: 'editToolCall',
    name: 'edit',
    args: { path: '/w/a.txt', streamContent: 'B\n' },
    result: {
      status: 'success',
      path: '/w/a.txt',
      linesAdded: 1,
      linesRemoved: 1,
      diffString: '--- a\n+++ b\n@@ -1 +1 @@\n-A\n+B',
      message: 'Edited /w/a.txt',
    },
    tool: 'edit',
    input: { filePath: '/w/a.txt' },
    shown: {
      title: '/w/a.txt',
      output: 'Edited /w/a.txt',
      metadata: {
        diagnostics: {},
        diff: '--- a\n+++ b\n@@ -1 +1 @@\n-A\n+B',
        filediff: { file: '/w/a.txt', patch: '--- a\n+++ b\n@@ -1 +1 @@\n-A\n+B', additions: 1, deletions: 1 },
      },
    },
  },
  {
    kind: 'editToolCall',
    name: 'edit',
    args: { path: '/w/b.txt' },
    result: { status: 'success', path: '/w/b.txt' },
    tool: 'edit',
    input: { filePath: '/w/b.txt' },
    shown: { title: '/w/b.txt', output: 'Edit applied.', metadata: { diagnostics: {} } },
  },
  {
    kind: 'writeToolCall',
    name: 'write',
    args: { path: '/w/n.txt', fileText: 'x\ny\n', toolCallId: 'w1' },
    result: { status: 'success', path: '/w/n.txt', linesCreated: 2, fileSize: 4 },
    tool: 'write',
    input: { filePath: '/w/n.txt', content: 'x\ny\n' },
    shown: { title: '/w/n.txt', output: 'Wrote 2 lines.', metadata: { diagnostics: {} } },
  },
  {
    kind: 'grepToolCall',
    name: 'grep',
    args: { pattern: 'TODO', path: '/w', glob: '*.rs', caseInsensitive: false },
    result: GREP_RESULT,
    tool: 'grep',
    input: { pattern: 'TODO', path: '/w', include: '*.rs' },
    shown: {
      title: 'TODO',
      output: 'src/a.rs:\n  Line 3: // TODO one\n  Line 9: // TODO two',
      metadata: { matches: 2, truncated: false },
    },
  },
  {
    kind: 'grepToolCall',
    name: 'grep',
    args: { pattern: 'nothing' },
    result: { status: 'success', workspaceResults: {} },
    tool: 'grep',
    input: { pattern: 'nothing' },
    shown: { title: 'nothing', output: 'No matches found', metadata: { matches: 0, truncated: false } },
  },
  {
    kind: 'globToolCall',
    name: 'glob',
    args: { targetDirectory: '/w', globPattern: '*.md' },
    result: {
      status: 'success',
      pattern: '*.md',
      path: '/w',
      files: ['README.md', 'docs/a.md'],
      totalFiles: 2,
      clientTruncated: false,
      ripgrepTruncated: false,
    },
    tool: 'glob',
    input: { pattern: '*.md', path: '/w' },
    shown: { title: '*.md', output: 'README.md\ndocs/a.md', metadata: { count: 2, truncated: false } },
  },
  {
    kind: 'lsToolCall',
    name: 'ls',
    args: { path: '/w', ignore: [], toolCallId: 'l1' },
    result: {
      status: 'success',
      directoryTreeRoot: {
        absPath: '/w',
        childrenDirs: [{ absPath: '/w/src', childrenDirs: [], childrenFiles: [{ name: 'lib.rs' }] }],
        childrenFiles: [{ name: 'a.txt' }],
        numFiles: 2,
      },
    },
    tool: 'list',
    input: { path: '/w' },
    shown: { title: '/w', output: '/w/\n  src/\n    lib.rs\n  a.txt', metadata: { count: 2, truncated: false } },
  },
  {
    kind: 'updateTodosToolCall',
    name: 'updateTodos',
    args: {
      todos: [
        { id: '1', content: 'Read the code', status: 'TODO_STATUS_COMPLETED', createdAt: '1', dependencies: [] },
        { id: '2', content: 'Fix the bug', status: 'TODO_STATUS_IN_PROGRESS' },
      ],
      merge: false,
    },
    result: {
      status: 'success',
      todos: [
        { id: '1', content: 'Read the code', status: 'TODO_STATUS_COMPLETED' },
        { id: '2', content: 'Fix the bug', status: 'TODO_STATUS_IN_PROGRESS' },
      ],
      totalCount: 2,
    },
    tool: 'todowrite',
    input: {
      todos: [
        { content: 'Read the code', status: 'completed', id: '1' },
        { content: 'Fix the bug', status: 'in_progress', id: '2' },
      ],
    },
    shown: {
      title: '1 todos',
      output:
        '[\n  {\n    "content": "Read the code",\n    "id": "1",\n    "status": "completed"\n  },\n' +
        '  {\n    "content": "Fix the bug",\n    "id": "2",\n    "status": "in_progress"\n  }\n]',
      metadata: {
        todos: [
          { content: 'Read the code', status: 'completed', id: '1' },
          { content: 'Fix the bug', status: 'in_progress', id: '2' },
        ],
      },
    },
  },
  {
    // The older kind of the same tool; its result carries no list, so the arguments' is shown.
    kind: 'todoToolCall',
    name: 'todo',
    args: { todos: [{ content: 'Ship it', status: 'TODO_STATUS_PENDING' }] },
    result: { status: 'success' },
    tool: 'todowrite',
    input: { todos: [{ content: 'Ship it', status: 'pending' }] },
    shown: {
      title: '1 todos',
      output: '[\n  {\n    "content": "Ship it",\n    "status": "pending"\n  }\n]',
      metadata: { todos: [{ content: 'Ship it', status: 'pending' }] },
    },
  },
  {
    kind: 'webFetchToolCall',
    name: 'webFetch',
    args: { url: 'https://example.com', toolCallId: 'f1' },
    result: { status: 'success', url: 'https://example.com', markdown: '# Example' },
    tool: 'webfetch',
    input: { url: 'https://example.com' },
    shown: { title: 'https://example.com', output: '# Example', metadata: {} },
  },
  {
    kind: 'mcpToolCall',
    name: 'search',
    server: 'docs',
    args: {
      name: 'docs-search',
      args: { q: 'napi' },
      toolCallId: 'm1',
      providerIdentifier: 'docs',
      toolName: 'search',
    },
    result: {
      status: 'success',
      content: [{ text: { text: 'found' } }, { image: { data: 'AA==', mimeType: 'image/png' } }],
      isError: false,
    },
    tool: 'docs_search',
    input: { q: 'napi' },
    shown: { title: 'q=napi', output: 'found\n[image image/png]', metadata: {} },
  },
  {
    kind: 'mcpToolCall',
    name: 'search',
    server: 'docs',
    args: { name: 'docs-search', args: { query: 'x' }, toolName: 'search' },
    result: { status: 'success', content: [{ text: { text: 'server down' } }], isError: true },
    tool: 'docs_search',
    input: { query: 'x' },
    shown: 'server down',
  },
  {
    // No server known: OpenCode gets the MCP tool's own name; a result without content is shown
    // like a generic tool's.
    kind: 'mcpToolCall',
    name: 'lookup',
    args: { args: { id: 7 }, toolName: 'lookup' },
    result: { status: 'success', text: 'seven' },
    tool: 'lookup',
    input: { id: 7 },
    shown: { title: 'id=7', output: 'seven', metadata: {} },
  },
  {
    kind: 'semSearchToolCall',
    name: 'semSearch',
    args: { query: 'where is auth', targetDirectories: [], toolCallId: 's1' },
    result: { status: 'success', results: '<results/>' },
    tool: 'semSearch',
    input: { query: 'where is auth', targetDirectories: [] },
    shown: { title: 'where is auth', output: '<results/>', metadata: {} },
  },
  {
    kind: 'deleteToolCall',
    name: 'delete',
    args: { path: '/w/old.txt', toolCallId: 'd1' },
    result: { status: 'error', path: '', error: 'File not found: /w/old.txt' },
    tool: 'delete',
    input: { path: '/w/old.txt' },
    shown: 'File not found: /w/old.txt',
  },
  {
    kind: 'someFutureToolCall',
    name: 'someFuture',
    args: { level: 3, deep: true },
    result: { status: 'success', a: 1 },
    tool: 'someFuture',
    input: { level: 3, deep: true },
    shown: { title: 'deep=true, level=3', output: '{\n  "a": 1\n}', metadata: {} },
  },
  {
    kind: 'function',
    name: 'custom_fn',
    args: { x: 1 },
    result: { status: 'unknown' },
    tool: 'custom_fn',
    input: { x: 1 },
    shown: 'Cursor reported the call as unknown.',
  },
  {
    kind: 'function',
    name: 'custom_fn',
    args: {},
    result: { status: 'timeout', afterMs: 5000 },
    tool: 'custom_fn',
    input: {},
    shown: 'Cursor reported the call as timeout: {"afterMs":5000}',
  },
  {
    kind: 'editToolCall',
    name: 'edit',
    args: { path: '/w/x.txt' },
    result: { status: 'interrupted', message: 'The run ended.' },
    tool: 'edit',
    input: { filePath: '/w/x.txt' },
    shown: 'The run ended.',
  },
]

const toolOf = (c: { kind: string; name: string; server?: string }): CursorTool =>
  c.server === undefined ? { kind: c.kind, name: c.name } : { kind: c.kind, name: c.name, server: c.server }

describe("OpenCode's view of Cursor's tools", () => {
  for (const c of CASES) {
    it(`${c.kind} ${c.result.status} is shown as OpenCode's ${c.tool}`, () => {
      const tool = toolOf(c)
      assert.equal(openCodeToolView.toolName(tool), c.tool)
      const input = openCodeToolView.input(tool, c.args)
      assert.deepEqual(input, c.input)
      // OpenCode stores a failed call's result as its error text.
      const failed = typeof c.shown === 'string'
      assert.deepEqual(openCodeToolView.result(tool, input, c.result, failed), c.shown)
    })
  }

  it('arguments that are not an object give an empty input, and the title falls back to the tool', () => {
    const tool = { kind: 'readToolCall', name: 'read' }
    for (const text of ['', '[1]', 'not json', 'null', '"a string"']) {
      const input = openCodeToolView.input(tool, argumentsOf(text))
      assert.deepEqual(input, {}, text)
      const shown = openCodeToolView.result(tool, input, { status: 'success' }, false) as JsonObject
      // No path to show: the title is the tool's name, never an empty line.
      assert.equal(shown.title, 'read', text)
    }
  })

  it('a generic result is indented up to a readable depth, and compact past it', () => {
    const tool = { kind: 'someFutureToolCall', name: 'someFuture' }
    const output = (result: CursorResult) =>
      (openCodeToolView.result(tool, {}, result, false) as { output: string }).output
    const wide = { status: 'success', items: Array.from({ length: 20 }, (_, i) => ({ [`k${i}`]: [i] })) }
    assert.ok(output(wide).startsWith('{\n  "items": [\n    {\n      "k0": [\n        0\n'), output(wide))
    let deep: JsonValue = 1
    for (let level = 0; level < 16; level++) deep = [deep]
    assert.equal(output({ status: 'success', deep }), `{"deep":${'['.repeat(16)}1${']'.repeat(16)}}`)
  })

  it('only the arguments OpenCode reads are kept, in its names; empty ones are left out', () => {
    const tool = { kind: 'globToolCall', name: 'glob' }
    assert.deepEqual(openCodeToolView.input(tool, { globPattern: '*.ts', targetDirectory: '', extra: 1 }), {
      pattern: '*.ts',
    })
    const generic = { kind: 'newToolCall', name: 'new' }
    assert.deepEqual(
      openCodeToolView.input(generic, { a: null, b: '', c: 0, toolCallId: 'x', conversationId: 'y', requestId: 'z' }),
      { c: 0 },
    )
  })

  it('every row is for a kind of Cursor tool (a *ToolCall key)', () => {
    assert.ok(RENDERED_KINDS.length >= 12)
    for (const kind of RENDERED_KINDS) assert.match(kind, /^[a-z][A-Za-z]*ToolCall$/)
  })
})

describe("what OpenCode's own tools do, as the bridge declares it (MCP annotations)", () => {
  // readOnlyHint, destructiveHint, idempotentHint, openWorldHint: the middle two only on a tool that writes.
  const table: Array<[string, boolean, boolean | undefined, boolean | undefined, boolean]> = [
    ['read', true, undefined, undefined, false],
    ['grep', true, undefined, undefined, false],
    ['list', true, undefined, undefined, false],
    ['webfetch', true, undefined, undefined, true],
    ['write', false, true, true, false],
    ['edit', false, true, false, false],
    ['patch', false, true, false, false],
    ['bash', false, true, false, true],
    ['shell', false, true, false, true],
  ]
  for (const [tool, readOnly, destructive, idempotent, openWorld] of table)
    it(tool, async () => {
      const { withAnnotations } = await import('../plugin/opencode/tool-annotations.ts')
      const [annotated] = withAnnotations([{ type: 'function', name: tool, inputSchema: { type: 'object' } }])
      assert.deepEqual(annotated!.annotations, {
        readOnlyHint: readOnly,
        ...(destructive === undefined ? {} : { destructiveHint: destructive, idempotentHint: idempotent }),
        openWorldHint: openWorld,
      })
    })
  it('none for a tool it cannot vouch for, nor for a provider-defined one', async () => {
    const { withAnnotations } = await import('../plugin/opencode/tool-annotations.ts')
    const tools = ['task', 'subagent', 'todowrite', 'github_create_issue'].map((name) => ({ type: 'function', name }))
    const provider = { type: 'provider', id: 'x.read', name: 'read', args: {} }
    assert.deepEqual(withAnnotations([...tools, provider]), [...tools, provider])
  })
})
