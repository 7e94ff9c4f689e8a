// The OpenCode plugin entry (`exports["./server"]`). OpenCode rejects a plugin module that exports
// anything but plugin functions, so helpers live in the sibling modules.
import type { Plugin } from '@opencode-ai/plugin'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { cursorModels } from '../turn/models.js'
import { cancelConversation } from '../turn/tool-bridge.js'
import { agentTurn, listedRules } from './agent-access.js'
import { storedApiKey } from './auth.js'
import { hostOptions, logStartup, modelDiscovery } from './host-options.js'
import { configuredModelIds } from './model-choice.js'
import { PROVIDER_ID } from './provider.js'
import type { CursorAcpProviderOptions } from './provider-options.js'
import { mergeProviderBlock, modelsBlock, type ModelsBlock, type ProviderBlock } from './provider-block.js'
import { readSessionEvent } from './session-events.js'
import { guardReservedSettings } from './trusted-settings.js'

/** The `file://` URL of the provider module next to this file (works from any install location). */
function providerModuleUrl(): string {
  return pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), 'provider.js')).href
}

export const CursorAcpPlugin: Plugin = async (input) => {
  const { options, settings } = hostOptions({ worktree: input.worktree, directory: input.directory })
  if (settings !== undefined) logStartup(settings, 'OpenCode 1.18')

  return {
    // `opencode auth login` offers "Cursor API key"; OpenCode stores it and hands it to the
    // provider as `apiKey` (through this loader), which passes it on as CURSOR_API_KEY.
    auth: {
      provider: PROVIDER_ID,
      methods: [{ type: 'api', label: 'Cursor API key' }],
      loader: async (stored) => {
        const auth = await stored()
        return auth?.type === 'api' && auth.key.trim() !== '' ? { apiKey: auth.key } : {}
      },
    },
    // A run waiting for OpenCode to answer its tool calls is cancelled when the session stops
    // without answering: OpenCode refused a call and stopped, or the user aborted meanwhile.
    // An event of a shape this plugin does not read cancels nothing, and fails nothing in OpenCode.
    event: async ({ event }) => {
      const reading = readSessionEvent(event)
      if (reading.kind === 'stopped') cancelConversation(reading.sessionID)
    },
    // A turn of an agent that may not edit (OpenCode's Plan agent, or the user's own) runs Cursor
    // read-only: the agent's permissions, read from OpenCode's list of agents, become options of
    // the call. When the list cannot be read, only the built-in Plan agent is known to be one.
    'chat.params': async (hook, output) => {
      if (hook.model.providerID !== PROVIDER_ID) return
      let listed: unknown
      try {
        listed = (await input.client.app.agents()).data
      } catch {
        listed = undefined
      }
      Object.assign(output.options, agentTurn(hook.agent, listedRules(listed, hook.agent)))
    },
    config: async (cfg) => {
      // Without a usable configuration or addon, requests fail with the reason; `auto` keeps the
      // provider selectable meanwhile.
      let models: ModelsBlock = { auto: { name: 'Auto' } }
      if (options.configurationError === undefined) {
        const discovery = modelDiscovery(settings, storedApiKey(PROVIDER_ID))
        try {
          models = modelsBlock((await cursorModels(discovery)).models, configuredModelIds(cfg, PROVIDER_ID))
        } catch {
          // The addon did not load: the first request reports the loader's explanation.
        }
      }
      const ours: ProviderBlock = {
        name: 'Cursor',
        npm: providerModuleUrl(),
        options: { ...options },
        models,
      }
      cfg.provider ??= {}
      // The merged configuration holds the project's options too: a reserved setting the user's
      // own sources do not give is replaced or dropped before it reaches the provider block.
      const existing = cfg.provider[PROVIDER_ID]
      const guarded = existing?.options === undefined ? undefined : guardReservedSettings(existing.options)
      const block = mergeProviderBlock(
        guarded === undefined ? existing : { ...existing, options: guarded.options },
        ours,
      )
      if (guarded !== undefined && guarded.ignored.length > 0) {
        const earlier = (block.options as CursorAcpProviderOptions | undefined)?.configurationWarnings
        block.options = { ...block.options, configurationWarnings: [...(earlier ?? []), ...guarded.ignored] }
      }
      cfg.provider[PROVIDER_ID] = block
      // Only when the user chose no model at all: Cursor's automatic model selection (or the
      // first model the account offers when it has no `auto`).
      const ids = Object.keys(cfg.provider[PROVIDER_ID]?.models ?? {})
      const preferred = ids.includes('auto') ? 'auto' : ids[0]
      if (preferred !== undefined) cfg.model ??= `${PROVIDER_ID}/${preferred}`
    },
  }
}
