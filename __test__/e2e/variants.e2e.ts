// The real OpenCode CLI (1.18.33), offline, loading this repository as its plugin: Cursor's ids
// shown as one model per family with OpenCode variants; `--variant` runs exactly the listed id of
// its rung, no variant the family's default; an id an older configuration names keeps running;
// the picker holds the families, not every id. The fake cursor-agent lists a catalogue of the
// grammar's shapes and logs the `--model` of each run. Needs `npm run build` first.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { e2eFile, explain } from '../support/e2e.ts'
import type { Sandbox } from '../support/opencode.ts'

const e2e = e2eFile()

/** What `cursor-agent models` lists: 27 ids, effort before and after `-thinking`, speeds, no-rung ids. */
const LISTED = [
  'auto - Auto',
  'composer-2.5 - Composer 2.5',
  'composer-2.5-fast - Composer 2.5 Fast',
  'gpt-5.4-low - GPT-5.4 1M Low',
  'gpt-5.4-medium - GPT-5.4 1M',
  'gpt-5.4-medium-fast - GPT-5.4 1M Fast',
  'gpt-5.4-high - GPT-5.4 1M High',
  'gpt-5.4-high-fast - GPT-5.4 1M High Fast',
  'gpt-5.4-xhigh - GPT-5.4 1M Extra High',
  'gpt-5.5-medium - GPT-5.5',
  'gpt-5.5-high - GPT-5.5 High',
  'gpt-5.5-extra-high - GPT-5.5 Extra High',
  'gpt-5.6-luna-low - GPT-5.6 Luna 272K Low',
  'gpt-5.6-luna-medium - GPT-5.6 Luna 272K',
  'gpt-5.6-luna-high-fast - GPT-5.6 Luna 272K High Fast',
  'claude-opus-4-8 - Claude Opus 4.8',
  'claude-opus-4-8-thinking-low - Claude Opus 4.8 Thinking Low',
  'claude-opus-4-8-thinking-high - Claude Opus 4.8 Thinking High',
  'claude-opus-4-8-thinking-max - Claude Opus 4.8 Thinking Max',
  'claude-opus-4-8-thinking-max-fast - Claude Opus 4.8 Thinking Max Fast',
  'claude-4.6-opus-high - Claude 4.6 Opus High',
  'claude-4.6-opus-max - Claude 4.6 Opus',
  'claude-4.6-opus-max-thinking - Claude 4.6 Opus Max Thinking',
  'kimi-k3-max - Kimi K3',
  'kimi-k3-high - Kimi K3 High',
  'gpt-5.3-codex - GPT-5.3 Codex',
  'gpt-5.2 - GPT-5.2',
]

/** The picker's models: one per family, and each id that fits none. */
const FAMILIES = [
  'auto',
  'composer-2.5',
  'gpt-5.4',
  'gpt-5.5',
  'gpt-5.6-luna',
  'claude-opus-4-8',
  'claude-4.6-opus',
  'kimi-k3',
  'gpt-5.3-codex',
  'gpt-5.2',
]

async function sandbox(config: Record<string, unknown> = {}): Promise<Sandbox> {
  return e2e.sandbox({ env: { FAKE_CURSOR_MODELS: LISTED.join(';'), FAKE_CURSOR_STREAM: 'text:ok' }, config })
}

/** `opencode models <provider> --verbose` prints `<provider>/<id>` and then the model as JSON. */
function verboseModels(stdout: string): Record<string, any> {
  const models: Record<string, any> = {}
  const blocks = stdout.split(/^cursor-acp\/(\S+)$/m)
  for (let index = 1; index + 1 < blocks.length; index += 2) models[blocks[index]!] = JSON.parse(blocks[index + 1]!)
  return models
}

/** The `--model` of each run the fake logged, oldest first. */
function modelsRun(box: Sandbox): string[] {
  return box.invocations().map((run) => run.argv[run.argv.indexOf('--model') + 1]!)
}

describe('Cursor models as families with variants', () => {
  test('`opencode models --verbose` shows one model per family, each variant with the Cursor id it runs', async () => {
    const box = await sandbox()
    const result = await box.run(['models', 'cursor-acp', '--verbose'])
    assert.equal(result.code, 0, explain(result, box))
    const models = verboseModels(result.stdout)
    assert.deepEqual(Object.keys(models).sort(), [...FAMILIES].sort(), 'the picker: 10 models for 27 ids')
    const gpt = models['gpt-5.4']
    assert.equal(gpt.name, 'GPT-5.4 1M')
    assert.deepEqual(gpt.options, { cursorModel: 'gpt-5.4-medium' })
    assert.deepEqual(gpt.variants, {
      low: { cursorModel: 'gpt-5.4-low' },
      'medium-fast': { cursorModel: 'gpt-5.4-medium-fast' },
      high: { cursorModel: 'gpt-5.4-high' },
      'high-fast': { cursorModel: 'gpt-5.4-high-fast' },
      xhigh: { cursorModel: 'gpt-5.4-xhigh' },
    })
    assert.deepEqual(models['claude-4.6-opus'].variants, {
      high: { cursorModel: 'claude-4.6-opus-high' },
      'thinking-max': { cursorModel: 'claude-4.6-opus-max-thinking' },
    })
    assert.deepEqual(models['gpt-5.5'].variants, {
      high: { cursorModel: 'gpt-5.5-high' },
      xhigh: { cursorModel: 'gpt-5.5-extra-high' },
    })
    // Every listed id is reached by exactly one family and variant, the default by the family.
    const reached = Object.values(models).flatMap((model) => [
      model.options?.cursorModel ?? model.id,
      ...Object.values(model.variants ?? {}).map((variant: any) => variant.cursorModel),
    ])
    assert.deepEqual(reached.sort(), LISTED.map((line) => line.split(' - ')[0]).sort())
  })

  test('`--variant` runs the listed id of its rung on two families; no variant runs the default', async () => {
    const box = await sandbox()
    for (const args of [
      ['-m', 'cursor-acp/gpt-5.4', '--variant', 'high-fast'],
      ['-m', 'cursor-acp/claude-opus-4-8', '--variant', 'thinking-max'],
      ['-m', 'cursor-acp/gpt-5.4'],
      ['-m', 'cursor-acp/claude-4.6-opus', '--variant', 'high'],
    ]) {
      const result = await box.run(['run', '--format', 'json', ...args, 'say', 'hi'])
      assert.equal(result.code, 0, explain(result, box))
    }
    assert.deepEqual(modelsRun(box), [
      'gpt-5.4-high-fast',
      'claude-opus-4-8-thinking-max',
      'gpt-5.4-medium',
      'claude-4.6-opus-high',
    ])
  })

  test('an id the configuration already names keeps running it, without listing every id again', async () => {
    const box = await sandbox({ model: 'cursor-acp/gpt-5.4-high' })
    const listed = await box.run(['models', 'cursor-acp'])
    assert.equal(listed.code, 0, explain(listed, box))
    const ids = listed.stdout
      .split('\n')
      .filter((line) => line.startsWith('cursor-acp/'))
      .map((line) => line.slice('cursor-acp/'.length).trim())
    assert.deepEqual(ids.sort(), [...FAMILIES, 'gpt-5.4-high'].sort())
    const result = await box.run(['run', '--format', 'json', 'say', 'hi'])
    assert.equal(result.code, 0, explain(result, box))
    const named = await box.run(['run', '--format', 'json', '-m', 'cursor-acp/gpt-5.4-high', 'say', 'hi'])
    assert.equal(named.code, 0, explain(named, box))
    assert.deepEqual(modelsRun(box), ['gpt-5.4-high', 'gpt-5.4-high'])
  })
})
