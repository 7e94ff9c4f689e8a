// What OpenCode's own tools do to their environment, as MCP's annotations say it. In tool mode
// `opencode` the bridge serves OpenCode's tools to cursor-agent and declares on each what the
// host says of it: Cursor's client (since `@cursor/sdk` 1.0.32) sends the annotations to Cursor's
// backend, where a team's MCP tool policy in `reads` mode admits a tool by its `readOnlyHint` even
// where the team overrides the user's allow rules. A hint is declared only where it holds for
// every call of the tool; a tool not in the table (another MCP server's, through OpenCode; `task`
// and `subagent`, another agent that may do anything; `todowrite`, the session's own list) gets
// none, which MCP reads as "may change anything, may reach anywhere".
import type { ToolDefinition } from '../turn/native.js'

/** MCP's tool annotations; the two in the middle mean something only on a tool that writes. */
export interface ToolAnnotations {
  readOnlyHint: boolean
  destructiveHint?: boolean
  idempotentHint?: boolean
  openWorldHint: boolean
}

const READS_LOCALLY: ToolAnnotations = { readOnlyHint: true, openWorldHint: false }
const READS_THE_WEB: ToolAnnotations = { readOnlyHint: true, openWorldHint: true }
const EDITS_FILES = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false }
const RUNS_COMMANDS: ToolAnnotations = { ...EDITS_FILES, openWorldHint: true }

/** OpenCode 1.18's and OpenCode 2's built-in tools, by name. */
export const TOOL_ANNOTATIONS: Readonly<Record<string, ToolAnnotations>> = Object.freeze({
  read: READS_LOCALLY,
  glob: READS_LOCALLY,
  grep: READS_LOCALLY,
  list: READS_LOCALLY,
  lsp: READS_LOCALLY,
  todoread: READS_LOCALLY,
  skill: READS_LOCALLY,
  webfetch: READS_THE_WEB,
  websearch: READS_THE_WEB,
  codesearch: READS_THE_WEB,
  // Writing the same content again changes nothing more.
  write: { ...EDITS_FILES, idempotentHint: true },
  edit: EDITS_FILES,
  multiedit: EDITS_FILES,
  patch: EDITS_FILES,
  apply_patch: EDITS_FILES,
  bash: RUNS_COMMANDS,
  shell: RUNS_COMMANDS,
})

/** `tools` with the annotations of each of OpenCode's own tools, for the bridge to declare. */
export function withAnnotations(tools: ToolDefinition[]): ToolDefinition[] {
  return tools.map((tool) => {
    const annotations = typeof tool.name === 'string' ? TOOL_ANNOTATIONS[tool.name] : undefined
    return annotations === undefined || tool.type !== 'function' ? tool : { ...tool, annotations }
  })
}
