// The real cursor-agent captures and their hand-written expected files (fixtures/captures/README.md).
// Apart from stream.ts, which loads the addon: the end-to-end tests read them without it.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import type { CursorUsage } from '../../index.js'

/** A tool call as OpenCode stores it: its tool, status and input, the result's title, output and
 * metadata, or (for a failed call) part of the error text. */
export interface OpenCodeToolView {
  tool: string
  status: 'completed' | 'error'
  input: Record<string, unknown>
  title?: string
  output?: string
  metadata?: Record<string, unknown>
  errorIncludes?: string
}

/** The real cursor-agent captures, kept byte for byte in `__test__/fixtures/captures/`. */
export const capturesDir: string = fileURLToPath(new URL('../fixtures/captures/', import.meta.url))

/** Bytes of a real capture, e.g. `capture('maestro/01_simple_no_tool.jsonl')`. */
export function capture(name: string): Buffer {
  return readFileSync(join(capturesDir, name))
}

export type CaptureBlock =
  | { kind: 'reasoning' | 'text'; text: string }
  | {
      kind: 'tool'
      id: string
      /** Cursor's name for the call. */
      name: string
      /** Cursor's tool kind, the `*ToolCall` key. */
      toolKind: string
      /** Cursor's result variant. */
      status: string
      /** Whether the call failed to do its work (the ai-sdk `isError`). */
      isError: boolean
      /** Fields Cursor's arguments must contain. */
      args?: Record<string, unknown>
      /** Fields Cursor's result must contain besides `status`. */
      result?: Record<string, unknown>
      /** How OpenCode shows the call (through the plugin's view of Cursor's tools): its tool,
       * status and input, the result's title, output and metadata. */
      opencode: OpenCodeToolView
    }

/** What a consumer of a real capture must see, written by hand from it (`captures/README.md`). */
export interface CaptureExpectation {
  capture: string
  sessionId: string
  /** Reasoning and text blocks with their whole text, tool calls in place. */
  blocks: CaptureBlock[]
  finish: 'stop'
  /** Cursor's own counts, as its `result` event reports them. */
  usage: CursorUsage
  /** The `result` event's text. */
  resultText: string
}

/** The expected file next to a capture: `capture('maestro/01_x.jsonl')` has `maestro/01_x.expected.json`. */
export function captureExpectation(name: string): CaptureExpectation {
  assert.match(name, /\.jsonl$/, `${name} is a capture`)
  const expected = JSON.parse(
    readFileSync(join(capturesDir, name.replace(/\.jsonl$/, '.expected.json')), 'utf8'),
  ) as CaptureExpectation
  assert.equal(expected.capture, name.split('/').at(-1), `the expected file of ${name} names it`)
  return expected
}
