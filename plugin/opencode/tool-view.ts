// How OpenCode 1.18 shows the tool calls Cursor runs itself: as its own tool of that kind.
//
// OpenCode renders a tool part by its tool name, and each renderer reads fixed fields:
// `state.input.filePath` (read, edit, write), `state.input.command` and `state.metadata.output` /
// `exit` (bash), `state.input.pattern` and `state.metadata.count` / `matches` (glob, grep),
// `state.metadata.diff` (edit), `state.input.todos` (todowrite), `state.input.url` (webfetch). A
// tool it has no renderer for is shown with its name, its scalar arguments and `state.title`. For a
// provider-executed `tool-result`, OpenCode stores a `result` of the shape `{title, output,
// metadata}` as exactly those fields, and the result of a failed call (`isError`) as the error
// text.
//
// So each Cursor tool kind has one row in RENDERINGS: the OpenCode tool whose renderer fits, the
// arguments that renderer reads (renamed to OpenCode's names; the others are left out), where the
// title comes from, and how Cursor's result becomes `output` and `metadata` (tool-output.ts).
import type { JsonValue } from 'opencode-cursor-native'
import type { CursorResult, CursorTool, JsonObject, ToolView } from '../turn/tool-view.js'
import { failureText, type Shape, scalarText, shapeResult, todoList } from './tool-output.js'

/** Where a part's title comes from. */
export type Title =
  /** An argument, in OpenCode's name. */
  | { arg: string }
  /** `<n> todos`, counting the ones not completed (as OpenCode's `todowrite` does). */
  | 'open todos'
  /** The first descriptive argument present, else the arguments as `name=value` pairs. */
  | 'summary'

/** Which arguments OpenCode is given. */
export type Arguments =
  /** Cursor argument -> OpenCode argument, in display order; any other argument is left out. */
  | ReadonlyArray<readonly [cursor: string, opencode: string]>
  /** Every argument but Cursor's own bookkeeping (BOOKKEEPING_ARGS). */
  | 'all'
  /** An MCP call: the MCP tool's own arguments (Cursor's `args`). */
  | 'mcp'

/** What one Cursor tool kind looks like in OpenCode. */
export interface Rendering {
  /** OpenCode's tool; absent: the call's own name (`<server>_<tool>` for MCP, as OpenCode names its own MCP tools). */
  tool?: string
  args: Arguments
  title: Title
  shape: Shape
}

export const TODOS: Rendering = { tool: 'todowrite', args: [['todos', 'todos']], title: 'open todos', shape: 'todos' }

/** Every Cursor tool kind that OpenCode has a renderer for, or that needs its own result shaping. */
export const RENDERINGS: ReadonlyMap<string, Rendering> = new Map<string, Rendering>([
  [
    'shellToolCall',
    {
      tool: 'bash',
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
        ['path', 'filePath'],
        ['offset', 'offset'],
        ['limit', 'limit'],
      ],
      title: { arg: 'filePath' },
      shape: 'read',
    },
  ],
  ['editToolCall', { tool: 'edit', args: [['path', 'filePath']], title: { arg: 'filePath' }, shape: 'edit' }],
  [
    'writeToolCall',
    {
      tool: 'write',
      args: [
        ['path', 'filePath'],
        ['fileText', 'content'],
      ],
      title: { arg: 'filePath' },
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
  ['updateTodosToolCall', TODOS],
  ['todoToolCall', TODOS],
  ['webFetchToolCall', { tool: 'webfetch', args: [['url', 'url']], title: { arg: 'url' }, shape: 'webfetch' }],
  ['deleteToolCall', { tool: 'delete', args: [['path', 'path']], title: { arg: 'path' }, shape: 'generic' }],
  ['mcpToolCall', { args: 'mcp', title: 'summary', shape: 'mcp' }],
])

/** Any other kind: its own name, its arguments, a summary title. */
const GENERIC: Rendering = { args: 'all', title: 'summary', shape: 'generic' }

/** Arguments Cursor adds for its own bookkeeping, left out of a generic call's input. */
const BOOKKEEPING_ARGS: ReadonlySet<string> = new Set(['toolCallId', 'conversationId', 'requestId'])

/** Arguments that describe a call best, in order (OpenCode's generic renderer picks the same). */
const DESCRIPTIVE_ARGS = ['description', 'query', 'url', 'filePath', 'path', 'pattern', 'command', 'name']

/** The row of a Cursor tool kind. */
export function renderingOf(kind: string, renderings: ReadonlyMap<string, Rendering> = RENDERINGS): Rendering {
  return renderings.get(kind) ?? GENERIC
}

/** Every Cursor kind with a row of its own. */
export const RENDERED_KINDS: readonly string[] = [...RENDERINGS.keys()]

/** Cursor leaves an argument empty for "the default" (`workingDirectory: ""`: the workspace). */
const isGiven = (value: JsonValue | undefined): value is JsonValue =>
  value !== undefined && value !== null && value !== ''

function shownArguments(rendering: Rendering, args: JsonObject): JsonObject {
  const input: JsonObject = {}
  if (rendering.args === 'mcp') {
    const own = args.args
    return typeof own === 'object' && own !== null && !Array.isArray(own) ? { ...own } : input
  }
  if (rendering.args === 'all') {
    for (const [key, value] of Object.entries(args))
      if (!BOOKKEEPING_ARGS.has(key) && isGiven(value)) input[key] = value
    return input
  }
  for (const [cursor, opencode] of rendering.args) {
    const value = Object.hasOwn(args, cursor) ? args[cursor] : undefined
    if (isGiven(value)) input[opencode] = value
  }
  if (rendering.shape === 'todos' && input.todos !== undefined) input.todos = todoList(input.todos)
  return input
}

/** The first descriptive argument, else every scalar argument as `name=value`, by name. */
function summary(input: JsonObject): string | undefined {
  for (const arg of DESCRIPTIVE_ARGS) {
    const text = Object.hasOwn(input, arg) ? scalarText(input[arg]) : undefined
    if (text !== undefined) return text.trim() === '' ? pairs(input) : text
  }
  return pairs(input)
}

function pairs(input: JsonObject): string | undefined {
  const shown = Object.keys(input)
    .sort()
    .flatMap((key) => {
      const text = scalarText(input[key])
      return text === undefined ? [] : [`${key}=${text}`]
    })
  return shown.length === 0 ? undefined : shown.join(', ')
}

function titleOf(rendering: Rendering, tool: string, input: JsonObject): string {
  let title: string | undefined
  if (rendering.title === 'summary') title = summary(input)
  else if (rendering.title === 'open todos') {
    const open = todoList(input.todos).filter((todo) => todo.status !== 'completed').length
    title = `${open} todos`
  } else title = Object.hasOwn(input, rendering.title.arg) ? scalarText(input[rendering.title.arg]) : undefined
  // Never an empty line: without a title, the tool's name.
  return title === undefined || title.trim() === '' ? tool : title
}

/** A host's view of Cursor's own calls from its table of renderings (one row per Cursor tool kind). */
export function renderedToolView(renderings: ReadonlyMap<string, Rendering>): ToolView {
  const toolName = (tool: CursorTool): string => {
    const rendering = renderingOf(tool.kind, renderings)
    if (rendering.tool !== undefined) return rendering.tool
    return rendering.args === 'mcp' && tool.server !== undefined ? `${tool.server}_${tool.name}` : tool.name
  }
  return {
    toolName,
    input: (tool: CursorTool, args: JsonObject): JsonObject => shownArguments(renderingOf(tool.kind, renderings), args),
    result(tool: CursorTool, input: JsonObject, result: CursorResult, isError: boolean): JsonValue {
      if (isError) return failureText(result)
      const rendering = renderingOf(tool.kind, renderings)
      const { output, metadata } = shapeResult(rendering.shape, result, input)
      return { title: titleOf(rendering, toolName(tool), input), output, metadata }
    },
  }
}

/** OpenCode 1.18's view of Cursor's own calls. */
export const openCodeToolView: ToolView = renderedToolView(RENDERINGS)
