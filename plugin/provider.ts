// The LanguageModelV3 provider OpenCode loads for `cursor-acp/<model>`: each call runs cursor-agent
// through the native addon and streams the parts it translates.
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  LanguageModelV3Usage,
  SharedV3Warning,
} from '@ai-sdk/provider'
import { CursorAcpError, toCursorAcpError } from './errors.js'
import { childEnvironment, DEFAULT_SETTINGS, readSettings, type CursorAcpSettings } from './env.js'
import {
  native,
  type CursorAgentRun,
  type NativePart,
  type PromptMessage,
  type ResumePlan,
  type ResumeRequest,
  type RunCursorAgentOptions,
  type RunResult,
  type SessionResumeManager,
  type ToolDefinition,
} from './native.js'
import { localTitle } from './title.js'
import { pickWorkspace } from './workspace.js'

export const PROVIDER_ID = 'cursor-acp'

/** Options of `createCursorAcp`; OpenCode passes the provider block's `options` plus `name`. */
export interface CursorAcpProviderOptions extends Partial<CursorAcpSettings> {
  /** The provider id OpenCode registered this module under; default `cursor-acp`. */
  name?: string
  /** A configuration problem found by the plugin; every request then fails with it. */
  configurationError?: { code: string; message: string }
  /** Non-fatal configuration notes, reported as stream warnings. */
  configurationWarnings?: string[]
  [other: string]: unknown
}

export interface CursorAcpProvider {
  (modelId: string): LanguageModelV3
  readonly specificationVersion: 'v3'
  languageModel(modelId: string): LanguageModelV3
}

const managers = new Map<boolean, SessionResumeManager>()

/** One resume cache per process (per enabled state), shared by every provider instance. */
function resumeManager(enabled: boolean): SessionResumeManager {
  let manager = managers.get(enabled)
  if (manager === undefined) {
    manager = new (native().SessionResumeManager)({ enabled })
    managers.set(enabled, manager)
  }
  return manager
}

function headerValue(headers: Record<string, string | undefined> | undefined, name: string): string | undefined {
  if (headers === undefined) return undefined
  const wanted = name.toLowerCase()
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === wanted && typeof value === 'string' && value !== '') return value
  }
  return undefined
}

/** The prompt as plain JSON: binary file data becomes base64, URLs become strings. */
function jsonPrompt(prompt: LanguageModelV3CallOptions['prompt']): PromptMessage[] {
  return JSON.parse(
    JSON.stringify(prompt, (_key, value: unknown) => {
      if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64')
      if (value instanceof URL) return value.href
      return value
    }),
  ) as PromptMessage[]
}

function jsonTools(tools: LanguageModelV3CallOptions['tools']): ToolDefinition[] | undefined {
  return tools === undefined ? undefined : (JSON.parse(JSON.stringify(tools)) as ToolDefinition[])
}

const NO_USAGE: LanguageModelV3Usage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
}

interface ResolvedSettings {
  settings: CursorAcpSettings
  workspace: string
  warnings: SharedV3Warning[]
  problem: CursorAcpError | null
}

function resolveSettings(options: CursorAcpProviderOptions): ResolvedSettings {
  const warnings: SharedV3Warning[] = (options.configurationWarnings ?? []).map((message) => ({ type: 'other', message }))
  let settings: CursorAcpSettings = { ...DEFAULT_SETTINGS }
  let problem: CursorAcpError | null = options.configurationError
    ? new CursorAcpError(options.configurationError.code, options.configurationError.message)
    : null
  let workspace = ''
  try {
    // Without the plugin (the module used directly), the environment supplies what options omit.
    const fromEnv = readSettings()
    for (const message of options.name === undefined ? fromEnv.warnings : []) warnings.push({ type: 'other', message })
    settings = { ...fromEnv.settings }
    // Options may be hand-written in opencode.json: a value of the wrong type is reported and ignored.
    const expected: Record<string, string> = { ...Object.fromEntries(Object.entries(DEFAULT_SETTINGS).map(([key, value]) => [key, typeof value])), executable: 'string', workspace: 'string' }
    for (const [key, type] of Object.entries(expected)) {
      const value = options[key]
      if (value === undefined) continue
      const valid = typeof value === type && (type !== 'number' || (Number.isSafeInteger(value) && (value as number) >= 0))
      if (valid) (settings as unknown as Record<string, unknown>)[key] = value
      else warnings.push({ type: 'other', message: `Provider option ${key}=${JSON.stringify(value)} is not a valid ${type}; ignored.` })
    }
    if (settings.toolMode !== 'cursor') {
      warnings.push({ type: 'other', message: `Tool mode ${JSON.stringify(settings.toolMode)} is not available; Cursor runs its own tools.` })
      settings.toolMode = 'cursor'
    }
    workspace = pickWorkspace({ explicit: settings.workspace, directory: process.cwd() })
  } catch (error) {
    problem ??= toCursorAcpError(error, 'E_INVALID_ARG')
  }
  return { settings, workspace, warnings, problem }
}

class CursorAcpLanguageModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3' as const
  readonly provider: string
  readonly modelId: string
  readonly supportedUrls: Record<string, RegExp[]> = {}
  readonly #config: ResolvedSettings

  constructor(providerName: string, modelId: string, config: ResolvedSettings) {
    this.provider = providerName
    this.modelId = modelId
    this.#config = config
  }

  async doStream(call: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const { problem, warnings } = this.#config
    const metadata: LanguageModelV3StreamPart = { type: 'response-metadata', modelId: this.modelId, timestamp: new Date() }
    if (problem !== null) return { stream: failedStream(problem, warnings, metadata) }
    const messages = jsonPrompt(call.prompt)
    const tools = jsonTools(call.tools)
    const { isTitleRequest } = native()
    if (isTitleRequest(tools === undefined ? { messages } : { messages, tools })) {
      return { stream: titleStream(localTitle(messages), warnings, metadata) }
    }
    const request: ResumeRequest = { workspace: this.#config.workspace, model: this.modelId, messages, toolsInPrompt: false }
    if (tools !== undefined) request.tools = tools
    const conversationId = headerValue(call.headers, 'x-session-id')
    if (conversationId !== undefined) request.conversationId = conversationId
    return { stream: this.#agentStream(request, call.abortSignal, warnings, metadata) }
  }

  #runOptions(plan: ResumePlan): RunCursorAgentOptions {
    const { settings, workspace } = this.#config
    const options: RunCursorAgentOptions = {
      prompt: plan.prompt,
      model: this.modelId,
      workspace,
      format: 'ai-sdk',
      force: settings.force,
      env: childEnvironment(),
      idleTimeoutMs: settings.idleTimeoutMs,
      timeoutMs: settings.timeoutMs,
    }
    if (plan.resumeChatId) options.resumeChatId = plan.resumeChatId
    if (settings.executable !== undefined) options.executable = settings.executable
    return options
  }

  #agentStream(
    request: ResumeRequest,
    abortSignal: AbortSignal | undefined,
    warnings: SharedV3Warning[],
    metadata: LanguageModelV3StreamPart,
  ): ReadableStream<LanguageModelV3StreamPart> {
    const manager = resumeManager(this.#config.settings.sessionResume)
    let current: CursorAgentRun | undefined
    let stopped = false
    // False once the stream is closed or the consumer cancelled it: late parts are dropped.
    let open = true
    const stop = (): void => {
      stopped = true
      current?.cancel()
    }
    return new ReadableStream<LanguageModelV3StreamPart>({
      start: (controller) => {
        const enqueue = (part: LanguageModelV3StreamPart): void => {
          if (open) controller.enqueue(part)
        }
        const deliver = (outputs: NativePart[]): void => {
          for (const output of outputs) {
            if (output.type === 'stream-start') {
              const own = Array.isArray(output.warnings) ? (output.warnings as SharedV3Warning[]) : []
              enqueue({ type: 'stream-start', warnings: [...warnings, ...own] })
              enqueue(metadata)
            } else if (output.type === 'error') {
              enqueue({ type: 'error', error: toCursorAcpError(output.error) })
            } else {
              enqueue(output as unknown as LanguageModelV3StreamPart)
            }
          }
        }
        const runOnce = async (plan: ResumePlan): Promise<RunResult> => {
          current = native().runCursorAgent(this.#runOptions(plan), deliver)
          if (stopped) current.cancel()
          return current.wait()
        }
        abortSignal?.addEventListener('abort', stop, { once: true })
        if (abortSignal?.aborted) stopped = true
        const turn = async (): Promise<void> => {
          let plan = manager.plan(request)
          let result = await runOnce(plan)
          if (result.error?.code === 'E_RESUME' && !stopped) {
            // Cursor lost or replaced the chat: forget it and answer once more from the full prompt.
            manager.reportFailure(plan, result.error)
            plan = manager.plan(request)
            if (plan.resumeChatId) plan = { ...plan, resumeChatId: null, incremental: false, prompt: fullPrompt(request) }
            result = await runOnce(plan)
          }
          if (result.error != null) manager.reportFailure(plan, result.error)
          else if (!result.cancelled && result.sessionId != null) manager.record(plan, result.sessionId)
        }
        turn()
          .catch((error: unknown) => {
            // Only bad options throw (synchronously); report them like any other run failure.
            enqueue({ type: 'stream-start', warnings })
            enqueue(metadata)
            const failure = toCursorAcpError(error, 'E_INVALID_ARG')
            enqueue({ type: 'error', error: failure })
            enqueue({ type: 'finish', finishReason: { unified: 'error', raw: failure.code }, usage: NO_USAGE })
          })
          .finally(() => {
            abortSignal?.removeEventListener('abort', stop)
            if (open) {
              open = false
              controller.close()
            }
          })
      },
      cancel: () => {
        open = false
        stop()
      },
    })
  }

  async doGenerate(call: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const { stream } = await this.doStream(call)
    return collect(stream)
  }
}

function fullPrompt(request: ResumeRequest): string {
  const input: Parameters<ReturnType<typeof native>['buildPrompt']>[0] = { messages: request.messages, toolsInPrompt: false }
  if (request.tools !== undefined) input.tools = request.tools
  return native().buildPrompt(input)
}

function streamOf(parts: LanguageModelV3StreamPart[]): ReadableStream<LanguageModelV3StreamPart> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part)
      controller.close()
    },
  })
}

function titleStream(title: string, warnings: SharedV3Warning[], metadata: LanguageModelV3StreamPart): ReadableStream<LanguageModelV3StreamPart> {
  return streamOf([
    { type: 'stream-start', warnings },
    metadata,
    { type: 'text-start', id: 'text-0' },
    { type: 'text-delta', id: 'text-0', delta: title },
    { type: 'text-end', id: 'text-0' },
    { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: NO_USAGE },
  ])
}

function failedStream(error: CursorAcpError, warnings: SharedV3Warning[], metadata: LanguageModelV3StreamPart): ReadableStream<LanguageModelV3StreamPart> {
  return streamOf([
    { type: 'stream-start', warnings },
    metadata,
    { type: 'error', error },
    { type: 'finish', finishReason: { unified: 'error', raw: error.code }, usage: NO_USAGE },
  ])
}

/** The non-streaming answer: the same parts, gathered; a failure rejects with its error. */
async function collect(stream: ReadableStream<LanguageModelV3StreamPart>): Promise<LanguageModelV3GenerateResult> {
  const content: LanguageModelV3Content[] = []
  const blocks = new Map<string, { type: 'text' | 'reasoning'; text: string }>()
  let warnings: SharedV3Warning[] = []
  let finishReason: LanguageModelV3FinishReason = { unified: 'other', raw: undefined }
  let usage = NO_USAGE
  let failure: unknown
  const reader = stream.getReader()
  for (;;) {
    const { done, value: part } = await reader.read()
    if (done) break
    switch (part.type) {
      case 'stream-start':
        warnings = part.warnings
        break
      case 'text-start':
      case 'reasoning-start': {
        const block = { type: part.type === 'text-start' ? ('text' as const) : ('reasoning' as const), text: '' }
        blocks.set(part.id, block)
        content.push(block)
        break
      }
      case 'text-delta':
      case 'reasoning-delta': {
        const block = blocks.get(part.id)
        if (block !== undefined) block.text += part.delta
        break
      }
      case 'tool-call':
      case 'tool-result':
        content.push(part)
        break
      case 'error':
        failure ??= part.error
        break
      case 'finish':
        finishReason = part.finishReason
        usage = part.usage
        break
      default:
        break
    }
  }
  if (failure !== undefined) throw failure
  return { content, finishReason, usage, warnings }
}

/** The provider factory OpenCode calls (the module's first `create*` export). */
export function createCursorAcp(options: CursorAcpProviderOptions = {}): CursorAcpProvider {
  const config = resolveSettings(options)
  const providerName = options.name ?? PROVIDER_ID
  const languageModel = (modelId: string): LanguageModelV3 => new CursorAcpLanguageModel(providerName, modelId, config)
  const provider = ((modelId: string) => languageModel(modelId)) as CursorAcpProvider
  Object.defineProperties(provider, {
    specificationVersion: { value: 'v3', enumerable: true },
    languageModel: { value: languageModel, enumerable: true },
  })
  return provider
}
