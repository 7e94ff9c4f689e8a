// What OpenCode is told a step used (the context's estimated size, never Cursor's per-turn
// totals), and the requests OpenCode makes by itself: a compaction runs alone, and one compaction
// and one continuation at most follow each message of the user's.
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { after, describe, test } from 'node:test'

import { AUTOMATIC_REQUEST_LIMIT, admitRequest, requestKind } from '../plugin/opencode/automatic-requests.ts'
import { BYTES_PER_TOKEN, CURSOR_BASE_TOKENS, conversationBytes } from '../plugin/opencode/context-usage.ts'
import { readsAsTransient } from '../plugin/opencode/errors.ts'
import { createCursorAcp } from '../plugin/opencode/provider.ts'
import { userProvider } from './support/user-options.ts'
import { collect } from './support/stream.ts'
import { withEnv } from './support/env.ts'

const repo = resolve(__dirname, '..')
const fakeAgent = join(repo, '__test__', 'support', 'agents', 'fake-cursor-agent.mjs')
const captures = join(repo, '__test__', 'fixtures', 'captures', 'maestro')
const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'context-usage-spec-')))
after(() => rmSync(scratch, { recursive: true, force: true }))

/** OpenCode 1.18.33's compaction request: one user message quoting the conversation. */
const COMPACTION_TEXT =
  'Here is the conversation so far:\n\n<conversation>\n[User]: fix the build\n[Assistant]: Done.\n</conversation>\n\n' +
  'Create a new anchored summary from the conversation history in the <conversation> tags above so another ' +
  'coding agent can continue the work.\n\n## Objective\n...'
const CONTINUATION_TEXT =
  'Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed.'

const user = (text: string) => ({ role: 'user' as const, content: [{ type: 'text' as const, text }] })
const assistant = (text: string) => ({ role: 'assistant' as const, content: [{ type: 'text' as const, text }] })

interface Invocation {
  argv: string[]
  cwd: string
  mcpServers?: Record<string, unknown>
}

function invocations(logDir: string): Invocation[] {
  let files: string[] = []
  try {
    files = readdirSync(logDir).filter((name) => name.startsWith('invocation-'))
  } catch {
    return []
  }
  return files.sort().map((name) => JSON.parse(readFileSync(join(logDir, name), 'utf8')) as Invocation)
}

describe("the context's estimate against the real captures", () => {
  // Each capture's turn made one model request more than it has tool calls; Cursor's usage adds
  // them all up, so its per-request prompt is the total divided by the requests.
  for (const name of readdirSync(captures).filter((file) => file.endsWith('.jsonl'))) {
    test(`${name}: the estimate of one request is within 12% of Cursor's per-request prompt`, () => {
      const records = readFileSync(join(captures, name), 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line))
      const prompt = records.find((record) => record.type === 'user').message.content[0].text as string
      const { usage } = records.find((record) => record.type === 'result')
      const requests =
        records.filter((record) => record.type === 'tool_call' && record.subtype === 'started').length + 1
      const perRequest = (usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens) / requests
      const estimate = CURSOR_BASE_TOKENS + Math.ceil(Buffer.byteLength(prompt) / BYTES_PER_TOKEN)
      const error = Math.abs(estimate - perRequest) / perRequest
      assert.ok(
        error <= 0.12,
        `${name}: estimate ${estimate}, Cursor ${perRequest.toFixed(0)} (${(error * 100).toFixed(1)}%)`,
      )
    })
  }

  test('the conversation is measured by what it holds: text, calls, results, tool definitions', () => {
    const prompt = [
      { role: 'system', content: 'sys' },
      user('héllo'),
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: { filePath: '/a' } }],
      },
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read', output: { type: 'text', value: 'abcd' } }],
      },
    ] as any
    // 3 + 6 (é is two bytes) + 4 + 15 + 4 + 4
    assert.equal(conversationBytes(prompt), 3 + 6 + 4 + '{"filePath":"/a"}'.length + 4 + 4)
    assert.equal(conversationBytes(prompt, [{ name: 'x' }]), conversationBytes(prompt) + '[{"name":"x"}]'.length)
  })
})

describe('requests OpenCode makes by itself', () => {
  const table: [string, any[], boolean, ReturnType<typeof requestKind>][] = [
    ["a user's message", [user('fix the build')], true, 'user'],
    [
      'the compaction request of OpenCode 1.18.33',
      [{ role: 'system', content: 'You are a context summarization agent.' }, user(COMPACTION_TEXT)],
      false,
      'compaction',
    ],
    [
      'a compaction folding a previous summary',
      [
        user(
          'Here is the conversation so far:\n\n<conversation>\nx\n</conversation>\n\n<prior-summary>\ns\n</prior-summary>',
        ),
      ],
      false,
      'compaction',
    ],
    ['the same words with tools offered are a message', [user(COMPACTION_TEXT)], true, 'user'],
    [
      'the same words deep in a conversation are a message',
      [user('hi'), assistant('hello'), user(COMPACTION_TEXT)],
      false,
      'user',
    ],
    [
      'the continuation after a compaction',
      [user('What did we do so far?'), assistant('summary'), user(CONTINUATION_TEXT)],
      true,
      'continuation',
    ],
    [
      'the continuation after an oversized request',
      [
        user(
          `The previous request exceeded the provider's size limit due to large media attachments.\n${CONTINUATION_TEXT}`,
        ),
      ],
      true,
      'continuation',
    ],
    [
      "a tool result's step",
      [
        user('read a'),
        {
          role: 'tool',
          content: [{ type: 'tool-result', toolCallId: 'c', toolName: 'read', output: { type: 'text', value: 'x' } }],
        },
      ],
      true,
      null,
    ],
  ]
  for (const [name, prompt, hasTools, kind] of table) {
    test(`${name}: ${kind}`, () => assert.equal(requestKind(prompt, hasTools), kind))
  }

  test('one compaction and one continuation per message of the user, tool steps never counted', () => {
    const session = 'ses_bound_table'
    assert.deepEqual(AUTOMATIC_REQUEST_LIMIT, { compaction: 1, continuation: 1 })
    const steps: [ReturnType<typeof requestKind>, ReturnType<typeof admitRequest>][] = [
      ['user', null],
      [null, null],
      ['compaction', null],
      ['continuation', null],
      [null, null],
      [null, null],
      ['compaction', 'compaction'],
      ['continuation', 'continuation'],
      ['user', null],
      ['compaction', null],
      ['compaction', 'compaction'],
    ]
    for (const [index, [kind, refused]] of steps.entries()) {
      assert.equal(admitRequest(session, kind), refused, `step ${index}`)
    }
    // Another session counts apart.
    assert.equal(admitRequest('ses_bound_other', 'compaction'), null)
  })
})

describe('the provider over the fake cursor-agent', () => {
  const workspace = join(scratch, 'ws')
  mkdirSync(workspace, { recursive: true })
  const cursorTotals = { inputTokens: 623_821, outputTokens: 9_120, cacheReadTokens: 1_200_640, cacheWriteTokens: 0 }

  for (const toolMode of ['cursor', 'opencode'] as const) {
    test(`tool mode ${toolMode}: each finish reports the context's estimate, Cursor's totals in its metadata`, async () => {
      const logDir = join(scratch, `log-usage-${toolMode}`)
      await withEnv(
        {
          FAKE_CURSOR_LOG_DIR: logDir,
          FAKE_CURSOR_STREAM: 'text:Short answer.',
          FAKE_CURSOR_USAGE: JSON.stringify(cursorTotals),
          CURSOR_ACP_CHILD_ENV: 'FAKE_CURSOR_*',
          XDG_DATA_HOME: join(scratch, `data-${toolMode}`),
        },
        async () => {
          const model = userProvider(createCursorAcp, {
            name: 'cursor-acp',
            workspace,
            executable: fakeAgent,
            toolMode,
          }).languageModel('auto')
          const question = 'what is in the build?'
          const { stream } = await model.doStream({
            prompt: [{ role: 'system', content: 'You are OpenCode.' }, user(question)],
            headers: { 'x-session-id': `ses_usage_${toolMode}` },
          } as any)
          const parts = await collect(stream)
          const finish = parts.at(-1)
          assert.equal(finish.type, 'finish')
          const promptBytes = 'You are OpenCode.'.length + question.length
          assert.equal(finish.usage.inputTokens.total, 20_000 + Math.ceil(promptBytes / 4))
          assert.equal(finish.usage.inputTokens.cacheRead, undefined)
          // The answer (13 bytes) and the fake's thought (26 bytes).
          assert.equal(finish.usage.outputTokens.total, Math.ceil((13 + 26) / 4))
          assert.deepEqual(finish.providerMetadata.cursor.usage, cursorTotals)
        },
      )
    })

    test(`tool mode ${toolMode}: a compaction runs once as a fresh chat, with no tool, and answers in text`, async () => {
      const logDir = join(scratch, `log-compaction-${toolMode}`)
      const dataDir = join(scratch, `data-compaction-${toolMode}`)
      await withEnv(
        {
          FAKE_CURSOR_LOG_DIR: logDir,
          FAKE_CURSOR_STREAM: 'text:## Objective\nFix the build.',
          XDG_DATA_HOME: dataDir,
          CURSOR_ACP_SESSION_RESUME: '1',
          CURSOR_ACP_CHILD_ENV: 'FAKE_CURSOR_*',
        },
        async () => {
          const model = userProvider(createCursorAcp, {
            name: 'cursor-acp',
            workspace,
            executable: fakeAgent,
            toolMode,
          }).languageModel('auto')
          const session = { 'x-session-id': `ses_compaction_${toolMode}` }
          // A first turn records its chat for the session.
          await collect((await model.doStream({ prompt: [user('fix the build')], headers: session } as any)).stream)
          const { stream } = await model.doStream({ prompt: [user(COMPACTION_TEXT)], headers: session } as any)
          const parts = await collect(stream)
          const text = parts
            .filter((part) => part.type === 'text-delta')
            .map((part) => part.delta)
            .join('')
          assert.equal(text, '## Objective\nFix the build.')
          assert.equal(parts.filter((part) => part.type.startsWith('tool-')).length, 0)
          const runs = invocations(logDir)
          assert.equal(runs.length, 2, 'one run for the turn, one for the compaction')
          const compaction = runs[1] as Invocation
          assert.ok(!compaction.argv.includes('--resume'), compaction.argv.join(' '))
          // In the conversation's private folder, where Cursor runs no tool of its own and the
          // bridge offers none.
          assert.ok(compaction.cwd.startsWith(join(dataDir, 'opencode-cursor-native', 'conversations')), compaction.cwd)
        },
      )
    })
  }

  test('a second compaction before the next message is refused without running cursor-agent', async () => {
    const logDir = join(scratch, 'log-bound')
    await withEnv({ FAKE_CURSOR_LOG_DIR: logDir, FAKE_CURSOR_STREAM: 'text:summary' }, async () => {
      const model = userProvider(createCursorAcp, {
        name: 'cursor-acp',
        workspace,
        executable: fakeAgent,
      }).languageModel('auto')
      const headers = { 'x-session-id': 'ses_bound_provider' }
      const ask = async (prompt: any[]) => collect((await model.doStream({ prompt, headers } as any)).stream)
      await ask([user('fix the build')])
      await ask([user(COMPACTION_TEXT)])
      await ask([user('What did we do so far?'), assistant('summary'), user(CONTINUATION_TEXT)])
      assert.equal(invocations(logDir).length, 3)
      const refused = await ask([user(COMPACTION_TEXT)])
      assert.equal(invocations(logDir).length, 3, 'the refusal runs nothing')
      const error = refused.find((part) => part.type === 'error')?.error
      assert.equal(error.code, 'E_AUTOMATIC_LIMIT')
      assert.equal(error.isRetryable, false)
      assert.match(
        error.message,
        /automatic compaction again before your next message.*1 per message.*\[E_AUTOMATIC_LIMIT\]$/s,
      )
      assert.equal(readsAsTransient(error.message), false, 'OpenCode must not retry it')
      assert.equal(refused.at(-1).finishReason.unified, 'error')
      // The user's next message opens the count again.
      await ask([user('and now the tests')])
      await ask([user(COMPACTION_TEXT)])
      assert.equal(invocations(logDir).length, 5)
    })
  })
})
