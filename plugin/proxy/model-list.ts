// The server's models: the cached discovery (never waiting for cursor-agent), refreshed in the
// background. `GET /v1/models` lists them as OpenCode's picker does, one per family, and
// `GET /v1/models/{id}` shows one (in Anthropic's shape for a client that sends
// `anthropic-version`); a request's model and reasoning effort name the listed id its turn runs, by
// the addon's rule.
import type { CursorModel, CursorModelFamily } from 'opencode-cursor-native'
import { childEnvironment, dataDirectory } from '../turn/env.js'
import { cursorModels, knownModels, modelCacheFile, modelFamilies, modelToRun } from '../turn/models.js'
import type { TurnConfig } from '../turn/turn.js'
import { type Refusal, refusalFor } from './refusal.js'

async function listedModels(config: TurnConfig): Promise<CursorModel[]> {
  const { executable } = config.settings
  const options = {
    cacheFile: modelCacheFile(dataDirectory()),
    waitMs: 0,
    env: childEnvironment(process.env, config.settings),
  }
  return (await cursorModels(executable === undefined ? options : { ...options, executable })).models
}

/**
 * The listed id a request runs: a family's rung for `effort` when Cursor lists one, a family's
 * default, or the model as named (every listed id among them). Read against the models last
 * discovered (by `GET /v1/models` and OpenCode's start), so that no request waits for
 * cursor-agent's list nor starts it.
 */
export function modelForRequest(model: string, effort?: string): string {
  return modelToRun(knownModels(modelCacheFile(dataDirectory())), model, effort)
}

/** A family as each API lists it; OpenAI's object names its limits and the id each variant runs. */
function familyObject(family: CursorModelFamily, anthropic: boolean): Record<string, unknown> {
  if (anthropic) return { type: 'model', id: family.id, display_name: family.name, created_at: '1970-01-01T00:00:00Z' }
  return {
    id: family.id,
    object: 'model',
    created: 0,
    owned_by: 'cursor',
    name: family.name,
    context_window: family.contextWindow,
    max_output_tokens: family.maxOutputTokens,
    cursor_model: family.model,
    variants: family.variants.map((variant) => ({ name: variant.name, cursor_model: variant.model })),
  }
}

export async function listModels(config: TurnConfig, anthropic: boolean): Promise<unknown> {
  const families = modelFamilies(await listedModels(config))
  const data = families.map((family) => familyObject(family, anthropic))
  if (anthropic)
    return { data, has_more: false, first_id: families[0]?.id ?? null, last_id: families.at(-1)?.id ?? null }
  return { object: 'list', data }
}

/**
 * The model `id` as the list shows it: a family, or an id Cursor lists (which runs as named) as a
 * model of its own; else a 404 that says where the list is.
 */
export async function describeModel(
  config: TurnConfig,
  id: string,
  anthropic: boolean,
): Promise<{ answer: unknown } | Refusal> {
  const listed = await listedModels(config)
  const families = modelFamilies(listed)
  const family =
    families.find((known) => known.id === id) ??
    modelFamilies(listed.filter((model) => model.id === id)).find((alone) => alone.id === id)
  if (family !== undefined) return { answer: familyObject(family, anthropic) }
  return refusalFor('E_NOT_FOUND', `The model ${JSON.stringify(id)} is not one of Cursor's: GET /v1/models lists them.`)
}
