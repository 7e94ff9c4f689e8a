// Cursor's tool calls in the real OpenCode CLI (1.18.33): each kind shows up under OpenCode's own
// tool of that kind, with OpenCode's argument names, a title, and the status OpenCode gives its own
// tools (a command that exited non-zero is `completed` with its exit code; a rejected, failed or
// interrupted call is `error`). Needs `npm run build` first; the TUI test needs tmux.
//
// The streams go through one `opencode serve`, a session each (see support/served.ts), read as
// `opencode run --format json` prints them; the default printer is an `opencode run` of its own.
//
// Expectations: the captures' hand-written expected files, and below, for our fixture of the tool
// kinds the captures lack (written from the protocol reference), what OpenCode's renderers read.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { stripVTControlCharacters } from 'node:util'
import { before, describe, test } from 'node:test'
import { captureExpectation, type OpenCodeToolView } from '../support/captures.ts'
import { e2eFile, eventsOf, explain, type Printed, textOf } from '../support/e2e.ts'
import { REPO_ROOT } from '../support/opencode.ts'
import { sharedServer } from '../support/served.ts'

const MODEL = 'cursor-acp/auto'
const STREAMS = join(REPO_ROOT, '__test__', 'fixtures', 'streams')
const e2e = e2eFile()
const sandboxWith = e2e.sandboxWith
const shared = sharedServer(e2e)

const toolParts = (result: Printed) =>
  result.events.filter((event) => event.type === 'tool_use').map((event) => event.part)

type Shown = OpenCodeToolView

/** `opencode-tools.ndjson`, call by call, as OpenCode must store it. */
const FIXTURE_TOOLS: Shown[] = [
  {
    tool: 'read',
    status: 'completed',
    input: { filePath: '/w/notes.txt' },
    title: '/w/notes.txt',
    output: 'first line\nsecond line\n',
  },
  {
    tool: 'bash',
    status: 'completed',
    input: { command: 'echo hi', description: 'Say hi' },
    title: 'echo hi',
    output: 'hi\n',
    metadata: { output: 'hi\n', exit: 0 },
  },
  {
    tool: 'bash',
    status: 'completed',
    input: { command: 'grep -q missing notes.txt', description: 'Look for a missing word' },
    title: 'grep -q missing notes.txt',
    output: '',
    metadata: { exit: 1 },
  },
  {
    tool: 'bash',
    status: 'error',
    input: { command: 'rm -rf /tmp/x', description: 'Remove a folder' },
    errorIncludes: 'permission policy rejected it',
  },
  {
    tool: 'edit',
    status: 'completed',
    input: { filePath: '/w/notes.txt' },
    title: '/w/notes.txt',
    metadata: { diff: '--- a//w/notes.txt\n+++ b//w/notes.txt\n@@ -1,2 +1,2 @@\n first line\n-second line\n+2nd line' },
  },
  {
    tool: 'grep',
    status: 'completed',
    input: { pattern: 'line', path: '/w' },
    title: 'line',
    output: 'notes.txt:\n  Line 1: first line\n  Line 2: 2nd line',
    metadata: { matches: 2 },
  },
  {
    tool: 'glob',
    status: 'completed',
    input: { pattern: '**/*.txt', path: '/w' },
    title: '**/*.txt',
    output: 'notes.txt\ndocs/a.txt',
    metadata: { count: 2 },
  },
  {
    tool: 'list',
    status: 'completed',
    input: { path: '/w' },
    title: '/w',
    output: '/w/\n  docs/\n    a.txt\n  notes.txt',
  },
  {
    tool: 'todowrite',
    status: 'completed',
    input: {
      todos: [
        { content: 'Read the notes', status: 'completed', id: 't1' },
        { content: 'Fix the second line', status: 'in_progress', id: 't2' },
      ],
    },
    title: '1 todos',
  },
  {
    tool: 'webfetch',
    status: 'completed',
    input: { url: 'https://example.com/guide' },
    title: 'https://example.com/guide',
    output: '# Guide\n\nStep one.',
  },
  {
    tool: 'docs_search',
    status: 'completed',
    input: { query: 'napi threadsafe' },
    title: 'napi threadsafe',
    output: 'ThreadsafeFunction docs',
  },
  {
    tool: 'semSearch',
    status: 'completed',
    input: { query: 'where are tools rendered', targetDirectories: [], explanation: 'find the renderer' },
    title: 'where are tools rendered',
    output: '<results><file>src/core/stream/tool.rs</file></results>',
  },
]

function assertShown(part: Record<string, any>, want: Shown, why: string) {
  const what = `${want.tool} ${JSON.stringify(part.callID)}: ${why}`
  assert.equal(part.tool, want.tool, what)
  assert.equal(part.state.status, want.status, what)
  assert.deepEqual(part.state.input, want.input, what)
  if (want.status === 'error') {
    assert.ok(String(part.state.error).includes(want.errorIncludes!), what)
    return
  }
  assert.equal(typeof part.state.title, 'string', what)
  assert.ok(part.state.title.trim() !== '', what)
  if (want.title !== undefined) assert.equal(part.state.title, want.title, what)
  if (want.output !== undefined) assert.equal(part.state.output, want.output, what)
  for (const [key, value] of Object.entries(want.metadata ?? {}))
    assert.deepEqual(part.state.metadata[key], value, `${what}: metadata.${key}`)
}

/** Whether OpenCode stored any part of the turn under its `invalid` tool (a call it could not place). */
const anyInvalid = (messages: unknown) => JSON.stringify(messages).includes('"tool":"invalid"')

describe('OpenCode shows Cursor tools as OpenCode tools, as `opencode run --format json` prints them', () => {
  before(() => shared.start())

  test('every tool kind of the fixture: OpenCode tool name, status, input and title', async () => {
    const result = await shared.turn('use every tool', {
      fake: { FAKE_CURSOR_STREAM: join(STREAMS, 'opencode-tools.ndjson') },
    })
    const why = result.why
    assert.deepEqual(eventsOf(result, 'error'), [], why)
    const parts = toolParts(result)
    assert.equal(parts.length, FIXTURE_TOOLS.length, why)
    for (const [i, part] of parts.entries()) assertShown(part, FIXTURE_TOOLS[i]!, why)
    assert.ok(!anyInvalid(result.messages), why)
    // OpenCode ran none of them again and did not ask the model again.
    assert.equal(result.invocations.length, 1, why)
  })

  // Besides the expected file: a piece of the first call's output that OpenCode must show, and a
  // piece of the final answer that must appear exactly once (a piece, so a partly repeated answer
  // fails too). Capture 04's answer is checked piece by piece in opencode.e2e.ts.
  const captures = [
    {
      capture: '02_shell_tool_call.jsonl',
      output: 'stream1.raw.jsonl',
      answer: 'There are **4** files in this directory',
    },
    {
      capture: '03_edit_tool_call.jsonl',
      output: 'spike.txt',
      answer: 'Created `spike.txt` with the single line `HELLO`.',
    },
    { capture: '04_partial_output.jsonl', output: '', answer: '' },
    { capture: '05_rejected_shell.jsonl', output: '', answer: 'The shell runner blocked `uname -a` twice' },
  ]
  for (const { capture, output, answer } of captures) {
    test(`the real capture ${capture}: shown, not re-executed`, async () => {
      const expected = captureExpectation(`maestro/${capture}`)
      const calls = expected.blocks.flatMap((block) => (block.kind === 'tool' ? [block.opencode] : []))
      const result = await shared.turn('use a tool', { fake: { FAKE_CURSOR_STREAM: `maestro/${capture}` } })
      const why = result.why
      assert.deepEqual(eventsOf(result, 'error'), [], why)
      const parts = toolParts(result)
      assert.equal(parts.length, calls.length, why)
      for (const [i, part] of parts.entries()) assertShown(part, calls[i]!, why)
      if (output !== '') assert.ok(JSON.stringify(parts[0].state).includes(output), why)
      assert.ok(!anyInvalid(result.messages), why)
      if (answer !== '') assert.equal(textOf(result).split(answer).length - 1, 1, why)
      // OpenCode neither ran the tools itself nor asked the model again.
      assert.equal(result.invocations.length, 1, why)
      assert.equal(eventsOf(result, 'step_finish').length, 1, why)
    })
  }
})

describe("opencode run's default output shows Cursor tools as OpenCode tools", () => {
  test('the default output names the path and the command, not Cursor internals', async () => {
    const sandbox = await sandboxWith({ FAKE_CURSOR_STREAM: join(STREAMS, 'tui-tools.ndjson') })
    const result = await sandbox.run(['run', '--model', MODEL, 'use', 'the', 'tools'])
    const why = explain(result, sandbox)
    assert.equal(result.code, 0, why)
    // The printer colours its lines; the words are what a person reads.
    const shown = stripVTControlCharacters(result.stdout + result.stderr)
    assert.match(shown, /Read \/w\/notes\.txt/, why)
    assert.match(shown, /Edit \/w\/notes\.txt/, why)
    assert.match(shown, /\$ echo hi/, why)
    assert.match(shown, /\$ grep -q missing notes\.txt/, why)
    assert.doesNotMatch(shown, /toolCallId|parsingResult|adminCommandDenylist|timeoutBehavior/, why)
  })
})

describe('the OpenCode TUI shows Cursor tools as OpenCode tools', () => {
  test('read, edit and shell (ok and exit 1) with their path or command, no pending line left', async () => {
    const sandbox = await sandboxWith({ FAKE_CURSOR_STREAM: join(STREAMS, 'tui-tools.ndjson') })
    const tui = await sandbox.tui()
    await tui.ask('use the tools')
    const screen = await tui.screenWhen((screen) => screen.includes('All tools done.'), 'the answer')
    assert.match(screen, /Read \/w\/notes\.txt/, screen)
    assert.match(screen, /Edit \/w\/notes\.txt/, screen)
    assert.match(screen, /2nd line/, screen)
    assert.match(screen, /echo hi/, screen)
    assert.match(screen, /grep -q missing notes\.txt/, screen)
    for (const pending of ['Preparing edit', 'Reading file', 'Writing command'])
      assert.ok(!screen.includes(pending), `${pending} left on screen:\n${screen}`)
    assert.doesNotMatch(screen, /toolCallId|parsingResult|adminCommandDenylist/, screen)
    await tui.close()
  })
})
