// The account's models as OpenCode 2's model catalog holds them (`Model.Info`, 2.0.26): one model
// per family with its variants (the addon's grouping, as 1.18's block), its limits, and a release
// date. OpenCode 2 sorts its model picker by `time.released` and puts a model released at 0 last;
// Cursor lists no dates, so each family of the table below has one, and any other id the
// catalog's default.
import type { CursorModel } from 'opencode-cursor-native'
import { CURSOR_MODEL_OPTION } from '../opencode/model-choice.js'
import { modelFamilies } from '../turn/models.js'
import type { ModelInfo } from './contract.js'

/** What an entry says of a model's limits and pictures. */
type Described = Pick<CursorModel, 'name' | 'contextWindow' | 'maxOutputTokens' | 'pictures'>

/** A family of Cursor model ids, by the prefix of the id. */
interface Family {
  prefix: string
  family: string
  /** The month the family's models in the fallback list reached Cursor, at day 1 UTC; for sorting only. */
  released: string
}

/** Longest prefix first where two overlap. */
export const FAMILIES: readonly Family[] = Object.freeze([
  { prefix: 'auto', family: 'auto', released: '2026-06-01' },
  { prefix: 'composer', family: 'composer', released: '2026-05-01' },
  { prefix: 'opus', family: 'claude-opus', released: '2026-02-01' },
  { prefix: 'sonnet', family: 'claude-sonnet', released: '2026-02-01' },
  { prefix: 'gpt', family: 'gpt', released: '2026-04-01' },
  { prefix: 'gemini', family: 'gemini', released: '2026-02-01' },
  { prefix: 'grok', family: 'grok', released: '2025-11-01' },
])

/** The release date of an id no family claims. */
export const DEFAULT_RELEASED = '2026-01-01'

/** The family an id belongs to, if any. */
export function familyOf(id: string): Family | undefined {
  return FAMILIES.find((family) => id === family.prefix || id.startsWith(`${family.prefix}-`))
}

/** `time.released` of a model: its family's date, else the default; never 0. */
export function releasedOf(id: string): number {
  return Date.parse(`${familyOf(id)?.released ?? DEFAULT_RELEASED}T00:00:00Z`)
}

/** OpenCode 2's entry for one listed id: text out; pictures in where the model sees them. */
function modelInfo(providerID: string, id: string, model: Described): ModelInfo {
  const info: ModelInfo = {
    id,
    modelID: id,
    providerID,
    name: model.name,
    capabilities: { tools: true, input: model.pictures ? ['text', 'image'] : ['text'], output: ['text'] },
    variants: [],
    time: { released: releasedOf(id) },
    // Cursor's models are paid for by the subscription, not per token.
    cost: [{ input: 0, output: 0, cache: { read: 0, write: 0 } }],
    status: 'active',
    enabled: true,
    limit: { context: model.contextWindow, output: model.maxOutputTokens },
  }
  const family = familyOf(id)?.family
  if (family !== undefined) info.family = family
  return info
}

/**
 * OpenCode 2's models: one per family of the listing, whose settings and variants' settings name
 * the listed id to run (OpenCode 2 overlays a variant's settings on the model's and hands them to
 * the provider as its provider options), an id alone as the model it always was, and every other
 * listed id as a model of its own marked `deprecated`: hidden from the picker, still run when a
 * configuration names it.
 */
export function modelInfos(providerID: string, models: readonly CursorModel[]): ModelInfo[] {
  const infos: ModelInfo[] = []
  const listed = new Map(models.map((model) => [model.id, model]))
  for (const family of modelFamilies(models)) {
    const alone = family.variants.length === 0 ? listed.get(family.id) : undefined
    if (alone !== undefined) {
      infos.push(modelInfo(providerID, family.id, alone))
      continue
    }
    infos.push({
      ...modelInfo(providerID, family.id, family),
      settings: { [CURSOR_MODEL_OPTION]: family.model },
      variants: family.variants.map((variant) => ({
        id: variant.name,
        settings: { [CURSOR_MODEL_OPTION]: variant.model },
      })),
    })
  }
  const shown = new Set(infos.map((info) => info.id))
  for (const model of models)
    if (!shown.has(model.id)) infos.push({ ...modelInfo(providerID, model.id, model), status: 'deprecated' })
  return infos
}
