// How Cursor's result of each tool kind becomes what OpenCode 1.18's renderers read: the
// `output` and `metadata` of a completed call, or the error text of a failed one. Cursor's result
// is `{status, ...the variant's fields}` (see `StreamPart` in index.d.ts).
import type { JsonValue } from 'opencode-cursor-native'
import { type CursorResult, type JsonObject, sortedJson } from '../turn/tool-view.js'

/** The shapes of results OpenCode's renderers read; a row of tool-view.ts names one. */
export type Shape =
  | 'shell'
  | 'read'
  | 'edit'
  | 'write'
  | 'grep'
  | 'glob'
  | 'list'
  | 'todos'
  | 'webfetch'
  | 'mcp'
  | 'generic'

export interface ShownResult {
  output: string
  metadata: JsonObject
}

/** Result fields that hold a generic tool's readable output, in order. */
const OUTPUT_FIELDS = ['output', 'content', 'markdown', 'results', 'message', 'text', 'stdout']

/** Cursor's todo statuses and OpenCode's. */
const TODO_STATUSES: ReadonlyMap<string, string> = new Map([
  ['TODO_STATUS_PENDING', 'pending'],
  ['TODO_STATUS_IN_PROGRESS', 'in_progress'],
  ['TODO_STATUS_COMPLETED', 'completed'],
  ['TODO_STATUS_CANCELLED', 'cancelled'],
])

/** The deepest generic result still shown indented: indentation grows with depth on every line, so
 * a deep result would print quadratically large. */
const PRETTY_MAX_DEPTH = 16

/** The fields of a failed call's result that say why, in order. */
const REASON_FIELDS = ['reason', 'error', 'message']

/** Where a file list names a file, in an object entry. */
const FILE_NAME_FIELDS = ['path', 'relPath', 'file', 'name']

const isObject = (value: JsonValue | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** An own field (never one of `Object.prototype`'s). */
const field = (object: JsonValue | undefined, key: string): JsonValue | undefined =>
  isObject(object) && Object.hasOwn(object, key) ? object[key] : undefined

/** `value`, or `fallback` when there is none (a `null` Cursor sent stays). */
const ifAbsent = (value: JsonValue | undefined, fallback: JsonValue): JsonValue =>
  value === undefined ? fallback : value

/** A string field, else `''`. */
const text = (object: JsonObject, key: string): string => {
  const value = field(object, key)
  return typeof value === 'string' ? value : ''
}

const list = (value: JsonValue | undefined): JsonValue[] => (Array.isArray(value) ? value : [])

/** A whole number of at least 0, as Cursor counts lines and files. */
const count = (value: JsonValue | undefined): number | undefined =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined

/** A count protobuf's JSON may write as a string (an int64, such as `elidedChars`). */
const wideCount = (value: JsonValue | undefined): number | undefined =>
  typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : count(value)

/**
 * A shell's output as Cursor kept it: the whole of it, or (`@cursor/sdk` 1.0.32) its head and
 * tail with how many characters Cursor left out between them, said where they were.
 */
function shellOutput(result: JsonObject): { output: string; elided?: number } {
  const interleaved = text(result, 'interleavedOutput')
  const whole = interleaved !== '' ? interleaved : text(result, 'stdout') + text(result, 'stderr')
  const elided = wideCount(field(result, 'elidedChars'))
  const [head, tail] = [text(result, 'outputHead'), text(result, 'outputTail')]
  if (elided === undefined || elided === 0 || (head === '' && tail === '')) return { output: whole }
  const gap = `[… ${elided} characters of output left out by Cursor …]`
  const output = `${head}${head === '' || head.endsWith('\n') ? '' : '\n'}${gap}\n${tail}`
  return { output, elided }
}

/** A scalar as text; `undefined` for `null`, an array or an object. */
export function scalarText(value: JsonValue | undefined): string | undefined {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return undefined
}

/** OpenCode's todo shape (`content`, `id`, `status`) from Cursor's. */
export function todoList(todos: JsonValue | undefined): JsonObject[] {
  return list(todos).flatMap((todo) => {
    const content = field(todo, 'content')
    if (typeof content !== 'string') return []
    const cursorStatus = field(todo, 'status')
    const status = typeof cursorStatus === 'string' ? (TODO_STATUSES.get(cursorStatus) ?? cursorStatus) : ''
    const id = field(todo, 'id')
    const entry: JsonObject = id === undefined ? { content, status } : { content, id, status }
    return [entry]
  })
}

/** A file entry: a path, or an object naming it. */
function fileName(entry: JsonValue): string | undefined {
  if (typeof entry === 'string') return entry
  for (const key of FILE_NAME_FIELDS) {
    const name = field(entry, key)
    if (typeof name === 'string') return name
  }
  return undefined
}

/** MCP content as text: each text entry, and a line per image. */
function contentText(content: JsonValue[]): string {
  return content
    .flatMap((entry) => {
      const nested = field(field(entry, 'text'), 'text')
      if (typeof nested === 'string') return [nested]
      const plain = field(entry, 'text')
      if (typeof plain === 'string') return [plain]
      const mime = field(field(entry, 'image'), 'mimeType')
      return typeof mime === 'string' ? [`[image ${mime}]`] : []
    })
    .join('\n')
}

/** The nesting depth of `value` (a scalar is 0), measured without recursion. */
function depthOf(value: JsonValue): number {
  let deepest = 0
  const pending: Array<[JsonValue, number]> = [[value, 1]]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, depth] = next
    if (typeof item !== 'object' || item === null) continue
    deepest = Math.max(deepest, depth)
    for (const child of Object.values(item)) pending.push([child, depth + 1])
  }
  return deepest
}

/** The result's fields other than its variant. */
function withoutStatus(result: JsonObject): JsonObject {
  const { status: _status, ...rest } = result
  return rest
}

/** A readable output field, else the result's fields as JSON (compact past a readable depth). */
function genericOutput(result: JsonObject): string {
  for (const key of OUTPUT_FIELDS) {
    const value = field(result, key)
    if (typeof value === 'string') return value
  }
  const rest = withoutStatus(result)
  if (Object.keys(rest).length === 0) return ''
  const indent = depthOf(rest) > PRETTY_MAX_DEPTH ? undefined : 2
  return sortedJson(rest, indent) ?? '(a result nested too deeply to show)'
}

/** Why a call failed, in Cursor's words: its `reason`, `error` or `message`, else its content,
 * else its variant and fields. */
export function failureText(result: CursorResult): string {
  for (const key of REASON_FIELDS) {
    const reason = field(result, key)
    if (typeof reason === 'string' && reason.trim() !== '') return reason
  }
  const content = field(result, 'content')
  if (Array.isArray(content)) {
    const shown = contentText(content)
    if (shown !== '') return shown
  }
  const status = typeof result.status === 'string' ? result.status : 'unknown'
  const rest = withoutStatus(result)
  if (Object.keys(rest).length === 0) return `Cursor reported the call as ${status}.`
  return `Cursor reported the call as ${status}: ${sortedJson(rest) ?? '(fields nested too deeply to show)'}`
}

/** Grep matches as OpenCode lists them (`<file>:` then `  Line <n>: <text>`), and their count. */
function grepOutput(result: JsonObject): { output: string; matches: number } {
  const lines: string[] = []
  let matches = 0
  const roots = field(result, 'workspaceResults')
  const rootNames = isObject(roots) ? Object.keys(roots).sort() : []
  for (const rootName of rootNames) {
    const root = field(roots, rootName)
    for (const file of list(field(field(root, 'content'), 'matches'))) {
      const name = field(file, 'file')
      lines.push(`${typeof name === 'string' ? name : ''}:`)
      for (const hit of list(field(file, 'matches'))) {
        if (field(hit, 'isContextLine') === true) continue
        matches++
        const content = field(hit, 'content')
        lines.push(
          `  Line ${scalarText(field(hit, 'lineNumber')) ?? ''}: ${typeof content === 'string' ? content : ''}`,
        )
      }
    }
    for (const entry of list(field(field(root, 'files'), 'files'))) {
      const name = fileName(entry)
      if (name === undefined) continue
      matches++
      lines.push(name)
    }
  }
  return lines.length === 0 ? { output: 'No matches found', matches: 0 } : { output: lines.join('\n'), matches }
}

/** One line per directory (`name/`) and file, indented by depth. */
function treeLines(node: JsonValue, depth: number, lines: string[]): void {
  const indent = '  '.repeat(depth)
  const named = Object.hasOwn(isObject(node) ? node : {}, 'absPath') ? field(node, 'absPath') : field(node, 'name')
  const path = typeof named === 'string' ? named : ''
  const name = depth === 0 ? path : path.slice(path.lastIndexOf('/') + 1)
  lines.push(`${indent}${name.replace(/\/+$/, '')}/`)
  for (const dir of list(field(node, 'childrenDirs'))) treeLines(dir, depth + 1, lines)
  for (const file of list(field(node, 'childrenFiles'))) {
    const fileShown = fileName(file)
    if (fileShown !== undefined) lines.push(`${indent}  ${fileShown}`)
  }
}

/** The shaping of each kind of result: Cursor's result and the input OpenCode was shown. */
const SHAPES: Readonly<Record<Shape, (result: JsonObject, input: JsonObject) => ShownResult>> = {
  shell(result, input) {
    const { output, elided } = shellOutput(result)
    const metadata: JsonObject = { output, exit: field(result, 'exitCode') ?? null }
    if (elided !== undefined) metadata.elidedChars = elided
    const description = field(input, 'description')
    if (description !== undefined) metadata.description = description
    return { output, metadata }
  },
  read: (result) => ({
    output: text(result, 'content'),
    metadata: { truncated: field(result, 'exceededLimit') === true },
  }),
  edit(result, input) {
    const metadata: JsonObject = { diagnostics: {} }
    const diff = text(result, 'diffString')
    if (diff !== '') {
      metadata.diff = diff
      metadata.filediff = {
        file: ifAbsent(field(result, 'path'), field(input, 'filePath') ?? null),
        patch: diff,
        additions: ifAbsent(field(result, 'linesAdded'), 0),
        deletions: ifAbsent(field(result, 'linesRemoved'), 0),
      }
    }
    const message = text(result, 'message')
    return { output: message !== '' ? message : 'Edit applied.', metadata }
  },
  write(result) {
    const lines = count(field(result, 'linesCreated'))
    return {
      output: lines === undefined ? 'Wrote the file.' : `Wrote ${lines} lines.`,
      metadata: { diagnostics: {} },
    }
  },
  grep(result) {
    const { output, matches } = grepOutput(result)
    return { output, metadata: { matches, truncated: false } }
  },
  glob(result) {
    const files = list(field(result, 'files')).flatMap((entry) => fileName(entry) ?? [])
    const truncated = field(result, 'clientTruncated') === true || field(result, 'ripgrepTruncated') === true
    return {
      output: files.length === 0 ? 'No files found' : files.join('\n'),
      metadata: { count: count(field(result, 'totalFiles')) ?? files.length, truncated },
    }
  },
  list(result) {
    const root = field(result, 'directoryTreeRoot')
    const lines: string[] = []
    if (root !== undefined) treeLines(root, 0, lines)
    return {
      output: lines.join('\n').trimEnd(),
      metadata: { count: field(root, 'numFiles') ?? null, truncated: false },
    }
  },
  todos(result, input) {
    const done = todoList(field(result, 'todos'))
    const todos = done.length > 0 ? done : todoList(field(input, 'todos'))
    return { output: sortedJson(todos, 2) ?? '', metadata: { todos } }
  },
  webfetch: (result) => ({ output: text(result, 'markdown'), metadata: {} }),
  mcp(result) {
    const content = field(result, 'content')
    return { output: Array.isArray(content) ? contentText(content) : genericOutput(result), metadata: {} }
  },
  generic: (result) => ({ output: genericOutput(result), metadata: {} }),
}

/** Cursor's result of a completed call as OpenCode's `output` and `metadata`. */
export function shapeResult(shape: Shape, result: CursorResult, input: JsonObject): ShownResult {
  return SHAPES[shape](result, input)
}
