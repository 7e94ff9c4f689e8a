// Where a run keeps a user's pictures when another local user made the shared folder first: a
// private folder of the user's own, which Cursor's Read rule and hook admit. Runs under Node and Bun.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { after, test } from 'node:test'

import { png } from './support/png.ts'

const repo = resolve(__dirname, '..')
const fakeAgent = join(repo, '__test__', 'support', 'agents', 'fake-cursor-agent.mjs')
const root = realpathSync(mkdtempSync(join(tmpdir(), 'attachments-folder-spec-')))
after(() => rmSync(root, { recursive: true, force: true }))

test("the pictures go to a private folder of the user's own, which Cursor may read", {
  skip: process.platform === 'win32',
}, () => {
  const picture = png(40, 40, [220, 20, 20])
  const [shared, theirs, runtime, workspace, log] = ['tmp', 'theirs', 'runtime', 'ws', 'log'].map((name) =>
    join(root, name),
  )
  for (const folder of [shared, theirs, runtime, workspace]) mkdirSync(folder, { mode: 0o700 })
  // Another user's `<temp>/opencode-cursor-native-<uid>`: here a link, which is refused alike.
  symlinkSync(theirs, join(shared, `opencode-cursor-native-${process.getuid!()}`))
  const host = `
    const { SessionResumeManager, runCursorAgent } = require(${JSON.stringify(join(repo, 'index.js'))})
    const [workspace, data, folder] = process.argv.slice(-3)
    const plan = new SessionResumeManager({ enabled: false }).plan({ workspace, model: 'auto',
      messages: [{ role: 'user', content: [{ type: 'file', mediaType: 'image/png', data }] }] })
    runCursorAgent({ prompt: plan.prompt, model: 'auto', workspace, executable: ${JSON.stringify(fakeAgent)},
      attachments: plan.attachments, hostTools: { tools: [], folder }, env: process.env }, () => {})
      .wait().then((result) => process.stdout.write(JSON.stringify({ folder: plan.attachments.folder, error: result.error ?? null })))`
  const env = { ...process.env, TMPDIR: shared, XDG_RUNTIME_DIR: runtime, FAKE_CURSOR_LOG_DIR: log }
  const args = ['-e', host, workspace, picture.toString('base64'), join(root, 'conversation')]
  const ran = spawnSync(process.execPath, args, { env, encoding: 'utf8' })
  assert.equal(ran.status, 0, ran.stderr)
  const { folder, error } = JSON.parse(ran.stdout)
  assert.equal(error, null)
  assert.ok(folder.startsWith(`${runtime}/opencode-cursor-native/attachments/`), folder)
  const [logged] = readdirSync(log).map((file) => JSON.parse(readFileSync(join(log, file), 'utf8')))
  const [read] = logged.attachmentReads
  assert.deepEqual(
    [read.verdict, read.sha256, read.path.startsWith(`${folder}/`)],
    ['allowed', createHash('sha256').update(picture).digest('hex'), true],
  )
  assert.deepEqual(readdirSync(theirs), [], "nothing is written into the other user's folder")
  assert.equal(existsSync(folder), false, 'the folder went with the run')
})
