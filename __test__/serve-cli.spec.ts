// `npx opencode-cursor-native serve` as a user starts it (the built `dist/plugin/cli/main.js`): its
// usage, and its end on the first signal, with a run of the fake cursor-agent held for tool
// results. Needs `npm run build` first. Under Node only: the command line is a Node program.
import assert from 'node:assert/strict'
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, describe, it } from 'node:test'
import { groupMembers, waitFor } from './support/process.ts'

const cli = join(__dirname, '..', 'dist', 'plugin', 'cli', 'main.js')
const fakeAgent = join(__dirname, 'support', 'agents', 'fake-cursor-agent.mjs')
const linuxOnly = process.platform !== 'linux' ? 'reads processes from Linux /proc' : false
// Only turns a hang into a failure.
const LIMIT = { timeout: 60_000 }
const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'ocn-serve-cli-spec-')))
const logDir = join(scratch, 'log')
after(() => rmSync(scratch, { recursive: true, force: true }))

const env = (extra: Record<string, string> = {}): Record<string, string> => ({
  PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
  HOME: scratch,
  XDG_DATA_HOME: join(scratch, 'data'),
  ...extra,
})

/** `serve` with `args`, once it listens: the child, its address and its token. */
async function serving(args: string[], extra: Record<string, string>) {
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--workspace', scratch, ...args], {
    env: env(extra),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  await new Promise<void>((listening, failed) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes('token:')) listening()
    })
    child.once('exit', (code) => failed(new Error(`serve exited with ${code} before listening`)))
  })
  const url = /serving (\S+)/.exec(out)?.[1] ?? ''
  const token = /token: (\S+)/.exec(out)?.[1] ?? ''
  return { child, url, token }
}

/** The exit code of `child`, once it exited. */
const exited = (child: ChildProcess): Promise<number | null> =>
  child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((done) => child.once('exit', done))

describe('npx opencode-cursor-native serve', () => {
  it('--help prints the usage (of every command), naming the three APIs serve speaks', () => {
    for (const args of [['serve', '--help'], ['serve', '-h'], ['--help'], ['doctor', '--help'], ['replay', '-h']]) {
      const ran = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', env: env(), timeout: 20_000 })
      assert.equal(ran.status, 0, `${args.join(' ')}: ${ran.stderr}`)
      for (const endpoint of ['/v1/chat/completions', '/v1/responses', '/v1/messages', '/v1/models'])
        assert.ok(ran.stdout.includes(endpoint), `${args.join(' ')} names ${endpoint}: ${ran.stdout}`)
    }
  })

  it('stops on the first SIGTERM while a run waits for tool results, and ends that run', {
    ...LIMIT,
    skip: linuxOnly,
  }, async () => {
    const script = [{ calls: [{ tool: 'get_weather', args: { city: 'Paris' } }] }, { text: 'Done.' }]
    const { child, url, token } = await serving(['--tool-mode', 'opencode'], {
      CURSOR_AGENT_EXECUTABLE: fakeAgent,
      // The fake's settings reach it through the server's child environment only.
      CURSOR_ACP_CHILD_ENV: 'FAKE_CURSOR_*',
      FAKE_CURSOR_SCENARIO: 'mcp',
      FAKE_CURSOR_LOG_DIR: logDir,
      FAKE_CURSOR_MCP_SCRIPT: JSON.stringify(script),
    })
    const tool = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }
    const response = await fetch(`${url}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'auto', messages: [{ role: 'user', content: 'Weather?' }], tools: [tool] }),
    })
    const answer = (await response.json()) as { choices: Array<{ finish_reason: string }> }
    assert.equal(answer.choices[0]?.finish_reason, 'tool_calls', 'a run is held for the tool result')
    const [run] = readdirSync(logDir).map((file) => JSON.parse(readFileSync(join(logDir, file), 'utf8')))
    assert.ok(groupMembers(run.pgid).length > 0, 'the held run lives')
    child.kill('SIGTERM')
    assert.equal(await exited(child), 0, 'the first signal stops the server')
    assert.ok(await waitFor(() => groupMembers(run.pgid).length === 0, 3000), 'the held run is ended')
  })
})
