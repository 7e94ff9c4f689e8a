// How OpenCode 2 shows the tool calls Cursor runs itself: as its own tool of that kind, in its
// own tool dialect. OpenCode 2.0.26 renamed and reshaped several of 1.18's tools
// (`core/src/tool/plugin/{read,shell}.ts`): `read {path, offset, limit}` (1.18: `filePath`),
// `shell {command, workdir, timeout, background}` (1.18: `bash`), `subagent` (1.18: `task`), and
// it has no `todowrite`. The rows below follow those; where OpenCode 2's source was not read for a
// tool (edit, write, grep, glob, list, webfetch) the row keeps 1.18's name, with `path` for a file
// as OpenCode 2's `read` names it. The result shapes are 1.18's (`{title, output, metadata}`):
// OpenCode 2 stores a provider-executed result's JSON as text, so the fields stay readable.
import { type Rendering, renderedToolView, TODOS } from '../opencode/tool-view.js'
import type { ToolView } from '../turn/tool-view.js'

/** 1.18's to-do row under Cursor's own name: OpenCode 2 has no `todowrite`. */
const { tool: _todowrite, ...OWN_TODOS } = TODOS

/** Every Cursor tool kind OpenCode 2 has a tool for, or that needs its own result shaping. */
export const OPENCODE2_RENDERINGS: ReadonlyMap<string, Rendering> = new Map<string, Rendering>([
  [
    'shellToolCall',
    {
      tool: 'shell',
      args: [
        ['command', 'command'],
        ['workingDirectory', 'workdir'],
        ['description', 'description'],
      ],
      title: { arg: 'command' },
      shape: 'shell',
    },
  ],
  [
    'readToolCall',
    {
      tool: 'read',
      args: [
        ['path', 'path'],
        ['offset', 'offset'],
        ['limit', 'limit'],
      ],
      title: { arg: 'path' },
      shape: 'read',
    },
  ],
  ['editToolCall', { tool: 'edit', args: [['path', 'path']], title: { arg: 'path' }, shape: 'edit' }],
  [
    'writeToolCall',
    {
      tool: 'write',
      args: [
        ['path', 'path'],
        ['fileText', 'content'],
      ],
      title: { arg: 'path' },
      shape: 'write',
    },
  ],
  [
    'grepToolCall',
    {
      tool: 'grep',
      args: [
        ['pattern', 'pattern'],
        ['path', 'path'],
        ['glob', 'include'],
      ],
      title: { arg: 'pattern' },
      shape: 'grep',
    },
  ],
  [
    'globToolCall',
    {
      tool: 'glob',
      args: [
        ['globPattern', 'pattern'],
        ['targetDirectory', 'path'],
      ],
      title: { arg: 'pattern' },
      shape: 'glob',
    },
  ],
  ['lsToolCall', { tool: 'list', args: [['path', 'path']], title: { arg: 'path' }, shape: 'list' }],
  ['updateTodosToolCall', OWN_TODOS],
  ['todoToolCall', OWN_TODOS],
  ['webFetchToolCall', { tool: 'webfetch', args: [['url', 'url']], title: { arg: 'url' }, shape: 'webfetch' }],
  ['deleteToolCall', { tool: 'delete', args: [['path', 'path']], title: { arg: 'path' }, shape: 'generic' }],
  // Cursor's subagent; no capture holds its arguments, so all of them are shown.
  ['taskToolCall', { tool: 'subagent', args: 'all', title: 'summary', shape: 'generic' }],
  ['mcpToolCall', { args: 'mcp', title: 'summary', shape: 'mcp' }],
])

/** OpenCode 2's view of Cursor's own calls. */
export const openCode2ToolView: ToolView = renderedToolView(OPENCODE2_RENDERINGS)
