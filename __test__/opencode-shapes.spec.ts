// What OpenCode hands the plugin, read by one schema per shape: the provider options of
// `createCursorAcp` (plugin/opencode/provider-options.ts) and the session events of the `event`
// hook (plugin/opencode/session-events.ts). Valid shapes are read as they are; each malformed field
// is refused by its name. Runs under Node and Bun.
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { describe, test } from 'node:test'
import { pathToFileURL } from 'node:url'

import { readProviderOptions } from '../plugin/opencode/provider-options.ts'
import { readSessionEvent } from '../plugin/opencode/session-events.ts'
import { type HeldRun, heldRun, holdRun, releaseRun } from '../plugin/turn/tool-bridge.ts'

const repo = resolve(__dirname, '..')

describe("OpenCode's provider options", () => {
  // Every option the provider reads, each valid.
  const valid = {
    force: false,
    sessionResume: true,
    toolMode: 'opencode',
    toolWaitMs: 1000,
    toolDeadlineMs: 2000,
    idleTimeoutMs: 0,
    timeoutMs: Number.MAX_SAFE_INTEGER,
    capture: true,
    capturePrompt: false,
    captureMaxBytes: 1,
    executable: '/opt/cursor-agent',
    workspace: '/srv/project',
    name: 'cursor-acp',
    apiKey: 'crsr_secret',
    configurationError: { code: 'E_INVALID_ARG', message: 'CURSOR_ACP_WORKSPACE is refused.' },
    configurationWarnings: ['CURSOR_ACP_TIMEOUT_MS="soon" is not a whole number of milliseconds; using 0.'],
  }

  test('valid shapes are read as they are; options the provider does not read are left out', () => {
    const table: Array<[string, unknown, Record<string, unknown>]> = [
      ['none', {}, {}],
      ['every option', valid, valid],
      ['only what the plugin writes', { name: 'cursor-acp', workspace: '/w' }, { name: 'cursor-acp', workspace: '/w' }],
      [
        'others OpenCode adds',
        { name: 'cursor-acp', baseURL: 'http://x', headers: { a: 'b' } },
        { name: 'cursor-acp' },
      ],
      // The mode itself is judged by the turn, for every front end (it warns and uses `cursor`).
      ['a tool mode the turn will refuse', { toolMode: 'mcp' }, { toolMode: 'mcp' }],
      ['a blank API key, which the turn takes as none', { apiKey: '  ' }, { apiKey: '  ' }],
      ['undefined values', { force: undefined, name: 'cursor-acp' }, { force: undefined, name: 'cursor-acp' }],
    ]
    for (const [name, given, options] of table) {
      assert.deepEqual(readProviderOptions(given), { options, ignored: [] }, name)
    }
  })

  test('each malformed option is ignored with a warning naming it; the others are kept', () => {
    const table: Array<[keyof typeof valid, unknown, string]> = [
      ['force', 'no', 'Provider option force="no" is not a valid boolean; ignored.'],
      ['sessionResume', 1, 'Provider option sessionResume=1 is not a valid boolean; ignored.'],
      ['toolMode', 5, 'Provider option toolMode=5 is not a valid string; ignored.'],
      ['toolWaitMs', -1, 'Provider option toolWaitMs=-1 is not a valid number; ignored.'],
      ['idleTimeoutMs', 1.5, 'Provider option idleTimeoutMs=1.5 is not a valid number; ignored.'],
      ['timeoutMs', 2 ** 53, 'Provider option timeoutMs=9007199254740992 is not a valid number; ignored.'],
      ['capture', null, 'Provider option capture=null is not a valid boolean; ignored.'],
      ['capturePrompt', 'yes', 'Provider option capturePrompt="yes" is not a valid boolean; ignored.'],
      ['captureMaxBytes', '100', 'Provider option captureMaxBytes="100" is not a valid number; ignored.'],
      ['executable', 7, 'Provider option executable=7 is not a valid string; ignored.'],
      ['workspace', ['/a'], 'Provider option workspace=["/a"] is not a valid string; ignored.'],
      ['name', 3, 'Provider option name=3 is not a valid string; ignored.'],
      // A key is never shown, not even one of the wrong type.
      ['apiKey', 42, 'Provider option apiKey is not a valid string; ignored.'],
      [
        'configurationError',
        { code: 'AUTH', message: 'm' },
        'Provider option configurationError={"code":"AUTH","message":"m"} is not a valid configuration error ({code, message}); ignored.',
      ],
      [
        'configurationError',
        { code: 'E_AUTH' },
        'Provider option configurationError={"code":"E_AUTH"} is not a valid configuration error ({code, message}); ignored.',
      ],
      [
        'configurationWarnings',
        'w',
        'Provider option configurationWarnings="w" is not a valid list of texts; ignored.',
      ],
      [
        'configurationWarnings',
        ['w', 1],
        'Provider option configurationWarnings=["w",1] is not a valid list of texts; ignored.',
      ],
    ]
    for (const [key, bad, warning] of table) {
      const { [key]: _kept, ...others } = valid
      assert.deepEqual(readProviderOptions({ ...valid, [key]: bad }), { options: others, ignored: [warning] }, key)
    }
  })

  test('several malformed options: one warning each, in the order of the settings', () => {
    const { options, ignored } = readProviderOptions({
      workspace: 1,
      name: 'cursor-acp',
      idleTimeoutMs: -5,
      force: 'no',
    })
    assert.deepEqual(options, { name: 'cursor-acp' })
    assert.deepEqual(ignored, [
      'Provider option force="no" is not a valid boolean; ignored.',
      'Provider option idleTimeoutMs=-5 is not a valid number; ignored.',
      'Provider option workspace=1 is not a valid string; ignored.',
    ])
  })

  test('options that are no object are ignored as a whole', () => {
    for (const given of [null, 'cursor-acp', 5, ['force']]) {
      const { options, ignored } = readProviderOptions(given)
      assert.deepEqual(options, {}, JSON.stringify(given))
      assert.equal(ignored.length, 1, JSON.stringify(given))
      assert.match(ignored[0]!, /^Provider options .* are not an object; ignored\.$/)
    }
  })
})

describe("OpenCode's session events", () => {
  test('an event that stops a session names it; any other event is ignored', () => {
    const table: Array<[string, unknown, ReturnType<typeof readSessionEvent>]> = [
      ['idle', { type: 'session.idle', properties: { sessionID: 'ses_a' } }, { kind: 'stopped', sessionID: 'ses_a' }],
      [
        'an error of a session',
        { type: 'session.error', properties: { sessionID: 'ses_a', error: { name: 'UnknownError' } } },
        { kind: 'stopped', sessionID: 'ses_a' },
      ],
      ['an error outside a session', { type: 'session.error', properties: {} }, { kind: 'ignored' }],
      [
        'status idle',
        { type: 'session.status', properties: { sessionID: 'ses_a', status: { type: 'idle' } } },
        { kind: 'stopped', sessionID: 'ses_a' },
      ],
      [
        'status busy',
        { type: 'session.status', properties: { sessionID: 'ses_a', status: { type: 'busy' } } },
        { kind: 'ignored' },
      ],
      [
        'status retry',
        {
          type: 'session.status',
          properties: { sessionID: 'ses_a', status: { type: 'retry', attempt: 1, message: 'm', next: 0 } },
        },
        { kind: 'ignored' },
      ],
      [
        'deleted',
        { type: 'session.deleted', properties: { info: { id: 'ses_a', title: 't' } } },
        { kind: 'stopped', sessionID: 'ses_a' },
      ],
      ['another event', { type: 'session.compacted', properties: { sessionID: 'ses_a' } }, { kind: 'ignored' }],
      ['another event of any shape', { type: 'server.connected' }, { kind: 'ignored' }],
    ]
    for (const [name, event, reading] of table) assert.deepEqual(readSessionEvent(event), reading, name)
  })

  test('an event of a type the hook reads, with a malformed field, is refused by that field', () => {
    const table: Array<[unknown, string]> = [
      [{ type: 'session.idle', properties: { sessionID: 5 } }, 'properties.sessionID'],
      [{ type: 'session.idle', properties: {} }, 'properties.sessionID'],
      [{ type: 'session.idle' }, 'properties'],
      [{ type: 'session.error', properties: { sessionID: null } }, 'properties.sessionID'],
      [{ type: 'session.error', properties: 'oops' }, 'properties'],
      [{ type: 'session.status', properties: { sessionID: 'ses_a' } }, 'properties.status'],
      [{ type: 'session.status', properties: { sessionID: 'ses_a', status: {} } }, 'properties.status.type'],
      [{ type: 'session.status', properties: { status: { type: 'idle' } } }, 'properties.sessionID'],
      [{ type: 'session.deleted', properties: { info: {} } }, 'properties.info.id'],
      [{ type: 'session.deleted', properties: { id: 'ses_a' } }, 'properties.info'],
      [{ type: 7, properties: {} }, 'type'],
      [{ properties: {} }, 'type'],
      [null, 'event'],
      ['session.idle', 'event'],
    ]
    for (const [event, field] of table) {
      assert.deepEqual(readSessionEvent(event), { kind: 'malformed', field }, JSON.stringify(event))
    }
  })

  test("the plugin's event hook cancels the held run of a stopped session, and only that one", async () => {
    const entry = join(repo, 'dist', 'plugin', 'opencode', 'server.js')
    assert.ok(existsSync(entry), `${entry} is missing: run \`npm run build:plugin\` first`)
    const { CursorAcpPlugin } = await import(pathToFileURL(entry).href)
    const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'opencode-shapes-')))
    const hooks = await CursorAcpPlugin({ directory: scratch, worktree: '/' })
    const cancelled: string[] = []
    // A run held for each session (the registry is one per process, shared with the compiled plugin).
    const hold = (sessionID: string): string => {
      const folder = join(scratch, sessionID)
      const held: HeldRun = {
        run: {} as never,
        conversationId: sessionID,
        callIds: ['call_1'],
        tools: new Set(),
        continueInto: () => {},
        cancel: () => cancelled.push(sessionID),
        result: async () => ({}) as never,
      }
      holdRun(folder, held)
      return folder
    }
    const folders = ['ses_a', 'ses_b'].map(hold)
    try {
      await hooks.event({
        event: { type: 'session.status', properties: { sessionID: 'ses_a', status: { type: 'busy' } } },
      })
      await hooks.event({ event: { type: 'session.idle', properties: { sessionID: 5 } } })
      assert.deepEqual(cancelled, [], 'neither a busy session nor a malformed event cancels anything')
      await hooks.event({ event: { type: 'session.idle', properties: { sessionID: 'ses_a' } } })
      assert.deepEqual(cancelled, ['ses_a'])
      assert.equal(heldRun(folders[0]!), undefined)
      assert.notEqual(heldRun(folders[1]!), undefined)
      await hooks.event({ event: { type: 'session.deleted', properties: { info: { id: 'ses_b' } } } })
      assert.deepEqual(cancelled, ['ses_a', 'ses_b'])
    } finally {
      for (const folder of folders) releaseRun(folder)
      rmSync(scratch, { recursive: true, force: true })
    }
  })
})
