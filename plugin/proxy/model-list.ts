// `GET /v1/models`: the cached discovery (never waiting for cursor-agent), refreshed in the
// background; in Anthropic's shape for a client that sends `anthropic-version`.
import { childEnvironment, dataDirectory } from '../turn/env.js'
import { cursorModels, modelCacheFile } from '../turn/models.js'
import type { TurnConfig } from '../turn/turn.js'

export async function listModels(config: TurnConfig, anthropic: boolean): Promise<unknown> {
  const { executable } = config.settings
  const options = {
    cacheFile: modelCacheFile(dataDirectory()),
    waitMs: 0,
    env: childEnvironment(process.env, config.settings),
  }
  const { models } = await cursorModels(executable === undefined ? options : { ...options, executable })
  if (anthropic)
    return {
      data: models.map((model) => ({
        type: 'model',
        id: model.id,
        display_name: model.name,
        created_at: '1970-01-01T00:00:00Z',
      })),
      has_more: false,
      first_id: models[0]?.id ?? null,
      last_id: models.at(-1)?.id ?? null,
    }
  return {
    object: 'list',
    data: models.map((model) => ({
      id: model.id,
      object: 'model',
      created: 0,
      owned_by: 'cursor',
      name: model.name,
      context_window: model.contextWindow,
      max_output_tokens: model.maxOutputTokens,
    })),
  }
}
