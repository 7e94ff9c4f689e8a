// A request body read as JSON, refused when it nests deeper than the server reads.
import { type Refusal, refusalFor } from './refusal.js'

/**
 * How deep a request body may nest. The requests of these APIs nest a few levels (a tool's
 * schema a few more); a deeper body is refused before any of it is read further, where deep
 * recursion could exhaust the stack.
 */
export const MAX_BODY_DEPTH = 512

/** Whether `value` nests deeper than `limit` arrays and objects (counted without recursion). */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 1]]
  while (pending.length > 0) {
    const [item, depth] = pending.pop() as [unknown, number]
    if (typeof item !== 'object' || item === null) continue
    if (depth > limit) return true
    for (const child of Array.isArray(item) ? item : Object.values(item)) pending.push([child, depth + 1])
  }
  return false
}

/** A body as JSON, nested at most {@link MAX_BODY_DEPTH} deep; a refusal otherwise. */
export function readJson(body: Buffer): { value: unknown } | Refusal {
  let value: unknown
  try {
    value = JSON.parse(body.toString('utf8'))
  } catch {
    return refusalFor('E_INVALID_ARG', 'The body is not valid JSON.')
  }
  if (nestsDeeperThan(value, MAX_BODY_DEPTH))
    return refusalFor('E_INVALID_ARG', `The body nests deeper than ${MAX_BODY_DEPTH} levels of arrays and objects.`)
  return { value }
}
