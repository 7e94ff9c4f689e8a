// What OpenCode hands the plugin, read by one schema per shape: the provider options of
// `createCursorAcp` (plugin/opencode/provider-options.ts). Valid shapes are read as they are; each
// malformed field is refused by its name. Runs under Node and Bun.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'

import { readProviderOptions } from '../plugin/opencode/provider-options.ts'

describe("OpenCode's provider options", () => {
  // Every option the provider reads, each valid.
  const valid = {
    force: false,
    sessionResume: true,
    toolMode: 'opencode',
    toolWaitMs: 1000,
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
