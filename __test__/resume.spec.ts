// Contract tests for SessionResumeManager, buildPrompt and isTitleRequest, replaying OpenCode
// conversations built from requests OpenCode 1.18.33 really sent (fixtures/conversations/).
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

import { png } from './support/png.ts'

import { SessionResumeManager, buildPrompt, isTitleRequest, parseSwitch } from '../index.js'
import type { ResumePlan, ResumeRequest } from '../index.js'

type Json = any

function fixture(name: string): Json {
  return JSON.parse(readFileSync(join(__dirname, 'fixtures', 'conversations', name), 'utf8'))
}

const WORKSPACE = '/home/user/project'
const CONTINUATION = 'The above tool calls have been executed. Continue your response based on these results.'

// OpenAI shape (the OpenAI-compatible path): body + the x-session-id header.
const openaiFirst = fixture('openai-first-turn.json')
const openaiToolTurn = fixture('openai-tool-result-turn.json')
// AI SDK V3 shape (the in-process provider path): doStream options.
const v3ToolTurn = fixture('v3-tool-result-turn.json')
const v3Title = fixture('v3-title-request.json')

function openaiRequest(messages: Json[], extra: Partial<ResumeRequest> = {}): ResumeRequest {
  return {
    workspace: WORKSPACE,
    model: `cursor-acp/${openaiFirst.body.model}`,
    messages,
    tools: openaiFirst.body.tools,
    conversationId: openaiFirst.headers['x-session-id'],
    ...extra,
  }
}

function v3Request(messages: Json[], extra: Partial<ResumeRequest> = {}): ResumeRequest {
  return {
    workspace: WORKSPACE,
    model: 'cursor-acp/auto',
    messages,
    tools: v3ToolTurn.tools,
    conversationId: v3ToolTurn.headers['X-Session-Id'],
    ...extra,
  }
}

function enabledManager(options: { maxEntries?: number } = {}) {
  return new SessionResumeManager({ enabled: true, ...options })
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn()
  } catch (e) {
    return (e as { code?: string }).code
  }
  return undefined
}

describe('SessionResumeManager: an OpenCode conversation in the OpenAI shape', () => {
  const [system, opener] = openaiFirst.body.messages
  const [, , assistantCall, toolResult] = openaiToolTurn.body.messages

  it('is fresh on turn 1, then resumes a tool-result turn and a user turn with only the new messages', () => {
    const manager = enabledManager()

    const first = manager.plan(openaiRequest([system, opener]))
    assert.equal(typeof first.sessionKey, 'string')
    assert.equal(first.resumeChatId, null)
    assert.equal(first.incremental, false)
    assert.ok(first.prompt.startsWith('SYSTEM: You are opencode, an interactive CLI tool'))
    assert.ok(first.prompt.endsWith('\n\nUSER: "read hello.txt"'))
    assert.ok(!first.prompt.includes('AVAILABLE TOOLS'), 'tools are not in the prompt by default')
    assert.equal(manager.record(first, '4f1c2b3a-0000-4abc-8def-0123456789ab'), true)
    assert.equal(manager.size, 1)

    // OpenCode ran the read tool and sends the result back.
    const toolTurn = manager.plan(openaiRequest(openaiToolTurn.body.messages))
    assert.equal(toolTurn.sessionKey, first.sessionKey)
    assert.equal(toolTurn.resumeChatId, '4f1c2b3a-0000-4abc-8def-0123456789ab')
    assert.equal(toolTurn.incremental, true)
    assert.equal(
      toolTurn.prompt,
      `ASSISTANT: tool_call(id: call_fake_1, name: read, args: ${assistantCall.tool_calls[0].function.arguments})\n\n` +
        `TOOL_RESULT (name: read, call_id: call_fake_1): ${toolResult.content}\n\n${CONTINUATION}`,
    )
    assert.equal(manager.record(toolTurn, '4f1c2b3a-0000-4abc-8def-0123456789ab'), true)

    const secondUser = manager.plan(
      openaiRequest([
        ...openaiToolTurn.body.messages,
        { role: 'assistant', content: 'The file contains secret-token-42.' },
        { role: 'user', content: '  now write it to token.txt\n' },
      ]),
    )
    assert.equal(secondUser.resumeChatId, '4f1c2b3a-0000-4abc-8def-0123456789ab')
    assert.equal(secondUser.incremental, true)
    assert.equal(secondUser.prompt, 'now write it to token.txt')
    assert.equal(manager.size, 1)
  })

  it('does not resume a branch with the same opener but a different second message', () => {
    const manager = enabledManager()
    const first = manager.plan(openaiRequest([system, opener]))
    manager.record(first, 'chat-main')
    const second = manager.plan(
      openaiRequest([system, opener, { role: 'assistant', content: 'done' }, { role: 'user', content: 'and then?' }]),
    )
    manager.record(second, 'chat-main')

    const branch = manager.plan(
      openaiRequest([
        system,
        opener,
        { role: 'assistant', content: 'done' },
        { role: 'user', content: 'something else' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'go on' },
      ]),
    )
    assert.equal(branch.resumeChatId, null)
    assert.equal(branch.incremental, false)
    assert.ok(branch.prompt.includes('USER: something else'), 'a fresh chat gets the whole conversation')
    assert.equal(manager.size, 1, 'the entry of the other branch is kept')
  })

  it('evicts when the tool list changes, including a new Task subagent', () => {
    const manager = enabledManager()
    const first = manager.plan(openaiRequest([system, opener]))
    manager.record(first, 'chat-tools')

    const tools = structuredClone(openaiFirst.body.tools)
    const task = tools.find((t: Json) => t.function.name === 'task')
    task.function.description = task.function.description.replace(
      'Available agent types and the tools they have access to:\n',
      'Available agent types and the tools they have access to:\n- reviewer: Reviews diffs.\n',
    )
    const next = manager.plan(
      openaiRequest([system, opener, { role: 'assistant', content: 'hi' }, { role: 'user', content: 'next' }], {
        tools,
      }),
    )
    assert.equal(next.resumeChatId, null)
    assert.equal(manager.size, 0)

    // None -> some tools evicts too.
    const bare = manager.plan(openaiRequest([system, opener], { tools: [] }))
    manager.record(bare, 'chat-bare')
    assert.equal(manager.size, 1)
    manager.plan(
      openaiRequest([system, opener, { role: 'assistant', content: 'hi' }, { role: 'user', content: 'next' }]),
    )
    assert.equal(manager.size, 0)
  })
})

describe('SessionResumeManager: an OpenCode conversation in the AI SDK V3 shape', () => {
  const [system, opener, assistantCall, toolMessage] = v3ToolTurn.prompt

  it('resumes the tool-result turn and the next user turn', () => {
    const manager = enabledManager()
    const first = manager.plan(v3Request([system, opener]))
    assert.equal(first.resumeChatId, null)
    assert.ok(first.prompt.endsWith('\n\nUSER: read the file'))
    assert.equal(manager.record(first, 'chatV3'), true)

    const toolTurn = manager.plan(v3Request(v3ToolTurn.prompt))
    assert.equal(toolTurn.resumeChatId, 'chatV3')
    assert.equal(toolTurn.incremental, true)
    const call = assistantCall.content[1]
    const result = toolMessage.content[0]
    assert.equal(
      toolTurn.prompt,
      `ASSISTANT: tool_call(id: ${call.toolCallId}, name: read, args: ${JSON.stringify(call.input)})\n\n` +
        `TOOL_RESULT (name: read, call_id: ${result.toolCallId}): ${result.output.value}\n\n${CONTINUATION}`,
    )
    manager.record(toolTurn, 'chatV3')

    const next = manager.plan(
      v3Request([
        ...v3ToolTurn.prompt,
        { role: 'assistant', content: [{ type: 'text', text: 'It says local-secret-7.' }] },
        { role: 'user', content: [{ type: 'text', text: 'thanks' }] },
      ]),
    )
    assert.equal(next.resumeChatId, 'chatV3')
    assert.equal(next.prompt, 'thanks')
  })

  /** The opener, a question, and the user's answer carrying a PNG file part with `data`. */
  const withAttachment = (data: string) =>
    v3Request([
      system,
      opener,
      { role: 'assistant', content: [{ type: 'text', text: 'Which file?' }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'this one' },
          { type: 'file', mediaType: 'image/png', data },
        ],
      },
    ])

  it('resumes when the new user message carries a picture: saved for the run, named by its path, nothing of the rest sent again', () => {
    const manager = enabledManager()
    manager.record(manager.plan(v3Request([system, opener])), 'chatV3')
    // A whole PNG: its signature alone is not a picture.
    const picture = png(1, 1, [0, 0, 0])
    const plan = manager.plan(withAttachment(picture.toString('base64')))
    assert.equal(plan.resumeChatId, 'chatV3')
    assert.equal(plan.incremental, true)
    const named = new RegExp(
      `^this one\\n\\[attached image \\(image/png, ${picture.length} bytes, 1x1 px\\), saved for you at (\\S+): open that file with your Read tool to see it\\]$`,
    ).exec(plan.prompt)
    assert.ok(named, plan.prompt)
    const attachments = plan.attachments!
    assert.equal(`${attachments.folder}/${attachments.files[0]!.name}`, named[1])
    // The picture's bytes stay in the addon for the run: the plan names the file and its size.
    assert.deepEqual(attachments.files, [{ name: attachments.files[0]!.name, bytes: picture.length }])
    assert.deepEqual(attachments.warnings, [])
    // A picture that cannot be sent is still named, with why, and the user is told.
    const broken = manager.plan(withAttachment('not base64 at all!'))
    assert.equal(broken.resumeChatId, 'chatV3')
    assert.match(broken.prompt, /^this one\n\[attached image \(image\/png\) not sent: its data is not valid base64/)
    assert.equal(broken.attachments!.files.length, 0)
    assert.equal(broken.attachments!.warnings.length, 1)
  })

  it('starts a fresh chat (never a resumed full prompt) when the new user message names a URL', () => {
    const manager = enabledManager()
    manager.record(manager.plan(v3Request([system, opener])), 'chatV3')
    const plan = manager.plan(withAttachment('https://example.com/shot.png'))
    assert.equal(plan.resumeChatId, null)
    assert.equal(plan.incremental, false)
    assert.ok(
      plan.prompt.endsWith('USER: this one\n[attached image (image/png): https://example.com/shot.png]'),
      plan.prompt,
    )
  })

  it('keeps two OpenCode sessions with the same opener apart by conversationId', () => {
    const manager = enabledManager()
    const a = manager.plan(v3Request([system, opener], { conversationId: 'ses_aaaaaaaaaaaa' }))
    const b = manager.plan(v3Request([system, opener], { conversationId: 'ses_bbbbbbbbbbbb' }))
    assert.notEqual(a.sessionKey, b.sessionKey)
    manager.record(a, 'chat-a')
    manager.record(b, 'chat-b')
    assert.equal(manager.size, 2)
    const next = (conversationId: string) =>
      manager.plan(
        v3Request(
          [
            system,
            opener,
            { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
            { role: 'user', content: 'more' },
          ],
          { conversationId },
        ),
      ).resumeChatId
    assert.equal(next('ses_aaaaaaaaaaaa'), 'chat-a')
    assert.equal(next('ses_bbbbbbbbbbbb'), 'chat-b')
  })
})

describe('SessionResumeManager: limits', () => {
  const opener = (i: number): ResumeRequest => ({
    workspace: WORKSPACE,
    model: 'auto',
    messages: [{ role: 'user', content: `task number ${i}` }],
  })
  const continuation = (i: number): ResumeRequest => ({
    ...opener(i),
    messages: [
      { role: 'user', content: `task number ${i}` },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: 'continue' },
    ],
  })

  it('keeps 64 conversations by default and evicts the least recently used', () => {
    const manager = enabledManager()
    for (let i = 0; i < 65; i++) {
      assert.equal(manager.record(manager.plan(opener(i)), `chat-${i}`), true)
    }
    assert.equal(manager.size, 64)
    assert.equal(manager.plan(continuation(0)).resumeChatId, null, 'the oldest was evicted')
    assert.equal(manager.plan(continuation(1)).resumeChatId, 'chat-1')
    assert.equal(manager.plan(continuation(64)).resumeChatId, 'chat-64')
  })

  it('a hit refreshes the LRU order', () => {
    const manager = enabledManager({ maxEntries: 2 })
    manager.record(manager.plan(opener(1)), 'chat-1')
    manager.record(manager.plan(opener(2)), 'chat-2')
    assert.equal(manager.plan(continuation(1)).resumeChatId, 'chat-1')
    manager.record(manager.plan(opener(3)), 'chat-3')
    assert.equal(manager.plan(continuation(2)).resumeChatId, null)
    assert.equal(manager.plan(continuation(1)).resumeChatId, 'chat-1')
  })

  it('refuses hostile chat ids and never returns them', () => {
    const manager = enabledManager()
    const plan = manager.plan(opener(1))
    for (const id of [
      'abc;rm -rf /',
      '-1',
      '--continue',
      '',
      ' abc',
      'abc ',
      'a b',
      '../x',
      'x\n',
      '$(id)',
      '_x',
      'é',
    ]) {
      assert.equal(manager.record(plan, id), false, JSON.stringify(id))
    }
    assert.equal(manager.record(plan, null), false)
    assert.equal(manager.record(plan, undefined), false)
    assert.equal(manager.size, 0)
    assert.equal(manager.plan(continuation(1)).resumeChatId, null)
  })

  it('is disabled by default: fresh full prompts and no records', () => {
    const manager = new SessionResumeManager()
    const plan = manager.plan(opener(1))
    assert.deepEqual(plan, {
      sessionKey: null,
      resumeChatId: null,
      prompt: 'USER: task number 1',
      incremental: false,
      recordToken: null,
      attachments: null,
      instructions: null,
    })
    assert.equal(manager.record(plan, 'chat-1'), false)
    assert.equal(manager.size, 0)
  })

  it('takes `enabled` from CURSOR_ACP_SESSION_RESUME through parseSwitch', () => {
    const fromEnv = (value: string | undefined) => {
      const manager = new SessionResumeManager({ enabled: parseSwitch(value, false) })
      return manager.record(manager.plan(opener(1)), 'chat-1')
    }
    assert.equal(fromEnv('on'), true)
    assert.equal(fromEnv('TRUE'), true)
    assert.equal(fromEnv(undefined), false)
    assert.equal(fromEnv('0'), false)
  })

  it('clear() forgets every entry', () => {
    const manager = enabledManager()
    manager.record(manager.plan(opener(1)), 'chat-1')
    manager.clear()
    assert.equal(manager.size, 0)
  })
})

describe('SessionResumeManager: failures', () => {
  const first: ResumeRequest = { workspace: WORKSPACE, model: 'auto', messages: [{ role: 'user', content: 'hello' }] }
  const second: ResumeRequest = {
    ...first,
    messages: [
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'hi' },
      { role: 'user', content: 'again' },
    ],
  }

  it('evicts on E_RESUME and resume-specific text, never on transient failures', () => {
    const manager = enabledManager()
    manager.record(manager.plan(first), 'chat-1')
    const resumed = manager.plan(second)
    assert.equal(resumed.resumeChatId, 'chat-1')
    for (const error of [
      { code: 'E_NETWORK', message: 'connect ECONNREFUSED 127.0.0.1:443' },
      { code: 'E_AUTH', message: 'Error: Authentication required.' },
      {
        code: 'E_AGENT_EXIT',
        message: 'cursor-agent exited with code 1.',
        agentOutput: 'session not found; please re-authenticate',
      },
      'session not found; please re-authenticate',
      { code: 'E_QUOTA', message: "You've hit your usage limit" },
      { code: 'E_TIMEOUT', message: 'no output for 300000 ms' },
      'Session expired due to network timeout',
      'FATAL ERROR: JavaScript heap out of memory',
      'killed by signal SIGKILL',
    ]) {
      assert.equal(manager.reportFailure(resumed, error), false, JSON.stringify(error))
    }
    assert.equal(manager.size, 1)
    assert.equal(manager.reportFailure(resumed, 'Error: chat not found'), true)
    assert.equal(manager.size, 0)

    manager.record(manager.plan(first), 'chat-2')
    const again = manager.plan(second)
    assert.equal(manager.reportFailure(again, { code: 'E_RESUME', message: 'the chat was replaced' }), true)
    assert.equal(manager.plan(second).resumeChatId, null)
  })

  it('freshPlan: after E_RESUME the rerun gets the full prompt in a fresh chat that record still stores', () => {
    const manager = enabledManager()
    manager.record(manager.plan(first), 'chat-1')
    const resumed = manager.plan(second)
    assert.equal(resumed.resumeChatId, 'chat-1')
    assert.equal(resumed.prompt, 'again')
    assert.equal(manager.reportFailure(resumed, { code: 'E_RESUME', message: 'the chat was replaced' }), true)

    const fresh = manager.freshPlan(second)
    assert.equal(fresh.resumeChatId, null)
    assert.equal(fresh.incremental, false)
    assert.equal(fresh.prompt, 'USER: hello\n\nASSISTANT: hi\n\nUSER: again')
    assert.equal(fresh.prompt, buildPrompt({ messages: second.messages }))
    assert.equal(fresh.sessionKey, resumed.sessionKey)
    assert.equal(manager.record(fresh, 'chat-2'), true)
    const third = {
      ...second,
      messages: [...second.messages, { role: 'assistant', content: 'hi again' }, { role: 'user', content: 'bye' }],
    }
    assert.equal(manager.plan(third).resumeChatId, 'chat-2')

    // Disabled: a fresh plan is the plan, with no key to record under.
    const off = new SessionResumeManager()
    assert.deepEqual(off.freshPlan(second), off.plan(second))
    assert.equal(off.freshPlan(second).sessionKey, null)
  })

  it('plans survive a JSON round trip, extra fields included', () => {
    const manager = enabledManager()
    const plan = manager.plan(first)
    const copy: ResumePlan & { note?: string } = JSON.parse(JSON.stringify({ ...plan, note: 'mine' }))
    assert.equal(copy.note, 'mine')
    assert.equal(manager.record(copy, 'chat-1'), true)
    const resumed = JSON.parse(JSON.stringify(manager.plan(second)))
    assert.equal(resumed.resumeChatId, 'chat-1')
    assert.equal(manager.reportFailure(resumed, { code: 'E_RESUME', message: '' }), true)
  })

  it('throws E_INVALID_ARG for bad input', () => {
    const manager = enabledManager()
    assert.equal(
      codeOf(() => manager.plan({} as ResumeRequest)),
      'E_INVALID_ARG',
    )
    assert.equal(
      codeOf(() => manager.plan({ ...first, messages: [{ role: 'robot', content: 'x' }] })),
      'E_INVALID_ARG',
    )
    assert.equal(
      codeOf(() => manager.plan({ ...first, workspace: 5 as unknown as string })),
      'E_INVALID_ARG',
    )
    assert.equal(
      codeOf(() => manager.record('x' as unknown as ResumePlan, 'chat-1')),
      'E_INVALID_ARG',
    )
    assert.equal(
      codeOf(() => manager.reportFailure(manager.plan(first), 5 as unknown as string)),
      'E_INVALID_ARG',
    )
    assert.equal(
      codeOf(() => new SessionResumeManager({ maxEntries: 0 })),
      'E_INVALID_ARG',
    )
    assert.equal(
      codeOf(() => new SessionResumeManager({ ttlMs: -1 })),
      'E_INVALID_ARG',
    )
    assert.equal(
      codeOf(() => new SessionResumeManager({ maxEntries: '64' as unknown as number })),
      'E_INVALID_ARG',
    )
    assert.equal(
      codeOf(() => manager.record(manager.plan(first), 42 as unknown as string)),
      'E_INVALID_ARG',
    )
    assert.equal(
      codeOf(() => buildPrompt({ messages: 'hi' as unknown as object[] })),
      'E_INVALID_ARG',
    )
  })
})

describe('title requests', () => {
  it('detects the recorded title request, which by contract never reaches the cache', () => {
    assert.equal(isTitleRequest({ messages: v3Title.prompt }), true)
    assert.equal(isTitleRequest({ messages: v3ToolTurn.prompt, tools: v3ToolTurn.tools }), false)
    assert.equal(isTitleRequest({ messages: openaiFirst.body.messages, tools: openaiFirst.body.tools }), false)
    // The same title prompt offered tools is not a title request.
    assert.equal(isTitleRequest({ messages: v3Title.prompt, tools: v3ToolTurn.tools }), false)

    // A provider answers it from buildPrompt; the manager is never involved.
    const manager = enabledManager()
    const route = (request: ResumeRequest) =>
      isTitleRequest(request)
        ? { prompt: buildPrompt(request), cached: false }
        : { prompt: manager.plan(request).prompt, cached: true }
    const routed = route({
      workspace: WORKSPACE,
      model: 'auto',
      messages: v3Title.prompt,
      conversationId: v3Title.headers['X-Session-Id'],
    })
    assert.equal(routed.cached, false)
    assert.ok(routed.prompt.startsWith('SYSTEM: You are a title generator.'))
    assert.ok(routed.prompt.endsWith('USER: Generate a title for this conversation:\n\n\nUSER: say hi'))
    assert.equal(manager.size, 0)

    // Even if one is planned by mistake, it gets no key and cannot be recorded.
    const plan = manager.plan({
      workspace: WORKSPACE,
      model: 'auto',
      messages: v3Title.prompt,
      conversationId: 'ses_x',
    })
    assert.equal(plan.sessionKey, null)
    assert.equal(manager.record(plan, 'chat-title'), false)
    assert.equal(manager.size, 0)
  })
})

describe('buildPrompt', () => {
  it('writes tool definitions only with toolsInPrompt', () => {
    const request = { messages: v3ToolTurn.prompt, tools: v3ToolTurn.tools }
    assert.ok(!buildPrompt(request).includes('AVAILABLE TOOLS:'))
    const withTools = buildPrompt({ ...request, toolsInPrompt: true })
    const read = v3ToolTurn.tools.find((t: Json) => t.name === 'read')
    assert.ok(withTools.includes(`AVAILABLE TOOLS:\n- bash: `))
    assert.ok(withTools.includes(`\n- read: ${read.description}\n  Parameters: {`))
    // After the system prompt, before the transcript.
    assert.ok(withTools.indexOf('AVAILABLE TOOLS:') < withTools.indexOf('USER: read the file'))
    assert.ok(withTools.indexOf('SYSTEM: You are opencode') < withTools.indexOf('AVAILABLE TOOLS:'))
  })

  it('leaves reasoning out and labels tool calls and results with name and id', () => {
    const prompt = buildPrompt({ messages: v3ToolTurn.prompt })
    assert.ok(!prompt.includes('Thinking locally.'))
    assert.ok(
      prompt.includes(
        'ASSISTANT: tool_call(id: call_local_1, name: read, args: {"filePath":"/home/user/project/hello.txt"})',
      ),
    )
    assert.ok(
      prompt.includes('TOOL_RESULT (name: read, call_id: call_local_1): <path>/home/user/project/hello.txt</path>'),
    )
    assert.ok(prompt.endsWith(CONTINUATION))
  })

  it('never drops images or files silently', () => {
    const prompt = buildPrompt({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'compare' },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
            { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } },
            {
              type: 'file',
              mediaType: 'application/pdf',
              data: 'file:///home/user/project/spec.pdf',
              filename: 'spec.pdf',
            },
          ],
        },
      ],
    })
    assert.equal(
      prompt,
      'USER: compare\n[attached image: https://example.com/a.png]\n' +
        '[attached image (image/jpeg, 6 bytes) omitted: inline data cannot be passed to cursor-agent]\n' +
        '[attached file "spec.pdf" (application/pdf): /home/user/project/spec.pdf]',
    )
  })
})
