// A request body read as JSON, refused when it nests deeper than the addon reads a conversation
// (`MAX_JSON_DEPTH`): before any of it is walked further, where deep recursion could exhaust the
// stack.
import { native } from '../turn/native.js'
import { type Refusal, refusalFor } from './refusal.js'

/** Whether `value` nests deeper than `limit` arrays and objects (counted without recursion). */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 1]]
  while (pending.length > 0) {
    const [item, depth] = pending.pop() as [unknown, number]
    if (typeof item !== 'object' || item === null) continue
    if (depth > limit) return true
    for (const child of Array.isArray(item) ? item : Object.values(item)) pending.push([child, depth + 1])
  }
  return false
}

/** A body as JSON, nested at most as deep as the addon reads; a refusal otherwise. */
export function readJson(body: Buffer): { value: unknown } | Refusal {
  let value: unknown
  try {
    value = JSON.parse(body.toString('utf8'))
  } catch {
    return refusalFor('E_INVALID_ARG', 'The body is not valid JSON.')
  }
  const limit = native().MAX_JSON_DEPTH
  if (nestsDeeperThan(value, limit))
    return refusalFor('E_INVALID_ARG', `The body nests deeper than ${limit} levels of arrays and objects.`)
  return { value }
}
