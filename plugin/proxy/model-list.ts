// `GET /v1/models` and `GET /v1/models/{id}`: the cached discovery (never waiting for
// cursor-agent), refreshed in the background; in Anthropic's shape for a client that sends
// `anthropic-version`.
import { childEnvironment, dataDirectory } from '../turn/env.js'
import { cursorModels, modelCacheFile } from '../turn/models.js'
import type { TurnConfig } from '../turn/turn.js'
import { type Refusal, refusalFor } from './refusal.js'

type CursorModel = Awaited<ReturnType<typeof cursorModels>>['models'][number]

async function knownModels(config: TurnConfig): Promise<CursorModel[]> {
  const { executable } = config.settings
  const options = {
    cacheFile: modelCacheFile(dataDirectory()),
    waitMs: 0,
    env: childEnvironment(process.env, config.settings),
  }
  return (await cursorModels(executable === undefined ? options : { ...options, executable })).models
}

/** One model as each API lists it. */
function modelObject(model: CursorModel, anthropic: boolean): Record<string, unknown> {
  if (anthropic) return { type: 'model', id: model.id, display_name: model.name, created_at: '1970-01-01T00:00:00Z' }
  return {
    id: model.id,
    object: 'model',
    created: 0,
    owned_by: 'cursor',
    name: model.name,
    context_window: model.contextWindow,
    max_output_tokens: model.maxOutputTokens,
  }
}

export async function listModels(config: TurnConfig, anthropic: boolean): Promise<unknown> {
  const models = await knownModels(config)
  const data = models.map((model) => modelObject(model, anthropic))
  if (anthropic) return { data, has_more: false, first_id: models[0]?.id ?? null, last_id: models.at(-1)?.id ?? null }
  return { object: 'list', data }
}

/** The model `id` as the list shows it, or a 404 that says where the list is. */
export async function describeModel(
  config: TurnConfig,
  id: string,
  anthropic: boolean,
): Promise<{ answer: unknown } | Refusal> {
  const model = (await knownModels(config)).find((known) => known.id === id)
  if (model !== undefined) return { answer: modelObject(model, anthropic) }
  return refusalFor('E_NOT_FOUND', `The model ${JSON.stringify(id)} is not one of Cursor's: GET /v1/models lists them.`)
}
