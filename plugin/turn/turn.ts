// One turn of a conversation with Cursor, the same for every front end: pick the workspace and
// the settings, answer title requests locally, plan the resume, run cursor-agent, rerun once as a
// fresh chat when the resumed one is gone (E_RESUME), rerun once when the connection to Cursor
// dropped before anything was answered, and record the chat that answered.
import type {
  CursorAgentRun,
  ResumePlan,
  ResumeRequest,
  RunCursorAgentOptions,
  RunResult,
  RunStep,
  SessionResumeManager,
  StreamOutput,
} from 'opencode-cursor-native'
import {
  captureFolder,
  childEnvironment,
  dataDirectory,
  DEFAULT_SETTINGS,
  readSettings,
  TOOL_MODES,
  withApiKey,
  type CursorAcpSettings,
} from './env.js'
import { failureOf, type TurnFailure } from './failure.js'
import { native, type PromptMessage, type ToolDefinition } from './native.js'
import type { CursorMode } from './mode.js'
import { localTitle } from './title.js'
import {
  cancelConversation,
  continuationAnswers,
  conversationFolder,
  heldRun,
  holdRun,
  offersEvery,
  releaseRun,
  type StepEnded,
  type TurnOutput,
} from './tool-bridge.js'
import { pickWorkspace } from './workspace.js'

/** The settings a front end may set; logging and the child's environment come from the environment alone. */
export type OptionSetting = Exclude<keyof CursorAcpSettings, 'logLevel' | 'logFile' | 'childEnv'>

const OPTION_SETTINGS = [...Object.keys(DEFAULT_SETTINGS), 'executable', 'workspace'] as OptionSetting[]

/**
 * Settings as a front end hands them over, each of its type (a front end whose options arrive
 * untyped reads them first); what is absent comes from the environment.
 */
export interface TurnOptions extends Partial<Pick<CursorAcpSettings, Exclude<OptionSetting, 'toolMode'>>> {
  /** One of `TOOL_MODES`; any other text is reported, and Cursor runs its own tools. */
  toolMode?: string
  /**
   * A Cursor API key, as OpenCode hands over the one stored with `opencode auth login`
   * ("Cursor API key"): cursor-agent gets it as `CURSOR_API_KEY`, over the environment's.
   */
  apiKey?: string
  /** A configuration problem found earlier (by the plugin); every turn then fails with it. */
  configurationError?: TurnFailure
  /** Non-fatal configuration notes. */
  configurationWarnings?: string[]
}

/** Everything a turn needs that does not change between turns. */
export interface TurnConfig {
  settings: CursorAcpSettings
  /** Given to cursor-agent as `CURSOR_API_KEY`. */
  apiKey?: string
  workspace: string
  /** Readable notes about ignored settings, for the front end to show. */
  warnings: string[]
  /** When set, every turn fails with it. */
  problem: TurnFailure | null
}

/**
 * Merges `options` over the environment's settings and picks the workspace. `fromPlugin` says the
 * plugin already read the environment (its warnings are in `configurationWarnings`);
 * `ignoredOptions` are the front end's notes on options it could not read, reported after the
 * environment's.
 */
export function resolveTurnConfig(
  options: TurnOptions,
  fromPlugin: boolean,
  ignoredOptions: readonly string[] = [],
): TurnConfig {
  const warnings = [...(options.configurationWarnings ?? [])]
  let settings: CursorAcpSettings = { ...DEFAULT_SETTINGS }
  let problem: TurnFailure | null = options.configurationError
    ? { code: options.configurationError.code, message: options.configurationError.message }
    : null
  let workspace = ''
  try {
    const fromEnv = readSettings()
    if (!fromPlugin) warnings.push(...fromEnv.warnings)
    warnings.push(...ignoredOptions)
    settings = { ...fromEnv.settings }
    for (const key of OPTION_SETTINGS) {
      const value = options[key]
      if (value !== undefined) (settings as unknown as Record<string, unknown>)[key] = value
    }
    if (!(TOOL_MODES as readonly unknown[]).includes(settings.toolMode)) {
      warnings.push(
        `Tool mode ${JSON.stringify(settings.toolMode)} is not one of ${TOOL_MODES.join(', ')}; Cursor runs its own tools.`,
      )
      settings.toolMode = 'cursor'
    }
    workspace = pickWorkspace({ explicit: settings.workspace, directory: process.cwd() })
  } catch (error) {
    problem ??= failureOf(error, 'E_INVALID_ARG')
  }
  const apiKey = options.apiKey?.trim() || undefined
  return { settings, workspace, warnings, problem, ...(apiKey === undefined ? {} : { apiKey }) }
}

/** What a front end asks in one turn. */
export interface TurnRequest {
  model: string
  /** AI SDK V3 prompt messages or OpenAI chat messages, JSON-safe (binary data as base64). */
  messages: PromptMessage[]
  tools?: ToolDefinition[]
  /** The host's id of the conversation (OpenCode's session id), when it sends one. */
  conversationId?: string
  /**
   * A request answered on its own (a host's summary of the conversation, say): a fresh chat that
   * is never resumed nor recorded, and runs no tool at all, neither the host's nor Cursor's (in
   * the conversation's private folder, whatever the tool mode). A run of the conversation waiting
   * for tool results is cancelled first.
   */
  standalone?: boolean
  /**
   * Where its attachments may come from (`ResumeRequest.attachmentSources`): `'local'` only for
   * the user's own host (OpenCode's provider), `'bytes'` for a server's client. Default
   * `'named'`.
   */
  attachmentSources?: ResumeRequest['attachmentSources']
  /** Cursor's mode for this turn (`RunCursorAgentOptions.mode`). Default `'agent'`. */
  mode?: CursorMode
  /** The turn may not edit (`RunCursorAgentOptions.readOnly`). Default: it may. */
  readOnly?: true
  /**
   * False runs this turn without `--force` whatever the settings say (Cursor's own shell
   * commands are then refused). Default: the `force` setting.
   */
  force?: false
}

/**
 * OpenCode's session-title request, answered locally (a cursor-agent run for it would cost
 * seconds and quota): the outputs a run answering just the title would put out, in `format`;
 * `null` for every other request.
 */
export function titleAnswer(request: TurnRequest, format: TurnFormat): StreamOutput[] | null {
  const { isTitleRequest, StreamTransformer } = native()
  const input =
    request.tools === undefined ? { messages: request.messages } : { messages: request.messages, tools: request.tools }
  if (!isTitleRequest(input)) return null
  return new StreamTransformer({ ...format, model: request.model }).answer(localTitle(request.messages))
}

const managers = new Map<boolean, SessionResumeManager>()

/** One resume cache per process (per enabled state), shared by every front end. */
function resumeManager(enabled: boolean): SessionResumeManager {
  let manager = managers.get(enabled)
  if (manager === undefined) {
    manager = new (native().SessionResumeManager)({ enabled })
    managers.set(enabled, manager)
  }
  return manager
}

/**
 * How a turn's last run ended: its `RunResult`, and how many times the turn ran cursor-agent
 * again before it (a resumed chat that was gone, a connection that dropped before anything was
 * answered; at most once each).
 */
export interface TurnResult extends RunResult {
  reruns: number
}

/** A turn in progress: one response of OpenCode's, one step of the model. */
export interface Turn {
  /** Stops cursor-agent, and any rerun before it starts. */
  cancel(): void
  /**
   * Settles once this response's last outputs were delivered: with the result of the turn's last
   * run, or `null` when the run handed OpenCode tool calls and waits for their results (the run
   * is then held, and a later request carrying the results continues it). Run failures are in
   * `error` (and were delivered as closing outputs); only bad options reject, before any output.
   */
  readonly done: Promise<TurnResult | null>
}

/**
 * The encoding of a turn's outputs, as the addon's translation options say it: AI SDK V3 parts,
 * or OpenAI SSE frames (with each response's completion after them, when asked); with or without
 * Cursor's own tool calls (a client that runs every call it gets would run them a second time).
 * A request of the same conversation may ask for another. The calls handed to the host (tool
 * mode `opencode`) are always there.
 */
export type TurnFormat = Pick<RunCursorAgentOptions, 'format' | 'includeUsage' | 'toolCalls' | 'completions'>

function runOptions(
  config: TurnConfig,
  request: TurnRequest,
  plan: ResumePlan,
  format: TurnFormat,
  folder: string | null,
  rerunnableDrop: boolean,
): RunCursorAgentOptions {
  const { settings, workspace } = config
  const options: RunCursorAgentOptions = {
    prompt: plan.prompt,
    model: request.model,
    workspace,
    ...format,
    force: request.force ?? settings.force,
    rerunnableDrop,
    env: withApiKey(childEnvironment(process.env, settings), config.apiKey),
    idleTimeoutMs: settings.idleTimeoutMs,
    timeoutMs: settings.timeoutMs,
  }
  if (folder !== null) {
    options.hostTools = {
      tools: bridgeTools(request),
      folder,
      waitMs: Math.max(1, settings.toolWaitMs),
      deadlineMs: Math.min(55_000, Math.max(1, settings.toolDeadlineMs)),
      ...(plan.instructions == null ? {} : { instructions: plan.instructions }),
    }
  }
  if (settings.capture)
    options.capture = {
      folder: captureFolder(),
      maxBytes: settings.captureMaxBytes,
      includePrompt: settings.capturePrompt,
    }
  if (request.mode !== undefined) options.mode = request.mode
  if (request.readOnly === true) options.readOnly = true
  if (plan.resumeChatId != null) options.resumeChatId = plan.resumeChatId
  if (plan.attachments != null) options.attachments = plan.attachments
  if (settings.executable !== undefined) options.executable = settings.executable
  return options
}

/**
 * The tools a run's bridge offers. A request without tools (a standalone one among them) still
 * runs in the private folder, with no tools at all: there Cursor never runs its own.
 */
function bridgeTools(request: TurnRequest): ToolDefinition[] {
  return request.standalone === true ? [] : (request.tools ?? [])
}

/** With `toolMode: 'opencode'`, or for a standalone request: the conversation's private folder. */
function bridgeFolder(config: TurnConfig, request: TurnRequest): string | null {
  if (config.settings.toolMode !== 'opencode' && request.standalone !== true) return null
  return conversationFolder(dataDirectory(), config.workspace, request.conversationId)
}

type StepOutcome = 'handed-over' | 'run-ended'

export type { TurnOutput }

/**
 * Runs one turn, delivering its outputs (in `format`) to `onOutput` in order, each batch with
 * how its step ended when it ends one (as the run tells it). The turn asks the
 * resume cache for a plan; when the resumed chat turns out to be gone (`E_RESUME`, which
 * delivers no output), it reports that, and runs once more as a fresh chat with the full prompt.
 * When the connection to Cursor drops before anything was answered (no text, no tool run), the
 * run delivers nothing and the turn runs it once more with the same plan: a fresh chat again with
 * the full prompt (never resuming the chat the dropped run opened, which would put the history in
 * twice), or the same resumed chat with the same incremental prompt.
 * A successful run's chat (or one cut off by the usage limit) is recorded for the next turn; a
 * failure is reported to the cache, which keeps the chat unless the failure says it is gone.
 *
 * With `toolMode: 'opencode'`, OpenCode runs the tools: a run that hands it tool calls ends the
 * response and stays alive, held for the conversation; a request whose trailing tool results
 * answer exactly those calls continues that run (no new process, no prompt sent again), and any
 * other request of the conversation cancels it and starts afresh.
 */
// The turns in progress per conversation, whichever copy of this module OpenCode loaded (the plugin
// and the provider module are imported separately): a host's interrupt stops them.
const RUNNING = Symbol.for('opencode-cursor-native.running-turns')
const runningGlobals = globalThis as unknown as Record<symbol, Map<string, Set<() => void>> | undefined>

function runningTurns(): Map<string, Set<() => void>> {
  runningGlobals[RUNNING] ??= new Map()
  return runningGlobals[RUNNING]
}

/** `turn`, known as running for its conversation until its response is over. */
function tracked(conversationId: string | undefined, turn: Turn): Turn {
  if (conversationId === undefined) return turn
  const turns = runningTurns()
  const cancels = turns.get(conversationId) ?? new Set<() => void>()
  turns.set(conversationId, cancels)
  cancels.add(turn.cancel)
  const forget = (): void => {
    cancels.delete(turn.cancel)
    if (cancels.size === 0 && turns.get(conversationId) === cancels) turns.delete(conversationId)
  }
  turn.done.then(forget, forget)
  return turn
}

/**
 * The host interrupted conversation `conversationId`, or deleted it: its turns in progress are
 * cancelled (each stops cursor-agent and its process group) and so is a run held for its tool
 * results. A turn that already ended is untouched. Returns how many were stopped.
 */
export function interruptConversation(conversationId: string): number {
  const cancels = runningTurns().get(conversationId) ?? new Set<() => void>()
  runningTurns().delete(conversationId)
  for (const cancel of cancels) cancel()
  return cancels.size + cancelConversation(conversationId)
}

export function startTurn(config: TurnConfig, request: TurnRequest, format: TurnFormat, onOutput: TurnOutput): Turn {
  return tracked(request.conversationId, startedTurn(config, request, format, onOutput))
}

function startedTurn(config: TurnConfig, request: TurnRequest, format: TurnFormat, onOutput: TurnOutput): Turn {
  const folder = bridgeFolder(config, request)
  const held = folder === null ? undefined : heldRun(folder)
  if (folder !== null && held !== undefined) {
    releaseRun(folder, held)
    const continues = request.standalone !== true && offersEvery(held, request.tools)
    const answers = continues ? continuationAnswers(request.messages, held.callIds) : null
    if (answers !== null) {
      let stepEnded: StepEnded = () => {}
      const step = new Promise<StepOutcome>((resolve) => (stepEnded = resolve))
      held.continueInto(onOutput, stepEnded)
      if (held.run.answerToolCalls(answers)) {
        // The held run's turn counted its reruns (a held result without the count had none).
        const result = (): Promise<TurnResult> => held.result().then((ended) => ({ reruns: 0, ...ended }))
        return { cancel: () => held.cancel(), done: step.then((end) => (end === 'handed-over' ? null : result())) }
      }
    }
    held.cancel()
  }
  return freshTurn(config, request, format, onOutput, folder)
}

/**
 * What the resume cache is asked for a request. With the bridge, Cursor's chat lives in the
 * conversation's private folder: that is its key, and there the system prompt goes through
 * Cursor's rules channel, out of the prompt.
 */
function resumeRequestOf(config: TurnConfig, request: TurnRequest, folder: string | null): ResumeRequest {
  const resumeRequest: ResumeRequest = {
    workspace: folder ?? config.workspace,
    model: request.model,
    messages: request.messages,
    toolsInPrompt: false,
    instructionsApart: folder !== null,
  }
  if (request.tools !== undefined) resumeRequest.tools = request.tools
  if (request.conversationId !== undefined) resumeRequest.conversationId = request.conversationId
  if (request.attachmentSources !== undefined) resumeRequest.attachmentSources = request.attachmentSources
  return resumeRequest
}

/** One run of a plan; `rerunnableDrop` while a dropped connection may still be run again. */
type RunPlan = (plan: ResumePlan, rerunnableDrop: boolean) => Promise<RunResult>

/**
 * The turn's runs: its plan, then at most one rerun as a fresh chat when the resumed one is gone
 * and one when the connection dropped before anything was answered; a chat that answered (or was
 * cut off by the usage limit) is recorded, a failure reported. A standalone request is a fresh
 * chat, never resumed nor recorded.
 */
async function plannedRuns(
  manager: SessionResumeManager,
  resumeRequest: ResumeRequest,
  standalone: boolean,
  runPlan: RunPlan,
  cancelled: () => boolean,
): Promise<TurnResult> {
  let plan = standalone ? manager.freshPlan(resumeRequest) : manager.plan(resumeRequest)
  let [resumeRerunLeft, dropRerunLeft, reruns] = [!standalone, true, 0]
  let result = await runPlan(plan, dropRerunLeft)
  while (!cancelled()) {
    if (result.error?.code === 'E_RESUME' && resumeRerunLeft) {
      resumeRerunLeft = false
      manager.reportFailure(plan, result.error)
      plan = manager.freshPlan(resumeRequest)
    } else if (result.rerunnable && dropRerunLeft) {
      dropRerunLeft = false
    } else {
      break
    }
    reruns += 1
    result = await runPlan(plan, dropRerunLeft)
  }
  if (standalone) return { ...result, reruns }
  if (result.error != null) manager.reportFailure(plan, result.error)
  // A usage limit leaves Cursor's chat intact (with whatever it answered): the next turn,
  // once the limit resets, resumes it like a successful one.
  const chatStands = result.error == null ? !result.cancelled : result.error.code === 'E_QUOTA'
  if (chatStands && result.sessionId != null) manager.record(plan, result.sessionId)
  return { ...result, reruns }
}

function freshTurn(
  config: TurnConfig,
  request: TurnRequest,
  format: TurnFormat,
  onOutput: TurnOutput,
  folder: string | null,
): Turn {
  let current: CursorAgentRun | undefined
  let cancelled = false
  const cancel = (): void => {
    cancelled = true
    current?.cancel()
  }
  // Where the run's outputs go: the response in progress, or nowhere while the run waits.
  let deliver = onOutput
  let stepEnded: StepEnded = () => {}
  const firstStep = new Promise<StepOutcome>((resolve) => (stepEnded = resolve))
  const runPlan: RunPlan = (plan, rerunnableDrop) => {
    current = native().runCursorAgent(runOptions(config, request, plan, format, folder, rerunnableDrop), route)
    if (cancelled) current.cancel()
    return current.wait()
  }
  const manager = resumeManager(config.settings.sessionResume)
  const resumeRequest = resumeRequestOf(config, request, folder)
  const finished = plannedRuns(manager, resumeRequest, request.standalone === true, runPlan, () => cancelled)
  function route(outputs: StreamOutput[], step: RunStep | null): void {
    deliver(outputs, step)
    if (folder === null || step?.reason !== 'tool-calls') return
    // The calls of this step stay open until a request of the conversation answers them.
    holdRun(folder, {
      run: current as CursorAgentRun,
      conversationId: request.conversationId,
      callIds: step.toolCalls.map((call) => call.id),
      tools: new Set(bridgeTools(request).map((tool) => JSON.stringify(tool))),
      continueInto: (next, onStep) => {
        deliver = next
        stepEnded = onStep
      },
      cancel,
      result: () => finished,
    })
    deliver = () => {}
    stepEnded('handed-over')
  }
  void finished.then(
    () => {
      if (folder !== null) releaseHeldOf(folder, current)
      stepEnded('run-ended')
    },
    () => stepEnded('run-ended'),
  )
  return {
    cancel,
    done: Promise.race([finished.then(() => 'run-ended' as const), firstStep]).then((end) =>
      end === 'handed-over' ? null : finished,
    ),
  }
}

/** Forget the conversation's held run once the run behind it has ended. */
function releaseHeldOf(folder: string, run: CursorAgentRun | undefined): void {
  const held = heldRun(folder)
  if (held !== undefined && held.run === run) releaseRun(folder, held)
}
