// The tool calls Cursor runs itself, shown as a host's own tools. The native `ai-sdk` format
// reports each such call one way for every host: Cursor's tool name, Cursor's arguments and
// result, and `providerMetadata.cursor` (the tool kind, the MCP server). A host describes how it
// shows them as a `ToolView` (OpenCode 1.18's: ../opencode/tool-view.ts); `toolViewStream` maps a
// response's parts through it before the host sees them. Any other part, and every call handed to
// the host (which carries no `providerMetadata.cursor`), passes unchanged.
import type { JsonValue, StreamPart } from 'opencode-cursor-native'

/** Which of Cursor's tools a call is. */
export interface CursorTool {
  /** The `*ToolCall` key (`shellToolCall`), or `function`. */
  kind: string
  /** The MCP server of an `mcpToolCall`. */
  server?: string
  /** Cursor's name for the tool (`shell`, an MCP tool's own name). */
  name: string
}

export type JsonObject = { [key: string]: JsonValue }

/** Cursor's result: its variant as `status`, and the variant's fields. */
export type CursorResult = Extract<StreamPart, { type: 'tool-result' }>['result']

/** How a host shows the calls Cursor ran itself. */
export interface ToolView {
  /** The host's tool for a call (known before its arguments). */
  toolName(tool: CursorTool): string
  /** The host's input for Cursor's arguments (`{}` when they are not an object). */
  input(tool: CursorTool, args: JsonObject): JsonObject
  /** What the host stores as the call's result, given the input it was shown with. */
  result(tool: CursorTool, input: JsonObject, result: CursorResult, isError: boolean): JsonValue
}

/** A part as the host gets it: Cursor's own calls in the host's tool names, inputs and results. */
export type ShownPart =
  | Exclude<StreamPart, { type: 'tool-input-start' | 'tool-call' | 'tool-result' }>
  | { type: 'tool-input-start'; id: string; toolName: string; providerExecuted?: true; dynamic?: true }
  | {
      type: 'tool-call'
      toolCallId: string
      toolName: string
      input: string
      providerExecuted?: true
      dynamic?: true
    }
  | {
      type: 'tool-result'
      toolCallId: string
      toolName: string
      result: JsonValue
      isError: boolean
      providerExecuted: true
      dynamic: true
    }

/** Maps one part; the shown parts go to `emit` (none while a call's input is gathered). */
export type ToolPartMapper = (part: StreamPart, emit: (part: ShownPart) => void) => void

function cursorTool(part: { toolName: string; providerMetadata?: { cursor: { kind: string; server?: string } } }) {
  const cursor = part.providerMetadata?.cursor
  if (cursor === undefined) return undefined
  const tool: CursorTool = { kind: cursor.kind, name: part.toolName }
  if (cursor.server !== undefined) tool.server = cursor.server
  return tool
}

/** Cursor's arguments as an object: `{}` for text that is not a JSON object. */
export function argumentsOf(text: string): JsonObject {
  try {
    const parsed: unknown = JSON.parse(text)
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as JsonObject) : {}
  } catch {
    return {}
  }
}

/**
 * JSON text with every object's keys in sorted order, the way the host has always been shown
 * Cursor's calls; `indent` for the indented form. A value nested too deeply for the engine to
 * print gives `undefined`.
 */
export function sortedJson(value: JsonValue, indent?: number): string | undefined {
  const sorted = (_key: string, item: unknown): unknown => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return item
    const entries = Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return Object.fromEntries(entries)
  }
  try {
    return JSON.stringify(value, sorted, indent)
  } catch {
    return undefined
  }
}

/** What a mapper keeps of one of Cursor's calls. */
interface OpenCall {
  tool: CursorTool
  /** Cursor's arguments as their deltas arrive; let go once the `tool-call` part repeats them. */
  gathered: string
  /** The input the host was shown, once it was; a result's title and fields may need it. */
  input?: JsonObject
}

/**
 * A mapper for one response. It keeps each of Cursor's calls from its start to its result, then
 * forgets it; once the call's input is shown, only that input.
 */
export function toolViewStream(view: ToolView): ToolPartMapper {
  const calls = new Map<string, OpenCall>()
  const shownInput = (input: JsonObject, raw: string) => sortedJson(input) ?? raw
  return (part, emit) => {
    switch (part.type) {
      case 'tool-input-start': {
        const tool = cursorTool(part)
        if (tool === undefined) break
        calls.set(part.id, { tool, gathered: '' })
        emit({
          type: 'tool-input-start',
          id: part.id,
          toolName: view.toolName(tool),
          providerExecuted: true,
          dynamic: true,
        })
        return
      }
      case 'tool-input-delta': {
        const call = calls.get(part.id)
        if (call === undefined) break
        // The host's input replaces Cursor's as a whole, once all of Cursor's has arrived.
        call.gathered += part.delta
        return
      }
      case 'tool-input-end': {
        const call = calls.get(part.id)
        if (call === undefined) break
        call.input = view.input(call.tool, argumentsOf(call.gathered))
        emit({ type: 'tool-input-delta', id: part.id, delta: shownInput(call.input, call.gathered) })
        emit(part)
        return
      }
      case 'tool-call': {
        const tool = cursorTool(part)
        if (tool === undefined) break
        const started = calls.get(part.toolCallId)
        const input =
          started?.input !== undefined && started.gathered === part.input
            ? started.input
            : view.input(tool, argumentsOf(part.input))
        calls.set(part.toolCallId, { tool, gathered: '', input })
        emit({
          type: 'tool-call',
          toolCallId: part.toolCallId,
          toolName: view.toolName(tool),
          input: shownInput(input, part.input),
          providerExecuted: true,
          dynamic: true,
        })
        return
      }
      case 'tool-result': {
        const tool = cursorTool(part)
        if (tool === undefined) break
        // A call started in an earlier response (before a hand-over) has no input here.
        const input = calls.get(part.toolCallId)?.input ?? {}
        calls.delete(part.toolCallId)
        emit({
          type: 'tool-result',
          toolCallId: part.toolCallId,
          toolName: view.toolName(tool),
          result: view.result(tool, input, part.result, part.isError),
          isError: part.isError,
          providerExecuted: true,
          dynamic: true,
        })
        return
      }
      default:
        break
    }
    emit(part as ShownPart)
  }
}
