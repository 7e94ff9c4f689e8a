// Runs the real OpenCode CLI (pinned version) headless and offline against this package's plugin
// (or, with `plugin: null`, with no plugin at all) and the fake cursor-agent. Small API, for every
// end-to-end test and script:
//
//   const binary = await installOpenCode()                  // idempotent npm install into .cache/
//   const sandbox = await createSandbox({ env: {...} })     // private HOME/XDG/TMPDIR + workspace
//   const result = await sandbox.run(['run', '--format', 'json', 'say', 'hi'])
//   const server = await sandbox.serve()                    // `opencode serve` + its HTTP API
//   sandbox.invocations()                                   // what the fake cursor-agent saw
//   await sandbox.dispose()
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { arch, cpus, tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

import { isAlive, waitFor, withLock } from './process.ts'

export { isAlive, waitFor } from './process.ts'

export const OPENCODE_VERSION = '1.18.33'
/** The repository root (the plugin package loaded by default). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const FAKE_AGENT = join(REPO_ROOT, '__test__', 'support', 'agents', 'fake-cursor-agent.mjs')
const DEFAULT_CACHE = join(REPO_ROOT, '.cache', 'opencode')

/** The platform package that holds the OpenCode binary for this machine. */
export function openCodePackage(): string {
  if (process.platform !== 'linux') throw new Error(`the OpenCode harness supports Linux only, not ${process.platform}`)
  if (arch() === 'arm64') return 'opencode-linux-arm64'
  const avx2 = readFileSync('/proc/cpuinfo', 'utf8').includes(' avx2')
  return avx2 ? 'opencode-linux-x64' : 'opencode-linux-x64-baseline'
}

interface Exit {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  timedOut: boolean
}

/** Runs a command in its own process group; the whole group is killed when `timeoutMs` passes. */
export function execute(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs: number; input?: string },
): Promise<Exit> {
  return new Promise((settle, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    let timedOut = false
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    // A command that exits before reading its input (tmux does) closes the pipe under us.
    child.stdin.on('error', () => undefined)
    child.stdin.end(options.input ?? '')
    const timer = setTimeout(() => {
      timedOut = true
      killGroup(child, 'SIGKILL')
    }, options.timeoutMs)
    child.on('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      settle({ code, signal, stdout, stderr, timedOut })
    })
  })
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return
  try {
    process.kill(-child.pid, signal)
  } catch {
    // Already gone.
  }
}

/**
 * Installs the pinned OpenCode platform package into `cacheDir` unless it is already there (the
 * version is read from its package.json: running the binary would write to the real HOME).
 * Returns the binary's path.
 */
export async function installOpenCode(cacheDir: string = DEFAULT_CACHE): Promise<string> {
  const name = openCodePackage()
  const manifest = join(cacheDir, 'node_modules', name, 'package.json')
  const binary = join(cacheDir, 'node_modules', name, 'bin', 'opencode')
  const installed = () =>
    existsSync(binary) &&
    existsSync(manifest) &&
    JSON.parse(readFileSync(manifest, 'utf8')).version === OPENCODE_VERSION
  if (installed()) return binary
  mkdirSync(cacheDir, { recursive: true })
  // Test files run in parallel processes: one installs, the others wait for it.
  await withLock(join(cacheDir, '.install-lock'), async () => {
    if (!installed()) await npmInstall(cacheDir, name)
  })
  return binary
}

async function npmInstall(cacheDir: string, name: string): Promise<void> {
  const binary = join(cacheDir, 'node_modules', name, 'bin', 'opencode')
  if (!existsSync(join(cacheDir, 'package.json'))) writeFileSync(join(cacheDir, 'package.json'), '{"private":true}\n')
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
  const result = await execute(
    npm,
    ['install', '--no-audit', '--no-fund', '--ignore-scripts', `${name}@${OPENCODE_VERSION}`],
    {
      cwd: cacheDir,
      env: process.env,
      timeoutMs: 300_000,
    },
  )
  if (result.code !== 0 || !existsSync(binary)) {
    throw new Error(`installing ${name}@${OPENCODE_VERSION} failed (exit ${result.code}):\n${result.stderr}`)
  }
}

/** A config folder OpenCode would otherwise fill with `npm install @opencode-ai/plugin` (slow, online). */
export function stubConfigDirectory(directory: string): void {
  mkdirSync(join(directory, 'node_modules'), { recursive: true })
  const dependencies = { '@opencode-ai/plugin': OPENCODE_VERSION }
  writeFileSync(join(directory, 'package.json'), JSON.stringify({ dependencies }))
  writeFileSync(
    join(directory, 'package-lock.json'),
    JSON.stringify({ name: 'opencode', lockfileVersion: 3, requires: true, packages: { '': { dependencies } } }),
  )
}

/** Settings that keep OpenCode off the network. */
export const OFFLINE_ENV: Readonly<Record<string, string>> = Object.freeze({
  OPENCODE_DISABLE_MODELS_FETCH: '1',
  OPENCODE_DISABLE_AUTOUPDATE: '1',
  OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
  OPENCODE_DISABLE_EXTERNAL_SKILLS: '1',
  OPENCODE_DISABLE_CLAUDE_CODE: '1',
  OPENCODE_DISABLE_SHARE: '1',
  OPENCODE_DISABLE_FFF: '1',
})

export interface SandboxOptions {
  /**
   * The plugin spec in `opencode.json`; default this repository (its `exports["./server"]`).
   * `null` configures no plugin at all: OpenCode then knows only the providers `config` declares
   * (the OpenAI-compatible server's tests point one at it).
   */
  plugin?: string | null
  /** Extra top-level `opencode.json` fields (merged over the defaults). */
  config?: Record<string, unknown>
  /** Extra environment for every OpenCode process (e.g. `FAKE_CURSOR_*`, `CURSOR_ACP_*`). */
  env?: Record<string, string>
  /**
   * The cursor-agent the plugin runs (`CURSOR_AGENT_EXECUTABLE`); default the fake agent; `null`
   * lets the plugin resolve the real one.
   */
  agentExecutable?: string | null
  /** Isolate HOME too (default true). The demo keeps the real HOME so Cursor's login is found. */
  isolateHome?: boolean
  /**
   * OpenCode's own catalogue of providers and models (models.dev's, bundled in its binary); default
   * true. With false OpenCode reads an empty one instead and knows only the providers the
   * configuration declares (the plugin's `cursor-acp`, or those of `config`): the bundled catalogue
   * costs every OpenCode process about 2 s of CPU to load, and adds providers of its own wherever
   * the environment holds their API keys. The end-to-end tests use none of it (`e2eFile`).
   */
  bundledModels?: boolean
  /** Files to create in the workspace, by relative path. */
  files?: Record<string, string>
  /** The OpenCode binary; default `installOpenCode()`. */
  binary?: string
  /** Keep the temp folder after `dispose()` (for debugging). Default: `OPENCODE_E2E_KEEP=1`. */
  keep?: boolean
}

export interface RunResult extends Exit {
  /** `--format json` output, one object per line (non-JSON lines skipped). */
  events: Array<Record<string, any>>
}

/** What one fake cursor-agent process recorded. */
export interface Invocation {
  argv: string[]
  stdin?: string
  pid: number
  pgid: number | null
  cwd: string
  /** The names of the environment variables it received, sorted. */
  envNames: string[]
  subcommand?: string
  scenario?: string
  sessionId?: string
  grandchildPid?: number
  /** The pid of `wrapped-cursor-agent.sh` when the agent ran under it. */
  wrapperPid?: number
  /** The always-apply rules it found, read as Cursor reads them (a run only). */
  alwaysAppliedRules?: Array<{ path: string; body: string }>
  file: string
}

export interface OpenCodeServer {
  url: string
  /** The `opencode serve` process. */
  pid: number
  /** `POST /session`; returns the session id. */
  createSession(): Promise<string>
  /** `POST /session/:id/message`; resolves with the finished assistant message `{info, parts}`. */
  prompt(sessionId: string, text: string, model?: string, agent?: string): Promise<Record<string, any>>
  /** `POST /session/:id/abort`. */
  abort(sessionId: string): Promise<void>
  /** Any other call of OpenCode's HTTP API; resolves with the parsed JSON body (null when empty). */
  request(method: string, path: string, body?: unknown): Promise<any>
  /** Stops the server's whole process group. */
  close(): Promise<void>
  /** The server's output so far (for failure messages). */
  output(): string
}

export interface Sandbox {
  root: string
  home: string
  workspace: string
  /** Where the fake cursor-agent records its invocations. */
  agentLog: string
  /** The environment of every OpenCode process; changes apply to later `run`/`serve` calls. */
  env: NodeJS.ProcessEnv
  run(args: string[], options?: { timeoutMs?: number; env?: Record<string, string> }): Promise<RunResult>
  serve(options?: { timeoutMs?: number }): Promise<OpenCodeServer>
  /** Run invocations of the fake cursor-agent (not `models`/`status`), oldest first. */
  invocations(): Invocation[]
  /** Every invocation, including `models` and `status`. */
  allInvocations(): Invocation[]
  /** OpenCode's own log files, concatenated. */
  openCodeLog(): string
  /** OpenCode's TUI in a detached tmux session of 160 x 45 cells. */
  tui(): Promise<Tui>
  dispose(): Promise<void>
}

/** OpenCode's TUI running in tmux. */
export interface Tui {
  /** The visible screen, as text. */
  screen(): Promise<string>
  /** Types `text` (literally). */
  type(text: string): Promise<void>
  /** Presses a key by its tmux name (`Enter`, `Escape`, `C-c`). */
  press(key: string): Promise<void>
  /** Polls the screen until `done` holds, up to 30 s; fails naming `what`, with the screen. */
  screenWhen(done: (screen: string) => boolean, what: string): Promise<string>
  /** Waits for the prompt, types `prompt` until it shows (keys sent while the TUI still starts
   * up are dropped), and sends it. */
  ask(prompt: string): Promise<void>
  close(): Promise<void>
}

/** Runs a tmux command against the server listening on `socket`. */
async function tmux(socket: string, args: string[]): Promise<string> {
  // `-f /dev/null`: the server reads no tmux.conf, the user's or the system's.
  const command = ['-S', socket, '-f', '/dev/null', ...args]
  const result = await execute('tmux', command, { timeoutMs: 10_000 }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') throw new Error('tmux is not installed; the TUI tests need it (apt-get install tmux)')
    throw error
  })
  if (result.code !== 0) throw new Error(`tmux ${args.join(' ')} failed (exit ${result.code}): ${result.stderr}`)
  return result.stdout
}

async function startTui(binary: string, workspace: string, env: NodeJS.ProcessEnv, root: string): Promise<Tui> {
  const name = `opencode-e2e-${process.pid}-${Date.now()}`
  // Each TUI has a tmux server of its own, in the sandbox: test files run side by side, and none
  // of them touches the user's tmux server.
  const socket = join(root, `${name}.sock`)
  // tmux starts the command through a shell with the server's environment: a script sets ours.
  const script = join(root, 'tui.sh')
  const quote = (value: string) => `'${value.replaceAll("'", "'\\''")}'`
  const exports = Object.entries(env).flatMap(([key, value]) =>
    value === undefined ? [] : [`export ${key}=${quote(value)}`],
  )
  writeFileSync(script, `${[...exports, `cd ${quote(workspace)}`, `exec ${quote(binary)}`].join('\n')}\n`)
  await tmux(socket, ['new-session', '-d', '-s', name, '-x', '160', '-y', '45', `sh ${quote(script)}`])
  let closed = false
  const tui: Tui = {
    screen: () => tmux(socket, ['capture-pane', '-p', '-t', name]),
    async type(text) {
      await tmux(socket, ['send-keys', '-t', name, '-l', text])
    },
    async press(key) {
      await tmux(socket, ['send-keys', '-t', name, key])
    },
    async screenWhen(done, what) {
      const deadline = Date.now() + 30_000
      let screen = ''
      while (Date.now() < deadline) {
        screen = await tui.screen()
        if (done(screen)) return screen
        await new Promise((wake) => setTimeout(wake, 250))
      }
      throw new Error(`${what} did not appear within 30 s; the screen:\n${screen}`)
    },
    async ask(prompt) {
      await tui.screenWhen((screen) => screen.includes('Ask anything'), 'the prompt')
      // Typed again only while the input is still empty (its placeholder shows): a busy machine
      // may take a while to draw keys it did receive, and typing them twice sends the prompt twice.
      await tui.type(prompt)
      let typedAt = Date.now()
      await tui.screenWhen((screen) => {
        if (screen.includes(prompt)) return true
        if (screen.includes('Ask anything') && Date.now() - typedAt > 2_000) {
          typedAt = Date.now()
          void tui.type(prompt)
        }
        return false
      }, 'the typed prompt')
      await tui.press('Enter')
    },
    async close() {
      if (closed) return
      closed = true
      // The pane's process is OpenCode itself (the script execs it). Ending the session only
      // hangs it up: it then stops its runs and writes its files for a while, which must be over
      // before its sandbox goes.
      const pid = Number(await tmux(socket, ['display-message', '-p', '-t', name, '#{pane_pid}']).catch(() => ''))
      await tmux(socket, ['kill-session', '-t', name]).catch(() => undefined)
      if (!(pid > 0) || (await waitFor(() => !isAlive(pid), 30_000))) return
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // Gone meanwhile.
      }
    },
  }
  return tui
}

/** An empty models.dev catalogue for OpenCode (`OPENCODE_MODELS_PATH`), in the sandbox `root`. */
function emptyCatalogue(root: string): string {
  const path = join(root, 'models.json')
  writeFileSync(path, '{}\n')
  return path
}

/**
 * Variables from the test's own environment that must not leak into OpenCode. `npm_*` among
 * them: `npm test` hands its own configuration to the scripts it runs (`npm_config_registry`,
 * `npm_config_userconfig`, ...), which OpenCode's package installer would obey over the
 * sandbox's `~/.npmrc`; a user's OpenCode has none of them.
 */
function inheritedEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(CURSOR_ACP_|CURSOR_AGENT_EXECUTABLE$|OPENCODE_|XDG_|OLDPWD$)|^FAKE_CURSOR_(?!CAPTURES_DIR$)/.test(name))
      continue
    if (/^npm_/i.test(name)) continue
    env[name] = value
  }
  return env
}

export async function createSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const binary = options.binary ?? (await installOpenCode())
  const root = mkdtempSync(join(tmpdir(), 'opencode-e2e-'))
  const home = options.isolateHome === false ? (process.env.HOME ?? root) : join(root, 'home')
  const dataRoot = join(root, 'home')
  const workspace = join(root, 'ws')
  const agentLog = join(root, 'agent-log')
  const tmp = join(root, 'tmp')
  for (const directory of [dataRoot, workspace, agentLog, tmp]) mkdirSync(directory, { recursive: true })
  const xdg = {
    XDG_CONFIG_HOME: join(dataRoot, '.config'),
    XDG_DATA_HOME: join(dataRoot, '.local', 'share'),
    XDG_CACHE_HOME: join(dataRoot, '.cache'),
    XDG_STATE_HOME: join(dataRoot, '.local', 'state'),
  }
  stubConfigDirectory(join(xdg.XDG_CONFIG_HOME, 'opencode'))
  for (const [path, content] of Object.entries(options.files ?? {})) {
    mkdirSync(dirname(join(workspace, path)), { recursive: true })
    writeFileSync(join(workspace, path), content)
  }
  const config = {
    $schema: 'https://opencode.ai/config.json',
    autoupdate: false,
    share: 'disabled',
    ...(options.plugin === null ? {} : { plugin: [options.plugin ?? REPO_ROOT] }),
    ...options.config,
  }
  writeFileSync(join(workspace, 'opencode.json'), JSON.stringify(config, null, 2))
  const env: NodeJS.ProcessEnv = {
    ...inheritedEnvironment(),
    HOME: home,
    // OpenCode takes its project folder from PWD when set, not from the real cwd.
    PWD: workspace,
    TMPDIR: tmp,
    ...xdg,
    ...OFFLINE_ENV,
    FAKE_CURSOR_LOG_DIR: agentLog,
    ...(options.bundledModels === false ? { OPENCODE_MODELS_PATH: emptyCatalogue(root) } : {}),
    ...options.env,
  }
  const agent = options.agentExecutable === undefined ? FAKE_AGENT : options.agentExecutable
  if (agent !== null) env.CURSOR_AGENT_EXECUTABLE ??= agent
  const keep = options.keep ?? process.env.OPENCODE_E2E_KEEP === '1'
  const servers = new Set<OpenCodeServer>()
  const tuis = new Set<Tui>()

  const readInvocations = (): Invocation[] =>
    readdirSync(agentLog)
      .filter((file) => file.startsWith('invocation-'))
      .sort((a, b) => Number(a.split('-')[1]) - Number(b.split('-')[1]))
      .map((file) => ({ ...JSON.parse(readFileSync(join(agentLog, file), 'utf8')), file }))

  return {
    root,
    home,
    workspace,
    agentLog,
    env,
    async run(args, runOptions = {}) {
      const exit = await execute(binary, args, {
        cwd: workspace,
        env: { ...env, ...runOptions.env },
        timeoutMs: runOptions.timeoutMs ?? 120_000,
      })
      const events = exit.stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .flatMap((line) => {
          try {
            return [JSON.parse(line)]
          } catch {
            return []
          }
        })
      return { ...exit, events }
    },
    async serve(serveOptions = {}) {
      const server = await startServer(binary, workspace, env, serveOptions.timeoutMs ?? 60_000)
      servers.add(server)
      return server
    },
    invocations: () => readInvocations().filter((entry) => entry.subcommand === undefined),
    allInvocations: readInvocations,
    openCodeLog() {
      const directory = join(xdg.XDG_DATA_HOME, 'opencode', 'log')
      if (!existsSync(directory)) return ''
      return readdirSync(directory)
        .sort()
        .map((file) => readFileSync(join(directory, file), 'utf8'))
        .join('\n')
    },
    async tui() {
      const tui = await startTui(binary, workspace, env, root)
      tuis.add(tui)
      return tui
    },
    async dispose() {
      await Promise.all([...servers].map((server) => server.close()))
      await Promise.all([...tuis].map((tui) => tui.close()))
      // A process of the sandbox may still be ending and writing as it goes (a held run's folder
      // being removed): the removal tries again, as rm -rf would be run again.
      if (!keep) rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
    },
  }
}

async function startServer(
  binary: string,
  workspace: string,
  env: NodeJS.ProcessEnv,
  startTimeoutMs: number,
): Promise<OpenCodeServer> {
  const child = spawn(binary, ['serve', '--hostname', '127.0.0.1', '--port', '0'], {
    cwd: workspace,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  const exited = new Promise<void>((done) => child.once('close', () => done()))
  const url = await new Promise<string>((settle, reject) => {
    const timer = setTimeout(() => {
      clearInterval(poll)
      killGroup(child, 'SIGKILL')
      reject(new Error(`opencode serve did not start within ${startTimeoutMs} ms:\n${output}`))
    }, startTimeoutMs)
    const poll = setInterval(() => {
      const match = /listening on (http:\/\/\S+)/.exec(output)
      if (match) {
        clearInterval(poll)
        clearTimeout(timer)
        settle(match[1]!.replace(/\/$/, ''))
      }
    }, 50)
    child.once('close', (code) => {
      clearInterval(poll)
      clearTimeout(timer)
      reject(new Error(`opencode serve exited (${code}) before listening:\n${output}`))
    })
  })
  const call = async (method: string, path: string, body?: unknown): Promise<any> => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await response.text()
    if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status}: ${text}`)
    return text === '' ? null : JSON.parse(text)
  }
  let closing: Promise<void> | undefined
  return {
    url,
    pid: child.pid!,
    async createSession() {
      return (await call('POST', '/session', {})).id as string
    },
    prompt(sessionId, text, model = 'cursor-acp/auto', agent) {
      const [providerID, ...rest] = model.split('/')
      return call('POST', `/session/${sessionId}/message`, {
        model: { providerID, modelID: rest.join('/') },
        ...(agent === undefined ? {} : { agent }),
        parts: [{ type: 'text', text }],
      })
    },
    async abort(sessionId) {
      await call('POST', `/session/${sessionId}/abort`)
    },
    request: call,
    close() {
      closing ??= (async () => {
        killGroup(child, 'SIGTERM')
        const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 5_000)
        await exited
        clearTimeout(timer)
      })()
      return closing
    },
    output: () => output,
  }
}

/** Whether any process of the group is still alive. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  // The group exists; it is alive unless every member is a zombie.
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') return true
    } catch {
      // The process ended while we looked.
    }
  }
  return false
}

export const cpuCount = (): number => cpus().length
