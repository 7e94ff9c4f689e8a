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
import type { StreamOutput, StreamPart } from 'opencode-cursor-native'
import type { PromptMessage, ToolDefinition } from '../turn/native.js'
import { type ShownPart, type ToolView, toolViewStream } from '../turn/tool-view.js'
import { resolveTurnConfig, startTurn, titleAnswer, type TurnConfig, type TurnRequest } from '../turn/turn.js'
import { admitRequest, refusalMessage, requestKind, takeAnnouncedRequest } from './automatic-requests.js'
import { PROVIDER_ID } from './config-files.js'
import { contextUsage, conversationBytes, utf8Bytes } from './context-usage.js'
import { CursorAcpError, toCursorAcpError } from './errors.js'
import { type CursorAcpProviderOptions, readCallOptions, readProviderOptions } from './provider-options.js'
import { withAnnotations } from './tool-annotations.js'
import { openCodeToolView } from './tool-view.js'
import { CURSOR_TOOL_MODE_RULES, applyPromptRules } from './system-prompt.js'
import { guardReservedSettings } from './trusted-settings.js'

export { PROVIDER_ID }
export type { CursorAcpProviderOptions }

/** What differs between the OpenCode majors that load this provider. */
export interface ProviderHost {
  /** How the host shows Cursor's own tool calls. */
  toolView: ToolView
  /** The request headers that name the session, the first one present wins. */
  sessionHeaders: readonly string[]
  /** The finish reason an `other` finish (a cancelled run) is told as. */
  otherFinish: LanguageModelV3FinishReason['unified']
}

/** OpenCode 1.18: the session is `x-session-id`, an `other` finish stays one. */
export const OPENCODE_HOST: ProviderHost = Object.freeze({
  toolView: openCodeToolView,
  sessionHeaders: ['x-session-id'],
  otherFinish: 'other',
})

export interface CursorAcpProvider {
  (modelId: string): LanguageModelV3
  readonly specificationVersion: 'v3'
  languageModel(modelId: string): LanguageModelV3
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
      if (value instanceof Uint8Array)
        return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64')
      if (value instanceof URL) return value.href
      return value
    }),
  ) as PromptMessage[]
}

function jsonTools(tools: LanguageModelV3CallOptions['tools']): ToolDefinition[] | undefined {
  return tools === undefined ? undefined : (JSON.parse(JSON.stringify(tools)) as ToolDefinition[])
}

/**
 * The messages with OpenCode's guidance for tools Cursor's model cannot call taken out of each
 * system message (system-prompt.ts); every other message as it is.
 */
export function toldInCursorToolMode(messages: PromptMessage[]): PromptMessage[] {
  return messages.map((message) =>
    message.role === 'system' && typeof message.content === 'string'
      ? { ...message, content: applyPromptRules(message.content, CURSOR_TOOL_MODE_RULES) }
      : message,
  )
}

const NO_USAGE: LanguageModelV3Usage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
}

class CursorAcpLanguageModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3' as const
  readonly provider: string
  readonly modelId: string
  readonly supportedUrls: Record<string, RegExp[]> = {}
  readonly #config: TurnConfig
  readonly #warnings: SharedV3Warning[]
  /** The configuration's problem, as every request of this model reports it. */
  readonly #problem: CursorAcpError | null
  readonly #host: ProviderHost

  constructor(providerName: string, modelId: string, config: TurnConfig, host: ProviderHost) {
    this.#host = host
    this.provider = providerName
    this.modelId = modelId
    this.#config = config
    this.#warnings = config.warnings.map((message) => ({ type: 'other', message }))
    this.#problem = config.problem === null ? null : toCursorAcpError(config.problem)
  }

  async doStream(call: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const warnings = this.#warnings
    const metadata: LanguageModelV3StreamPart = {
      type: 'response-metadata',
      modelId: this.modelId,
      timestamp: new Date(),
    }
    if (this.#problem !== null) return { stream: failedStream(this.#problem, warnings, metadata) }
    const callOptions = readCallOptions(call.providerOptions?.[this.provider])
    if ('refused' in callOptions)
      return { stream: failedStream(new CursorAcpError('E_INVALID_ARG', callOptions.refused), warnings, metadata) }
    const messages = jsonPrompt(call.prompt)
    const request: TurnRequest = {
      // A family's entry or variant names the listed id to run; any other model is one.
      model: callOptions.options.cursorModel ?? this.modelId,
      messages: this.#config.settings.toolMode === 'cursor' ? toldInCursorToolMode(messages) : messages,
      // OpenCode is the user's own host: a file it names is the user's own.
      attachmentSources: 'local',
    }
    const { cursorMode, cursorReadOnly, cursorForce } = callOptions.options
    if (cursorMode !== undefined) request.mode = cursorMode
    if (cursorReadOnly !== undefined) request.readOnly = cursorReadOnly
    if (cursorForce !== undefined) request.force = cursorForce
    const tools = jsonTools(call.tools)
    // Each of OpenCode's own tools goes with what it does, for the bridge to declare.
    if (tools !== undefined) request.tools = withAnnotations(tools)
    const conversationId = this.#host.sessionHeaders
      .map((name) => headerValue(call.headers, name))
      .find((value) => value !== undefined)
    if (conversationId !== undefined) request.conversationId = conversationId
    // A title request is answered locally, as a run answering just the title would answer it.
    const title = titleAnswer(request, AI_SDK)
    if (title !== null) {
      const parts: LanguageModelV3StreamPart[] = []
      this.#deliverer(
        (part) => parts.push(part),
        warnings,
        metadata,
        conversationBytes(call.prompt),
        () => {},
      )(title)
      return { stream: streamOf(parts) }
    }
    const kind =
      takeAnnouncedRequest(conversationId) ?? requestKind(call.prompt, tools !== undefined && tools.length > 0)
    const refused = admitRequest(conversationId, kind)
    if (refused !== null) {
      const failure = new CursorAcpError('E_AUTOMATIC_LIMIT', refusalMessage(refused))
      return { stream: failedStream(failure, warnings, metadata) }
    }
    // A summary of the session is Cursor's answer alone: a fresh chat, no tool of anyone's.
    if (kind === 'compaction') request.standalone = true
    // What Cursor is given as tools counts toward the context only when it is given them.
    const toolsSent = this.#config.settings.toolMode === 'opencode' && !request.standalone ? tools : undefined
    const promptBytes = conversationBytes(call.prompt, toolsSent)
    return { stream: this.#turnStream(request, promptBytes, call.abortSignal, warnings, metadata) }
  }

  #turnStream(
    request: TurnRequest,
    promptBytes: number,
    abortSignal: AbortSignal | undefined,
    warnings: SharedV3Warning[],
    metadata: LanguageModelV3StreamPart,
  ): ReadableStream<LanguageModelV3StreamPart> {
    // False once the stream is closed or the consumer cancelled it: late parts are dropped.
    let open = true
    let stop = (): void => {}
    // Once the response ended by handing tool calls over, the run waits for their results: a
    // cancel then (OpenCode ending the step) must not stop it, as with 1.18's step abort.
    let handedOver = false
    return new ReadableStream<LanguageModelV3StreamPart>({
      start: (controller) => {
        const enqueue = (part: LanguageModelV3StreamPart): void => {
          if (open) controller.enqueue(part)
        }
        const deliver = this.#deliverer(enqueue, warnings, metadata, promptBytes, () => {
          handedOver = true
        })
        const turn = startTurn(this.#config, request, AI_SDK, deliver)
        stop = turn.cancel
        // An abort while this response streams stops the run. OpenCode also aborts a step's
        // signal once the step is over: by then a run that handed over tool calls is waiting
        // for their results, and the listener is gone (removed below, before the close).
        abortSignal?.addEventListener('abort', stop, { once: true })
        if (abortSignal?.aborted) stop()
        turn.done
          .catch((error: unknown) => {
            // Only bad options throw, before any output; report them like any other run failure.
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
        // The consumer gave up on the response before its end: nothing will answer the run.
        if (open && !handedOver) stop()
        open = false
      },
    })
  }

  /**
   * What OpenCode is handed of the addon's outputs, part by part: the stream's start with the
   * configuration's warnings and the response's metadata, Cursor's own tool calls as OpenCode's
   * tools of their kind, failures as OpenCode's error, the finish with the context's usage
   * (`onHandOver` when it hands tool calls over).
   */
  #deliverer(
    enqueue: (part: LanguageModelV3StreamPart) => void,
    warnings: SharedV3Warning[],
    metadata: LanguageModelV3StreamPart,
    promptBytes: number,
    onHandOver: () => void,
  ): (outputs: StreamOutput[]) => void {
    const showTools = toolViewStream(this.#host.toolView)
    const show = (part: ShownPart): void => enqueue(part as unknown as LanguageModelV3StreamPart)
    // What this response wrote so far, for the step's usage.
    let outputBytes = 0
    return (outputs) => {
      // The 'ai-sdk' format gives parts only.
      for (const output of outputs as StreamPart[]) {
        if (output.type === 'text-delta' || output.type === 'reasoning-delta') outputBytes += utf8Bytes(output.delta)
        else if (output.type === 'tool-call') outputBytes += utf8Bytes(output.toolName) + utf8Bytes(output.input)
        if (output.type === 'finish') {
          const finish = withContextUsage(output, promptBytes, outputBytes, this.#host.otherFinish)
          if (finish.type === 'finish' && finish.finishReason.unified === 'tool-calls') onHandOver()
          enqueue(finish)
        } else if (output.type === 'stream-start') {
          enqueue({ type: 'stream-start', warnings: [...warnings, ...(output.warnings as SharedV3Warning[])] })
          enqueue(metadata)
        } else if (output.type === 'error') {
          enqueue({ type: 'error', error: toCursorAcpError(output.error) })
        } else if (output.type.startsWith('tool-')) {
          showTools(output, show)
        } else {
          enqueue(output as unknown as LanguageModelV3StreamPart)
        }
      }
    }
  }

  async doGenerate(call: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const { stream } = await this.doStream(call)
    return collect(stream)
  }
}

type FinishOutput = Extract<StreamOutput, { type: 'finish' }>

/** What OpenCode reads: the addon's V3 parts, Cursor's own tool calls among them. */
const AI_SDK = { format: 'ai-sdk' } as const

/**
 * The step's end as OpenCode reads it: the context's estimated size as its usage (see
 * `context-usage.ts`), Cursor's own counts for the whole turn in `providerMetadata.cursor.usage`.
 */
function withContextUsage(
  finish: FinishOutput,
  promptBytes: number,
  outputBytes: number,
  otherFinish: LanguageModelV3FinishReason['unified'],
): LanguageModelV3StreamPart {
  const part = finish as unknown as Extract<LanguageModelV3StreamPart, { type: 'finish' }>
  const finishReason =
    part.finishReason.unified === 'other' ? { ...part.finishReason, unified: otherFinish } : part.finishReason
  const cursorUsage = finish.usage.raw
  const providerMetadata =
    cursorUsage === undefined || cursorUsage === null
      ? part.providerMetadata
      : { ...part.providerMetadata, cursor: { ...part.providerMetadata?.cursor, usage: cursorUsage } }
  return {
    ...part,
    finishReason,
    usage: contextUsage(promptBytes, outputBytes),
    ...(providerMetadata === undefined ? {} : { providerMetadata }),
  }
}

function streamOf(parts: LanguageModelV3StreamPart[]): ReadableStream<LanguageModelV3StreamPart> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part)
      controller.close()
    },
  })
}

function failedStream(
  error: CursorAcpError,
  warnings: SharedV3Warning[],
  metadata: LanguageModelV3StreamPart,
): ReadableStream<LanguageModelV3StreamPart> {
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
  return providerFor(OPENCODE_HOST, options)
}

/** The provider as `host` loads it (not named `create*`: a module's first such export is its factory). */
export function providerFor(host: ProviderHost, options: CursorAcpProviderOptions = {}): CursorAcpProvider {
  // OpenCode hands over its merged configuration, a project's included: the reserved settings
  // stand only as the user's own sources give them (or tightened).
  const guarded =
    typeof options === 'object' && options !== null ? guardReservedSettings(options) : { options, ignored: [] }
  const { options: read, ignored } = readProviderOptions(guarded.options)
  const config = resolveTurnConfig(read, read.name !== undefined, [...guarded.ignored, ...ignored])
  const providerName = read.name ?? PROVIDER_ID
  const languageModel = (modelId: string): LanguageModelV3 =>
    new CursorAcpLanguageModel(providerName, modelId, config, host)
  const provider = ((modelId: string) => languageModel(modelId)) as CursorAcpProvider
  Object.defineProperties(provider, {
    specificationVersion: { value: 'v3', enumerable: true },
    languageModel: { value: languageModel, enumerable: true },
  })
  return provider
}
