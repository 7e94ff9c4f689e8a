// A stand-in for OpenCode 2 (2.0.26), written from its plugin and provider contract as its
// source documents it (the plugin loader, the catalog transforms): no code of OpenCode's. It loads a plugin entry as
// OpenCode 2's loader does, runs `setup` against a context that records every transform and hook,
// replays the transforms onto fresh editors (as OpenCode 2 does on every change and `reload()`),
// resolves a model's LanguageModelV3 as its AI SDK bridge does (`aisdk:file://` module, first
// `create*` export, then the `language` hooks), runs hooks scoped by provider, and feeds events.
import type { LanguageModelV3 } from '@ai-sdk/provider'
import { pathToFileURL } from 'node:url'

type Rec = Record<string, any>
type Handler = (event: Rec) => unknown
interface Hook {
  name: string
  handler: Handler
  providerID?: string
}

/** `Provider.Info.empty(id)` and `Model.Info.default`. */
const emptyProvider = (id: string): Rec => ({ id, name: id, activation: 'auto', package: '' })
const defaultModel = (providerID: string, id: string): Rec => ({
  id,
  modelID: id,
  providerID,
  name: id,
  capabilities: { tools: false, input: ['text'], output: ['text'] },
  variants: [],
  time: { released: 0 },
  cost: [],
  status: 'active',
  enabled: true,
  limit: { context: 200_000, output: 32_000 },
})

/** What the loader's schema accepts: `default` is `{id: string, effect|setup: function}`. */
export async function loadPlugin(entry: string): Promise<{ id: string; setup: (ctx: Rec) => unknown }> {
  const mod: Rec = await import(entry.startsWith('file:') ? entry : pathToFileURL(entry).href)
  const definition = mod.default
  const decodes =
    typeof definition === 'object' &&
    definition !== null &&
    typeof definition.id === 'string' &&
    (typeof definition.setup === 'function' || typeof definition.effect === 'function')
  if (!decodes)
    throw new Error(
      'PluginModule.LoadError: Plugin must export a default definition with an id and an effect or setup function.',
    )
  return definition
}

/** A queue of event envelopes the plugin reads through `ctx.event.subscribe()`. */
class EventStream implements AsyncIterable<Rec> {
  #waiting: ((result: IteratorResult<Rec>) => void)[] = []
  #queued: Rec[] = []
  #ended = false
  subscribers = 0

  push(envelope: Rec): void {
    const waiter = this.#waiting.shift()
    if (waiter !== undefined) waiter({ done: false, value: envelope })
    else this.#queued.push(envelope)
  }

  [Symbol.asyncIterator](): AsyncIterator<Rec> {
    this.subscribers += 1
    return {
      next: () => {
        const queued = this.#queued.shift()
        if (queued !== undefined) return Promise.resolve({ done: false, value: queued })
        if (this.#ended) return Promise.resolve({ done: true, value: undefined })
        return new Promise((resolve) => this.#waiting.push(resolve))
      },
      return: () => {
        this.#ended = true
        for (const waiter of this.#waiting.splice(0)) waiter({ done: true, value: undefined })
        this.subscribers -= 1
        return Promise.resolve({ done: true, value: undefined })
      },
    }
  }
}

export interface Host {
  ctx: Rec
  /** Every hook registered, in order. */
  hooks: Hook[]
  /** How often the plugin asked for the transforms to be replayed. */
  reloads: number
  /** Registrations disposed so far. */
  disposed: number
  events: EventStream
  /** The state after replaying every live transform onto fresh editors. */
  state(): {
    providers: Map<string, { info: Rec; models: Rec[] }>
    defaultModel?: { providerID: string; modelID: string }
    integrations: Map<string, { name: string; methods: Rec[] }>
  }
  /** Runs the hooks of `name` (those scoped to another provider are skipped) on `event`. */
  run(domain: 'aisdk' | 'session', name: string, event: Rec): Promise<Rec>
  /** The model OpenCode 2's AI SDK bridge would hand a request of `providerID/modelID`. */
  language(
    providerID: string,
    modelID: string,
    credential?: string,
  ): Promise<{ sdk: LanguageModelV3; language: LanguageModelV3; factory: string }>
  /**
   * The provider options of a request of `providerID/modelID` with `variant`: the model's
   * settings with the variant's overlaid, under the provider's id (OpenCode 2's key for a package
   * outside `@ai-sdk/`), as its AI SDK bridge hands them to the call.
   */
  providerOptions(providerID: string, modelID: string, variant?: string): Rec
  /** The models its picker lists: those not `deprecated`. */
  picker(providerID: string): string[]
  /** Sends an event envelope (`{type, data}`). */
  emit(type: string, data: Rec): void
}

/**
 * The built-in agents as OpenCode 2 defines them, their permissions only as far as these tests
 * read them (`Agent.Info.permissions`, the last matching rule wins): `build` may do everything,
 * `plan` may not edit but its plan files.
 */
export const BUILT_IN_AGENTS: readonly Rec[] = Object.freeze([
  { id: 'build', mode: 'primary', hidden: false, permissions: [{ action: '*', resource: '*', effect: 'allow' }] },
  {
    id: 'plan',
    mode: 'primary',
    hidden: false,
    permissions: [
      { action: '*', resource: '*', effect: 'allow' },
      { action: 'edit', resource: '*', effect: 'deny' },
      { action: 'edit', resource: '.opencode/plans/*.md', effect: 'allow' },
    ],
  },
])

/** `agents`: the agents the `agent` domain's transforms see (default the built-in ones). */
export function createHost(location: Rec, agents: readonly Rec[] = BUILT_IN_AGENTS): Host {
  type Transform = { domain: string; edit: (editor: Rec) => void; live: boolean }
  const transforms: Transform[] = []
  const hooks: Hook[] = []
  const events = new EventStream()
  const host: Host = {
    ctx: {},
    hooks,
    reloads: 0,
    disposed: 0,
    events,
    state() {
      const providers = new Map<string, { info: Rec; models: Rec[] }>()
      const integrations = new Map<string, { name: string; methods: Rec[] }>()
      let chosen: { providerID: string; modelID: string } | undefined
      const providerEditor = {
        add: ({ info, models }: Rec) => providers.set(info.id, { info: { ...info }, models: [...models] }),
        update: (id: string, edit: (info: Rec) => void) => {
          const entry = providers.get(id) ?? { info: emptyProvider(id), models: [] }
          edit(entry.info)
          providers.set(id, entry)
        },
        get: (id: string) => providers.get(id)?.info,
        list: () => [...providers.values()].map((entry) => entry.info),
        remove: (id: string) => providers.delete(id),
        models: {
          set: (id: string, models: Rec[]) => {
            const entry = providers.get(id) ?? { info: emptyProvider(id), models: [] }
            entry.models = [...models]
            providers.set(id, entry)
          },
          update: (id: string, modelID: string, edit: (model: Rec) => void) => {
            const entry = providers.get(id) ?? { info: emptyProvider(id), models: [] }
            let model = entry.models.find((candidate) => candidate.id === modelID)
            if (model === undefined) {
              model = defaultModel(id, modelID)
              entry.models.push(model)
            }
            edit(model)
            providers.set(id, entry)
          },
        },
      }
      const modelEditor = {
        default: {
          get: () => chosen,
          set: (providerID: string, modelID: string) => (chosen = { providerID, modelID }),
        },
      }
      const integrationEditor = {
        update: (id: string, edit: (integration: Rec) => void) => {
          const entry: { name: string; methods: Rec[] } = integrations.get(id) ?? { name: id, methods: [] }
          edit(entry)
          integrations.set(id, entry)
        },
        method: {
          update: ({ integrationID, method }: Rec) => {
            const entry: { name: string; methods: Rec[] } = integrations.get(integrationID) ?? {
              name: integrationID,
              methods: [],
            }
            entry.methods.push(method)
            integrations.set(integrationID, entry)
          },
        },
      }
      const agentEditor = { list: () => agents.map((agent) => structuredClone(agent)) }
      const editors: Record<string, Rec> = {
        provider: providerEditor,
        model: modelEditor,
        integration: integrationEditor,
        agent: agentEditor,
      }
      for (const transform of transforms) if (transform.live) transform.edit(editors[transform.domain]!)
      return chosen === undefined ? { providers, integrations } : { providers, integrations, defaultModel: chosen }
    },
    async run(domain, name, event) {
      for (const hook of hooks) {
        if (hook.name !== `${domain}.${name}`) continue
        const providerID = event.model?.providerID
        if (hook.providerID !== undefined && hook.providerID !== providerID) continue
        await hook.handler(event)
      }
      return event
    },
    async language(providerID, modelID, credential) {
      const entry = host.state().providers.get(providerID)
      if (entry === undefined) throw new Error(`no provider ${providerID}`)
      const model = entry.models.find((candidate) => candidate.id === modelID)
      if (model === undefined) throw new Error(`no model ${providerID}/${modelID}`)
      const spec: string = entry.info.package
      if (!spec.startsWith('aisdk:')) throw new Error(`UnsupportedPackageError: ${spec}`)
      const target = spec.slice('aisdk:'.length)
      if (!target.startsWith('file://')) throw new Error(`would install ${target} from npm`)
      const mod: Rec = await import(target)
      const factory = Object.keys(mod)
        .sort()
        .find((key) => key.startsWith('create'))
      if (factory === undefined) throw new Error(`${target} has no create* export`)
      const options: Rec = {
        name: providerID,
        ...entry.info.settings,
        headers: { ...entry.info.headers },
        body: {},
        fetch: globalThis.fetch,
      }
      if (credential !== undefined) options.apiKey = credential
      const sdk = mod[factory](options).languageModel(model.modelID ?? model.id) as LanguageModelV3
      const event = await host.run('aisdk', 'language', { model, package: spec, options })
      return { sdk, language: (event.language as LanguageModelV3 | undefined) ?? sdk, factory }
    },
    providerOptions(providerID, modelID, variant) {
      const model = host
        .state()
        .providers.get(providerID)
        ?.models.find((candidate) => candidate.id === modelID)
      if (model === undefined) throw new Error(`no model ${providerID}/${modelID}`)
      const chosen = variant === undefined ? undefined : model.variants.find((entry: Rec) => entry.id === variant)
      if (variant !== undefined && chosen === undefined) throw new Error(`no variant ${variant} of ${modelID}`)
      return { [providerID]: { ...model.settings, ...chosen?.settings } }
    },
    picker(providerID) {
      const models = host.state().providers.get(providerID)?.models ?? []
      return models.filter((model) => model.status !== 'deprecated').map((model) => model.id)
    },
    emit(type, data) {
      events.push({ id: `evt_${Math.random().toString(36).slice(2)}`, type, created: Date.now(), data })
    },
  }
  const register = (domain: string) => ({
    transform: async (edit: (editor: Rec) => void) => {
      const transform = { domain, edit, live: true }
      transforms.push(transform)
      return {
        dispose: () => {
          transform.live = false
          host.disposed += 1
        },
      }
    },
  })
  const hookDomain = (domain: string) => ({
    hook: async (name: string, handler: Handler, options: { providerID?: string } = {}) => {
      const hook: Hook = { name: `${domain}.${name}`, handler }
      if (options.providerID !== undefined) hook.providerID = options.providerID
      hooks.push(hook)
      return {
        dispose: () => {
          hooks.splice(hooks.indexOf(hook), 1)
          host.disposed += 1
        },
      }
    },
  })
  host.ctx = {
    app: {},
    location,
    options: {},
    provider: {
      ...register('provider'),
      reload: async () => {
        host.reloads += 1
      },
    },
    model: register('model'),
    integration: { ...register('integration') },
    agent: register('agent'),
    aisdk: hookDomain('aisdk'),
    session: hookDomain('session'),
    event: { subscribe: () => events },
  }
  return host
}

/** The headers OpenCode 2 puts on every model request of `session`. */
export function requestHeaders(session: { id: string; parentID?: string }): Record<string, string> {
  const affinity = session.parentID ?? session.id
  const headers: Record<string, string> = {
    'x-opencode-session-id': session.id,
    'x-opencode-session': affinity,
    'X-Session-Id': affinity,
    'x-session-affinity': affinity,
    'x-opencode-project': 'prj_test',
    'x-opencode-client': 'cli',
    'User-Agent': 'opencode/2.0.26',
  }
  if (session.parentID !== undefined) headers['x-opencode-parent-session-id'] = session.parentID
  return headers
}
