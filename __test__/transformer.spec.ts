// Contract tests of StreamTransformer (as index.d.ts documents it) through the public entry.
// Every expected text, part and number below, and in the captures' `*.expected.json` files, is
// written by hand from the contract, the protocol reference and the captures; none is produced by
// the code under test.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { describe, it } from 'node:test'

import * as binding from '../index.js'
import {
  StreamTransformer,
  setLogging,
  type CursorUsage,
  type StreamOutcome,
  type StreamPart,
  type StreamTransformerOptions,
} from '../index.js'
import { PROXY_ERROR_CODES } from '../plugin/proxy/refusal.ts'
import { capture, captureExpectation } from './support/captures.ts'
import {
  asParts,
  assertSseInvariants,
  assertV3Invariants,
  byteChunks,
  fixture,
  openCodeParts,
  parseSse,
  pinned,
  randomChunks,
  sseContentOf,
  summarizeSse,
  translate,
  v3Blocks,
  v3Tools,
} from './support/stream.ts'

// ---------------------------------------------------------------------------------------------
// Expectations

type Expected = ['text' | 'reasoning', string] | ['tool', string]

interface ToolExpect {
  id: string
  /** Cursor's name for the call (the SSE `tool_calls` name, the ai-sdk `toolName`). */
  name: string
  /** Cursor's tool kind, the `*ToolCall` key (the ai-sdk `providerMetadata.cursor.kind`). */
  kind: string
  /** The MCP server of an `mcpToolCall`. */
  server?: string
  /** Cursor's arguments (the SSE `tool_calls` arguments and the ai-sdk `input`, parsed), matched
   * in full unless `argsSubset`. */
  args: Record<string, unknown>
  argsSubset?: boolean
  /** Cursor's complete arguments, where known, which reach a consumer of either format unchanged. */
  wholeArgs?: Record<string, unknown>
  /** Cursor's result variant, whether it is an error, and fields it must contain, where checked. */
  status?: string
  isError?: boolean
  resultFields?: Record<string, unknown>
  /** How OpenCode shows the call: the ai-sdk output through the plugin's view of Cursor's tools. */
  opencode: OpenCodeExpect
}

/** A Cursor call as OpenCode shows its own tool of that kind. */
interface OpenCodeExpect {
  tool: string
  /** The whole `tool-call` input. */
  input: Record<string, unknown>
  /** `completed`: the result is `{title, output, metadata}`; `error`: the result is the error text; absent: not checked. */
  status?: 'completed' | 'error'
  title?: string
  output?: string
  /** Fields the metadata must contain. */
  metadata?: Record<string, unknown>
  errorIncludes?: string
}

interface UsageExpect {
  sse: {
    prompt_tokens: number
    completion_tokens: number
    total_tokens: number
    cached_tokens?: number
    cache_write_tokens?: number
    reasoning_tokens: number | undefined
  }
  v3: {
    inputTokens: { total: number; noCache: number; cacheRead?: number; cacheWrite?: number }
    outputTokens: { total: number; reasoning?: number }
  }
  raw: Record<string, unknown>
}

/** `message`: the package's explanation; `agentOutput`: what cursor-agent said, kept apart in
 * the `ai-sdk` error part and appended to the `openai-sse` error message. */
type Ending = 'stop' | 'cancelled' | { code: string; message?: RegExp; agentOutput?: RegExp }

interface Case {
  name: string
  input: () => Buffer
  options?: StreamTransformerOptions
  outcome?: StreamOutcome
  blocks: Expected[]
  tools?: ToolExpect[]
  ending: Ending
  usage: UsageExpect | null
  sessionId: string | null
  skippedLines?: number
  /** For captures: the `result` text, which must equal the visible text. */
  resultText?: string
}

const success: StreamOutcome = { exitCode: 0, signal: null, stderr: '', cancelled: false }
const empty = () => Buffer.alloc(0)
const AUTH_STDERR =
  "Error: Authentication required. Please run 'agent login' first, or set CURSOR_API_KEY environment variable.\n"
const AUTH_STDERR_NEW =
  'Error: Authentication required. Run `agent login`, pass `--api-key`/`--auth-token`, or set `CURSOR_API_KEY`/`CURSOR_AUTH_TOKEN`.\n'
const QUOTA_STDERR =
  "Error: You've hit your usage limit\nGet Cursor Pro for more Agent usage, unlimited Tab, and more.\n" +
  "chatMessage: *You've hit your free requests limit. It will reset when your monthly cycle ends on 12/1/2026.*\n"
const MODEL_STDERR = 'Cannot use this model: gpt-9. Available models: auto, composer-2.5, gpt-5.5-high\n'

/** Cursor usage with every count present, mapped by hand as index.d.ts documents it. */
function fullUsage(raw: CursorUsage): UsageExpect {
  const count = (key: keyof CursorUsage): number => {
    assert.equal(typeof raw[key], 'number', `${key} present in ${JSON.stringify(raw)}`)
    return raw[key]!
  }
  const [input, output, cacheRead, cacheWrite] = (
    ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens'] as const
  ).map(count) as [number, number, number, number]
  // inputTokens.total is "input + cache read + cache write tokens"; SSE's prompt_tokens is the same count.
  const prompt = input + cacheRead + cacheWrite
  return {
    sse: {
      prompt_tokens: prompt,
      completion_tokens: output,
      total_tokens: prompt + output,
      cached_tokens: cacheRead,
      cache_write_tokens: cacheWrite,
      // Cursor reported no reasoning count: none is made up.
      reasoning_tokens: undefined,
    },
    v3: {
      inputTokens: { total: prompt, noCache: input, cacheRead, cacheWrite },
      outputTokens: { total: output },
    },
    raw: { inputTokens: input, outputTokens: output, cacheReadTokens: cacheRead, cacheWriteTokens: cacheWrite },
  }
}

/** The records of an NDJSON stream, parsed. */
function records(bytes: Buffer): any[] {
  return bytes
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line))
}

/** The arguments of each tool call as the capture's `started` event carries them, by call id. */
function capturedArgs(bytes: Buffer): Map<string, Record<string, unknown>> {
  const args = new Map<string, Record<string, unknown>>()
  for (const event of records(bytes)) {
    if (event.type !== 'tool_call' || event.subtype !== 'started') continue
    const [call] = Object.values(event.tool_call).filter(
      (v): v is { args: Record<string, unknown> } => typeof v === 'object' && v !== null && 'args' in v,
    )
    args.set(event.call_id, call!.args)
  }
  return args
}

/** A real capture's case, from its hand-written expected file. */
function captureCase(file: string, about: string): Case {
  const name = `maestro/${file}`
  const want = captureExpectation(name)
  // The file names the arguments worth reading; Cursor's own must also arrive whole, since
  // tool-call `input` is "the arguments as a JSON text" (index.d.ts).
  const whole = capturedArgs(capture(name))
  return {
    name: `capture ${file.slice(0, 2)}: ${about}`,
    input: () => capture(name),
    outcome: success,
    blocks: want.blocks.map((b): Expected => (b.kind === 'tool' ? ['tool', b.id] : [b.kind, b.text])),
    tools: want.blocks.flatMap((b) =>
      b.kind === 'tool'
        ? [
            {
              id: b.id,
              name: b.name,
              kind: b.toolKind,
              args: b.args ?? {},
              argsSubset: true,
              wholeArgs: whole.get(b.id),
              status: b.status,
              isError: b.isError,
              resultFields: b.result ?? {},
              opencode: b.opencode,
            },
          ]
        : [],
    ),
    ending: want.finish,
    usage: fullUsage(want.usage),
    sessionId: want.sessionId,
    resultText: want.resultText,
  }
}

type CaseSpec = Omit<Case, 'input' | 'outcome' | 'ending' | 'usage'> &
  Partial<Pick<Case, 'outcome' | 'ending' | 'usage'>>

/**
 * A case over one of our own stream fixtures (`null`: the agent printed nothing). Unless the spec
 * says otherwise the agent exits 0, the stream ends with `stop`, and no usage is reported.
 */
function streamCase(file: string | null, spec: CaseSpec): Case {
  return { input: file === null ? empty : () => fixture(file), outcome: success, ending: 'stop', usage: null, ...spec }
}

/** The arguments of an MCP call of tool-results-2026.ndjson as shown: Cursor's approval flags left out. */
const probeArgs = (toolCallId: string, tool: string): Record<string, unknown> => ({
  name: `probe-${tool}`,
  args: { q: 'x' },
  toolCallId,
  providerIdentifier: 'probe',
  toolName: tool,
  serverIdentifier: 'probe',
})
const MCP_TIMEOUT_ARGS = probeArgs('mcp_timeout', 'slow')
const MCP_DENIED_ARGS = probeArgs('mcp_denied', 'write')
const MCP_REJECTED_ARGS = probeArgs('mcp_rejected', 'erase')
const MCP_OK_ARGS = probeArgs('mcp_ok', 'fast')

/** What no-result.ndjson shows before it stops without a result. */
const NO_RESULT_BLOCKS: Expected[] = [
  ['reasoning', 'Hmm.'],
  ['text', 'Here is the start'],
]

/** The real captures (fixtures/captures/README.md), each with its hand-written expected file. */
const CAPTURES: Array<[file: string, about: string]> = [
  ['01_simple_no_tool.jsonl', 'no partial output, thinking then an end-of-turn recap'],
  ['02_shell_tool_call.jsonl', 'shell call between a mid-turn recap and an end-of-turn recap'],
  ['03_edit_tool_call.jsonl', 'file creation through editToolCall'],
  ['04_partial_output.jsonl', 'partial fragments, then recaps that add nothing'],
  ['05_rejected_shell.jsonl', 'two rejected shell calls get an explanation'],
]

const cases: Case[] = [
  ...CAPTURES.map(([file, about]) => captureCase(file, about)),
  streamCase('partial-then-recap.ndjson', {
    name: 'partial deltas, then a recap with model_call_id that adds nothing',
    blocks: [
      ['text', 'Hello world'],
      ['tool', 'toolu_vrtx_01Read'],
      ['text', 'Done.'],
    ],
    tools: [
      {
        id: 'toolu_vrtx_01Read',
        name: 'read',
        kind: 'readToolCall',
        args: { path: 'README.md' },
        opencode: {
          tool: 'read',
          input: { filePath: 'README.md' },
          status: 'completed',
          title: 'README.md',
          output: '# Title\n',
        },
      },
    ],
    usage: fullUsage({ inputTokens: 10, outputTokens: 5, cacheReadTokens: 2, cacheWriteTokens: 1 }),
    sessionId: 'fixture-partial-recap',
  }),
  streamCase('snapshots-only.ndjson', {
    name: 'snapshots only: growing, shorter, duplicate, then a rewrite',
    blocks: [
      ['reasoning', 'Thinking about it.'],
      ['text', 'The answer is 42.Actually, 41.'],
    ],
    sessionId: 'fixture-snapshots',
  }),
  streamCase('thinking-deltas.ndjson', {
    name: 'thinking deltas, a thinking phase without completed, thinking content parts',
    blocks: [
      ['reasoning', 'First, consider X.'],
      ['text', 'Answer part one.'],
      ['reasoning', 'Second thought.'],
      ['text', ' Part two.'],
      ['reasoning', 'Inline thought.'],
      ['text', ' Part three.'],
    ],
    sessionId: 'fixture-thinking',
  }),
  streamCase('tool-kinds.ndjson', {
    name: 'tool kinds: no subtype, key not first, error, mcp, function, completed-only, failure, left open',
    blocks: [
      ['text', 'Looking around.'],
      ['tool', 'call_a1\nfc_a1'],
      ['tool', 'tool_grep_1'],
      ['tool', 'toolu_bdrk_mcp1'],
      ['tool', 'fn_1'],
      ['tool', 'glob_1'],
      ['tool', 'shell_fail'],
      ['text', 'All done.'],
      ['tool', 'edit_open'],
    ],
    tools: [
      {
        id: 'call_a1\nfc_a1',
        name: 'ls',
        kind: 'lsToolCall',
        args: { path: '/w', ignore: [] },
        opencode: { tool: 'list', input: { path: '/w' }, status: 'completed', title: '/w', output: '/w/\n  a.txt' },
      },
      {
        id: 'tool_grep_1',
        name: 'grep',
        kind: 'grepToolCall',
        args: { pattern: 'TODO', path: '/w' },
        status: 'error',
        opencode: {
          tool: 'grep',
          input: { pattern: 'TODO', path: '/w' },
          status: 'error',
          errorIncludes: 'rg: not found',
        },
      },
      {
        id: 'toolu_bdrk_mcp1',
        name: 'search',
        kind: 'mcpToolCall',
        server: 'docs',
        args: {
          name: 'docs-search',
          args: { q: 'napi' },
          toolCallId: 'toolu_bdrk_mcp1',
          providerIdentifier: 'docs',
          toolName: 'search',
        },
        opencode: { tool: 'docs_search', input: { q: 'napi' }, status: 'completed', output: 'found' },
      },
      // Where a `function` entry carries its result is undocumented: only its presence is checked.
      {
        id: 'fn_1',
        name: 'custom_fn',
        kind: 'function',
        args: { x: 1 },
        opencode: { tool: 'custom_fn', input: { x: 1 } },
      },
      {
        id: 'glob_1',
        name: 'glob',
        kind: 'globToolCall',
        args: { targetDirectory: '/w', globPattern: '*.md' },
        opencode: {
          tool: 'glob',
          input: { pattern: '*.md', path: '/w' },
          status: 'completed',
          title: '*.md',
          output: 'README.md',
          metadata: { count: 1 },
        },
      },
      {
        id: 'shell_fail',
        name: 'shell',
        kind: 'shellToolCall',
        args: { command: 'false', workingDirectory: '' },
        status: 'failure',
        // A command that ran and exited 1 is a result with its exit code, as OpenCode's own bash shows it.
        opencode: {
          tool: 'bash',
          input: { command: 'false' },
          status: 'completed',
          title: 'false',
          output: '',
          metadata: { exit: 1 },
        },
      },
      {
        id: 'edit_open',
        name: 'edit',
        kind: 'editToolCall',
        args: { path: '/w/x.txt', streamContent: 'x' },
        status: 'interrupted',
        opencode: {
          tool: 'edit',
          input: { filePath: '/w/x.txt' },
          status: 'error',
          errorIncludes: 'ended before Cursor reported',
        },
      },
    ],
    sessionId: 'fixture-tool-kinds',
  }),
  streamCase('parallel-tools.ndjson', {
    name: 'parallel calls sharing a model_call_id, completed out of order, ids with a newline',
    blocks: [
      ['reasoning', 'Reading both files.'],
      ['tool', 'call-1\nfc_1'],
      ['tool', 'call-2\nfc_2'],
      ['text', 'Both files read.'],
    ],
    tools: [
      {
        id: 'call-1\nfc_1',
        name: 'read',
        kind: 'readToolCall',
        args: { path: 'a.txt' },
        opencode: { tool: 'read', input: { filePath: 'a.txt' }, status: 'completed', output: 'A' },
      },
      {
        id: 'call-2\nfc_2',
        name: 'read',
        kind: 'readToolCall',
        args: { path: 'b.txt' },
        opencode: { tool: 'read', input: { filePath: 'b.txt' }, status: 'completed', output: 'B' },
      },
    ],
    sessionId: 'fixture-parallel',
  }),
  streamCase('interaction-flush.ndjson', {
    name: 'interaction_query and retry flushes are dropped, on both channels',
    blocks: [
      ['reasoning', 'Considering options.'],
      ['text', 'Let me ask you. No answer, moving on. Done.'],
    ],
    sessionId: 'fixture-flush',
  }),
  streamCase('ha-ha.ndjson', {
    name: '"ha", "ha", "ha" repeated deltas survive',
    blocks: [['text', 'hahaha!']],
    sessionId: 'fixture-haha',
  }),
  streamCase('ha-ha-then-result.ndjson', {
    name: 'a held repeated delta is emitted when the result follows',
    blocks: [['text', 'haha']],
    sessionId: 'fixture-haha-end',
  }),
  streamCase('ha-ha-cut-off.ndjson', {
    name: 'a held repeated delta is emitted at finish of a cut-off stream',
    blocks: [['text', 'haha']],
    ending: { code: 'E_AGENT_EXIT' },
    sessionId: 'fixture-haha-cut',
  }),
  streamCase('unicode.ndjson', {
    name: 'CJK, emoji, ZWJ sequences and a raw U+2028 inside a string',
    blocks: [
      ['reasoning', '思考中…🤔'],
      ['text', '你好，世界 🌍 👩‍💻 café line\u2028sep'],
    ],
    sessionId: 'fixture-unicode',
  }),
  // The record shapes of cursor-agent 2026.09 and later: guesses, named in fixtures/streams/README.md.
  streamCase('text-record-repeat.ndjson', {
    name: 'a bare text record repeating the deltas, in each carrier, is shown once',
    blocks: [['text', 'Hello there.']],
    sessionId: 'fixture-text-repeat',
  }),
  streamCase('text-record-only.ndjson', {
    name: 'bare text records as the only carriers of the answer are shown; unreadable ones are not',
    blocks: [
      ['reasoning', 'Greeting.'],
      ['text', 'Hello from a text record. And more.'],
    ],
    sessionId: 'fixture-text-only',
  }),
  streamCase('system-subtypes.ndjson', {
    name: 'system notices are never fatal; a background shell timeout is told in the reasoning, not the answer',
    blocks: [
      ['text', 'Started it.'],
      ['reasoning', '(A shell command Cursor left running in the background timed out: `npm run dev`.)'],
      ['text', ' Checked.'],
    ],
    sessionId: 'fixture-system-subtypes',
  }),
  streamCase('tool-results-2026.ndjson', {
    name: 'timeout, permissionDenied and spawnError results fail with their reason; approval flags are not shown',
    blocks: [
      ['tool', 'mcp_timeout'],
      ['tool', 'mcp_denied'],
      ['tool', 'shell_spawn'],
      ['tool', 'shell_timeout'],
      ['tool', 'mcp_rejected'],
      ['tool', 'mcp_ok'],
      ['text', 'Probed.'],
    ],
    tools: [
      {
        id: 'mcp_timeout',
        name: 'slow',
        kind: 'mcpToolCall',
        server: 'probe',
        args: MCP_TIMEOUT_ARGS,
        status: 'timeout',
        isError: true,
        resultFields: { reason: 'MCP error -32001: Request timed out' },
        opencode: { tool: 'probe_slow', input: { q: 'x' }, status: 'error', errorIncludes: 'Request timed out' },
      },
      {
        id: 'mcp_denied',
        name: 'write',
        kind: 'mcpToolCall',
        server: 'probe',
        args: MCP_DENIED_ARGS,
        status: 'permissionDenied',
        isError: true,
        resultFields: { reason: 'MCP server probe is not approved' },
        opencode: { tool: 'probe_write', input: { q: 'x' }, status: 'error', errorIncludes: 'not approved' },
      },
      {
        id: 'shell_spawn',
        name: 'shell',
        kind: 'shellToolCall',
        args: { command: 'nosuchtool --version', workingDirectory: '' },
        status: 'spawnError',
        isError: true,
        resultFields: { reason: 'spawn nosuchtool ENOENT' },
        opencode: {
          tool: 'bash',
          input: { command: 'nosuchtool --version' },
          status: 'error',
          errorIncludes: 'spawn nosuchtool ENOENT',
        },
      },
      {
        id: 'shell_timeout',
        name: 'shell',
        kind: 'shellToolCall',
        args: { command: 'sleep 999', workingDirectory: '' },
        status: 'timeout',
        isError: true,
        opencode: { tool: 'bash', input: { command: 'sleep 999' }, status: 'error', errorIncludes: 'timed out' },
      },
      {
        id: 'mcp_rejected',
        name: 'erase',
        kind: 'mcpToolCall',
        server: 'probe',
        args: MCP_REJECTED_ARGS,
        status: 'rejected',
        isError: true,
        opencode: { tool: 'probe_erase', input: { q: 'x' }, status: 'error', errorIncludes: 'User rejected MCP' },
      },
      {
        id: 'mcp_ok',
        name: 'fast',
        kind: 'mcpToolCall',
        server: 'probe',
        args: MCP_OK_ARGS,
        status: 'success',
        isError: false,
        opencode: { tool: 'probe_fast', input: { q: 'x' }, status: 'completed', output: 'fine' },
      },
    ],
    sessionId: 'fixture-tool-results-2026',
  }),
  streamCase('unknown-records.ndjson', {
    name: 'records of unknown types and subtypes are ignored, neither skipped nor fatal',
    blocks: [['text', 'Hi there.']],
    sessionId: 'fixture-unknown-records',
  }),
  streamCase('crlf.ndjson', {
    name: 'CRLF line endings and blank lines',
    blocks: [['text', 'Line endings are CRLF.']],
    sessionId: 'fixture-crlf',
  }),
  streamCase('malformed.ndjson', {
    name: 'malformed records are skipped and counted; bad shapes and unknown types are not',
    blocks: [['text', 'Still works.']],
    sessionId: 'fixture-malformed',
    skippedLines: 7,
  }),
  streamCase('over-cap.ndjson', {
    name: 'a record over maxLineBytes is skipped and counted',
    options: { maxLineBytes: 300 },
    blocks: [['text', 'Kept. Also kept.']],
    sessionId: 'fixture-over-cap',
    skippedLines: 1,
  }),
  streamCase('cut-off.ndjson', {
    name: 'a truncated last record and no result: the text is kept, then an error',
    blocks: [['text', 'Partial answer']],
    ending: { code: 'E_AGENT_EXIT' },
    sessionId: 'fixture-cut-off',
    skippedLines: 1,
  }),
  streamCase(null, {
    name: 'not logged in: empty stdout, exit 1',
    outcome: { exitCode: 1, stderr: AUTH_STDERR },
    blocks: [],
    ending: { code: 'E_AUTH', message: /login/ },
    sessionId: null,
  }),
  streamCase(null, {
    name: 'not logged in, newer wording',
    outcome: { exitCode: 1, stderr: AUTH_STDERR_NEW },
    blocks: [],
    ending: { code: 'E_AUTH', message: /login/ },
    sessionId: null,
  }),
  streamCase('init-only.ndjson', {
    name: 'usage limit before any output',
    outcome: { exitCode: 1, stderr: QUOTA_STDERR },
    blocks: [],
    ending: { code: 'E_QUOTA' },
    sessionId: 'fixture-init-only',
  }),
  streamCase('no-result.ndjson', {
    name: 'usage limit after output: the output is kept, and the answer is reported cut off',
    outcome: { exitCode: 1, stderr: QUOTA_STDERR },
    blocks: NO_RESULT_BLOCKS,
    ending: { code: 'E_QUOTA', message: /usage limit/ },
    sessionId: 'fixture-no-result',
  }),
  streamCase(null, {
    name: 'unknown model',
    outcome: { exitCode: 1, stderr: MODEL_STDERR },
    blocks: [],
    ending: { code: 'E_MODEL', message: /composer-2\.5/ },
    sessionId: null,
  }),
  streamCase('no-result.ndjson', {
    name: 'no result at all, exit 0',
    blocks: NO_RESULT_BLOCKS,
    ending: { code: 'E_AGENT_EXIT' },
    sessionId: 'fixture-no-result',
  }),
  streamCase('no-result.ndjson', {
    name: 'killed by a signal without cancel',
    outcome: { exitCode: null, signal: 'SIGKILL' },
    blocks: NO_RESULT_BLOCKS,
    ending: { code: 'E_AGENT_EXIT' },
    sessionId: 'fixture-no-result',
  }),
  streamCase('no-result.ndjson', {
    name: 'cancelled',
    outcome: { exitCode: null, signal: 'SIGTERM', cancelled: true },
    blocks: NO_RESULT_BLOCKS,
    ending: 'cancelled',
    sessionId: 'fixture-no-result',
  }),
  streamCase('is-error-result.ndjson', {
    name: 'a result with is_error fails even with exit 0',
    blocks: [],
    ending: { code: 'E_AGENT_EXIT' },
    sessionId: 'fixture-is-error',
  }),
  streamCase('no-usage.ndjson', {
    name: 'a result, then a failing exit: the error carries stderr',
    outcome: { exitCode: 2, stderr: 'fatal: boom in the agent\n' },
    blocks: [['text', 'Counted.']],
    ending: { code: 'E_AGENT_EXIT', message: /exited with code 2/, agentOutput: /boom in the agent/ },
    sessionId: 'fixture-no-usage',
  }),
  streamCase('usage-filter.ndjson', {
    name: 'usage: negative and non-numeric counts are missing, reasoning tokens reported',
    blocks: [['text', 'Counted.']],
    usage: {
      sse: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120, reasoning_tokens: 7 },
      v3: { inputTokens: { total: 100, noCache: 100 }, outputTokens: { total: 20, reasoning: 7 } },
      raw: { inputTokens: 100, outputTokens: 20 },
    },
    sessionId: 'fixture-usage-filter',
  }),
  streamCase('usage-invalid.ndjson', {
    name: 'usage with no valid count is absent',
    blocks: [['text', 'Counted.']],
    sessionId: 'fixture-usage-invalid',
  }),
  streamCase('no-usage.ndjson', {
    name: 'no usage reported',
    blocks: [['text', 'Counted.']],
    sessionId: 'fixture-no-usage',
  }),
]

// ---------------------------------------------------------------------------------------------
// Checks

/** `actual` contains every field of `expected`, recursively; arrays must match in full. */
function assertContains(actual: unknown, expected: unknown, path: string) {
  if (expected === null || typeof expected !== 'object' || Array.isArray(expected)) {
    assert.deepEqual(actual, expected, path)
    return
  }
  assert.ok(actual !== null && typeof actual === 'object', `${path} is an object`)
  for (const [key, value] of Object.entries(expected)) {
    assertContains((actual as Record<string, unknown>)[key], value, `${path}.${key}`)
  }
}

function assertArgs(actual: unknown, want: ToolExpect, path: string) {
  if (want.argsSubset) assertContains(actual, want.args, path)
  else assert.deepEqual(actual, want.args, path)
  if (want.wholeArgs) assert.deepEqual(actual, want.wholeArgs, `${path}: Cursor's arguments, whole`)
}

const sseOptions = (c: Case): StreamTransformerOptions => ({ ...pinned, ...c.options, format: 'openai-sse' })
const v3Options = (c: Case): StreamTransformerOptions => ({ ...c.options, format: 'ai-sdk' })

function checkV3(c: Case, chunks: Buffer[]) {
  const run = translate(chunks, v3Options(c), c.outcome)
  assert.equal(run.sessionId, c.sessionId, 'sessionId')
  assert.equal(run.skippedLines, c.skippedLines ?? 0, 'skippedLines')
  assert.deepEqual(run.secondFinish, [], 'a second finish returns []')
  const parts = asParts(run.outputs)
  assertV3Invariants(parts)

  const blocks = v3Blocks(parts).map((b): Expected => (b.kind === 'tool' ? ['tool', b.id] : [b.kind, b.text]))
  assert.deepEqual(blocks, c.blocks, 'blocks')
  if (c.resultText !== undefined) {
    const visible = c.blocks
      .filter((b) => b[0] === 'text')
      .map((b) => b[1])
      .join('')
    assert.equal(visible, c.resultText, 'the capture`s own result text is the visible text')
  }

  // As Cursor reported each call: its name, kind, arguments and result.
  const tools = v3Tools(parts)
  assert.deepEqual(
    tools.map((t) => t.id),
    (c.tools ?? []).map((t) => t.id),
    'tool call ids, in order of their start',
  )
  for (const [i, want] of (c.tools ?? []).entries()) {
    const got = tools[i]!
    const what = `${want.name} ${JSON.stringify(want.id)}`
    assert.equal(got.toolName, want.name, `toolName of ${what}`)
    const cursor = want.server === undefined ? { kind: want.kind } : { kind: want.kind, server: want.server }
    assert.deepEqual(got.call?.providerMetadata, { cursor }, `Cursor's kind of ${what}`)
    assertArgs(JSON.parse(got.input), want, `input of ${what}`)
    const result = got.result!
    assert.equal(result.toolName, want.name, `the result's toolName of ${what}`)
    if (want.status !== undefined) assert.equal(result.result.status, want.status, `the result's variant of ${what}`)
    if (want.isError !== undefined) assert.equal(result.isError, want.isError, `isError of ${what}`)
    assertContains(result.result, want.resultFields ?? {}, `the result of ${what}`)
    if (want.opencode.status !== undefined)
      assert.equal(result.isError, want.opencode.status === 'error', `isError of ${what}`)
  }

  // As OpenCode shows each call, through the plugin's view of Cursor's tools.
  const shownTools = v3Tools(openCodeParts(parts))
  for (const [i, { id, opencode: want }] of (c.tools ?? []).entries()) {
    const got = shownTools[i]!
    const what = `${want.tool} ${JSON.stringify(id)}`
    assert.equal(got.toolName, want.tool, `toolName of ${what}`)
    assert.deepEqual(JSON.parse(got.input), want.input, `input of ${what}`)
    const result = got.result!
    assert.equal(result.toolName, want.tool, `the result's toolName of ${what}`)
    if (want.status === undefined) continue
    assert.equal(result.isError, want.status === 'error', `isError of ${what}`)
    if (want.status === 'error') {
      // OpenCode shows a failed call's result as its error text.
      assert.equal(typeof result.result, 'string', `the error text of ${what}`)
      assert.ok((result.result as string).includes(want.errorIncludes!), `the error of ${what}: ${result.result}`)
      continue
    }
    const shown = result.result as { title: unknown; output: unknown; metadata: unknown }
    assert.equal(typeof shown.title, 'string', `title of ${what}`)
    assert.ok((shown.title as string).trim() !== '', `title of ${what}`)
    assert.equal(typeof shown.output, 'string', `output of ${what}`)
    if (want.title !== undefined) assert.equal(shown.title, want.title, `title of ${what}`)
    if (want.output !== undefined) assert.equal(shown.output, want.output, `output of ${what}`)
    assertContains(shown.metadata, want.metadata ?? {}, `metadata of ${what}`)
  }

  const finish = parts.at(-1) as Extract<StreamPart, { type: 'finish' }>
  const errors = parts.filter((p): p is Extract<StreamPart, { type: 'error' }> => p.type === 'error')
  if (c.ending === 'stop' || c.ending === 'cancelled') {
    assert.deepEqual(errors, [], 'no error part')
    const reason = c.ending === 'stop' ? { unified: 'stop', raw: 'stop' } : { unified: 'other', raw: 'cancelled' }
    assert.deepEqual(finish.finishReason, reason, 'finishReason')
  } else {
    assert.equal(errors.length, 1, 'one error part')
    assert.equal(parts.indexOf(errors[0]!), parts.length - 2, 'the error part right before finish')
    assert.equal(errors[0]!.error.code, c.ending.code, 'error code')
    assert.ok(errors[0]!.error.message.length > 0, 'error message')
    if (c.ending.message) assert.match(errors[0]!.error.message, c.ending.message)
    if (c.ending.agentOutput) {
      assert.match(String(errors[0]!.error.agentOutput), c.ending.agentOutput)
      assert.doesNotMatch(errors[0]!.error.message, c.ending.agentOutput, "Cursor's words stay out of the explanation")
    }
    assert.deepEqual(finish.finishReason, { unified: 'error', raw: c.ending.code }, 'finishReason')
  }

  const usage = finish.usage
  if (c.usage) {
    for (const [key, value] of Object.entries(c.usage.v3.inputTokens)) {
      assert.equal(usage.inputTokens[key as keyof typeof usage.inputTokens], value, `inputTokens.${key}`)
    }
    assert.equal(usage.outputTokens.total, c.usage.v3.outputTokens.total, 'outputTokens.total')
    assert.equal(usage.outputTokens.reasoning ?? undefined, c.usage.v3.outputTokens.reasoning, 'outputTokens.reasoning')
    for (const key of ['cacheRead', 'cacheWrite'] as const) {
      if (!(key in c.usage.v3.inputTokens)) assert.equal(usage.inputTokens[key] ?? undefined, undefined, key)
    }
    assertContains(usage.raw, c.usage.raw, 'usage.raw')
  } else {
    for (const key of ['total', 'noCache', 'cacheRead', 'cacheWrite'] as const) {
      assert.equal(usage.inputTokens[key] ?? undefined, undefined, `no usage: inputTokens.${key}`)
    }
    for (const key of ['total', 'text', 'reasoning'] as const) {
      assert.equal(usage.outputTokens[key] ?? undefined, undefined, `no usage: outputTokens.${key}`)
    }
  }
}

function checkSse(c: Case, chunks: Buffer[], options: StreamTransformerOptions = {}) {
  const opts = { ...sseOptions(c), ...options }
  const run = translate(chunks, opts, c.outcome)
  assert.equal(run.sessionId, c.sessionId, 'sessionId')
  assert.equal(run.skippedLines, c.skippedLines ?? 0, 'skippedLines')
  assert.deepEqual(run.secondFinish, [], 'a second finish returns []')
  const frames = parseSse(run.outputs)
  assertSseInvariants(frames, pinned)
  const summary = summarizeSse(frames)

  const join = (kind: 'text' | 'reasoning') =>
    c.blocks
      .filter((b) => b[0] === kind)
      .map((b) => b[1])
      .join('')
  assert.equal(summary.text, sseContentOf(c.blocks.map(([kind, text]) => ({ kind, text }))), 'content')
  assert.equal(summary.reasoning, join('reasoning'), 'reasoning_content')

  const wantTools = opts.toolCalls === 'omit' ? [] : (c.tools ?? [])
  assert.deepEqual(
    summary.toolCalls.map((t) => [t.id, t.name]),
    wantTools.map((t) => [t.id, t.name]),
    'tool_calls (id, name) in order',
  )
  for (const [i, want] of wantTools.entries()) {
    assertArgs(JSON.parse(summary.toolCalls[i]!.arguments), want, `arguments of ${want.name}`)
  }

  if (c.ending === 'stop' || c.ending === 'cancelled') {
    assert.deepEqual(summary.errors, [], 'no error frame')
    // A cancelled completion does not claim a normal stop: `[DONE]` alone ends it.
    assert.deepEqual(summary.finishReasons, c.ending === 'stop' ? ['stop'] : [], 'finish_reason')
  } else {
    assert.equal(summary.errors.length, 1, 'one error frame')
    assert.equal(summary.errors[0]!.code, c.ending.code, 'error code')
    if (c.ending.message) assert.match(summary.errors[0]!.message, c.ending.message)
    if (c.ending.agentOutput) assert.match(summary.errors[0]!.message, c.ending.agentOutput)
    assert.deepEqual(summary.finishReasons, [], 'a failure claims no finish_reason')
  }

  const includeUsage = opts.includeUsage ?? true
  if (c.usage && includeUsage && c.ending === 'stop') {
    assert.equal(summary.usageChunks.length, 1, 'one usage chunk')
    const usage = summary.usageChunks[0]!
    const want = c.usage.sse
    assert.equal(usage.prompt_tokens, want.prompt_tokens, 'prompt_tokens')
    assert.equal(usage.completion_tokens, want.completion_tokens, 'completion_tokens')
    assert.equal(usage.total_tokens, want.total_tokens, 'total_tokens')
    assert.equal(usage.completion_tokens_details?.reasoning_tokens, want.reasoning_tokens, 'reasoning_tokens')
    if (want.cached_tokens !== undefined) {
      assert.equal(usage.prompt_tokens_details?.cached_tokens, want.cached_tokens, 'cached_tokens')
    }
    if (want.cache_write_tokens !== undefined) {
      assert.equal(usage.prompt_tokens_details?.cache_write_tokens, want.cache_write_tokens, 'cache_write_tokens')
    }
  } else if (!c.usage || !includeUsage) {
    assert.deepEqual(summary.usageChunks, [], 'no usage chunk')
  }
}

// ---------------------------------------------------------------------------------------------
// Tests

describe('StreamTransformer: fixtures and captures', () => {
  for (const c of cases) {
    describe(c.name, () => {
      it('ai-sdk, whole input', () => checkV3(c, [c.input()]))
      it('ai-sdk, 1-byte chunks', () => checkV3(c, byteChunks(c.input())))
      it('openai-sse, whole input', () => checkSse(c, [c.input()]))
      it('openai-sse, 1-byte chunks', () => checkSse(c, byteChunks(c.input())))
    })
  }

  it("toolCalls: 'omit' leaves tool calls out of SSE and keeps the text", () => {
    for (const c of cases.filter((c) => c.tools?.length)) checkSse(c, [c.input()], { toolCalls: 'omit' })
  })

  it('includeUsage: false sends no usage chunk', () => {
    for (const c of cases.filter((c) => c.usage)) checkSse(c, [c.input()], { includeUsage: false })
  })
})

describe('captures', () => {
  // The captures are vendored so the suite runs anywhere; where the reference captures folder
  // (`../shared/captures`) sits beside the checkout, the two must not drift apart.
  const reference = resolve(__dirname, '..', '..', 'shared', 'captures', 'maestro')
  it('the vendored copies are byte for byte the reference captures', {
    skip: existsSync(reference) ? false : `no reference copy at ${reference}`,
  }, () => {
    for (const [name] of CAPTURES) {
      assert.ok(readFileSync(join(reference, name)).equals(capture(`maestro/${name}`)), name)
    }
  })

  it("each expected file states the capture's own chat id, result text and usage", () => {
    for (const [name] of CAPTURES) {
      const events = records(capture(`maestro/${name}`))
      const init = events.find((e) => e.type === 'system' && e.subtype === 'init')
      const result = events.find((e) => e.type === 'result')
      const want = captureExpectation(`maestro/${name}`)
      assert.equal(want.sessionId, init.session_id, `${name}: sessionId`)
      assert.equal(want.resultText, result.result, `${name}: resultText`)
      assert.deepEqual(want.usage, result.usage, `${name}: usage`)
    }
  })
})

describe('StreamTransformer: chunking never changes the outputs', () => {
  const SEEDS = 12
  for (const c of cases) {
    it(c.name, () => {
      const input = c.input()
      for (const opts of [sseOptions(c), v3Options(c)]) {
        const whole = translate([input], opts, c.outcome)
        for (let seed = 1; seed <= SEEDS; seed++) {
          const run = translate(randomChunks(input, seed * 7919 + input.length), opts, c.outcome)
          assert.deepEqual(run.outputs, whole.outputs, `${opts.format}, seed ${seed}`)
          assert.equal(run.skippedLines, whole.skippedLines, `${opts.format}, seed ${seed}: skippedLines`)
        }
      }
    })
  }

  it('multi-byte characters split at every byte boundary', () => {
    const input = fixture('unicode.ndjson')
    for (const opts of [{ ...pinned, format: 'openai-sse' as const }, { format: 'ai-sdk' as const }]) {
      const whole = translate([input], opts, success)
      for (let at = 1; at < input.length; at++) {
        const run = translate([input.subarray(0, at), input.subarray(at)], opts, success)
        assert.deepEqual(run.outputs, whole.outputs, `${opts.format}, split at byte ${at}`)
      }
    }
  })

  it('a string chunk is taken as its UTF-8 bytes; a plain Uint8Array works like a Buffer', () => {
    const input = fixture('unicode.ndjson')
    for (const opts of [{ ...pinned, format: 'openai-sse' as const }, { format: 'ai-sdk' as const }]) {
      const whole = translate([input], opts, success)
      assert.deepEqual(translate([input.toString('utf8')], opts, success).outputs, whole.outputs, 'string')
      assert.deepEqual(translate([new Uint8Array(input)], opts, success).outputs, whole.outputs, 'Uint8Array')
    }
  })
})

describe('StreamTransformer: records and limits', () => {
  const delta = (text: string) =>
    JSON.stringify({
      type: 'assistant',
      message: { role: 'assistant', content: [{ type: 'text', text }] },
      session_id: 'cap',
      timestamp_ms: 1,
    })
  /** A delta record of exactly `bytes` bytes. */
  const deltaOfSize = (bytes: number, fill: string) => {
    const record = delta(fill.repeat(bytes - delta('').length))
    assert.equal(Buffer.byteLength(record), bytes)
    return record
  }

  it('a record of exactly maxLineBytes is kept, one byte more is skipped', () => {
    const atCap = deltaOfSize(200, 'a')
    const overCap = deltaOfSize(201, 'b')
    const input = `${atCap}\n${overCap}\n${delta('end')}\n`
    const run = translate([input], { format: 'ai-sdk', maxLineBytes: 200 }, { cancelled: true })
    const text = v3Blocks(asParts(run.outputs))
      .map((b) => ('text' in b ? b.text : ''))
      .join('')
    assert.equal(text, `${'a'.repeat(200 - delta('').length)}end`)
    assert.equal(run.skippedLines, 1)
  })

  it('skippedLines and sessionId are live while pushing', () => {
    const t = new StreamTransformer({ format: 'ai-sdk' })
    assert.equal(t.sessionId, null)
    assert.equal(t.skippedLines, 0)
    t.push('garbage\n{"type":"system","subtype":"init","session_id":"live-1"}\n')
    assert.equal(t.skippedLines, 1)
    assert.equal(t.sessionId, 'live-1')
    t.finish({ cancelled: true })
  })

  it('push after finish throws E_INVALID_ARG; a second finish returns []', () => {
    for (const format of ['openai-sse', 'ai-sdk'] as const) {
      const t = new StreamTransformer({ format })
      assert.ok(t.finish().length > 0)
      assert.throws(() => t.push('{}\n'), { code: 'E_INVALID_ARG' })
      assert.throws(() => t.push(Buffer.alloc(0)), { code: 'E_INVALID_ARG' })
      assert.deepEqual(t.finish(), [])
      assert.deepEqual(t.finish({ cancelled: true }), [])
    }
  })

  it('finish() without an outcome on an empty stream is a failure with exactly one finish', () => {
    const sse = parseSse(translate([], { ...pinned }).outputs)
    assertSseInvariants(sse, pinned)
    assert.deepEqual(summarizeSse(sse).finishReasons, [], 'no finish_reason: the error frame, then [DONE]')
    const parts = asParts(translate([], { format: 'ai-sdk' }).outputs)
    assertV3Invariants(parts)
    assert.equal((parts.at(-1) as Extract<StreamPart, { type: 'finish' }>).finishReason.unified, 'error')
  })
})

describe('StreamTransformer: options', () => {
  it('defaults: openai-sse, model auto, a generated id, created now', () => {
    const before = Math.floor(Date.now() / 1000)
    const run = translate([fixture('no-usage.ndjson')], {}, success)
    const after = Math.ceil(Date.now() / 1000)
    const frames = parseSse(run.outputs)
    const chunks = frames.flatMap((f) => (f.kind === 'chunk' ? [f.chunk] : []))
    const first = chunks[0]!
    assert.equal(first.model, 'auto')
    assert.equal(typeof first.id, 'string')
    assert.ok(first.id.length > 0)
    assert.ok(Number.isInteger(first.created) && first.created >= before && first.created <= after, 'created is now')
    assertSseInvariants(frames, { id: first.id, created: first.created, model: 'auto' })
  })

  it('id, created and model are echoed', () => {
    const run = translate([fixture('no-usage.ndjson')], { id: 'chatcmpl-x', created: 1234, model: 'gpt-test' }, success)
    assertSseInvariants(parseSse(run.outputs), { id: 'chatcmpl-x', created: 1234, model: 'gpt-test' })
  })

  it('null and undefined options mean defaults', () => {
    for (const options of [undefined, null, {}]) {
      const t = new StreamTransformer(options)
      assert.equal(typeof t.finish({ cancelled: true })[0], 'string')
    }
  })

  it('bad options and chunks throw E_INVALID_ARG', () => {
    const bad: unknown[] = [
      { format: 'xml' },
      { toolCalls: 'maybe' },
      { maxLineBytes: 0 },
      { maxLineBytes: -5 },
      { maxLineBytes: 1.5 },
      { includeUsage: 'yes' },
      { model: 42 },
      'ai-sdk',
      42,
    ]
    for (const options of bad) {
      assert.throws(
        () => new StreamTransformer(options as StreamTransformerOptions),
        { code: 'E_INVALID_ARG' },
        JSON.stringify(options),
      )
    }
    const t = new StreamTransformer()
    for (const chunk of [42, {}, null, [1, 2], new Uint16Array(2)]) {
      assert.throws(() => t.push(chunk as never), { code: 'E_INVALID_ARG' }, String(chunk))
    }
    assert.throws(() => t.finish({ exitCode: 'one' } as never), { code: 'E_INVALID_ARG' })
  })
})

describe("StreamTransformer: answered without cursor-agent, and without Cursor's own calls", () => {
  it('answer(text) ends the stream as a run that answered just that text would, in either format', () => {
    const parts = new StreamTransformer({ format: 'ai-sdk' }).answer('A title') as StreamPart[]
    assert.deepEqual(
      parts.map((part) => part.type),
      ['stream-start', 'text-start', 'text-delta', 'text-end', 'finish'],
    )
    assert.equal(parts.map((part) => (part.type === 'text-delta' ? part.delta : '')).join(''), 'A title')
    const last = parts.at(-1) as Extract<StreamPart, { type: 'finish' }>
    assert.equal(last.finishReason.unified, 'stop')
    const options = { format: 'openai-sse', id: 'chatcmpl-t', created: 7, model: 'auto', completions: true } as const
    const outputs = new StreamTransformer(options).answer('A title')
    const frames = outputs.filter((output): output is string => typeof output === 'string')
    assertSseInvariants(parseSse(frames), { id: 'chatcmpl-t', created: 7, model: 'auto' })
    const completion = outputs.find((output) => typeof output === 'object') as {
      choices: { message: { content: string } }[]
    }
    assert.equal(completion.choices[0]!.message.content, 'A title')
    const done = new StreamTransformer()
    done.finish(success)
    assert.throws(() => done.answer('late'), { code: 'E_INVALID_ARG' })
  })

  it("toolCalls 'omit' leaves Cursor's own calls out of the ai-sdk parts, and SSE joins text around them with TEXT_SEGMENT_SEPARATOR", () => {
    const input = fixture('tool-kinds.ndjson')
    const emitted = translate([input], { format: 'ai-sdk' }, success).outputs as StreamPart[]
    const omitted = translate([input], { format: 'ai-sdk', toolCalls: 'omit' }, success).outputs as StreamPart[]
    assert.ok(emitted.some((part) => part.type === 'tool-call' || part.type === 'tool-result'))
    assert.ok(!omitted.some((part) => part.type.startsWith('tool-')), JSON.stringify(omitted.map((p) => p.type)))
    assert.deepEqual(
      omitted.filter((part) => !part.type.startsWith('tool-')),
      emitted.filter((part) => !part.type.startsWith('tool-')),
    )
    const blocks = omitted.filter((part) => part.type === 'text-start').length
    assert.ok(blocks > 1, 'text on either side of a call is two blocks')
    const sse = parseSse(translate([input], { toolCalls: 'omit' }, success).outputs as string[])
    const content = sse.flatMap((f) => (f.kind === 'chunk' ? [f.chunk.choices[0]?.delta?.content ?? ''] : [])).join('')
    const joined = omitted
      .reduce<string[]>((texts, part) => {
        if (part.type === 'text-start') texts.push('')
        if (part.type === 'text-delta') texts[texts.length - 1] += part.delta
        return texts
      }, [])
      .join(binding.TEXT_SEGMENT_SEPARATOR)
    assert.equal(content, joined)
  })
})

describe('ErrorCode', () => {
  it('lists every code of a run, and the server lists its own refusals apart', () => {
    // A const enum in the declarations, a plain object at runtime.
    const { ErrorCode } = binding as unknown as { ErrorCode: Record<string, string> }
    const native = Object.values(ErrorCode).sort()
    assert.deepEqual(native, [
      'E_AGENT_EXIT',
      'E_AGENT_NOT_FOUND',
      'E_AUTH',
      'E_CALLBACK',
      'E_INVALID_ARG',
      'E_MODEL',
      'E_NETWORK',
      'E_QUOTA',
      'E_RESUME',
      'E_TIMEOUT',
    ])
    const server = Object.keys(PROXY_ERROR_CODES).sort()
    assert.deepEqual(server, [
      'E_BUSY',
      'E_FORBIDDEN',
      'E_NOT_FOUND',
      'E_PAYLOAD_TOO_LARGE',
      'E_REQUEST_TIMEOUT',
      'E_UNAUTHORIZED',
      'E_UNSUPPORTED_MEDIA_TYPE',
    ])
    assert.deepEqual(
      native.filter((code) => server.includes(code)),
      [],
      'a code means one thing',
    )
  })
})

describe('setLogging', () => {
  it('writes a debug record with a short prefix of a malformed line to the file, and stops when off', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ocn-log-'))
    const file = join(dir, 'nested', 'cursor.log')
    try {
      const head = 'MALFORMED-HEAD-'
      const tail = 'TAIL-BEYOND-ONE-HUNDRED'
      const line = head + '#'.repeat(120) + tail
      setLogging({ level: 'debug', file })
      const t = new StreamTransformer({ format: 'ai-sdk' })
      t.push(`${line}\n`)
      assert.equal(t.skippedLines, 1)
      t.finish({ cancelled: true })
      const log = readFileSync(file, 'utf8')
      const record = log.split('\n').find((l) => l.includes(head))
      assert.ok(record, `a record naming the malformed line: ${log}`)
      assert.match(record, /DEBUG/)
      assert.ok(!log.includes(tail), 'only a prefix of the line is logged')
      const logged = record.slice(record.indexOf(head))
      const prefix = logged.match(/^MALFORMED-HEAD-#*/)![0]
      assert.ok(prefix.length <= 100, `prefix of ${prefix.length} chars`)

      setLogging({ level: 'off' })
      const quiet = new StreamTransformer({ format: 'ai-sdk' })
      quiet.push('SECOND-MALFORMED-LINE\n')
      quiet.finish({ cancelled: true })
      assert.ok(!readFileSync(file, 'utf8').includes('SECOND-MALFORMED-LINE'), 'nothing is logged when off')
    } finally {
      setLogging({ level: 'off' })
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('never writes to stdout or stderr, with logging off or at trace', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ocn-quiet-'))
    const file = join(dir, 'trace.log')
    const entry = resolve(__dirname, '..', 'index.js')
    const stream = fixture('malformed.ndjson').toString('latin1')
    try {
      for (const level of ['off', 'trace']) {
        const script = `
          const { StreamTransformer, setLogging } = require(${JSON.stringify(entry)})
          setLogging({ level: ${JSON.stringify(level)}, file: ${JSON.stringify(file)} })
          for (const format of ['openai-sse', 'ai-sdk']) {
            const t = new StreamTransformer({ format })
            t.push(Buffer.from(${JSON.stringify(stream)}, 'latin1'))
            t.finish({ exitCode: 1, stderr: "Error: You've hit your usage limit" })
          }`
        const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' })
        assert.equal(child.status, 0, child.stderr)
        assert.equal(child.stdout, '', `stdout with logging ${level}`)
        assert.equal(child.stderr, '', `stderr with logging ${level}`)
      }
      assert.match(readFileSync(file, 'utf8'), / DEBUG /, 'records went to the file instead')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('rejects unknown levels, and turning on with no file after off closed it', () => {
    assert.throws(() => setLogging({ level: 'loud' as never, file: join(tmpdir(), 'x.log') }), {
      code: 'E_INVALID_ARG',
    })
    setLogging({ level: 'off' })
    assert.throws(() => setLogging({ level: 'debug' }), { code: 'E_INVALID_ARG' })
  })
})
