// The model list offered to OpenCode: Cursor's own (`cursor-agent models`), cached on disk with a
// TTL so OpenCode's start is not held up by a subprocess, with a built-in list as the last resort.
// Every model answered carries the addon's current limits and `reasoning`, also when the list
// comes from a cache an older version wrote or from the built-in list.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { CursorModel, CursorModelFamily, CursorAgentLookupOptions as ResolveOptions } from 'opencode-cursor-native'
import { native } from './native.js'

/** A model as `cursor-agent models` names it. */
export type ModelName = Pick<CursorModel, 'id' | 'name'>

/** Offered when discovery fails and nothing was cached: widely available Cursor model ids. */
export const FALLBACK_MODELS: readonly ModelName[] = Object.freeze([
  { id: 'auto', name: 'Auto' },
  { id: 'composer-2.5', name: 'Composer 2.5' },
  { id: 'sonnet-4.6', name: 'Claude Sonnet 4.6' },
  { id: 'sonnet-4.6-thinking', name: 'Claude Sonnet 4.6 Thinking' },
  { id: 'opus-4.6', name: 'Claude Opus 4.6' },
  { id: 'opus-4.6-thinking', name: 'Claude Opus 4.6 Thinking' },
  { id: 'gpt-5.5-high', name: 'GPT-5.5 1M High' },
  { id: 'gpt-5.3-codex', name: 'GPT-5.3 Codex' },
  { id: 'gemini-3.1-pro', name: 'Gemini 3.1 Pro' },
  { id: 'gemini-3-flash', name: 'Gemini 3 Flash' },
  { id: 'grok', name: 'Grok' },
])

export interface ModelDiscoveryOptions extends ResolveOptions {
  /** Where the list is cached between OpenCode starts. */
  cacheFile: string
  /** How long a cached list is used without asking Cursor again; default 6 hours. */
  ttlMs?: number
  /** The longest OpenCode's start waits for `cursor-agent models`; default 1500 ms. */
  waitMs?: number
  now?: () => number
}

export interface ModelList {
  models: CursorModel[]
  source: 'cache' | 'cursor' | 'stale-cache' | 'fallback'
}

interface CacheRecord {
  savedAt: number
  models: ModelName[]
}

/** The addon's entry for each model, so a kept list never carries outdated or missing limits. */
function described(models: readonly ModelName[]): CursorModel[] {
  return models.map(({ id, name }) => native().describeCursorModel(id, name))
}

/** The models as a picker shows them: one per family with its variants, by the addon's rule. */
export function modelFamilies(models: readonly ModelName[]): CursorModelFamily[] {
  return native().groupCursorModels(models.map(({ id, name }) => ({ id, name })))
}

/** The listed id a request for `model` with a reasoning `effort` runs, by the addon's rule. */
export function modelToRun(models: readonly ModelName[], model: string, effort?: string): string {
  return native().cursorModelToRun(
    models.map(({ id, name }) => ({ id, name })),
    model,
    effort,
  )
}

/**
 * Cursor's automatic model alone, as the addon describes it: what a host registers before any
 * list. When the addon does not load, nothing can run and its limits are unknown (0).
 */
export function autoOnly(): CursorModel[] {
  const auto = FALLBACK_MODELS[0] as ModelName
  try {
    return described([auto])
  } catch {
    return [{ ...auto, contextWindow: 0, maxOutputTokens: 0, reasoning: false, pictures: false }]
  }
}

function readCache(file: string): CacheRecord | null {
  try {
    const record = JSON.parse(readFileSync(file, 'utf8')) as CacheRecord
    const named = (model: Partial<ModelName> | null): boolean =>
      typeof model?.id === 'string' && model.id.trim() !== '' && typeof model.name === 'string'
    if (
      typeof record.savedAt === 'number' &&
      Array.isArray(record.models) &&
      record.models.length > 0 &&
      record.models.every(named)
    ) {
      return record
    }
  } catch {
    // No cache yet, or an unreadable one: discovery writes a new one.
  }
  return null
}

function writeCache(file: string, record: CacheRecord): void {
  try {
    native().writePrivateFile(file, JSON.stringify(record))
  } catch {
    // A read-only data folder only costs a slower next start.
  }
}

const inFlight = new Map<string, Promise<CursorModel[]>>()

function discover(options: ModelDiscoveryOptions, now: () => number): Promise<CursorModel[]> {
  let pending = inFlight.get(options.cacheFile)
  if (pending === undefined) {
    const query: ResolveOptions = {}
    if (options.executable !== undefined) query.executable = options.executable
    if (options.env !== undefined) query.env = options.env
    pending = Promise.resolve()
      .then(() => native().listCursorModels(query))
      .then((models) => {
        if (models.length > 0)
          writeCache(options.cacheFile, { savedAt: now(), models: models.map(({ id, name }) => ({ id, name })) })
        return models
      })
      .finally(() => inFlight.delete(options.cacheFile))
    inFlight.set(options.cacheFile, pending)
  }
  return pending
}

/**
 * A fresh cache is answered at once. Otherwise Cursor is asked, for at most `waitMs`; when it is
 * slower the stale cache (or the built-in list) is answered and the discovery finishes in the
 * background, refreshing the cache for the next start. Throws only when the addon cannot load.
 */
export async function cursorModels(options: ModelDiscoveryOptions): Promise<ModelList> {
  const now = options.now ?? Date.now
  const cached = readCache(options.cacheFile)
  if (cached !== null && now() - cached.savedAt < (options.ttlMs ?? 6 * 3_600_000)) {
    return { models: described(cached.models), source: 'cache' }
  }
  const late: ModelList =
    cached !== null
      ? { models: described(cached.models), source: 'stale-cache' }
      : { models: described(FALLBACK_MODELS), source: 'fallback' }
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<ModelList>((settle) => {
    timer = setTimeout(() => settle(late), options.waitMs ?? 1500)
    timer.unref?.()
  })
  const discovered = discover(options, now).then(
    (models): ModelList => (models.length > 0 ? { models, source: 'cursor' } : late),
    (): ModelList => late,
  )
  try {
    return await Promise.race([discovered, deadline])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * The models last discovered (a cache of any age), else the built-in list, without asking Cursor:
 * what a request is resolved against, with no process started on its way.
 */
export function knownModels(cacheFile: string): ModelName[] {
  return readCache(cacheFile)?.models ?? [...FALLBACK_MODELS]
}

export function modelCacheFile(dataDirectory: string): string {
  return join(dataDirectory, 'models.json')
}
