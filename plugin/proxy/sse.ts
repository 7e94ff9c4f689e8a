// One server-sent event, as every streaming endpoint of the server writes them.

/** An SSE frame: `event: <name>` when named (Anthropic's and OpenAI Responses' events), then its data. */
export function sseFrame(data: unknown, event?: string): string {
  const line = `data: ${JSON.stringify(data)}\n\n`
  return event === undefined ? line : `event: ${event}\n${line}`
}
