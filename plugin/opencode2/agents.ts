// OpenCode 2's agents as this host reads them: each agent's permission rules (`Agent.Info`
// `permissions`, `{action, resource, effect}`, the last match wins), in the shape the OpenCode
// host reads an agent's turn from.
import * as v from 'valibot'
import type { PermissionRule } from '../opencode/agent-access.js'

const AGENT_INFO = v.looseObject({
  id: v.string(),
  permissions: v.array(v.object({ action: v.string(), resource: v.string(), effect: v.string() })),
})

/** Each readable agent's rules by its id; an agent of another shape is left out. */
export function agentRules(agents: readonly unknown[]): Map<string, PermissionRule[]> {
  const rules = new Map<string, PermissionRule[]>()
  for (const entry of agents) {
    const agent = v.safeParse(AGENT_INFO, entry)
    if (!agent.success) continue
    const read = agent.output.permissions.map(({ action, resource, effect }) => ({
      permission: action,
      pattern: resource,
      action: effect,
    }))
    rules.set(agent.output.id, read)
  }
  return rules
}
