// How the plugin's provider block joins what the user configured by hand.
import type { Config } from '@opencode-ai/plugin'
import type { CursorModel, CursorModelFamily } from 'opencode-cursor-native'
import { modelFamilies } from '../turn/models.js'
import { CURSOR_MODEL_OPTION } from './model-choice.js'

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

/** What a model's entry says of its limits, thinking and pictures. */
type Described = Pick<CursorModel, 'name' | 'contextWindow' | 'maxOutputTokens' | 'reasoning' | 'pictures'>
/** OpenCode 1.18's entry of a model (its `variants` are newer than the plugin package's types). */
type ModelEntry = ModelsBlock[string] & { variants?: Record<string, Record<string, unknown>> }

/**
 * OpenCode's entry for a model: its limits (the sidebar's "% used" and when OpenCode compacts),
 * `reasoning`, and pictures: a model that sees them gets `attachment` and image input (OpenCode
 * hands the provider a pasted picture only when `modalities.input` names it; an attached picture
 * is saved where Cursor's Read tool opens it); any other keeps both off, so OpenCode itself
 * answers a pasted picture with its own refusal.
 */
function entry(model: Described): ModelEntry {
  return {
    name: model.name,
    limit: { context: model.contextWindow, output: model.maxOutputTokens },
    reasoning: model.reasoning,
    attachment: model.pictures,
    modalities: { input: model.pictures ? ['text', 'image'] : ['text'], output: ['text'] },
  }
}

/**
 * A family's entry: the listed id it runs by default and each variant's, as the provider option
 * OpenCode hands the provider (`opencode models --verbose` shows them); the smallest limits of its
 * ids, since OpenCode's gauge and compaction read the model's and a variant cannot change them.
 */
function familyEntry(family: CursorModelFamily): ModelEntry {
  return {
    ...entry(family),
    options: { [CURSOR_MODEL_OPTION]: family.model },
    variants: Object.fromEntries(
      family.variants.map((variant) => [variant.name, { [CURSOR_MODEL_OPTION]: variant.model }]),
    ),
  }
}

/**
 * OpenCode's models: one per family of the listing, and each listed id the user's configuration
 * names (`kept`) that no family is called, as a model of its own; an id alone keeps the entry it
 * always had. OpenCode 1.18 drops a model whose status is `deprecated` altogether (it could not
 * run), so the other ids are not listed: each is a family's default or variant.
 */
export function modelsBlock(models: readonly CursorModel[], kept: ReadonlySet<string> = new Set()): ModelsBlock {
  const block: ModelsBlock = {}
  const listed = new Map(models.map((model) => [model.id, model]))
  for (const family of modelFamilies(models)) {
    const alone = family.variants.length === 0 ? listed.get(family.id) : undefined
    block[family.id] = alone === undefined ? familyEntry(family) : entry(alone)
  }
  for (const model of models) if (kept.has(model.id) && block[model.id] === undefined) block[model.id] = entry(model)
  return block
}
