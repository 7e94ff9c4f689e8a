// The real OpenCode CLI (1.18.33), offline, loading this repository as its plugin, with a picture
// attached as a user attaches one (`opencode run --file shot.png`). The fake cursor-agent opens the
// paths the prompt names as Cursor's Read tool does, logs the bytes it read, and says what it saw.
// Needs `npm run build` first (the plugin loads from dist/ and the addon).
//
// Which models take pictures comes from docs/models-and-pictures.md (Models): Claude, GPT and
// Gemini do; `auto`, Composer and ids the table does not know do not, and for those OpenCode itself
// refuses the picture before the provider sees it.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { e2eFile, eventsOf, explain, textOf } from '../support/e2e.ts'
import { png } from '../support/png.ts'

const e2e = e2eFile()
const SHOT = png(32, 32, [230, 30, 30])
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

interface Read {
  path: string
  verdict: string
  sha256?: string
}

async function sandbox(toolMode: 'cursor' | 'opencode') {
  const created = await e2e.sandboxWith({
    FAKE_CURSOR_MODELS: 'auto - Auto;sonnet-4.6 - Claude 4.6 Sonnet',
    FAKE_CURSOR_DESCRIBE_ATTACHMENTS: '1',
    CURSOR_ACP_TOOL_MODE: toolMode,
    CURSOR_ACP_CHILD_ENV: 'FAKE_CURSOR_*',
  })
  writeFileSync(join(created.workspace, 'shot.png'), SHOT)
  return created
}

describe('opencode run --file with a picture', { concurrency: 2 }, () => {
  for (const toolMode of ['cursor', 'opencode'] as const)
    test(`a model that takes pictures reads the picture's bytes, and the answer arrives (tool mode ${toolMode})`, async () => {
      const box = await sandbox(toolMode)
      const result = await box.run([
        'run',
        '--format',
        'json',
        '--model',
        'cursor-acp/sonnet-4.6',
        'what colour is the square?',
        '--file',
        'shot.png',
      ])
      const why = explain(result, box)
      assert.equal(result.code, 0, why)
      const [run] = box.invocations() as Array<{ stdin: string; attachmentReads?: Read[] }>
      assert.ok(run !== undefined, why)
      assert.deepEqual(
        (run.attachmentReads ?? []).map((read) => [read.verdict, read.sha256]),
        [['allowed', sha256(SHOT)]],
        run.stdin,
      )
      assert.ok(!run.attachmentReads![0]!.path.startsWith(box.workspace), 'outside the repository')
      assert.match(textOf(result), new RegExp(`Attachments: saw ${sha256(SHOT).slice(0, 16)}\\.`), why)
      assert.deepEqual(eventsOf(result, 'tool_use'), [], 'the read is neither OpenCode’s tool nor shown as Cursor’s')
    })

  test("a model that does not take pictures: OpenCode's own refusal, and nothing saved or read", async () => {
    const box = await sandbox('cursor')
    const result = await box.run([
      'run',
      '--format',
      'json',
      '--model',
      'cursor-acp/auto',
      'what colour is the square?',
      '--file',
      'shot.png',
    ])
    const why = explain(result, box)
    const [run] = box.invocations() as Array<{ stdin: string; attachmentReads?: Read[] }>
    assert.ok(run !== undefined, why)
    assert.deepEqual(run.attachmentReads, [], run.stdin)
    assert.ok(!run.stdin.includes('saved for you at'), run.stdin)
    assert.match(run.stdin, /Cannot read "?shot\.png"? \(this model does not support image input\)/, run.stdin)
  })
})
