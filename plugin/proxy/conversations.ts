// The conversations a server runs in tool mode `opencode`: its own runs waiting for tool results (its
// cap counts no other server's), their folders (a system prompt each) gone once they cannot continue.
import { rmSync } from 'node:fs'
import { dataDirectory } from '../turn/env.js'
import { conversationFolder, heldRun } from '../turn/tool-bridge.js'
import { interruptConversation, type TurnConfig } from '../turn/turn.js'

export type Conversations = ReturnType<typeof serverConversations>

export function serverConversations(config: TurnConfig) {
  const requests = new Map<string, number>()
  const kept = new Set<string>()
  const waits = new Map<string, Promise<void>>()
  const folderOf = (id: string): string => conversationFolder(dataDirectory(), config.workspace, id)
  const remove = (id: string): void => rmSync(folderOf(id), { recursive: true, force: true })
  // With no request in progress and no run waiting for tool results, it can no longer continue.
  const settle = (id: string): void => {
    if ((requests.get(id) ?? 0) > 0 || heldRun(folderOf(id)) !== undefined) return
    requests.delete(id)
    waits.delete(id)
    if (!kept.has(id)) remove(id)
  }
  return {
    /** A request of `id` (none: not this tool mode's) is answered until the call returned; `keep`: its folder. */
    begin(id: string | undefined, keep: boolean): () => void {
      if (id === undefined || config.settings.toolMode !== 'opencode') return () => {}
      requests.set(id, (requests.get(id) ?? 0) + 1)
      if (keep) kept.add(id)
      return () => {
        requests.set(id, (requests.get(id) ?? 1) - 1)
        const ended = (): void => settle(id)
        const wait = heldRun(folderOf(id))?.result().then(ended, ended)
        if (wait !== undefined) waits.set(id, wait)
        ended()
      }
    },
    held: (): number => [...requests.keys()].filter((id) => heldRun(folderOf(id)) !== undefined).length,
    /** Ends its runs; settles once they ended and their folders are gone. */
    async close(): Promise<void> {
      for (const id of requests.keys()) interruptConversation(id)
      await Promise.allSettled(waits.values())
      for (const id of kept) remove(id)
    },
  }
}
