// The Cursor API key stored with `opencode auth login`, where the plugin needs it before OpenCode
// hands it to the provider: listing the account's models at start-up, and `doctor`.
import { readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'

type Env = Record<string, string | undefined>

/** OpenCode's credential store: `auth.json` in its data folder (XDG on every platform). */
export function openCodeAuthFile(env: Env = process.env): string {
  const data = env.XDG_DATA_HOME?.trim() || join(env.HOME ?? homedir(), '.local', 'share')
  return join(data, 'opencode', 'auth.json')
}

/** The API key stored for `providerId`, if any; an unreadable store counts as none. */
export function storedApiKey(providerId: string, env: Env = process.env): string | undefined {
  try {
    const entry = (
      JSON.parse(readFileSync(openCodeAuthFile(env), 'utf8')) as Record<string, { type?: unknown; key?: unknown }>
    )[providerId]
    return entry?.type === 'api' && typeof entry.key === 'string' && entry.key.trim() !== ''
      ? entry.key.trim()
      : undefined
  } catch {
    return undefined
  }
}
