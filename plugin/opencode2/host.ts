// What the shared OpenCode provider does differently when OpenCode 2 loads it.
import type { ProviderHost } from '../opencode/provider.js'
import { openCode2ToolView } from './tool-view.js'

/**
 * OpenCode 2 names the exact session in `x-opencode-session-id`; its `x-session-id` is the
 * session's affinity (the parent's id for a subagent or a fork), kept as a fallback. It reads an
 * `other` finish as an incomplete stream and sends the request again, so a cancelled run's finish
 * is told as `stop` (its raw reason stays `cancelled`).
 */
export const OPENCODE2_HOST: ProviderHost = Object.freeze({
  toolView: openCode2ToolView,
  sessionHeaders: ['x-opencode-session-id', 'x-session-id'],
  otherFinish: 'stop',
})
