// The server's models: the cached discovery (never waiting for cursor-agent), refreshed in the
// background. `GET /v1/models` lists them as OpenCode's picker does, one per family (in Anthropic's
// shape for a client that sends `anthropic-version`); a request's model and reasoning effort name
// the listed id its turn runs, by the addon's rule.
import type { CursorModel, CursorModelFamily } from 'opencode-cursor-native'
import { childEnvironment, dataDirectory } from '../turn/env.js'
import { cursorModels, knownModels, modelCacheFile, modelFamilies, modelToRun } from '../turn/models.js'
import type { TurnConfig } from '../turn/turn.js'

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

/** A family as OpenAI's model object, with its limits and the id each variant runs. */
function openAiModel(family: CursorModelFamily): unknown {
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
  if (anthropic)
    return {
      data: families.map((family) => ({
        type: 'model',
        id: family.id,
        display_name: family.name,
        created_at: '1970-01-01T00:00:00Z',
      })),
      has_more: false,
      first_id: families[0]?.id ?? null,
      last_id: families.at(-1)?.id ?? null,
    }
  return { object: 'list', data: families.map(openAiModel) }
}
