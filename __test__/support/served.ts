// One `opencode serve` that several tests of an end-to-end file share, a turn each: starting
// OpenCode costs about 3 s of CPU, a turn through a running server a tenth of that. Each turn
// sets the fake cursor-agent's behaviour through its control file (read at every start) and is
// read back as `opencode run --format json` prints a run: the parts OpenCode stored of the turn,
// by the rules of `opencode run` (a tool once completed or failed, a text or a thinking once
// ended, each step's start and finish) and each error OpenCode reported. The turns of one server
// go one at a time: the control file is the server's.
//
// What a shared server cannot stand in for stays an `opencode run`: its exit status, its printer,
// its process ending, and a setting of OpenCode's environment that differs from test to test.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Invocation, OpenCodeServer, Sandbox, SandboxOptions } from './opencode.ts'

type Message = { info: Record<string, any>; parts: Array<Record<string, any>> }

export interface Turn {
  session: string
  /** The turn as `opencode run --format json` prints it (see `runEvents`). */
  events: Array<Record<string, any>>
  /** The fake cursor-agent's runs that started during the turn (not `models`/`status`), oldest first. */
  invocations: Invocation[]
  /** The turn's messages as OpenCode stored them. */
  messages: Message[]
  /** What OpenCode answered, its output and log, for an assertion's message. */
  why: string
}

export interface TurnOptions {
  /** The fake cursor-agent's settings for this turn (`FAKE_CURSOR_*`: they replace the last turn's). */
  fake?: Record<string, unknown>
  /** Default `cursor-acp/auto`. */
  model?: string
  /** Reasoning parts as `opencode run --thinking` prints them. */
  thinking?: boolean
  /** Goes on in this session (as `opencode run --continue` does) instead of a new one. */
  session?: string
  /** The agent of the turn (as `opencode run --agent`); default OpenCode's own (build). */
  agent?: string
}

export interface SharedServer {
  /** The sandbox, once `start` ran. */
  sandbox(): Sandbox
  /** The server, once `start` ran. */
  server(): OpenCodeServer
  /** Makes the sandbox, lets `prepare` fill it, and starts `opencode serve` (call it from `before`). */
  start(): Promise<void>
  /** One prompt, answered to its end. */
  turn(prompt: string, options?: TurnOptions): Promise<Turn>
  /** Sets the fake's behaviour for what starts next (`turn` does it itself). */
  control(fake: Record<string, unknown>): void
  /** From now on: a function that gives the fake's runs started since (for a test that prompts `server()` itself). */
  watch(): () => Invocation[]
}

/**
 * The parts of `messages` as `opencode run --format json` prints them (OpenCode 1.18.33's run
 * command: `tool_use` for a tool part completed or failed, `step_start`, `step_finish`, `text` for
 * a text part that ended, `reasoning` likewise only with `--thinking`, and `error` for each error
 * OpenCode reported of the session).
 */
export function runEvents(messages: Message[], thinking = false): Array<Record<string, any>> {
  const events: Array<Record<string, any>> = []
  for (const { info, parts } of messages) {
    for (const part of parts) {
      const type = runEventType(part, thinking)
      if (type !== undefined) events.push({ type, sessionID: info.sessionID, part })
    }
    if (info.error !== undefined) events.push({ type: 'error', sessionID: info.sessionID, error: info.error })
  }
  return events
}

function runEventType(part: Record<string, any>, thinking: boolean): string | undefined {
  if (part.type === 'tool') return ['completed', 'error'].includes(part.state?.status) ? 'tool_use' : undefined
  if (part.type === 'step-start') return 'step_start'
  if (part.type === 'step-finish') return 'step_finish'
  if (part.type === 'text') return part.time?.end === undefined ? undefined : 'text'
  if (part.type === 'reasoning') return thinking && part.time?.end !== undefined ? 'reasoning' : undefined
  return undefined
}

/** What makes the file's sandboxes (`e2eFile()`), disposing of them after the file. */
interface SandboxMaker {
  sandbox(options?: SandboxOptions): Promise<Sandbox>
}

/** A server shared by the tests of `e2e`'s file, in a sandbox made with `options`. */
export function sharedServer(
  e2e: SandboxMaker,
  options: SandboxOptions = {},
  prepare: (sandbox: Sandbox) => void = () => undefined,
): SharedServer {
  let sandbox: Sandbox | undefined
  let server: OpenCodeServer | undefined
  let controlFile = ''
  let queue: Promise<unknown> = Promise.resolve()
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the shared server is not started: call start() in before()')
    return value
  }
  const control = (fake: Record<string, unknown>) => writeFileSync(controlFile, JSON.stringify(fake))
  const watch = () => {
    const box = started(sandbox)
    const before = new Set(box.invocations().map((invocation) => invocation.file))
    return () => box.invocations().filter((invocation) => !before.has(invocation.file))
  }
  const runTurn = async (prompt: string, turnOptions: TurnOptions): Promise<Turn> => {
    const box = started(sandbox)
    const api = started(server)
    control(turnOptions.fake ?? {})
    const session = turnOptions.session ?? (await api.createSession())
    const since = watch()
    // A new session has no messages yet; one that goes on keeps those of its earlier turns.
    const earlier = turnOptions.session === undefined ? [] : await messagesOf(api, session)
    const known = new Set(earlier.map((message) => message.info.id))
    const reply = await answered(api, session, api.prompt(session, prompt, turnOptions.model, turnOptions.agent))
    const messages = (await messagesOf(api, session)).filter((message) => !known.has(message.info.id))
    return {
      session,
      events: runEvents(messages, turnOptions.thinking),
      invocations: since(),
      messages,
      why: `reply:\n${JSON.stringify(reply)}\nserver output:\n${api.output().slice(-3000)}\nlog:\n${box.openCodeLog().slice(-3000)}`,
    }
  }
  return {
    sandbox: () => started(sandbox),
    server: () => started(server),
    async start() {
      sandbox = await e2e.sandbox(options)
      controlFile = join(sandbox.root, 'fake-control.json')
      control({})
      sandbox.env.FAKE_CURSOR_CONTROL = controlFile
      prepare(sandbox)
      server = await sandbox.serve()
    },
    control,
    watch,
    turn(prompt, turnOptions = {}) {
      // One turn at a time, whatever the tests' concurrency: the control file is the server's.
      const next = queue.then(() => runTurn(prompt, turnOptions))
      queue = next.catch(() => undefined)
      return next
    },
  }
}

/** How long a turn may take, as long as an `opencode run` may (`Sandbox.run`'s default). */
const TURN_TIMEOUT_MS = 120_000

/** `reply`, unless the turn outlasts TURN_TIMEOUT_MS: then it is aborted and the test fails, as a hung run would. */
async function answered<T>(server: OpenCodeServer, session: string, reply: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, fail) => {
    timer = setTimeout(() => {
      void server.abort(session).catch(() => undefined)
      fail(new Error(`the turn took over ${TURN_TIMEOUT_MS} ms; the server's output:\n${server.output().slice(-3000)}`))
    }, TURN_TIMEOUT_MS)
  })
  reply.catch(() => undefined)
  try {
    return await Promise.race([reply, late])
  } finally {
    clearTimeout(timer)
  }
}

/** `GET /session/:id/message`: the session's messages, oldest first. */
export function messagesOf(server: OpenCodeServer, session: string): Promise<Message[]> {
  return server.request('GET', `/session/${session}/message`)
}
