// Codex CLI and Claude Code as they ship, run offline against `serve` (the built command line) over
// the fake cursor-agent: their install from the npm registry into a cache (once, whichever file
// comes first), the server with the fake's settings changed between runs through its control
// file, and each client configured by the recipe docs/server.md gives, in a home of its own.
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { execute, FAKE_AGENT, REPO_ROOT } from './opencode.ts'
import { withLock } from './process.ts'

export const CODEX_VERSION = '0.169.0'
export const CLAUDE_CODE_VERSION = '2.1.328'
const CACHE = join(REPO_ROOT, '.cache', 'coding-clients')
const PLATFORM = `${process.platform}-${process.arch}`

/** The two clients' binaries: each ships its native binary in a package for its platform. */
const BINARIES = {
  codex: join(CACHE, 'node_modules', '@openai', 'codex', 'bin', 'codex.js'),
  claude: join(CACHE, 'node_modules', '@anthropic-ai', `claude-code-${PLATFORM}`, 'claude'),
}

/** Why the clients cannot run here, or `false`: both ship native binaries for Linux x64 among others. */
export const clientsSkip = PLATFORM === 'linux-x64' ? false : 'the clients are installed for Linux x64 only'

/** Installs both clients from the npm registry into the cache, once (`--ignore-scripts`: nothing is downloaded). */
export async function installCodingClients(): Promise<typeof BINARIES> {
  const installed = () => Object.values(BINARIES).every((binary) => existsSync(binary))
  if (installed()) return BINARIES
  mkdirSync(CACHE, { recursive: true })
  await withLock(join(CACHE, '.install-lock'), async () => {
    if (installed()) return
    if (!existsSync(join(CACHE, 'package.json'))) writeFileSync(join(CACHE, 'package.json'), '{"private":true}\n')
    const packages = [`@openai/codex@${CODEX_VERSION}`, `@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`]
    const args = ['install', '--no-audit', '--no-fund', '--ignore-scripts', ...packages]
    const result = await execute('npm', args, { cwd: CACHE, env: process.env, timeoutMs: 600_000 })
    if (result.code !== 0 || !installed())
      throw new Error(`installing ${packages.join(' ')} failed (exit ${result.code}):\n${result.stderr}`)
  })
  return BINARIES
}

/** The fake's runs, as its invocation log holds them. */
export type LoggedRun = { argv: string[]; stdin: string; pgid: number; mcpTools: Array<{ name: string }> } & Record<
  string,
  any
>

export interface Served {
  port: number
  token: string
  child: ChildProcess
  /** The fake's settings (`FAKE_CURSOR_*`) for the runs that start from now on. */
  control(settings: Record<string, unknown>): void
  /** The fake's runs so far, oldest first. */
  runs(): LoggedRun[]
  /** What the server printed. */
  output(): string
  /** Sends `signal`; its exit code once it exited. */
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

/** `serve --port 0` in `root` (its home, data and workspace), with `toolMode` and `env`. */
export async function startServe(root: string, toolMode: string, env: Record<string, string> = {}): Promise<Served> {
  const [controlFile, logDir, workspace] = ['control.json', 'log', 'ws'].map((name) => join(root, name))
  mkdirSync(workspace, { recursive: true })
  writeFileSync(controlFile, '{}')
  const cli = join(REPO_ROOT, 'dist', 'plugin', 'cli', 'main.js')
  const child = spawn(
    process.execPath,
    [cli, 'serve', '--port', '0', '--workspace', workspace, '--tool-mode', toolMode],
    {
      env: {
        PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
        HOME: join(root, 'serve-home'),
        XDG_DATA_HOME: join(root, 'serve-data'),
        CURSOR_AGENT_EXECUTABLE: FAKE_AGENT,
        // In tool mode opencode too, the fake's settings reach it only through the child environment.
        CURSOR_ACP_CHILD_ENV: 'FAKE_CURSOR_*',
        FAKE_CURSOR_CONTROL: controlFile,
        FAKE_CURSOR_LOG_DIR: logDir,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let out = ''
  for (const stream of [child.stdout, child.stderr]) stream?.on('data', (chunk: Buffer) => (out += chunk.toString()))
  await new Promise<void>((listening, failed) => {
    child.stdout?.on('data', () => out.includes('token:') && listening())
    child.once('exit', (code) => failed(new Error(`serve exited with ${code} before listening:\n${out}`)))
  })
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)))
  return {
    port: Number(/:(\d+)\/v1/.exec(out)?.[1]),
    token: /token: (\S+)/.exec(out)?.[1] ?? '',
    child,
    control: (settings) =>
      writeFileSync(
        controlFile,
        JSON.stringify(
          Object.fromEntries(
            Object.entries(settings).map(([key, value]) => [
              key,
              typeof value === 'string' ? value : JSON.stringify(value),
            ]),
          ),
        ),
      ),
    runs: () =>
      (existsSync(logDir) ? readdirSync(logDir) : [])
        .filter((file) => file.startsWith('invocation-'))
        // Named by the time each started.
        .sort()
        .map((file) => JSON.parse(readFileSync(join(logDir, file), 'utf8')) as LoggedRun),
    output: () => out,
    stop: (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal)
      return exited
    },
  }
}

/** A fenced block of `language` in docs/server.md's recipes, as a user copies it. */
export function recipe(language: string): string {
  const page = readFileSync(join(REPO_ROOT, 'docs', 'server.md'), 'utf8')
  const found = new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(page.slice(page.indexOf('## Recipes')))
  if (found === null) throw new Error(`docs/server.md's recipes hold no ${language} block`)
  return found[1] as string
}

export interface ClientRun {
  code: number | null
  stdout: string
  stderr: string
}

/** A home for one client run (`HOME`, `CODEX_HOME`), under `root`. */
export function clientHome(root: string): string {
  const home = mkdtempSync(join(root, 'home-'))
  mkdirSync(join(home, '.codex'))
  return home
}

/** `codex exec` in `served`'s workspace, configured by the recipe (its port moved to the server's) plus `extra` TOML. */
export async function codex(served: Served, home: string, args: string[], extra = ''): Promise<ClientRun> {
  const config = recipe('toml').replace(/:32125\//, `:${served.port}/`)
  writeFileSync(join(home, '.codex', 'config.toml'), `${config}${extra}`)
  const result = await execute(process.execPath, [BINARIES.codex, 'exec', '--skip-git-repo-check', ...args], {
    cwd: join(dirname(home), 'ws'),
    env: {
      PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: home,
      CODEX_HOME: join(home, '.codex'),
      CURSOR_ACP_PROXY_TOKEN: served.token,
    },
    timeoutMs: 120_000,
  })
  return { code: result.code, stdout: result.stdout, stderr: result.stderr }
}

/** `claude -p` in `served`'s workspace, with the recipe's environment (its port moved to the server's). */
export async function claude(served: Served, home: string, args: string[]): Promise<ClientRun> {
  const variables = Object.fromEntries(
    [...recipe('sh').matchAll(/^export (\w+)=(.*)$/gm)].map(([, name, value]) => [
      name as string,
      (value as string).replace(/^"|"$/g, ''),
    ]),
  )
  const result = await execute(BINARIES.claude, ['-p', ...args], {
    cwd: join(dirname(home), 'ws'),
    env: {
      PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: home,
      ...variables,
      ANTHROPIC_BASE_URL: (variables.ANTHROPIC_BASE_URL ?? '').replace(':32125', `:${served.port}`),
      ANTHROPIC_AUTH_TOKEN: served.token,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
    },
    timeoutMs: 120_000,
  })
  return { code: result.code, stdout: result.stdout, stderr: result.stderr }
}

/** A scratch folder for a file's servers and clients. */
export const scratchFolder = (): string => mkdtempSync(join(tmpdir(), 'coding-clients-e2e-'))
