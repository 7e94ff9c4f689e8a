// A streamed response kept alive through Cursor's silences. cursor-agent can print nothing for
// minutes in a healthy turn (while it compacts its context, or while the model writes a long reply
// before its record appears); a client, or a proxy between it and this server, that hears nothing
// for that long may give up on the response. Each API's encoder says what its streams get
// (`keepAlive()`): on Chat Completions an SSE comment line, which every SSE reader ignores; on
// Messages Anthropic's `ping` event; on Responses the response again as `response.in_progress`,
// since Codex CLI's idle timer counts events and never comments.
import { scaledDefault } from '../turn/env.js'

/** A stream that has been silent this long gets its API's keep-alive. */
export const KEEP_ALIVE_MS = 30_000
/** What a Chat Completions stream gets. */
export const KEEP_ALIVE_COMMENT = ': keep-alive\n\n'

/** The interval in force: {@link KEEP_ALIVE_MS}, under the test-only time scale (`testTimeScale`). */
export function keepAliveInterval(env: Record<string, string | undefined> = process.env): number {
  return scaledDefault(KEEP_ALIVE_MS, env)
}

export interface SilenceTimer {
  /** Something was written: the silence starts again. */
  touch(): void
  /** The response is over. */
  stop(): void
}

/** Calls `onSilence` after every `intervalMs` without a `touch()`, until `stop()`. */
export function silenceTimer(intervalMs: number, onSilence: () => void): SilenceTimer {
  let stopped = false
  const timer = setTimeout(() => {
    if (stopped) return
    onSilence()
    // A fired timer starts again from now.
    if (!stopped) timer.refresh()
  }, intervalMs)
  // The response's socket keeps the process alive, not this.
  timer.unref()
  return {
    touch: () => {
      if (!stopped) timer.refresh()
    },
    stop: () => {
      stopped = true
      clearTimeout(timer)
    },
  }
}
