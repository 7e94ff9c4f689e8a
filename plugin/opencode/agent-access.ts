// What an OpenCode agent may do, read from its permission rules, and what that asks of Cursor's
// run for the agent's turns: an agent that may not edit files runs Cursor read-only, one that may
// not run commands runs it without `--force`. OpenCode's own words (agent names, permission
// names, rule shapes) stay here; the mode and the command line each choice makes are the addon's.
import * as v from 'valibot'

/** One permission rule as OpenCode 1.18 lists an agent's: the last rule that matches wins. */
export interface PermissionRule {
  permission: string
  pattern: string
  action: string
}

/** What a turn of the agent asks of Cursor's run (the per-call options of the provider). */
export interface AgentTurn {
  /** `true`: the run may not edit (`RunCursorAgentOptions.readOnly`). */
  cursorReadOnly?: true
  /** `false`: no `--force` whatever the settings say. */
  cursorForce?: false
}

/** OpenCode's built-in planning agent: read-only even when its rules cannot be read. */
const BUILT_IN_PLAN_AGENT = 'plan'

/**
 * Each permission whose denial on every file or command Cursor can be told (by any of its names:
 * OpenCode 2 calls the shell `shell`), and what it asks of the run. A denied `webfetch` has no
 * entry: Cursor fetches and searches the web on its server, which no local setting reaches.
 */
const DENIALS: ReadonlyArray<readonly [permissions: readonly string[], turn: AgentTurn]> = [
  [['edit'], { cursorReadOnly: true }],
  [['bash', 'shell'], { cursorForce: false }],
]

/**
 * What the rules give `permission` on every path or command: the action of the last rule for it
 * (or for every permission, `*`) whose pattern is `*`; `ask` when none is. A rule for some paths
 * only (the Plan agent may edit its own plan files) does not make the agent one that edits.
 */
export function actionOnEverything(rules: readonly PermissionRule[], permission: string): string {
  let action = 'ask'
  for (const rule of rules) {
    if ((rule.permission === permission || rule.permission === '*') && rule.pattern === '*') action = rule.action
  }
  return action
}

/** What a turn of agent `name` asks of Cursor; `rules` undefined when they could not be read. */
export function agentTurn(name: string, rules: readonly PermissionRule[] | undefined): AgentTurn {
  if (rules === undefined) return name === BUILT_IN_PLAN_AGENT ? { cursorReadOnly: true } : {}
  const turn: AgentTurn = {}
  for (const [permissions, asks] of DENIALS) {
    if (permissions.some((permission) => actionOnEverything(rules, permission) === 'deny')) Object.assign(turn, asks)
  }
  return turn
}

/** An agent as OpenCode 1.18's `GET /agent` lists it: the fields read here. */
const LISTED_AGENT = v.looseObject({
  name: v.string(),
  permission: v.array(v.object({ permission: v.string(), pattern: v.string(), action: v.string() })),
})

/** The rules of agent `name` in OpenCode 1.18's list of agents; undefined when not found or unreadable. */
export function listedRules(listed: unknown, name: string): PermissionRule[] | undefined {
  if (!Array.isArray(listed)) return undefined
  for (const entry of listed) {
    const agent = v.safeParse(LISTED_AGENT, entry)
    if (agent.success && agent.output.name === name) return agent.output.permission
  }
  return undefined
}
