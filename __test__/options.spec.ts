// One options route for every entry point of the native API (index.d.ts): a value of the wrong
// type or out of range is refused synchronously with E_INVALID_ARG, in a message that names the
// option, never with napi's own codes (NumberExpected, StringExpected, InvalidArg, ...) or its
// "Expected ..." wording. Numbers follow one whole-number rule, the same as the plugin's
// (`isWholeNumber` in plugin/turn/env.ts): integers from the option's minimum to 2^53 - 1.
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'

import {
  SessionResumeManager,
  StreamTransformer,
  buildPrompt,
  cursorModelToRun,
  describeCursorModel,
  groupCursorModels,
  isTitleRequest,
  listCursorModels,
  parseSwitch,
  resolveCursorAgent,
  runCursorAgent,
  runCursorAgentCommand,
  setLogging,
  type ResumePlan,
  type ResumeRequest,
  type RunError,
} from '../index.js'

const scratch = mkdtempSync(join(tmpdir(), 'ocn-options-spec-'))
after(() => rmSync(scratch, { recursive: true, force: true }))

const TOO_BIG = 2 ** 53

/** `value` wrapped in `depth` arrays. */
function nested(depth: number, value: unknown = 'leaf'): unknown {
  let out = value
  for (let i = 0; i < depth; i += 1) out = [out]
  return out
}

/** A V3 conversation whose last message is a tool result holding `value`. */
function toolResultOf(value: unknown): ResumeRequest['messages'] {
  return [
    { role: 'user', content: [{ type: 'text', text: 'hi' }] },
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: {} }] },
    {
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read', output: { type: 'json', value } }],
    },
  ] as ResumeRequest['messages']
}

const circular: Record<string, unknown> = { role: 'user', content: 'hi' }
circular.self = circular
const runBase = { prompt: 'hi', model: 'auto', workspace: scratch, executable: '/nonexistent/cursor-agent' }
const request: ResumeRequest = { workspace: '/w', model: 'auto', messages: [{ role: 'user', content: 'hi' }] }

/** Calls `call` and returns what it threw; fails when it did not throw. */
function thrown(call: () => unknown): { code?: unknown; message?: unknown } {
  try {
    call()
  } catch (error) {
    return error as { code?: unknown; message?: unknown }
  }
  assert.fail('expected a throw')
}

/** [what is called, the option its message must name, the call]. */
type Refusal = [string, string, () => unknown]

const refusals: Refusal[] = [
  // StreamTransformer options
  ['StreamTransformer format', 'format', () => new StreamTransformer({ format: 'sse' as never })],
  ['StreamTransformer format type', 'format', () => new StreamTransformer({ format: 1 as never })],
  ['StreamTransformer model', 'model', () => new StreamTransformer({ model: 5 as never })],
  ['StreamTransformer id', 'id', () => new StreamTransformer({ id: {} as never })],
  ['StreamTransformer created fraction', 'created', () => new StreamTransformer({ created: 1.5 })],
  ['StreamTransformer created negative', 'created', () => new StreamTransformer({ created: -1 })],
  ['StreamTransformer created 2^53', 'created', () => new StreamTransformer({ created: TOO_BIG })],
  ['StreamTransformer created string', 'created', () => new StreamTransformer({ created: '1' as never })],
  ['StreamTransformer toolCalls', 'toolCalls', () => new StreamTransformer({ toolCalls: 'none' as never })],
  ['StreamTransformer includeUsage', 'includeUsage', () => new StreamTransformer({ includeUsage: 'yes' as never })],
  ['StreamTransformer maxLineBytes 0', 'maxLineBytes', () => new StreamTransformer({ maxLineBytes: 0 })],
  ['StreamTransformer maxLineBytes NaN', 'maxLineBytes', () => new StreamTransformer({ maxLineBytes: Number.NaN })],
  ['StreamTransformer options', 'options', () => new StreamTransformer(5 as never)],
  // finish outcome
  ['finish exitCode', 'exitCode', () => new StreamTransformer().finish({ exitCode: 'one' as never })],
  ['finish exitCode fraction', 'exitCode', () => new StreamTransformer().finish({ exitCode: 1.5 })],
  ['finish signal', 'signal', () => new StreamTransformer().finish({ signal: 9 as never })],
  ['finish stderr', 'stderr', () => new StreamTransformer().finish({ stderr: ['x'] as never })],
  ['finish cancelled', 'cancelled', () => new StreamTransformer().finish({ cancelled: 1 as never })],
  // runCursorAgent options
  ['runCursorAgent prompt type', 'prompt', () => runCursorAgent({ ...runBase, prompt: 5 as never }, () => {})],
  ['runCursorAgent model type', 'model', () => runCursorAgent({ ...runBase, model: [] as never }, () => {})],
  [
    'runCursorAgent resumeChatId type',
    'resumeChatId',
    () => runCursorAgent({ ...runBase, resumeChatId: 1 as never }, () => {}),
  ],
  [
    'runCursorAgent resumeChatId over 256',
    'resumeChatId',
    () => runCursorAgent({ ...runBase, resumeChatId: 'a'.repeat(257) }, () => {}),
  ],
  ['runCursorAgent force', 'force', () => runCursorAgent({ ...runBase, force: 'true' as never }, () => {})],
  ['runCursorAgent extraArgs', 'extraArgs', () => runCursorAgent({ ...runBase, extraArgs: '--x' as never }, () => {})],
  [
    'runCursorAgent extraArgs items',
    'extraArgs',
    () => runCursorAgent({ ...runBase, extraArgs: [1] as never }, () => {}),
  ],
  ['runCursorAgent env', 'env', () => runCursorAgent({ ...runBase, env: { PATH: 1 } as never }, () => {})],
  ['runCursorAgent env array', 'env', () => runCursorAgent({ ...runBase, env: ['PATH'] as never }, () => {})],
  [
    'runCursorAgent idleTimeoutMs fraction',
    'idleTimeoutMs',
    () => runCursorAgent({ ...runBase, idleTimeoutMs: 1.5 }, () => {}),
  ],
  [
    'runCursorAgent idleTimeoutMs string',
    'idleTimeoutMs',
    () => runCursorAgent({ ...runBase, idleTimeoutMs: '5' as never }, () => {}),
  ],
  ['runCursorAgent timeoutMs 2^53', 'timeoutMs', () => runCursorAgent({ ...runBase, timeoutMs: TOO_BIG }, () => {})],
  ['runCursorAgent timeoutMs negative', 'timeoutMs', () => runCursorAgent({ ...runBase, timeoutMs: -1 }, () => {})],
  ['runCursorAgent format', 'format', () => runCursorAgent({ ...runBase, format: 'sse' as never }, () => {})],
  ['runCursorAgent toolCalls', 'toolCalls', () => runCursorAgent({ ...runBase, toolCalls: true as never }, () => {})],
  ['runCursorAgent created', 'created', () => runCursorAgent({ ...runBase, created: 1.5 }, () => {})],
  ['runCursorAgent maxLineBytes', 'maxLineBytes', () => runCursorAgent({ ...runBase, maxLineBytes: 2.5 }, () => {})],
  ['runCursorAgent onOutput', 'onOutput', () => runCursorAgent(runBase, 'log' as never)],
  ['runCursorAgent options', 'options', () => runCursorAgent(undefined as never, () => {})],
  // lookups
  ['resolveCursorAgent executable', 'executable', () => resolveCursorAgent({ executable: 5 as never })],
  ['resolveCursorAgent env', 'env', () => resolveCursorAgent({ env: { HOME: null } as never })],
  ['listCursorModels env', 'env', () => listCursorModels({ env: 'PATH=/bin' as never })],
  ['describeCursorModel id type', 'model id', () => describeCursorModel(5 as never)],
  ['describeCursorModel id missing', 'model id', () => describeCursorModel(undefined as never)],
  ['describeCursorModel id empty', 'model id', () => describeCursorModel('  ')],
  ['describeCursorModel name', 'model name', () => describeCursorModel('auto', 1 as never)],
  ['groupCursorModels list', 'models', () => groupCursorModels('auto' as never)],
  ['cursorModelToRun model', 'model', () => cursorModelToRun([], 5 as never)],
  ['cursorModelToRun effort', 'effort', () => cursorModelToRun([], 'auto', 1 as never)],
  // SessionResumeManager
  ['SessionResumeManager enabled', 'enabled', () => new SessionResumeManager({ enabled: 'yes' as never })],
  ['SessionResumeManager maxEntries 0', 'maxEntries', () => new SessionResumeManager({ maxEntries: 0 })],
  ['SessionResumeManager maxEntries fraction', 'maxEntries', () => new SessionResumeManager({ maxEntries: 2.5 })],
  ['SessionResumeManager maxEntries 1e9', 'maxEntries', () => new SessionResumeManager({ maxEntries: 1e9 })],
  ['SessionResumeManager maxEntries 2^31', 'maxEntries', () => new SessionResumeManager({ maxEntries: 2 ** 31 })],
  [
    'SessionResumeManager maxEntries 1,000,001',
    'maxEntries',
    () => new SessionResumeManager({ maxEntries: 1_000_001 }),
  ],
  [
    'SessionResumeManager maxEntries string',
    'maxEntries',
    () => new SessionResumeManager({ maxEntries: '64' as never }),
  ],
  ['SessionResumeManager ttlMs 0', 'ttlMs', () => new SessionResumeManager({ ttlMs: 0 })],
  ['SessionResumeManager ttlMs 2^53', 'ttlMs', () => new SessionResumeManager({ ttlMs: TOO_BIG })],
  ['plan workspace', 'workspace', () => new SessionResumeManager().plan({ ...request, workspace: 5 as never })],
  ['plan model missing', 'model', () => new SessionResumeManager().plan({ workspace: '/w', messages: [] } as never)],
  ['plan messages', 'messages', () => new SessionResumeManager().plan({ ...request, messages: 'hi' as never })],
  ['plan tools', 'tools', () => new SessionResumeManager().plan({ ...request, tools: {} as never })],
  [
    'plan toolsInPrompt',
    'toolsInPrompt',
    () => new SessionResumeManager().plan({ ...request, toolsInPrompt: 'no' as never }),
  ],
  [
    'plan conversationId',
    'conversationId',
    () => new SessionResumeManager().plan({ ...request, conversationId: 7 as never }),
  ],
  [
    'freshPlan messages',
    'messages',
    () => new SessionResumeManager().freshPlan({ ...request, messages: undefined as never }),
  ],
  ['record plan', 'plan', () => new SessionResumeManager().record('x' as never, 'chat-1')],
  ['record plan field', 'sessionKey', () => new SessionResumeManager().record({ sessionKey: 1 } as never, 'chat-1')],
  ['record chat id', 'chat id', () => new SessionResumeManager().record({} as ResumePlan, 42 as never)],
  ['reportFailure error', 'error', () => new SessionResumeManager().reportFailure({} as ResumePlan, 5 as never)],
  [
    'reportFailure error code',
    'code',
    () => new SessionResumeManager().reportFailure({} as ResumePlan, { code: 1 } as never),
  ],
  ['StreamTransformer without new', 'new', () => (StreamTransformer as unknown as () => unknown)()],
  ['StreamTransformer on the module', 'new', () => (StreamTransformer as unknown as () => unknown).call({})],
  ['SessionResumeManager without new', 'new', () => (SessionResumeManager as unknown as () => unknown)()],
  ['finish exitCode 2^40', 'exitCode', () => new StreamTransformer().finish({ exitCode: 2 ** 40 })],
  ['finish exitCode NaN', 'exitCode', () => new StreamTransformer().finish({ exitCode: Number.NaN })],
  ['plan circular messages', 'messages', () => new SessionResumeManager().plan({ ...request, messages: [circular] })],
  [
    'plan messages nested past 10,000 levels',
    'messages',
    () => new SessionResumeManager().plan({ ...request, messages: toolResultOf(nested(20_000)) }),
  ],
  [
    'buildPrompt tools nested past 10,000 levels',
    'tools',
    () => buildPrompt({ messages: [], tools: [nested(20_000)] as never }),
  ],
  // Options are read as JS values, recursively on the caller's stack: a tool definition of a
  // run may nest 256 levels (no real schema comes near), far less than a conversation's 10,000.
  [
    'runCursorAgent hostTools.tools nested past 256 levels',
    'hostTools.tools',
    () => runCursorAgent({ ...runBase, hostTools: { tools: [nested(257)], folder: scratch } } as never, () => {}),
  ],
  [
    'runCursorAgent hostTools.tools nested 20,000 levels',
    'hostTools.tools',
    () => runCursorAgent({ ...runBase, hostTools: { tools: [nested(20_000)], folder: scratch } } as never, () => {}),
  ],
  // prompts, logging, switches
  ['buildPrompt messages', 'messages', () => buildPrompt({ messages: 'hi' as never })],
  ['buildPrompt toolsInPrompt', 'toolsInPrompt', () => buildPrompt({ messages: [], toolsInPrompt: 1 as never })],
  ['isTitleRequest tools', 'tools', () => isTitleRequest({ messages: [], tools: 'none' as never })],
  ['setLogging level', 'level', () => setLogging({ level: 3 as never })],
  ['setLogging file', 'file', () => setLogging({ level: 'off', file: true as never })],
  ['setLogging options', 'options', () => setLogging(undefined as never)],
  ['parseSwitch value', 'value', () => parseSwitch(1 as never, false)],
  ['parseSwitch default', 'default', () => parseSwitch('on', 'yes' as never)],
]

describe('one options route', () => {
  for (const [what, option, call] of refusals) {
    it(`${what}: E_INVALID_ARG naming ${option}`, () => {
      const error = thrown(call)
      assert.equal(error.code, 'E_INVALID_ARG', `${what}: ${String(error.message)}`)
      assert.equal(typeof error.message, 'string')
      const message = error.message as string
      assert.ok(message.includes(option), `${what}: "${message}" does not name ${option}`)
      assert.doesNotMatch(message, /\bExpected\b|napi/i, what)
    })
  }

  it('accepts the edges of every numeric range', () => {
    const max = Number.MAX_SAFE_INTEGER
    assert.doesNotThrow(() => new StreamTransformer({ created: 0, maxLineBytes: 1 }))
    assert.doesNotThrow(() => new StreamTransformer({ created: max, maxLineBytes: max }))
    assert.doesNotThrow(() => new StreamTransformer().finish({ exitCode: -1 }))
    assert.doesNotThrow(() => new SessionResumeManager({ maxEntries: 1, ttlMs: 1 }))
    assert.doesNotThrow(() => new SessionResumeManager({ maxEntries: 1_000_000 }))
    assert.doesNotThrow(() => new SessionResumeManager({ ttlMs: max }))
    // 0 disables a runner timeout; the run itself fails later (no such binary), not the options.
    for (const limits of [
      { idleTimeoutMs: 0, timeoutMs: 0 },
      { idleTimeoutMs: max, timeoutMs: max },
    ]) {
      assert.doesNotThrow(() => runCursorAgent({ ...runBase, ...limits }, () => {}).cancel())
    }
    const deepest = { type: 'function', name: 'deep', inputSchema: { type: 'object', default: nested(254) } }
    const hostTools = { tools: [deepest], folder: join(scratch, 'deep') }
    assert.doesNotThrow(() => runCursorAgent({ ...runBase, hostTools }, () => {}).cancel())
  })

  it('a resumeChatId of 256 characters is accepted, one of 257 is not', async () => {
    const run = runCursorAgent({ ...runBase, resumeChatId: 'a'.repeat(256) }, () => {})
    // The options were good: the run starts and fails only on the missing binary.
    assert.equal((await run.wait()).error?.code, 'E_AGENT_NOT_FOUND')
    const error = thrown(() => runCursorAgent({ ...runBase, resumeChatId: 'a'.repeat(257) }, () => {}))
    assert.match(String(error.message), /at most 256 characters/)
  })

  it('requests nested thousands of levels deep are planned and built, not refused', () => {
    // serde_json alone stops at 128 levels; Node's JSON.stringify, which hands the request
    // over, gives up at about 5,000 nested arrays on Node 20, and 4,000 pass under Bun too.
    const deep = nested(4_000)
    const messages = toolResultOf(deep)
    const prompt = buildPrompt({ messages })
    assert.ok(prompt.includes(JSON.stringify(deep)), 'the whole result is in the prompt')
    const manager = new SessionResumeManager({ enabled: true })
    const plan = manager.plan({ ...request, messages })
    assert.equal(plan.prompt, prompt)
    assert.equal(manager.record(plan, 'chat-1'), true)
    assert.equal(isTitleRequest({ messages }), false)
  })

  it('a long message list reads as JSON.stringify reads it, element 40 as element 1', () => {
    // Long lists cross into Rust in slices; what each element means must not depend on where
    // it sits. A toJSON() stands for its result, and a cycle is refused, wherever they are.
    const messages: object[] = Array.from({ length: 40 }, (_, i) => ({
      role: i % 2 ? 'assistant' : 'user',
      content: `message ${i}`,
    }))
    messages[37] = { toJSON: () => ({ role: 'assistant', content: 'answer given by toJSON' }) }
    messages.push({ role: 'user', content: 'the last question' })
    const prompt = buildPrompt({ messages })
    assert.equal(prompt, buildPrompt({ messages: JSON.parse(JSON.stringify(messages)) }))
    assert.ok(prompt.includes('answer given by toJSON'))
    for (const text of ['message 0', 'message 16', 'message 39']) assert.ok(prompt.includes(text), text)
    const cyclic: Record<string, unknown> = { role: 'user', content: 'loops' }
    cyclic.self = cyclic
    const withCycle = [...messages.slice(0, 30), cyclic, ...messages.slice(30)]
    assert.throws(
      () => buildPrompt({ messages: withCycle }),
      (e: any) => e.code === 'E_INVALID_ARG' && /`messages` cannot be read as JSON data/.test(e.message),
    )
    assert.throws(
      () => new SessionResumeManager({ enabled: true }).plan({ ...request, messages: withCycle }),
      (e: any) => e.code === 'E_INVALID_ARG',
    )
  })

  it('absent and null options read as the defaults', () => {
    assert.doesNotThrow(() => new StreamTransformer({ model: undefined, id: null as never, created: undefined }))
    assert.doesNotThrow(() => new StreamTransformer(null))
    assert.doesNotThrow(() => new SessionResumeManager({ maxEntries: null as never }))
    assert.equal(parseSwitch(null, true), true)
    assert.equal(parseSwitch(undefined, false), false)
  })
})

// Compile-time: a run's error code is the code union, so comparing with a code type-checks and
// a code that does not exist does not.
export type CodeIsTheUnion = RunError['code'] extends string
  ? 'E_RESUME' extends RunError['code']
    ? true
    : never
  : never
// @ts-expect-error: not one of ErrorCode
export const notACode: RunError['code'] = 'E_NOPE'

/** The field names of an interface of index.d.ts, as the declarations spell them. */
function declaredFields(name: string): string[] {
  const declarations = readFileSync(join(__dirname, '..', 'index.d.ts'), 'utf8')
  const body = new RegExp(`export interface ${name} \\{\\n([\\s\\S]*?)\\n\\}`).exec(declarations)?.[1]
  assert.ok(body !== undefined, `index.d.ts declares ${name}`)
  return [...body.matchAll(/^ {2}(\w+)\??:/gm)].map((match) => match[1] as string)
}

/**
 * [interface, the call that reads it with `fields`, whether a field it does not declare is
 * refused]. Values of a type no field accepts stand in for each field: a symbol for options
 * (read as JS values), a BigInt for requests (read as JSON data, which cannot hold one).
 */
type Reader = [string, (fields: Record<string, unknown>) => unknown, boolean]

const readers: Reader[] = [
  ['RunCursorAgentOptions', (fields) => runCursorAgent(fields as never, () => {}), true],
  ['HostToolsOptions', (fields) => runCursorAgent({ ...runBase, hostTools: fields } as never, () => {}), true],
  ['RunCaptureOptions', (fields) => runCursorAgent({ ...runBase, capture: fields } as never, () => {}), true],
  ['StreamTransformerOptions', (fields) => new StreamTransformer(fields as never), true],
  ['StreamOutcome', (fields) => new StreamTransformer().finish(fields as never), true],
  ['SessionResumeOptions', (fields) => new SessionResumeManager(fields as never), true],
  ['ResumeRequest', (fields) => new SessionResumeManager().plan(fields as never), true],
  ['LoggingOptions', (fields) => setLogging(fields as never), true],
  ['CursorAgentLookupOptions', (fields) => resolveCursorAgent(fields as never), true],
  ['CursorAgentCommandOptions', (fields) => runCursorAgentCommand(fields as never), true],
  ['CursorModelName', (fields) => groupCursorModels([fields as never]), true],
  ['ToolAnswer', (fields) => idleRun().answerToolCalls([fields as never]), true],
  [
    'ToolAnswerImage',
    (fields) => idleRun().answerToolCalls([{ id: 'c', output: '', images: [fields as never] }]),
    true,
  ],
  // Values the package handed out, or a request that may carry a ResumeRequest's fields, come
  // back with fields of the caller's: those are not read.
  ['PromptRequest', (fields) => buildPrompt(fields as never), false],
  ['ResumePlan', (fields) => new SessionResumeManager().record(fields as never, 'chat-1'), false],
  ['ResumeFailure', (fields) => new SessionResumeManager().reportFailure({} as ResumePlan, fields as never), false],
]

/** A run that fails on its own (no such binary): something to hand answers to. */
function idleRun(): ReturnType<typeof runCursorAgent> {
  return runCursorAgent(runBase, () => {})
}

const JSON_READ = new Set(['ResumeRequest', 'PromptRequest'])

/**
 * Declared fields of a value handed back that are deliberately not read: a plan's attachments
 * and instructions go to `runCursorAgent`, and `record`/`reportFailure` need neither.
 */
const NOT_READ_BACK = new Set(['ResumePlan.attachments', 'ResumePlan.instructions'])

describe('the declarations are what is read', () => {
  for (const [name, call, strict] of readers) {
    it(`${name}: every declared field is read by that name${strict ? ', and no other field is accepted' : ''}`, () => {
      const fields = declaredFields(name)
      assert.ok(fields.length > 0, name)
      for (const field of fields) {
        const stand = JSON_READ.has(name) ? 10n : Symbol('no field takes this')
        if (NOT_READ_BACK.has(`${name}.${field}`)) {
          assert.doesNotThrow(() => call({ [field]: stand }), `${name}.${field} is not read back`)
          continue
        }
        const error = thrown(() => call({ [field]: stand }))
        assert.equal(error.code, 'E_INVALID_ARG', `${name}.${field}: ${String(error.message)}`)
        const message = String(error.message)
        assert.ok(message.includes(field), `${name}.${field}: "${message}" does not name it`)
        assert.doesNotMatch(message, /is not a field/, `${name}.${field} is declared but not read`)
      }
      const unknown = 'surelyNotAField'
      if (strict) {
        const error = thrown(() => call({ [unknown]: 1 }))
        assert.equal(error.code, 'E_INVALID_ARG', name)
        assert.match(String(error.message), /surelyNotAField` is not a field/, name)
      } else {
        // Refused for other reasons (required fields missing, say), never for the extra field.
        try {
          call({ [unknown]: 1 })
        } catch (error) {
          assert.doesNotMatch(String((error as Error).message), /surelyNotAField/, name)
        }
      }
    })
  }
})
