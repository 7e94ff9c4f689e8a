// The plugin as OpenCode 2 runs it: `setup(ctx)` registers the `cursor-acp` provider with the
// account's models, the API-key login, the provider module, and the hooks that keep a turn as it
// is in OpenCode 1.18 (local titles, no retried runs, held runs cancelled when a session stops,
// the bound on automatic compactions). Transforms are replayed by OpenCode on every change, so
// each one only reads the state kept here.
import type { CursorModel } from 'opencode-cursor-native'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { agentTurn, type PermissionRule } from '../opencode/agent-access.js'
import { announceRequest } from '../opencode/automatic-requests.js'
import { hostOptions, logStartup, modelDiscovery } from '../opencode/host-options.js'
import { PROVIDER_ID, providerFor } from '../opencode/provider.js'
import type { CursorAcpProviderOptions } from '../opencode/provider-options.js'
import { guardReservedSettings } from '../opencode/trusted-settings.js'
import { autoOnly, cursorModels } from '../turn/models.js'
import type { PromptMessage } from '../turn/native.js'
import { localTitle } from '../turn/title.js'
import { cancelConversation } from '../turn/tool-bridge.js'
import { interruptConversation } from '../turn/turn.js'
import { agentRules } from './agents.js'
import type { Cleanup, EventEnvelope, PluginContext, ProviderInfo, Registration } from './contract.js'
import { OPENCODE2_HOST } from './host.js'
import { modelInfos } from './models.js'
import { readSessionEvent } from './session-events.js'

/** The provider module OpenCode 2's AI SDK bridge imports (`aisdk:` + its file URL). */
export function providerPackage(): string {
  return `aisdk:${pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), 'provider.js')).href}`
}

/** The longest the refresh after start-up waits for `cursor-agent models`. */
const REFRESH_WAIT_MS = 60_000

function textOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined
}

/** A key from what OpenCode 2 resolves a connection to (`{key}`, or OAuth's `{access}`). */
function keyOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return textOf(value)
  const record = value as Record<string, unknown>
  return textOf(record.key) ?? textOf(record.apiKey) ?? textOf(record.access)
}

/** The key of the integration's active connection, if OpenCode 2 has one. */
async function activeKey(ctx: PluginContext): Promise<string | undefined> {
  try {
    const connections = ctx.integration.connection
    if (connections === undefined) return undefined
    const active = await connections.active(PROVIDER_ID)
    return active === undefined || active === null ? undefined : keyOf(await connections.resolve(active))
  } catch {
    // No stored credential: cursor-agent's own login (or CURSOR_API_KEY) answers.
    return undefined
  }
}

/** The project's worktree, when OpenCode 2 gives one. */
function worktreeOf(project: unknown): string | undefined {
  return typeof project === 'object' && project !== null
    ? textOf((project as { worktree?: unknown }).worktree)
    : undefined
}

/** The conversation a title event carries, as the local title reads it. */
function titleMessages(event: { messages?: unknown[]; prompt?: unknown[] }): PromptMessage[] {
  const messages = event.messages ?? event.prompt ?? []
  return messages.filter(
    (message): message is PromptMessage =>
      typeof message === 'object' && message !== null && typeof (message as { role?: unknown }).role === 'string',
  )
}

/**
 * Reads OpenCode 2's events until `stop`: a session whose execution ended cancels its held run;
 * one that was interrupted, or deleted, also stops the run in progress.
 */
function watchSessions(events: AsyncIterable<EventEnvelope>): () => Promise<void> {
  const iterator = events[Symbol.asyncIterator]()
  let stopped = false
  const reading = (async () => {
    while (!stopped) {
      const next = await iterator.next()
      if (next.done === true) return
      const event = readSessionEvent(next.value)
      if (event.kind === 'stopped') cancelConversation(event.sessionID)
      else if (event.kind === 'interrupted') interruptConversation(event.sessionID)
    }
  })().catch(() => {
    // The event stream ended with OpenCode; a held run is then stopped with the process.
  })
  return async () => {
    stopped = true
    await iterator.return?.()
    await reading
  }
}

/**
 * The services the full setup registers with or reads from. Some hosts (OpenCode 1.x builds that
 * boot OpenCode 2's core beside their own) call `setup` with a context that holds only the
 * registration services (`agent`, `aisdk`, `catalog`, `command`, `integration`, `plugin`,
 * `reference`, `skill`): there the provider is the 1.x `server` path's, in the same process.
 */
export const SETUP_NEEDS = ['location', 'provider', 'model', 'integration', 'aisdk', 'session', 'event'] as const

/** The services of {@link SETUP_NEEDS} that `ctx` lacks. */
export function missingServices(ctx: Partial<Record<string, unknown>>): string[] {
  return SETUP_NEEDS.filter((name) => typeof ctx[name] !== 'object' || ctx[name] === null)
}

/** What the transforms read whenever OpenCode replays them, and whether `setup`'s cleanup ran. */
interface SetupState {
  models: CursorModel[]
  closed: boolean
}

type Discovery = ReturnType<typeof modelDiscovery>

/**
 * The models registered at once: from the cache, or the built-in list; when nothing else can be
 * answered, Cursor's automatic model alone, so that the provider stays selectable and reports
 * the problem.
 */
async function startupModels(discovery: Discovery | undefined): Promise<CursorModel[]> {
  if (discovery === undefined) return autoOnly()
  try {
    return (await cursorModels({ ...discovery, waitMs: 0 })).models
  } catch {
    // The addon did not load: the first request reports the loader's explanation.
    return autoOnly()
  }
}

/** After start-up, Cursor's own list replaces the one registered, and the provider is reloaded. */
async function refreshModels(ctx: PluginContext, discovery: Discovery | undefined, state: SetupState): Promise<void> {
  if (discovery === undefined) return
  try {
    const list = await cursorModels({ ...discovery, ttlMs: 0, waitMs: REFRESH_WAIT_MS })
    if (state.closed || list.source !== 'cursor') return
    state.models = list.models
    await ctx.provider.reload()
  } catch {
    // The list registered at start-up stays.
  }
}

/** The integration: its name, and the two ways to give it a key. */
function registerIntegration(ctx: PluginContext): Promise<Registration> {
  return ctx.integration.transform((editor) => {
    editor.update(PROVIDER_ID, (integration) => {
      integration.name = 'Cursor'
    })
    editor.method.update({ integrationID: PROVIDER_ID, method: { type: 'key', label: 'Cursor API key' } })
    editor.method.update({ integrationID: PROVIDER_ID, method: { type: 'env', names: ['CURSOR_API_KEY'] } })
  })
}

/** The provider with the models known when OpenCode replays the transform. */
function registerProvider(ctx: PluginContext, options: CursorAcpProviderOptions, state: SetupState) {
  const info: ProviderInfo = {
    id: PROVIDER_ID,
    name: 'Cursor',
    activation: 'enabled',
    integrationID: PROVIDER_ID,
    package: providerPackage(),
    settings: { ...options },
  }
  return ctx.provider.transform((editor) => {
    editor.add({ info: { ...info, settings: { ...info.settings } }, models: modelInfos(PROVIDER_ID, state.models) })
  })
}

/** Only when the user chose no model at all: Cursor's automatic model (or the first one). */
function registerDefaultModel(ctx: PluginContext, state: SetupState): Promise<Registration> {
  return ctx.model.transform((editor) => {
    if (editor.default.get() !== undefined) return
    const preferred = state.models.some((model) => model.id === 'auto') ? 'auto' : state.models[0]?.id
    if (preferred !== undefined) editor.default.set(PROVIDER_ID, preferred)
  })
}

/** The provider itself, whichever way OpenCode 2 would have loaded the module. */
function registerLanguage(ctx: PluginContext, options: CursorAcpProviderOptions): Promise<Registration> {
  return ctx.aisdk.hook(
    'language',
    async (event) => {
      // OpenCode 2's settings hold the project's too: a refused reserved setting falls back
      // to the plugin's own, read from the environment.
      const theirs = guardReservedSettings({ ...event.options, name: PROVIDER_ID })
      const given: CursorAcpProviderOptions = { ...options, ...theirs.options, name: PROVIDER_ID }
      if (theirs.ignored.length > 0)
        given.configurationWarnings = [...(given.configurationWarnings ?? []), ...theirs.ignored]
      if (keyOf(given.apiKey) === undefined) {
        const key = await activeKey(ctx)
        if (key !== undefined) given.apiKey = key
      }
      event.language = providerFor(OPENCODE2_HOST, given).languageModel(event.model.modelID || event.model.id)
    },
    { providerID: PROVIDER_ID },
  )
}

/**
 * A turn of an agent that may not edit runs Cursor read-only, as in OpenCode 1.18: the agents'
 * rules as OpenCode last replayed the agent transforms (read, never changed), and the request's
 * agent turned into options of the call.
 */
async function registerAgentTurns(ctx: PluginContext): Promise<Registration[]> {
  let known = new Map<string, PermissionRule[]>()
  const watching =
    ctx.agent === undefined
      ? []
      : [
          await ctx.agent.transform((editor) => {
            known = agentRules(editor.list())
          }),
        ]
  const turns = await ctx.session.hook(
    'context',
    (event) => {
      if (event.agent === undefined) return
      event.options = { ...event.options, ...agentTurn(event.agent, known.get(event.agent)) }
    },
    { providerID: PROVIDER_ID },
  )
  return [...watching, turns]
}

/** The session hooks that keep a turn as it is in OpenCode 1.18. */
async function registerSessionHooks(ctx: PluginContext): Promise<Registration[]> {
  const ours = { providerID: PROVIDER_ID }
  return [
    // A failed run is never sent again: each retry would run cursor-agent (and spend the quota)
    // for a failure that is Cursor's answer, not a passing fault.
    await ctx.session.hook(
      'retry',
      (event) => {
        event.decision = { retry: false }
      },
      ours,
    ),
    // Titles from the user's first line, as in 1.18: no cursor-agent run for them.
    await ctx.session.hook(
      'title',
      (event) => {
        event.result = localTitle(titleMessages(event))
      },
      ours,
    ),
    // The session's next request is a compaction: it runs alone, and at most once per message.
    await ctx.session.hook(
      'compaction',
      (event) => {
        if (event.sessionID !== undefined) announceRequest(event.sessionID, 'compaction')
      },
      ours,
    ),
  ]
}

export async function setup(ctx: PluginContext): Promise<Cleanup> {
  // A context without them registers nothing at all (not the integration without its provider)
  // and throws nothing: the host's 1.x `server` path serves the provider.
  if (missingServices(ctx as unknown as Record<string, unknown>).length > 0) return async () => {}
  const { options, settings } = hostOptions({
    directory: ctx.location.directory,
    ...(worktreeOf(ctx.location.project) === undefined ? {} : { worktree: worktreeOf(ctx.location.project) }),
  })
  if (settings !== undefined) logStartup(settings, 'OpenCode 2')
  const usable = options.configurationError === undefined
  const discovery = usable ? modelDiscovery(settings, (await activeKey(ctx)) ?? undefined) : undefined
  // Registered at once from the cache or the built-in list; Cursor's own list follows.
  const state: SetupState = { models: await startupModels(discovery), closed: false }
  const registrations = [
    await registerIntegration(ctx),
    await registerProvider(ctx, options, state),
    await registerDefaultModel(ctx, state),
    await registerLanguage(ctx, options),
    ...(await registerSessionHooks(ctx)),
    ...(await registerAgentTurns(ctx)),
  ]
  const stopWatching = watchSessions(ctx.event.subscribe())
  void refreshModels(ctx, discovery, state)
  return async () => {
    state.closed = true
    await stopWatching()
    await Promise.all(registrations.map((registration) => registration.dispose()))
  }
}
