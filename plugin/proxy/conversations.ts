// The conversations a server runs in tool mode `opencode`: its runs waiting for tool results,
// counted against its own concurrency cap (never another server's in the same process), and their
// private folders, each with a request's whole system prompt, removed once the conversation can no
// longer continue. Closing the server ends them all.
import { rmSync } from 'node:fs'
import { dataDirectory } from '../turn/env.js'
import { conversationFolder, heldRun } from '../turn/tool-bridge.js'
import { interruptConversation, type TurnConfig } from '../turn/turn.js'

export interface Conversations {
  /**
   * A request of conversation `id` is answered until the function returned is called, told
   * whether its run now waits for tool results. `keep`: its folder stays until the server closes
   * (Cursor's chat there may be resumed).
   */
  begin(id: string, keep: boolean): (handedOver: boolean) => void
  /** How many of its runs wait for tool results. */
  held(): number
  /** Ends the runs of its conversations; settles once they ended and their folders are gone. */
  close(): Promise<void>
}

export function serverConversations(config: TurnConfig): Conversations {
  const requests = new Map<string, number>()
  const kept = new Set<string>()
  const waits = new Set<Promise<void>>()
  const folderOf = (id: string): string => conversationFolder(dataDirectory(), config.workspace, id)
  const remove = (id: string): void => rmSync(folderOf(id), { recursive: true, force: true })
  // With no request in progress and no run waiting for tool results, it can no longer continue.
  const settle = (id: string): void => {
    if ((requests.get(id) ?? 0) > 0 || heldRun(folderOf(id)) !== undefined) return
    requests.delete(id)
    if (!kept.has(id)) remove(id)
  }
  const begin = (id: string, keep: boolean) => {
    requests.set(id, (requests.get(id) ?? 0) + 1)
    if (keep) kept.add(id)
    return (handedOver: boolean): void => {
      requests.set(id, (requests.get(id) ?? 1) - 1)
      const held = handedOver ? heldRun(folderOf(id)) : undefined
      if (held !== undefined) {
        const wait = held.result().then(
          () => settle(id),
          () => settle(id),
        )
        waits.add(wait)
        void wait.then(() => waits.delete(wait))
      }
      settle(id)
    }
  }
  const close = async (): Promise<void> => {
    for (const id of requests.keys()) interruptConversation(id)
    await Promise.allSettled([...waits])
    for (const id of kept) remove(id)
  }
  return { begin, held: () => [...requests.keys()].filter((id) => heldRun(folderOf(id)) !== undefined).length, close }
}
