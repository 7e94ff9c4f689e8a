// Types of cursor-config.mjs, for the specs that read the private folder as Cursor does.
export declare const HOOK_EVENTS: readonly string[]
export interface HooksFile {
  version: number | undefined
  hooks: Record<string, Array<{ command: string; failClosed?: boolean; timeout?: number }>>
  /** Why Cursor would drop the whole file, silently; `undefined` when it loads. */
  dropped: string | undefined
}
export declare function readHooksText(text: string): HooksFile
export declare function readHooks(workspace: string, env: Record<string, string | undefined>): Array<HooksFile & { path: string }>
export declare function readCliJsonText(text: string): {
  rules?: { allow: string[]; deny: string[] }
  refused?: string
}
export declare function mcpRuleMatches(rule: string, server: string, tool: string): boolean
export declare function mcpPermission(
  workspace: string,
  server: string,
  tool: string,
  force: boolean,
): 'allowed' | 'denied' | 'rejected'
export declare function findLogin(env: Record<string, string | undefined>): { source: string } | undefined
