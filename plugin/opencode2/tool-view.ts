// How OpenCode 2 shows the tool calls Cursor runs itself: as its own tool of that kind, in its
// own tool dialect. OpenCode 2.0.26 renamed and reshaped several of 1.18's tools
// (`core/src/tool/plugin/{read,shell}.ts`): `read {path, offset, limit}` (1.18: `filePath`),
// `shell {command, workdir, timeout, background}` (1.18: `bash`), `subagent` (1.18: `task`), and
// it has no `todowrite` and no `list` (a listing shows under its `glob`). The rows below follow those; where OpenCode 2's source was not read for a
// tool (edit, write, grep, glob, list, webfetch) the row keeps 1.18's name, with `path` for a file
// as OpenCode 2's `read` names it. The result shapes are 1.18's (`{title, output, metadata}`):
// OpenCode 2 stores a provider-executed result's JSON as text, so the fields stay readable.
import { RENDERINGS, type Rendering, renderedToolView, TODOS } from '../opencode/tool-view.js'
import type { ToolView } from '../turn/tool-view.js'

/** 1.18's to-do row under Cursor's own name: OpenCode 2 has no `todowrite`. */
const { tool: _todowrite, ...OWN_TODOS } = TODOS

/** 1.18's row for `kind`. */
function row(kind: string): Rendering {
  const rendering = RENDERINGS.get(kind)
  if (rendering === undefined) throw new Error(`no OpenCode 1.18 row for ${kind}`)
  return rendering
}

/**
 * OpenCode 2's rows where more than a file's `path` changed (`withPath` does that for every row,
 * `read` included): the ones its source was read for, over 1.18's.
 */
const OPENCODE2_CHANGES: ReadonlyArray<readonly [string, Rendering]> = [
  ['shellToolCall', { ...row('shellToolCall'), tool: 'shell' }],
  ['updateTodosToolCall', OWN_TODOS],
  ['todoToolCall', OWN_TODOS],
  // Cursor's subagent; no capture holds its arguments, so all of them are shown.
  ['taskToolCall', { tool: 'subagent', args: 'all', title: 'summary', shape: 'generic' }],
  // OpenCode 2 has no `list`: a folder's listing is shown under its `glob`, which lists files.
  ['lsToolCall', { ...row('lsToolCall'), tool: 'glob' }],
]

/** OpenCode 1.18's tool names that OpenCode 2 does not have (its `shell`, `subagent`, ... instead). */
export const OPENCODE1_ONLY_TOOLS: ReadonlySet<string> = new Set(['bash', 'task', 'todowrite', 'list'])

/** 1.18's `filePath` argument and title named `path`, as OpenCode 2 names a file. */
function withPath(rendering: Rendering): Rendering {
  const renamed = (name: string): string => (name === 'filePath' ? 'path' : name)
  return {
    ...rendering,
    ...(Array.isArray(rendering.args)
      ? { args: rendering.args.map(([from, to]) => [from, renamed(to)] as [string, string]) }
      : {}),
    ...(typeof rendering.title === 'object' ? { title: { arg: renamed(rendering.title.arg) } } : {}),
  }
}

/** Every Cursor tool kind OpenCode 2 has a tool for, or that needs its own result shaping. */
export const OPENCODE2_RENDERINGS: ReadonlyMap<string, Rendering> = new Map<string, Rendering>([
  ...[...RENDERINGS].map(([kind, rendering]) => [kind, withPath(rendering)] as [string, Rendering]),
  ...OPENCODE2_CHANGES,
])

/** OpenCode 2's view of Cursor's own calls. */
export const openCode2ToolView: ToolView = renderedToolView(OPENCODE2_RENDERINGS)
