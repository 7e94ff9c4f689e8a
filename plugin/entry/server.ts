// The package's plugin entry (`exports["./server"]`), one module for both OpenCode majors. Its
// default export is a plugin definition each loader reads its own way: OpenCode 1.18 (from
// 1.18.29) takes an object default with an `id` as a plugin and calls its `server`, ignoring the
// other keys and the named exports; OpenCode 2 decodes `{id, setup}`, ignores `server`, and calls
// `setup(ctx)`. OpenCode 2's host is imported only when OpenCode 2 runs it.
import type { PluginModule } from '@opencode-ai/plugin'
import { CursorAcpPlugin } from '../opencode/server.js'
import type { Cleanup, PluginContext, PluginDefinition } from '../opencode2/contract.js'

export { CursorAcpPlugin }

/** The id both majors know the plugin by: the package's name. */
const PLUGIN_ID = 'opencode-cursor-native'

const plugin = {
  id: PLUGIN_ID,
  server: CursorAcpPlugin,
  setup: async (ctx: PluginContext): Promise<Cleanup> => (await import('../opencode2/setup.js')).setup(ctx),
} satisfies PluginModule & PluginDefinition

export default plugin
