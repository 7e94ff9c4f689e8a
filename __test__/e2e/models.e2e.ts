// The real OpenCode CLI (1.18.33), offline, loading this repository as its plugin: the Cursor models
// it lists carry their limits and `reasoning`. Needs `npm run build` first (the plugin loads from
// dist/ and the addon).
//
// Expected figures come from docs/models-and-pictures.md (Models): Cursor's documented 200k window
// outside Max Mode, or the window Cursor's label names; output limits as each vendor publishes
// them, 32,000 where none is published; 128k and 32,000 for an id the table does not know; thinking
// for Claude only in the `-thinking` variants (a family with one streams thinking); `attachment` and image input where the vendor
// documents picture input (Claude, GPT, Gemini), not for `auto` nor an id the table does not know.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { e2eFile } from '../support/e2e.ts'
import type { Sandbox } from '../support/opencode.ts'

const e2e = e2eFile()

/** What `cursor-agent models` lists in these tests. */
const LISTED = [
  'auto - Auto',
  'sonnet-4.6 - Claude 4.6 Sonnet',
  'sonnet-4.6-thinking - Claude 4.6 Sonnet (Thinking)',
  'gpt-5.5-high - GPT-5.5 1M High',
  'gemini-3.1-pro - Gemini 3.1 Pro',
  'mystery-model - Mystery Model',
].join(';')

interface Expected {
  context: number
  output: number
  reasoning: boolean
  pictures: boolean
}

const EXPECTED: Record<string, Expected> = {
  auto: { context: 200_000, output: 32_000, reasoning: true, pictures: false },
  // One model with a `thinking` variant for `sonnet-4.6` and `sonnet-4.6-thinking`: the thinking
  // of either streams.
  'sonnet-4.6': { context: 200_000, output: 128_000, reasoning: true, pictures: true },
  'gpt-5.5-high': { context: 1_000_000, output: 128_000, reasoning: true, pictures: true },
  'gemini-3.1-pro': { context: 200_000, output: 65_536, reasoning: true, pictures: true },
  'mystery-model': { context: 128_000, output: 32_000, reasoning: false, pictures: false },
}

async function sandbox(): Promise<Sandbox> {
  return e2e.sandboxWith({ FAKE_CURSOR_MODELS: LISTED })
}

/** `opencode models <provider> --verbose` prints `<provider>/<id>` and then the model as JSON. */
function verboseModels(stdout: string): Record<string, any> {
  const models: Record<string, any> = {}
  const blocks = stdout.split(/^cursor-acp\/(\S+)$/m)
  for (let index = 1; index + 1 < blocks.length; index += 2) models[blocks[index]!] = JSON.parse(blocks[index + 1]!)
  return models
}

function assertMetadata(models: Record<string, any>, where: string): void {
  assert.deepEqual(Object.keys(models).sort(), Object.keys(EXPECTED).sort(), where)
  for (const [id, expected] of Object.entries(EXPECTED)) {
    const model = models[id]
    assert.equal(model.limit.context, expected.context, `${where}: ${id} context`)
    assert.equal(model.limit.output, expected.output, `${where}: ${id} output`)
    assert.equal(model.capabilities.reasoning, expected.reasoning, `${where}: ${id} reasoning`)
    assert.equal(model.capabilities.attachment, expected.pictures, `${where}: ${id} attachment`)
    assert.equal(model.capabilities.input.image, expected.pictures, `${where}: ${id} image input`)
  }
}

describe('the models OpenCode offers', () => {
  test('`opencode models --verbose` shows each model with its limits and reasoning', async () => {
    const box = await sandbox()
    const result = await box.run(['models', 'cursor-acp', '--verbose'])
    assert.equal(result.code, 0, result.stderr)
    const models = verboseModels(result.stdout)
    assertMetadata(models, 'opencode models --verbose')
    assert.deepEqual(models['sonnet-4.6'].variants, { thinking: { cursorModel: 'sonnet-4.6-thinking' } })
  })

  test("`opencode serve` reports the same limits to its clients (the TUI's context gauge)", async () => {
    const box = await sandbox()
    const server = await box.serve()
    const { providers } = await server.request('GET', '/config/providers')
    const cursor = providers.find((provider: any) => provider.id === 'cursor-acp')
    assert.ok(cursor, server.output())
    assertMetadata(cursor.models, 'GET /config/providers')
  })
})
