// What the Responses and Messages encoders read from the addon's `ai-sdk` parts alike: Cursor's
// own tool calls (not the client's to run: left out, as Chat Completions leaves them out) and the
// token counts of a finish.
import type { StreamOutput, StreamPart, StreamUsage } from 'opencode-cursor-native'

/** The parts among a batch of outputs that a client of these APIs is shown. */
export function clientParts(outputs: StreamOutput[]): StreamPart[] {
  return outputs.filter(
    (output): output is StreamPart =>
      typeof output === 'object' && 'type' in output && !('providerExecuted' in output && output.providerExecuted),
  )
}

/** Cursor's token counts of a finish: input without cache, cache read and written, output, reasoning. */
export interface Counts {
  input: number
  cacheRead: number
  cacheWrite: number
  output: number
  reasoning?: number
}

export function countsOf(usage: StreamUsage | undefined): Counts {
  const input = usage?.inputTokens
  const output = usage?.outputTokens
  const counts: Counts = {
    input: input?.noCache ?? input?.total ?? 0,
    cacheRead: input?.cacheRead ?? 0,
    cacheWrite: input?.cacheWrite ?? 0,
    output: output?.total ?? 0,
  }
  if (output?.reasoning !== undefined) counts.reasoning = output.reasoning
  return counts
}

/** Text of one run on either side of Cursor's own tool call: separated as Chat Completions separates it. */
export const SEGMENT_SEPARATOR = '\n\n'
