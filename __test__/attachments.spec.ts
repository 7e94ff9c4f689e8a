// Pictures and files a user attaches, through the provider and the turn over the fake
// cursor-agent, which opens each path the prompt names as Cursor's Read tool does (through the
// Read rules and the preToolUse hooks) and logs what it read. Runs under Node and Bun.
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { after, describe, test } from 'node:test'

import { withEnv } from './support/env.ts'
import { png } from './support/png.ts'
import { waitFor } from './support/process.ts'
import { collect } from './support/stream.ts'
import { userProvider } from './support/user-options.ts'
import type { StreamPart } from '../index.js'

const repo = resolve(__dirname, '..')
const fakeAgent = join(repo, '__test__', 'support', 'agents', 'fake-cursor-agent.mjs')
const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'attachments-spec-')))
after(() => rmSync(scratch, { recursive: true, force: true }))
// The hosts a test starts keep their attachments under a temporary folder of their own.
const temp = join(scratch, 'tmp')
mkdirSync(temp)

const load = {
  provider: () => import('../plugin/opencode/provider.ts'),
  turn: () => import('../plugin/turn/turn.ts'),
  block: () => import('../plugin/opencode/provider-block.ts'),
  models2: () => import('../plugin/opencode2/models.ts'),
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')
const RED_SQUARE = png(40, 40, [220, 20, 20])
const PICTURE = { type: 'file', mediaType: 'image/png', data: RED_SQUARE.toString('base64') }

const nativeApi = require('../index.js')
/** Where this process's runs keep their attachments folders, as a plan names them. */
const base = dirname(
  new nativeApi.SessionResumeManager({ enabled: false }).plan({
    workspace: scratch,
    model: 'auto',
    messages: [
      { role: 'user', content: [{ type: 'file', mediaType: 'image/png', data: RED_SQUARE.toString('base64') }] },
    ],
  }).attachments.folder,
)
const runFolders = (): string[] => (existsSync(base) ? readdirSync(base) : [])

interface AttachmentRead {
  path: string
  verdict: string
  bytes?: number
  sha256?: string
  mode?: number
  folderMode?: number
}
interface Logged {
  argv: string[]
  stdin: string
  attachmentReads?: AttachmentRead[]
}

let cases = 0
/** A workspace, a data folder and a fake's log of their own. */
function place() {
  cases += 1
  const root = join(scratch, `case-${cases}`)
  const workspace = join(root, 'ws')
  const log = join(root, 'log')
  mkdirSync(workspace, { recursive: true })
  const runs = (): Logged[] =>
    existsSync(log)
      ? readdirSync(log)
          .sort()
          .map((file) => JSON.parse(readFileSync(join(log, file), 'utf8')))
      : []
  return { root, workspace, log, runs, data: join(root, 'data') }
}

const textOf = (parts: StreamPart[]) => parts.map((part) => (part.type === 'text-delta' ? part.delta : '')).join('')

/** A turn of `messages` with these settings, over the fake; its outputs gathered as they come. */
async function turnOf(settings: Record<string, unknown>, messages: object[], conversationId?: string) {
  const { resolveTurnConfig, startTurn } = await load.turn()
  const config = resolveTurnConfig({ executable: fakeAgent, ...settings }, true)
  assert.equal(config.problem, null)
  const outputs: StreamPart[] = []
  const request = { model: 'auto', messages: messages as never, ...(conversationId ? { conversationId } : {}) }
  const turn = startTurn(config, request, { format: 'ai-sdk' }, (batch) => outputs.push(...(batch as StreamPart[])))
  return { turn, outputs }
}

/** The provider's parts for one user message of `content` to model `id`, over the fake. */
async function providerParts(workspace: string, id: string, content: object[]): Promise<StreamPart[]> {
  const { createCursorAcp } = await load.provider()
  const options = { name: 'cursor-acp', workspace, executable: fakeAgent }
  const model = userProvider(createCursorAcp, options).languageModel(id)
  const { stream } = await model.doStream({ prompt: [{ role: 'user', content }] } as never)
  return (await collect(stream)) as StreamPart[]
}

describe('a picture pasted into OpenCode', () => {
  test('reaches the model with the same bytes, from a private folder outside the repository that is gone once the run ends', async () => {
    const { workspace, log, runs } = place()
    await withEnv({ FAKE_CURSOR_LOG_DIR: log, FAKE_CURSOR_DESCRIBE_ATTACHMENTS: '1' }, async () => {
      const parts = await providerParts(workspace, 'sonnet-4.6', [
        { type: 'text', text: 'what colour is the square?' },
        { type: 'file', mediaType: 'image/png', filename: 'shot.png', data: new Uint8Array(RED_SQUARE) },
      ])
      const [run] = runs()
      const [read] = run!.attachmentReads!
      assert.equal(read!.verdict, 'allowed')
      assert.equal(read!.sha256, sha256(RED_SQUARE))
      assert.equal(read!.bytes, RED_SQUARE.length)
      assert.equal(read!.mode, 0o600)
      assert.equal(read!.folderMode, 0o700)
      assert.ok(read!.path.startsWith(`${base}/`), read!.path)
      assert.ok(
        read!.path.endsWith('.png') && !read!.path.includes('shot'),
        'a random name with the extension Read goes by',
      )
      assert.ok(!read!.path.startsWith(workspace))
      assert.match(
        run!.stdin,
        /^USER: what colour is the square\?\n\[attached image "shot\.png" \(image\/png, \d+ bytes, 40x40 px\), saved for you at \S+\.png: open that file with your Read tool to see it\]$/,
      )
      assert.equal(textOf(parts), `Attachments: saw ${sha256(RED_SQUARE).slice(0, 16)}.`)
      assert.ok(
        !parts.some((part) => part.type.startsWith('tool')),
        'the read is not shown as a tool of Cursor or of OpenCode',
      )
      assert.deepEqual(parts[0], { type: 'stream-start', warnings: [] })
      assert.equal(existsSync(read!.path.slice(0, read!.path.lastIndexOf('/'))), false, 'the folder went with the run')
    })
  })

  test('is read in both tool modes and with and without force, through the rule and the hook that admit that folder alone', async () => {
    for (const [toolMode, force, boundary] of [
      ['cursor', true, undefined],
      ['cursor', false, undefined],
      ['opencode', true, undefined],
      ['opencode', false, undefined],
      // A read boundary of the user's own: the folder's `Read(...)` allow rule still admits it.
      ['opencode', false, 'user'],
    ] as const) {
      const { workspace, log, runs, data } = place()
      const env = {
        FAKE_CURSOR_LOG_DIR: log,
        XDG_DATA_HOME: data,
        FAKE_CURSOR_READ_BOUNDARY: boundary,
        CURSOR_ACP_CHILD_ENV: 'FAKE_CURSOR_*',
      }
      await withEnv(env, async () => {
        const { turn, outputs } = await turnOf(
          { workspace, toolMode, force },
          [{ role: 'user', content: [{ type: 'text', text: 'look' }, PICTURE] }],
          `ses_modes_${cases}`,
        )
        const result = await turn.done
        const label = `${toolMode}, force ${force}, boundary ${boundary}`
        assert.equal(result?.error ?? null, null, label)
        const [run] = runs()
        assert.ok(run !== undefined, `${label}: ${JSON.stringify(result)} ${JSON.stringify(outputs).slice(0, 2000)}`)
        assert.equal(run!.argv.includes('--force'), force && toolMode === 'cursor', label)
        assert.deepEqual(
          run!.attachmentReads!.map((read) => [read.verdict, read.sha256]),
          [['allowed', sha256(RED_SQUARE)]],
          label,
        )
        if (toolMode === 'opencode') {
          const folder = run!.attachmentReads![0]!.path.replace(/\/[^/]+$/, '')
          const rules = JSON.parse(
            readFileSync(join(run!.argv[run!.argv.indexOf('--workspace') + 1]!, '.cursor', 'cli.json'), 'utf8'),
          )
          assert.ok(rules.permissions.allow.includes(`Read(${folder}/**)`), label)
        }
        assert.ok(!outputs.some((part) => part.type.startsWith('tool')), label)
      })
    }
  })

  test("a read the rules refuse is the model's to report, not a crash: a team's read boundary without force", async () => {
    const { workspace, log, runs } = place()
    await withEnv(
      { FAKE_CURSOR_LOG_DIR: log, FAKE_CURSOR_READ_BOUNDARY: 'team', FAKE_CURSOR_DESCRIBE_ATTACHMENTS: '1' },
      async () => {
        const { turn, outputs } = await turnOf({ workspace, force: false }, [{ role: 'user', content: [PICTURE] }])
        const result = await turn.done
        assert.equal(result?.error ?? null, null)
        assert.equal(runs()[0]!.attachmentReads![0]!.verdict, 'rejected')
        assert.equal(textOf(outputs), 'Attachments: could not open (rejected).')
      },
    )
  })

  test('a corrupt picture, an oversized one and an SVG: a line in the prompt and a warning the user sees, and the turn still runs', async () => {
    const { workspace, log, runs } = place()
    const oversized = Buffer.concat([RED_SQUARE, Buffer.alloc(10 * 1024 * 1024)])
    await withEnv({ FAKE_CURSOR_LOG_DIR: log, FAKE_CURSOR_STREAM: 'text:Noted.' }, async () => {
      const parts = await providerParts(workspace, 'auto', [
        { type: 'text', text: 'three pictures' },
        { type: 'file', mediaType: 'image/png', filename: 'broken.png', data: 'data:image/png;base64,!!not base64!!' },
        { type: 'file', mediaType: 'image/png', filename: 'huge.png', data: new Uint8Array(oversized) },
        { type: 'file', mediaType: 'image/svg+xml', filename: 'logo.svg', data: new Uint8Array(Buffer.from('<svg/>')) },
        { type: 'file', mediaType: 'image/png', filename: 'fine.png', data: new Uint8Array(RED_SQUARE) },
      ])
      const start = parts[0] as { type: string; warnings: Array<{ type: string; message: string }> }
      assert.equal(start.type, 'stream-start')
      assert.deepEqual(
        start.warnings.map((warning) => warning.message),
        [
          'The attached image "broken.png" was not sent to Cursor: its data is not valid base64 (a corrupt paste or upload).',
          `The attached image "huge.png" was not sent to Cursor: it is larger than the ${10 * 1024 * 1024}-byte limit for a picture.`,
          'The attached image "logo.svg" was not sent to Cursor: Cursor cannot decode SVG pictures (a PNG of it would do).',
        ],
      )
      assert.equal(textOf(parts), 'Noted.')
      const [run] = runs()
      assert.equal(run!.stdin.match(/not sent: /g)?.length, 3)
      assert.match(run!.stdin, /\[attached image "huge\.png" \(image\/png, 10\d{6} bytes\) not sent: /)
      assert.deepEqual(
        run!.attachmentReads!.map((read) => read.sha256),
        [sha256(RED_SQUARE)],
        'the good one still went',
      )
    })
  })

  test('bytes that only begin like a picture are not one: refused with why, and a text beginning like a BMP goes as text', async () => {
    const { workspace, log, runs } = place()
    const garbage = Buffer.concat([RED_SQUARE.subarray(0, 33), Buffer.from('and then anything at all')])
    const text = Buffer.from('BMW cars, a list:\n1. the 3 series\n')
    await withEnv({ FAKE_CURSOR_LOG_DIR: log, FAKE_CURSOR_STREAM: 'text:Noted.' }, async () => {
      const parts = await providerParts(workspace, 'auto', [
        { type: 'file', mediaType: 'image/png', filename: 'shot.png', data: new Uint8Array(garbage) },
        { type: 'file', mediaType: 'text/plain', filename: 'cars.txt', data: new Uint8Array(text) },
      ])
      const start = parts[0] as { type: string; warnings: Array<{ message: string }> }
      assert.deepEqual(
        start.warnings.map((warning) => warning.message),
        [
          'The attached image "shot.png" was not sent to Cursor: its bytes begin like a PNG picture but are not one: its structure runs past the end of its bytes.',
        ],
      )
      const [run] = runs()
      assert.match(
        run!.stdin,
        /\[attached image "shot\.png" \(image\/png, 57 bytes\) not sent: its bytes begin like a PNG/,
      )
      assert.deepEqual(
        run!.attachmentReads!.map((read) => [read.path.slice(-4), read.sha256]),
        [['.txt', sha256(text)]],
      )
    })
  })

  test('a fresh chat gets the earlier picture back; a resumed one gets only what the new message adds', async () => {
    const first = [{ role: 'user', content: [{ type: 'text', text: 'see this' }, PICTURE] }]
    const second = [
      ...first,
      { role: 'assistant', content: [{ type: 'text', text: 'a red square' }] },
      { role: 'user', content: [{ type: 'text', text: 'and its size?' }] },
    ]
    for (const sessionResume of [false, true]) {
      const { workspace, log, runs } = place()
      await withEnv({ FAKE_CURSOR_LOG_DIR: log }, async () => {
        for (const messages of [first, second]) {
          const { turn } = await turnOf({ workspace, sessionResume }, messages, `ses_follow_${cases}`)
          assert.equal((await turn.done)?.error ?? null, null)
        }
      })
      const [, followUp] = runs()
      const reads = followUp!.attachmentReads!.map((read) => read.sha256)
      if (sessionResume) {
        assert.ok(followUp!.argv.includes('--resume'))
        assert.equal(followUp!.stdin, 'and its size?')
        assert.deepEqual(reads, [])
      } else {
        assert.ok(followUp!.stdin.startsWith('USER: see this\n[attached image (image/png'), followUp!.stdin)
        assert.deepEqual(reads, [sha256(RED_SQUARE)])
      }
    }
  })

  test('a cancelled run takes its folder with it', async () => {
    const { workspace, log } = place()
    await withEnv({ FAKE_CURSOR_LOG_DIR: log, FAKE_CURSOR_SCENARIO: 'long' }, async () => {
      const before = new Set(runFolders())
      const { turn } = await turnOf({ workspace }, [{ role: 'user', content: [PICTURE] }])
      const ours = () => runFolders().filter((name) => !before.has(name))
      assert.ok(await waitFor(() => ours().length === 1 && existsSync(log), 30_000), 'the run saved its picture')
      const [folder] = ours()
      assert.equal(readdirSync(join(base, folder!)).length, 1)
      turn.cancel()
      const result = await turn.done
      assert.equal(result?.cancelled, true)
      assert.equal(existsSync(join(base, folder!)), false)
    })
  })

  test('a killed host leaves its folder behind, and the next host removes it before its first run', async () => {
    const { workspace } = place()
    const host = `
      const { SessionResumeManager, runCursorAgent } = require(${JSON.stringify(join(repo, 'index.js'))})
      const plan = new SessionResumeManager({ enabled: false }).plan({
        workspace: process.argv[1], model: 'auto',
        messages: [{ role: 'user', content: [{ type: 'file', mediaType: 'image/png', data: process.argv[2] }] }],
      })
      runCursorAgent({ prompt: plan.prompt, model: 'auto', workspace: process.argv[1], executable: ${JSON.stringify(fakeAgent)},
        attachments: plan.attachments, env: { ...process.env, FAKE_CURSOR_SCENARIO: process.argv[3] } }, () => {})
        .wait().then(() => process.stdout.write('ended ' + plan.attachments.folder + '\\n'))
      if (process.argv[3] === 'long') {
        const timer = setInterval(() => {
          if (require('node:fs').existsSync(plan.attachments.folder)) { clearInterval(timer); process.stdout.write(plan.attachments.folder + '\\n') }
        }, 10)
      }`
    const env = { ...process.env, TMPDIR: temp }
    const killed = spawn(process.execPath, ['-e', host, workspace, RED_SQUARE.toString('base64'), 'long'], {
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const folder = await new Promise<string>((done) =>
      killed.stdout.once('data', (line: Buffer) => done(line.toString().trim())),
    )
    killed.kill('SIGKILL')
    await new Promise((done) => killed.once('exit', done))
    assert.equal(existsSync(folder), true, 'nothing removed it: its host was killed')
    const next = spawnSync(process.execPath, ['-e', host, workspace, RED_SQUARE.toString('base64'), 'replay'], {
      env,
      encoding: 'utf8',
    })
    assert.equal(next.status, 0, next.stderr)
    assert.match(next.stdout, /^ended /)
    assert.equal(existsSync(folder), false, 'the next host removed what the killed one left')
    assert.equal(
      existsSync(next.stdout.trim().slice('ended '.length)),
      false,
      'and its own run took its folder with it',
    )
  })
})

describe('a plan and its run', () => {
  test("a 10 MiB picture's bytes stay in the addon: the plan is small, and the run saves them whole", async () => {
    const { randomBytes } = await import('node:crypto')
    const { encodePng } = await import('../plugin/cli/word-picture.ts')
    const side = 1800
    const noise = encodePng(
      side,
      'rgb',
      Array.from({ length: side }, () => randomBytes(side * 3)),
    )
    assert.ok(noise.length > 9 * 1024 * 1024 && noise.length <= 10 * 1024 * 1024, `${noise.length} bytes`)
    const { workspace, log, runs } = place()
    const manager = new nativeApi.SessionResumeManager({ enabled: false })
    const plan = manager.plan({
      workspace,
      model: 'auto',
      messages: [{ role: 'user', content: [{ type: 'file', mediaType: 'image/png', data: noise.toString('base64') }] }],
    })
    assert.ok(JSON.stringify(plan).length < 2048, JSON.stringify(plan).slice(0, 300))
    assert.deepEqual(
      plan.attachments.files.map((file: { bytes: number }) => file.bytes),
      [noise.length],
    )
    const env = { ...process.env, FAKE_CURSOR_LOG_DIR: log, FAKE_CURSOR_DESCRIBE_ATTACHMENTS: '1' }
    const options = { prompt: plan.prompt, model: 'auto', workspace, executable: fakeAgent, env }
    const result = await nativeApi.runCursorAgent({ ...options, attachments: plan.attachments }, () => {}).wait()
    assert.equal(result.error, undefined)
    const [read] = runs()[0]!.attachmentReads!
    assert.equal(read!.sha256, sha256(noise))
    // Attachments its process does not keep (a plan made elsewhere, or written by hand) are refused.
    const madeUp = { ...plan.attachments, folder: join(base, `${process.pid}-madeup`) }
    assert.throws(
      () => nativeApi.runCursorAgent({ ...options, attachments: madeUp }, () => {}),
      (error: { code?: string; message?: string }) =>
        error.code === 'E_INVALID_ARG' && /not kept by this process/.test(error.message ?? ''),
    )
  })
})

describe('where an attachment may come from', () => {
  const shapes: Array<[string, object]> = [
    ['an OpenAI image_url', { type: 'image_url', image_url: { url: 'https://example.com/a.png' } }],
    ['an OpenAI file by URL', { type: 'file', file: { file_data: 'https://example.com/a.pdf', filename: 'a.pdf' } }],
    ['an OpenAI file by path', { type: 'file', file: { file_data: 'file:///etc/passwd', filename: 'p' } }],
    ['an AI SDK file by URL', { type: 'file', mediaType: 'image/png', data: 'https://example.com/a.png' }],
    ['an AI SDK file by path', { type: 'file', mediaType: 'text/plain', data: 'file:///etc/passwd' }],
  ]
  const planOf = (part: object, attachmentSources?: string) =>
    new nativeApi.SessionResumeManager({ enabled: false }).plan({
      workspace: scratch,
      model: 'auto',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'look' }, part] }],
      ...(attachmentSources === undefined ? {} : { attachmentSources }),
    })
  for (const [what, part] of shapes)
    test(`${what}: refused for a server's client, named or refused with a line otherwise`, () => {
      assert.throws(
        () => planOf(part, 'bytes'),
        (error: { code?: string; message?: string }) =>
          error.code === 'E_INVALID_ARG' && /this server fetches nothing: send its bytes instead/.test(error.message!),
      )
      const named = planOf(part)
      assert.ok(named.attachments === null || named.attachments.files.length === 0)
      assert.match(named.prompt, /example\.com|not sent: it names a file on the server's machine/)
    })
  test('bytes are taken from every source', () => {
    assert.equal(planOf(PICTURE, 'bytes').attachments.files.length, 1)
    assert.equal(planOf(PICTURE).attachments.files.length, 1)
    assert.throws(() => planOf(PICTURE, 'everything'), { code: 'E_INVALID_ARG' })
  })
})

describe('which models take pictures', () => {
  const models = [
    {
      id: 'sonnet-4.6',
      name: 'Claude 4.6 Sonnet',
      contextWindow: 200_000,
      maxOutputTokens: 128_000,
      reasoning: false,
      pictures: true,
    },
    {
      id: 'composer-2.5',
      name: 'Composer 2.5',
      contextWindow: 200_000,
      maxOutputTokens: 32_000,
      reasoning: true,
      pictures: false,
    },
  ]

  test("OpenCode 1.18's block: attachment and image input where the model sees pictures, neither where it does not", async () => {
    const { modelsBlock } = await load.block()
    const block = modelsBlock(models)
    assert.equal(block['sonnet-4.6']!.attachment, true)
    assert.deepEqual(block['sonnet-4.6']!.modalities, { input: ['text', 'image'], output: ['text'] })
    assert.equal(block['composer-2.5']!.attachment, false)
    assert.deepEqual(block['composer-2.5']!.modalities, { input: ['text'], output: ['text'] })
  })

  test("OpenCode 2's capabilities say the same", async () => {
    const { modelInfos } = await load.models2()
    const [sonnet, composer] = modelInfos('cursor-acp', models)
    assert.deepEqual(sonnet!.capabilities.input, ['text', 'image'])
    assert.deepEqual(composer!.capabilities.input, ['text'])
  })

  test('the fake lists models as Cursor does, and the addon tells which see pictures', async () => {
    const { listCursorModels } = nativeApi
    const found = await listCursorModels({
      executable: fakeAgent,
      env: {
        ...process.env,
        FAKE_CURSOR_MODELS: 'sonnet-4.6 - Claude 4.6 Sonnet;auto - Auto;grok-code-fast-1 - Grok Code',
      },
    })
    assert.deepEqual(
      found.map((model: { id: string; pictures: boolean }) => [model.id, model.pictures]),
      [
        ['sonnet-4.6', true],
        ['auto', false],
        ['grok-code-fast-1', false],
      ],
    )
  })
})

describe("the doctor's picture", () => {
  test('every word it may pick is written legibly, in a PNG within the limits', async () => {
    const { PICTURE_WORDS, wordPicture } = await import('../plugin/cli/word-picture.ts')
    const { textIn } = await import('./support/agents/vision.mjs')
    for (const word of PICTURE_WORDS) {
      const picture = wordPicture(word)
      assert.equal(textIn(picture), word)
      assert.ok(picture.length < 4096, `${word}: ${picture.length} bytes`)
    }
    assert.throws(() => wordPicture('pong'), /no glyph for "p"/)
  })
})
