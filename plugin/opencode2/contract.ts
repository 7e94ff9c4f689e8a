// The part of OpenCode 2's plugin API this host uses, written out structurally (OpenCode 2 is not
// a dependency: nothing of it is imported at run time). Read from OpenCode 2.0.26's source
// (`packages/plugin/src/promise/*.ts`, `packages/schema/src/{provider,model,event,session-event}.ts`,
// `packages/core/src/aisdk.ts`, `packages/core/src/session/*`); only the fields this host reads or
// writes are named, every shape stays open to the fields it does not.
import type { LanguageModelV3 } from '@ai-sdk/provider'

/** A registration's handle: `dispose()` takes it back. */
export interface Registration {
  dispose(): Promise<void> | void
}

/** `Provider.Info`. */
export interface ProviderInfo {
  id: string
  name: string
  activation: 'auto' | 'enabled' | 'disabled'
  /** `aisdk:<spec>` for an AI SDK provider module. */
  package: string
  integrationID?: string
  settings?: Record<string, unknown>
  headers?: Record<string, string>
}

/** `Model.Info`. */
export interface ModelInfo {
  id: string
  /** The id the provider is asked for. */
  modelID: string
  providerID: string
  family?: string
  name: string
  /** Overlaid by a variant's; handed to the provider as its provider options and SDK options. */
  settings?: Record<string, unknown>
  capabilities: { tools: boolean; input: string[]; output: string[] }
  variants: { id: string; settings?: Record<string, unknown> }[]
  /** When the model came out, in milliseconds; 0 sorts last in the model picker. */
  time: { released: number }
  cost: { input: number; output: number; cache: { read: number; write: number } }[]
  status: 'alpha' | 'beta' | 'deprecated' | 'active'
  enabled: boolean
  limit: { context: number; input?: number; output: number }
}

export interface ProviderEditor {
  add(entry: { info: ProviderInfo; models: ModelInfo[] }): void
  update(id: string, edit: (provider: ProviderInfo) => void): void
  models: { set(id: string, models: ModelInfo[]): void }
}

export interface ModelEditor {
  default: {
    get(): { providerID: string; modelID: string } | undefined
    set(providerID: string, modelID: string): void
  }
}

export type IntegrationMethod = { type: 'key'; label: string } | { type: 'env'; names: string[] }

export interface IntegrationEditor {
  update(id: string, edit: (integration: { name: string }) => void): void
  method: { update(entry: { integrationID: string; method: IntegrationMethod }): void }
}

/** The `language` event of the `aisdk` domain: a hook sets `language` to answer it. */
export interface LanguageEvent {
  model: ModelInfo
  package?: string
  /** `{name, ...settings, headers, body, fetch}` and the connection's `apiKey`. */
  options?: Record<string, unknown>
  language?: LanguageModelV3
}

/** The `retry` event: `decision` says whether the failed model call is sent again. */
export interface RetryEvent {
  model?: ModelInfo
  error?: unknown
  decision?: { retry: boolean }
}

/** The `title` event: a hook that sets `result` answers it without a model call. */
export interface TitleEvent {
  sessionID?: string
  model?: ModelInfo
  /** The conversation the title is for, as the model request would carry it. */
  messages?: unknown[]
  prompt?: unknown[]
  result?: string
}

/** The `compaction` event, run before a compaction's model call (a hook setting `result` skips it). */
export interface CompactionEvent {
  sessionID?: string
  model?: ModelInfo
  result?: { summary: string }
}

/** The `context` event of a session's model request: `options` that are not generation settings reach the provider as its call's options. */
export interface ContextEvent {
  sessionID?: string
  /** The id of the agent the request is for. */
  agent?: string
  model?: ModelInfo
  options?: Record<string, unknown>
}

/** The editor of the `agent` domain's transforms: the agents as OpenCode 2 knows them (`Agent.Info`, read untyped). */
export interface AgentEditor {
  list(): readonly unknown[]
}

/** An event envelope: the payload is under `data`. */
export interface EventEnvelope {
  id?: string
  type: string
  created?: number
  data?: unknown
}

export interface HookOptions {
  providerID?: string
}

/** The context `setup` is called with (the domains this host uses). */
export interface PluginContext {
  location: { directory: string; workspaceID?: string; project?: unknown }
  options?: Record<string, unknown>
  provider: {
    transform(edit: (editor: ProviderEditor) => void): Promise<Registration>
    reload(): Promise<void>
  }
  model: { transform(edit: (editor: ModelEditor) => void): Promise<Registration> }
  integration: {
    transform(edit: (editor: IntegrationEditor) => void): Promise<Registration>
    connection?: {
      active(integrationID: string): Promise<unknown>
      resolve(connection: unknown): Promise<unknown>
    }
  }
  aisdk: {
    hook(name: 'language', handler: (event: LanguageEvent) => unknown, options: HookOptions): Promise<Registration>
  }
  session: {
    hook(name: 'retry', handler: (event: RetryEvent) => unknown, options: HookOptions): Promise<Registration>
    hook(name: 'title', handler: (event: TitleEvent) => unknown, options: HookOptions): Promise<Registration>
    hook(name: 'compaction', handler: (event: CompactionEvent) => unknown, options: HookOptions): Promise<Registration>
    hook(name: 'context', handler: (event: ContextEvent) => unknown, options: HookOptions): Promise<Registration>
  }
  /** Absent in a context that only registers; then only the built-in Plan agent is known read-only. */
  agent?: { transform(edit: (editor: AgentEditor) => void): Promise<Registration> }
  event: { subscribe(): AsyncIterable<EventEnvelope> }
}

/** What `setup` may return: a clean-up OpenCode runs when it unloads the plugin. */
export type Cleanup = () => Promise<void> | void

/** OpenCode 2's plugin definition: the default export its loader decodes. */
export interface PluginDefinition {
  id: string
  setup(ctx: PluginContext): Promise<Cleanup | undefined> | Cleanup | undefined
}
