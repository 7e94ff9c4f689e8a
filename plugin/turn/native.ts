// Access to the native addon (the package's `index.js`), loaded lazily so that a missing binary
// surfaces as a clear provider error instead of a plugin that fails to load.
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The native API, typed by the package's own generated declarations (`index.d.ts`). */
export type NativeApi = typeof import('opencode-cursor-native')

/** A chat message (AI SDK V3 prompt message or OpenAI chat message), JSON-safe. */
export type PromptMessage = Record<string, unknown>
/** A tool definition (OpenAI or AI SDK V3 shape), JSON-safe. */
export type ToolDefinition = Record<string, unknown>

const PACKAGE_NAME = 'opencode-cursor-native'

/**
 * The package root: the nearest ancestor folder whose package.json names this package. The same
 * lookup works for the modules compiled into `dist/plugin/` and for the TypeScript sources.
 */
export function packageRoot(fromDirectory: string = dirname(fileURLToPath(import.meta.url))): string {
  let directory = fromDirectory
  for (;;) {
    const manifest = join(directory, 'package.json')
    if (existsSync(manifest)) {
      try {
        if (JSON.parse(readFileSync(manifest, 'utf8')).name === PACKAGE_NAME) return directory
      } catch {
        // An unreadable manifest is not ours; keep looking upwards.
      }
    }
    const parent = dirname(directory)
    if (parent === directory) throw new Error(`${PACKAGE_NAME}: cannot find the package root above ${fromDirectory}`)
    directory = parent
  }
}

let cached: NativeApi | undefined

/** The native API; throws with the loader's own explanation when the addon cannot load. */
export function native(): NativeApi {
  if (cached === undefined) {
    const require = createRequire(import.meta.url)
    cached = require(join(packageRoot(), 'index.js')) as NativeApi
  }
  return cached
}
