// The model list offered to OpenCode: Cursor's own (`cursor-agent models`), cached on disk with a
// TTL so OpenCode's start is not held up by a subprocess, with a built-in list as the last resort.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { CursorAgentLookupOptions as ResolveOptions, CursorModel } from 'opencode-cursor-native'
import { native } from './native.js'

/** Offered when discovery fails and nothing was cached: widely available Cursor model ids. */
export const FALLBACK_MODELS: readonly CursorModel[] = Object.freeze([
  { id: 'auto', name: 'Auto' },
  { id: 'composer-2.5', name: 'Composer 2.5' },
  { id: 'sonnet-4.6', name: 'Claude Sonnet 4.6' },
  { id: 'sonnet-4.6-thinking', name: 'Claude Sonnet 4.6 Thinking' },
  { id: 'opus-4.6', name: 'Claude Opus 4.6' },
  { id: 'opus-4.6-thinking', name: 'Claude Opus 4.6 Thinking' },
  { id: 'gpt-5.5-high', name: 'GPT-5.5 High' },
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
  models: CursorModel[]
}

function readCache(file: string): CacheRecord | null {
  try {
    const record = JSON.parse(readFileSync(file, 'utf8')) as CacheRecord
    if (typeof record.savedAt === 'number' && Array.isArray(record.models) && record.models.length > 0) return record
  } catch {
    // No cache yet, or an unreadable one: discovery writes a new one.
  }
  return null
}

function writeCache(file: string, record: CacheRecord): void {
  try {
    mkdirSync(dirname(file), { recursive: true })
    const partial = `${file}.${process.pid}.tmp`
    writeFileSync(partial, JSON.stringify(record))
    renameSync(partial, file)
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
        if (models.length > 0) writeCache(options.cacheFile, { savedAt: now(), models })
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
 * background, refreshing the cache for the next start.
 */
export async function cursorModels(options: ModelDiscoveryOptions): Promise<ModelList> {
  const now = options.now ?? Date.now
  const cached = readCache(options.cacheFile)
  if (cached !== null && now() - cached.savedAt < (options.ttlMs ?? 6 * 3_600_000)) {
    return { models: cached.models, source: 'cache' }
  }
  const late: ModelList = cached !== null
    ? { models: cached.models, source: 'stale-cache' }
    : { models: [...FALLBACK_MODELS], source: 'fallback' }
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

export function modelCacheFile(dataDirectory: string): string {
  return join(dataDirectory, 'models.json')
}
