// The published shape, installed the way users get it: the root tarball plus the
// tarball of this machine's platform package (the binary the build just made),
// installed into an empty project without the network and without optional
// dependencies, then loaded from Node, from Bun, and by the real OpenCode CLI.
//
// Needs a build first (`npm test` does it): the platform binary in the package
// root and the compiled plugin in dist/.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createSandbox, FAKE_AGENT as fakeAgentPath, installOpenCode } from '../support/opencode.ts'
import { hostBinaryFile, hostPlatformDir, npm, packedOnce, runtimeDependencies } from '../support/packing.ts'
import { createHost, loadPlugin, requestHeaders } from '../support/opencode2-host.ts'

const root = fileURLToPath(new URL('../..', import.meta.url))
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const bun = join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'bun.exe' : 'bun')

const platformDir = hostPlatformDir()
const platformPackage = `${pkg.name}-${platformDir}`
const binaryFile = hostBinaryFile(root)

// A tiny cursor-agent stream: two partial text deltas and a successful result.
const SESSION = 'pack-e2e-session'
const STREAM = [
  { type: 'system', subtype: 'init', session_id: SESSION, model: 'Auto' },
  {
    type: 'assistant',
    message: { role: 'assistant', content: [{ type: 'text', text: 'Hello from' }] },
    session_id: SESSION,
    timestamp_ms: 1,
  },
  {
    type: 'assistant',
    message: { role: 'assistant', content: [{ type: 'text', text: ' the package' }] },
    session_id: SESSION,
    timestamp_ms: 2,
  },
  {
    type: 'result',
    subtype: 'success',
    is_error: false,
    result: 'Hello from the package',
    session_id: SESSION,
    usage: { inputTokens: 3, outputTokens: 4 },
  },
]
  .map((record) => `${JSON.stringify(record)}\n`)
  .join('')

// Run by Node and by Bun from inside the temporary project, so the package name
// resolves through its node_modules like any user's import.
const SCRIPT = `
import { StreamTransformer } from '${pkg.name}'
const server = await import('${pkg.name}/server')
const transformer = new StreamTransformer({ format: 'openai-sse', model: 'auto', id: 'chatcmpl-pack', created: 1 })
const frames = [...transformer.push(${JSON.stringify(STREAM)}), ...transformer.finish({ exitCode: 0 })]
console.log(JSON.stringify({
  frames,
  sessionId: transformer.sessionId,
  serverExports: Object.entries(server).map(([name, value]) => [name, typeof value]),
  serverDefault: Object.entries(server.default ?? {}).map(([name, value]) => [name, typeof value === 'string' ? value : typeof value]),
}))
`

let work = ''
let project = ''

before(async () => {
  assert.ok(
    existsSync(join(root, 'dist/plugin/opencode/server.js')),
    'dist/plugin is missing: run `npm run build:plugin`',
  )
  work = mkdtempSync(join(tmpdir(), 'ocn-pack-'))
  const { tarballs } = await packedOnce(root)

  project = join(work, 'project')
  mkdirSync(project)
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'pack-e2e', version: '1.0.0', private: true }))
  writeFileSync(join(project, 'check.mjs'), SCRIPT)
  assert.equal(tarballs.length, 2 + runtimeDependencies(root).length)
  // An empty cache plus --offline: the install can use nothing but these tarballs.
  npm(
    [
      'install',
      '--offline',
      '--omit=optional',
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
      '--cache',
      join(work, 'npm-cache'),
      ...tarballs,
    ],
    project,
  )
  await installOpenCode()
})

after(() => {
  if (work) rmSync(work, { recursive: true, force: true })
})

interface CheckResult {
  frames: string[]
  sessionId: string | null
  serverExports: [string, string][]
  serverDefault: [string, string][]
}

// What the stream must translate to (see StreamTransformer in index.d.ts): the text once,
// one `stop` finish, usage with prompt_tokens = input + cache tokens, then [DONE].
function assertTranslated(result: CheckResult) {
  assert.equal(result.sessionId, SESSION)
  assert.equal(result.frames.at(-1), 'data: [DONE]\n\n')
  const chunks = result.frames.slice(0, -1).map((frame) => {
    assert.match(frame, /^data: .*\n\n$/s)
    return JSON.parse(frame.slice('data: '.length))
  })
  const text = chunks.map((c) => c.choices?.[0]?.delta?.content ?? '').join('')
  assert.equal(text, 'Hello from the package')
  const finishes = chunks.map((c) => c.choices?.[0]?.finish_reason).filter((r) => r != null)
  assert.deepEqual(finishes, ['stop'])
  const usage = chunks.find((c) => c.usage != null)?.usage
  assert.equal(usage?.prompt_tokens, 3)
  assert.equal(usage?.completion_tokens, 4)
  assert.equal(usage?.total_tokens, 7)
  // The one entry of both majors: a default object that OpenCode 1.18 (from 1.18.29) reads as
  // `{id, server}` and OpenCode 2 as `{id, setup}`; every named export is a plugin function.
  for (const [name, type] of result.serverExports)
    assert.equal(type, name === 'default' ? 'object' : 'function', `./server exports ${name}`)
  assert.deepEqual(Object.fromEntries(result.serverDefault), {
    id: 'opencode-cursor-native',
    server: 'function',
    setup: 'function',
  })
}

function runCheck(runtime: string): CheckResult {
  const out = spawnSync(runtime, ['check.mjs'], { cwd: project, encoding: 'utf8' })
  assert.equal(out.status, 0, out.stderr)
  return JSON.parse(out.stdout)
}

describe(`installed from tarballs (${platformPackage})`, () => {
  it('the root package ships no binary; the platform package does', () => {
    const installed = join(project, 'node_modules', pkg.name)
    assert.deepEqual(
      readdirSync(installed).filter((f) => f.endsWith('.node')),
      [],
    )
    assert.ok(existsSync(join(project, 'node_modules', platformPackage, binaryFile)))
    // --omit=optional left out every other platform package.
    const others = readdirSync(join(project, 'node_modules')).filter((d) => d.startsWith(`${pkg.name}-`))
    assert.deepEqual(others, [platformPackage])
  })

  it('Node loads the addon from the platform package and translates a stream', () => {
    assertTranslated(runCheck(process.execPath))
  })

  it('Bun loads it too', () => {
    assertTranslated(runCheck(bun))
  })

  it('the bin runs: `npx opencode-cursor-native doctor` loads the addon from the platform package', () => {
    const bin = join(project, 'node_modules', '.bin', 'opencode-cursor-native')
    assert.ok(existsSync(bin), 'npm linked the bin')
    const out = spawnSync(bin, ['doctor', '--json'], {
      cwd: project,
      encoding: 'utf8',
      env: {
        PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
        HOME: project,
        CURSOR_AGENT_EXECUTABLE: join(project, 'no-agent-here'),
      },
    })
    const report = JSON.parse(out.stdout) as { checks: Array<{ id: string; status: string; detail: string }> }
    const addon = report.checks.find((check) => check.id === 'addon')!
    assert.equal(addon.status, 'ok', addon.detail)
    assert.ok(addon.detail.includes(join('node_modules', platformPackage, binaryFile)), addon.detail)
    assert.equal(report.checks.find((check) => check.id === 'agent')?.status, 'problem')
    assert.equal(out.status, 1, 'a missing cursor-agent is a problem')
  })

  it("the installed declarations type-check: the plugin's types name the native API by the package name", () => {
    // What a TypeScript user of the provider has besides this package: the AI SDK's and
    // OpenCode's type packages and Node's, linked from this checkout (their own dependencies
    // resolve there).
    for (const types of ['@ai-sdk', '@opencode-ai', '@types']) {
      const link = join(project, 'node_modules', types)
      if (!existsSync(link)) symlinkSync(join(root, 'node_modules', types), link, 'junction')
    }
    writeFileSync(
      join(project, 'types.mts'),
      [
        `import type { RunError, StreamPart } from '${pkg.name}'`,
        `import type { CursorAcpProviderOptions, createCursorAcp } from '${pkg.name}/provider'`,
        `import type { CursorAcpPlugin } from '${pkg.name}/server'`,
        'export type Checked = [RunError, StreamPart, CursorAcpProviderOptions, typeof createCursorAcp, typeof CursorAcpPlugin]',
        "export const code: RunError['code'] = 'E_RESUME'",
        '',
      ].join('\n'),
    )
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc')
    const args = [
      '--noEmit',
      '--strict',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--skipLibCheck',
      'false',
      'types.mts',
    ]
    const out = spawnSync(process.execPath, [tsc, ...args], { cwd: project, encoding: 'utf8' })
    assert.equal(out.status, 0, out.stdout + out.stderr)
  })

  it("OpenCode 2's loader (the stand-in) takes the installed entry, and its provider module answers", async () => {
    const installed = join(project, 'node_modules', pkg.name)
    // OpenCode 2 resolves `<name>/server` first: the package's own exports say where it is.
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'))
    const plugin = await loadPlugin(join(installed, manifest.exports['./server'].default))
    const workspace = mkdtempSync(join(tmpdir(), 'pack-opencode2-'))
    const answer = 'Answer through OpenCode 2.'
    const saved = { ...process.env }
    Object.assign(process.env, {
      HOME: workspace,
      XDG_DATA_HOME: join(workspace, 'data'),
      CURSOR_AGENT_EXECUTABLE: fakeAgentPath,
      CURSOR_ACP_CHILD_ENV: 'FAKE_CURSOR_*',
      CURSOR_ACP_WORKSPACE: workspace,
      FAKE_CURSOR_STREAM: `text:${answer}`,
    })
    const host = createHost({ directory: workspace, project: { id: 'prj_pack', worktree: workspace } })
    const cleanup = (await plugin.setup(host.ctx)) as () => Promise<void>
    try {
      const provider = host.state().providers.get('cursor-acp')
      assert.ok(provider !== undefined, 'setup registered cursor-acp')
      assert.ok(
        String(provider.info.package).startsWith(`aisdk:file://${installed}`),
        `the provider module is the installed copy's: ${provider.info.package}`,
      )
      const { language } = await host.language('cursor-acp', 'auto')
      const { stream } = await language.doStream({
        prompt: [{ role: 'user', content: [{ type: 'text', text: 'say hi' }] }],
        headers: requestHeaders({ id: 'ses_pack' }),
      } as never)
      const parts: Array<{ type: string; delta?: string }> = []
      const reader = stream.getReader()
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        parts.push(value as { type: string; delta?: string })
      }
      const text = parts
        .filter((part) => part.type === 'text-delta')
        .map((part) => part.delta)
        .join('')
      assert.equal(text, answer)
    } finally {
      await cleanup()
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key]
      Object.assign(process.env, saved)
      rmSync(workspace, { recursive: true, force: true })
    }
  })

  it('the real OpenCode CLI loads the plugin from the installed copy and answers through the fake agent', async () => {
    const answer = 'Answer from the installed package.'
    const sandbox = await createSandbox({
      plugin: join(project, 'node_modules', pkg.name),
      bundledModels: false,
      env: { FAKE_CURSOR_STREAM: `text:${answer}` },
    })
    try {
      const result = await sandbox.run(['run', '--format', 'json', '--model', 'cursor-acp/auto', 'say', 'hi'])
      const why = `exit ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}\nlog:\n${sandbox.openCodeLog().slice(-4000)}`
      assert.equal(result.code, 0, why)
      const text = result.events
        .filter((event) => event.type === 'text')
        .map((event) => event.part.text)
        .join('')
      assert.equal(text, answer, why)
      assert.equal(sandbox.invocations().length, 1, why)
    } finally {
      await sandbox.dispose()
    }
  })
})
