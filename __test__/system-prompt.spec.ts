// What Cursor is told of OpenCode's system prompt in tool mode `cursor` (plugin/opencode/
// system-prompt.ts), over the system prompts OpenCode 1.18.33 really sent on a first turn with an
// AGENTS.md in the workspace (fixtures/conversations/v3-first-turn-agents-md.json), and over
// hand-made prompts for each rule. Runs under Node and Bun.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'

import { toldInCursorToolMode } from '../plugin/opencode/provider.ts'
import { applyPromptRules, CURSOR_TOOL_MODE_RULES, sectionsOf } from '../plugin/opencode/system-prompt.ts'

interface Recorded {
  agentsMd: string
  prompts: Record<string, Array<{ role: string; content: unknown }>>
}
const recorded = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'conversations', 'v3-first-turn-agents-md.json'), 'utf8'),
) as Recorded

const told = (text: string): string => applyPromptRules(text, CURSOR_TOOL_MODE_RULES)
const bytes = (text: string): number => Buffer.byteLength(text)

const SKILLS =
  'Skills provide specialized instructions and workflows for specific tasks.\nUse the skill tool to load a skill when a task matches its description.\n<available_skills>\n  <skill>\n    <name>s</name>\n  </skill>\n</available_skills>'
const ENV = '<env>\n  Working directory: /w\n</env>\n'
const FILE =
  'Instructions from: /w/AGENTS.md\n- When doing file search, prefer to use the Task tool.\n<example>\nuser: x\nassistant: [Uses the Task tool]\n</example>\n'

describe('the system prompt in tool mode cursor', () => {
  // [what, prompt, what Cursor is told]
  const cases: Array<[string, string, string]> = [
    ['a prompt without OpenCode’s markers or guidance', 'You are helpful.\nUse tools.', 'You are helpful.\nUse tools.'],
    ['an empty prompt', '', ''],
    [
      'a line naming the Task tool',
      'A\n- When doing file search, prefer to use the Task tool in order to reduce context usage.\nB\n',
      'A\nB\n',
    ],
    ['the last line naming the Task tool', 'A\nUse the Task tool', 'A\n'],
    [
      'an example of a Task call goes whole, another example stays',
      'A\n<example>\nuser: where?\nassistant: [Uses the Task tool]\n</example>\n<example>\nuser: 2+2\nassistant: 4\n</example>\n',
      'A\n<example>\nuser: 2+2\nassistant: 4\n</example>\n',
    ],
    ['the skills block that ends the message', `A\n${ENV}${FILE}\n${SKILLS}`, `A\n${ENV}${FILE}`],
    ['the skills block in the middle is not OpenCode’s, and stays', `A\n${SKILLS}\nB`, `A\n${SKILLS}\nB`],
    ['an instruction file is never changed', `A\n${ENV}${FILE}`, `A\n${ENV}${FILE}`],
    [
      'the environment is not the agent’s prompt',
      `A\nthe Task tool\n<env>\n  the Task tool\n</env>\n`,
      `A\n<env>\n  the Task tool\n</env>\n`,
    ],
    [
      'TodoWrite, Bash, Read and WebFetch have Cursor’s counterparts',
      'Use the TodoWrite tool.\nUse Bash.\n',
      'Use the TodoWrite tool.\nUse Bash.\n',
    ],
  ]
  for (const [what, prompt, expected] of cases) {
    it(what, () => {
      assert.equal(told(prompt), expected)
      assert.equal(told(expected), expected, 'the rules are stable')
    })
  }

  it('cuts a prompt at the markers and joins it back whole', () => {
    const prompt = `A\n${ENV}${FILE}\n${SKILLS}`
    const sections = sectionsOf(prompt)
    assert.deepEqual(
      sections.map((s) => s.section),
      ['agent', 'environment', 'instructions', 'skills'],
    )
    assert.equal(sections.map((s) => s.text).join(''), prompt)
  })

  for (const [model, prompt] of Object.entries(recorded.prompts)) {
    it(`OpenCode 1.18.33's first turn on ${model}: the AGENTS.md and <env> whole, no skill or Task guidance`, () => {
      const system = prompt[0]?.content as string
      const after = told(system)
      assert.ok(after.includes(`Instructions from: /home/user/project/AGENTS.md\n${recorded.agentsMd}`))
      assert.ok(after.endsWith(recorded.agentsMd), 'the file ends the message once the skills are gone')
      const env = /^<env>\n[\s\S]*?^<\/env>\n/m.exec(system)?.[0]
      assert.ok(env !== undefined && after.includes(env))
      assert.ok(!after.includes('<available_skills>') && !after.includes('skill tool'))
      assert.ok(!/\bTask tool\b/.test(after))
      assert.ok(bytes(after) < bytes(system))
      // Only whole lines are taken out: every line left is one of the recorded prompt's.
      const lines = new Set(system.split('\n'))
      for (const line of after.split('\n')) assert.ok(lines.has(line), line)
    })
  }

  it('applies to system messages only', () => {
    const text = 'A\nUse the Task tool\n'
    const messages = [
      { role: 'system', content: text },
      { role: 'user', content: [{ type: 'text', text }] },
    ]
    assert.deepEqual(toldInCursorToolMode(messages), [
      { role: 'system', content: 'A\n' },
      { role: 'user', content: [{ type: 'text', text }] },
    ])
  })
})

describe("the system prompt for Cursor's rules channel (private folder only)", () => {
  const user = { role: 'user', content: [{ type: 'text', text: 'hi' }] }
  const table: Array<[string, Record<string, unknown>[], { instructions: string | null; conversation: unknown[] }]> = [
    ['a string system message', [{ role: 'system', content: 'S' }, user], { instructions: 'S', conversation: [user] }],
    [
      'two system messages, joined by a blank line, the rest in order',
      [{ role: 'system', content: 'A' }, user, { role: 'system', content: 'B' }, { role: 'assistant', content: 'x' }],
      { instructions: 'A\n\nB', conversation: [user, { role: 'assistant', content: 'x' }] },
    ],
    [
      'a developer message is a system message',
      [{ role: 'developer', content: 'D' }, user, { role: 'system', content: 'S' }],
      { instructions: 'D\n\nS', conversation: [user] },
    ],
    [
      "OpenAI's text parts",
      [
        {
          role: 'system',
          content: [
            { type: 'text', text: 'A' },
            { type: 'text', text: 'B' },
          ],
        },
        user,
      ],
      { instructions: 'AB', conversation: [user] },
    ],
    [
      'a system message with an image: left whole',
      [{ role: 'system', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] }, user],
      {
        instructions: null,
        conversation: [
          { role: 'system', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] },
          user,
        ],
      },
    ],
    ['no system message', [user], { instructions: null, conversation: [user] }],
    [
      'a blank system message: left whole',
      [{ role: 'system', content: ' ' }, user],
      { instructions: null, conversation: [{ role: 'system', content: ' ' }, user] },
    ],
  ]
  const api = require('../index.js')
  for (const [what, messages, expected] of table)
    it(what, () => {
      const plan = new api.SessionResumeManager({ enabled: false }).plan({
        workspace: __dirname,
        model: 'auto',
        messages,
        instructionsApart: true,
      })
      assert.equal(plan.instructions, expected.instructions)
      assert.equal(plan.prompt, api.buildPrompt({ messages: expected.conversation }))
    })
  it('stays in the prompt unless asked for', () => {
    const messages = [{ role: 'developer', content: 'D' }, user]
    const plan = new api.SessionResumeManager({ enabled: false }).plan({
      workspace: __dirname,
      model: 'auto',
      messages,
    })
    assert.equal(plan.instructions, null)
    assert.equal(plan.prompt, api.buildPrompt({ messages }))
  })
})

describe('what cursor-agent receives, through the provider', () => {
  it("tool mode cursor drops the guidance Cursor's model cannot follow; tool mode opencode sends the prompt whole, as an always-apply rule", async () => {
    const { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { createCursorAcp } = await import('../plugin/opencode/provider.ts')
    const { userProvider } = await import('./support/user-options.ts')
    const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'system-prompt-spec-')))
    const workspace = join(scratch, 'ws')
    mkdirSync(workspace)
    const fakeAgent = join(__dirname, 'support', 'agents', 'fake-cursor-agent.mjs')
    const system = `You are OpenCode.\n${ENV}${FILE}${SKILLS}`
    const saved = { ...process.env }
    try {
      for (const toolMode of ['cursor', 'opencode'] as const) {
        const logDir = join(scratch, `log-${toolMode}`)
        Object.assign(process.env, {
          FAKE_CURSOR_LOG_DIR: logDir,
          FAKE_CURSOR_STREAM: 'text:ok',
          CURSOR_ACP_CHILD_ENV: 'FAKE_CURSOR_*',
          XDG_DATA_HOME: join(scratch, 'data'),
        })
        const model = userProvider(createCursorAcp, { name: 'cursor-acp', workspace, executable: fakeAgent, toolMode })
        const { stream } = await model.languageModel('auto').doStream({
          prompt: [
            { role: 'system', content: system },
            { role: 'user', content: [{ type: 'text', text: 'hi' }] },
          ],
          headers: { 'x-session-id': `ses_prompt_${toolMode}` },
        } as never)
        const reader = stream.getReader()
        while (!(await reader.read()).done) {}
        const [file] = readdirSync(logDir).filter((name) => name.startsWith('invocation-'))
        const { stdin, alwaysAppliedRules } = JSON.parse(readFileSync(join(logDir, file!), 'utf8')) as {
          stdin: string
          alwaysAppliedRules: Array<{ path: string; body: string }>
        }
        // Where the fake cursor-agent found the system prompt: read as Cursor reads its rules.
        const rules = alwaysAppliedRules.filter((rule) => rule.body.includes('You are OpenCode.'))
        let told: string
        if (toolMode === 'cursor') {
          assert.deepEqual(rules, [], 'nothing written into the repository')
          told = stdin
        } else {
          assert.equal(rules.length, 1, JSON.stringify(alwaysAppliedRules))
          assert.match(rules[0]!.path, /\/workspace\/\.cursor\/rules\/opencode-host\.mdc$/)
          assert.equal(rules[0]!.body, `${system}\n`, 'the whole system prompt')
          assert.ok(!stdin.includes('You are OpenCode.'), 'the prompt text keeps the conversation only')
          assert.ok(stdin.includes('hi'), 'the conversation')
          told = rules[0]!.body
        }
        assert.ok(told.includes('Instructions from: /w/AGENTS.md'), 'the instruction file stays')
        assert.ok(told.includes('prefer to use the Task tool'), "an instruction file's text is never changed")
        assert.equal(told.includes('Use the skill tool'), toolMode === 'opencode', toolMode)
      }
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key]
      Object.assign(process.env, saved)
      rmSync(scratch, { recursive: true, force: true })
    }
  })
})

describe("a client's developer message (the server's Responses clients)", () => {
  it('goes to the rules channel in tool mode opencode, as a system message does', async () => {
    const { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { resolveTurnConfig, startTurn } = await import('../plugin/turn/turn.ts')
    const { withEnv } = await import('./support/env.ts')
    const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'system-prompt-developer-')))
    const workspace = join(scratch, 'ws')
    mkdirSync(workspace)
    const logDir = join(scratch, 'log')
    const fakeAgent = join(__dirname, 'support', 'agents', 'fake-cursor-agent.mjs')
    try {
      await withEnv(
        {
          FAKE_CURSOR_LOG_DIR: logDir,
          FAKE_CURSOR_STREAM: 'text:ok',
          CURSOR_ACP_CHILD_ENV: 'FAKE_CURSOR_*',
          XDG_DATA_HOME: join(scratch, 'data'),
        },
        async () => {
          const config = resolveTurnConfig({ executable: fakeAgent, workspace, toolMode: 'opencode' }, false)
          const messages = [
            { role: 'developer', content: 'You are Codex, a coding agent.' },
            { role: 'user', content: 'hi' },
          ]
          const turn = startTurn(config, { model: 'auto', messages: messages as never }, { format: 'ai-sdk' }, () => {})
          await turn.done
        },
      )
      const [file] = readdirSync(logDir).filter((name) => name.startsWith('invocation-'))
      const { stdin, alwaysAppliedRules } = JSON.parse(readFileSync(join(logDir, file!), 'utf8')) as {
        stdin: string
        alwaysAppliedRules: Array<{ body: string }>
      }
      assert.deepEqual(
        alwaysAppliedRules.filter((rule) => rule.body.includes('Codex')).map((rule) => rule.body),
        ['You are Codex, a coding agent.\n'],
      )
      assert.ok(!stdin.includes('Codex'), stdin)
      assert.ok(stdin.includes('hi'), stdin)
    } finally {
      rmSync(scratch, { recursive: true, force: true })
    }
  })
})
