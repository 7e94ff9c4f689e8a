// How the plugin's provider block joins what the user configured by hand.
import type { Config } from '@opencode-ai/plugin'
import type { CursorModel } from 'opencode-cursor-native'

export type ProviderBlock = NonNullable<Config['provider']>[string]
export type ModelsBlock = NonNullable<ProviderBlock['models']>

const PRIOR_ART_PORT = ':32124'

/** A block written by the earlier proxy-based bridge: the OpenAI-compatible provider on port 32124. */
function isPriorArtBlock(block: ProviderBlock | undefined): boolean {
  if (block?.npm !== '@ai-sdk/openai-compatible') return false
  const baseURL = (block.options as { baseURL?: unknown } | undefined)?.baseURL
  return typeof baseURL === 'string' && baseURL.includes(PRIOR_ART_PORT)
}

/** The user's models, each completed by our entry for the same id (the user's fields win). */
function completeModels(ours: ModelsBlock | undefined, theirs: ModelsBlock): ModelsBlock {
  const block: ModelsBlock = {}
  for (const [id, model] of Object.entries(theirs)) block[id] = { ...ours?.[id], ...model }
  return block
}

/**
 * The provider block after the user's own configuration: a hand-written block with its own `npm`
 * is left alone; one without `npm` is completed (the user's options and models win, a model the
 * plugin knows keeps its limits unless the user sets them); a prior-art block is taken over,
 * keeping the user's model names.
 */
export function mergeProviderBlock(existing: ProviderBlock | undefined, ours: ProviderBlock): ProviderBlock {
  if (existing === undefined) return ours
  if (isPriorArtBlock(existing)) {
    const { baseURL: _proxyUrl, ...userOptions } = (existing.options ?? {}) as Record<string, unknown>
    return {
      ...existing,
      npm: ours.npm,
      options: { ...ours.options, ...userOptions },
      models: { ...ours.models, ...completeModels(ours.models, existing.models ?? {}) },
    }
  }
  if (existing.npm !== undefined) return existing
  return {
    ...ours,
    ...existing,
    options: { ...ours.options, ...existing.options },
    models: existing.models === undefined ? ours.models : completeModels(ours.models, existing.models),
  }
}

/**
 * OpenCode's entry for each model: its limits (the sidebar's "% used" and when OpenCode compacts),
 * `reasoning`, and pictures: a model that sees them gets `attachment` and image input (OpenCode
 * hands the provider a pasted picture only when `modalities.input` names it; an attached picture
 * is saved where Cursor's Read tool opens it); any other keeps both off, so OpenCode itself
 * answers a pasted picture with its own refusal.
 */
export function modelsBlock(models: readonly CursorModel[]): ModelsBlock {
  const block: ModelsBlock = {}
  for (const model of models) {
    block[model.id] = {
      name: model.name,
      limit: { context: model.contextWindow, output: model.maxOutputTokens },
      reasoning: model.reasoning,
      attachment: model.pictures,
      modalities: { input: model.pictures ? ['text', 'image'] : ['text'], output: ['text'] },
    }
  }
  return block
}
