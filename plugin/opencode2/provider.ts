// The LanguageModelV3 provider module OpenCode 2 names in the provider's `package`
// (`aisdk:file://…/opencode2/provider.js`). OpenCode 2's AI SDK bridge imports it and calls the
// first export whose name starts with `create`, so `createCursorAcp` is the only one: the
// provider of OpenCode 1.18, with OpenCode 2's session header, tool dialect and finish reasons.
import { type CursorAcpProvider, type CursorAcpProviderOptions, providerFor } from '../opencode/provider.js'
import { OPENCODE2_HOST } from './host.js'

/** The provider factory OpenCode 2 calls with `{name, ...settings, headers, body, fetch, apiKey}`. */
export function createCursorAcp(options: CursorAcpProviderOptions = {}): CursorAcpProvider {
  return providerFor(OPENCODE2_HOST, options)
}
