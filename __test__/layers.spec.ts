// The TypeScript host's folders and what each may import (ARCHITECTURE.md, Layers): the shared turn
// imports no front end; the OpenCode host and the OpenAI-compatible server import the shared turn
// and never each other; OpenCode 2's host sits over OpenCode 1.18's; the plugin entry over both
// OpenCode hosts; the command line, over the front ends, is imported by none. Runs under Node and
// Bun.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, it } from 'node:test'

const plugin = resolve(__dirname, '..', 'plugin')

/** The folders each folder's modules may import from (its own included). */
const MAY_IMPORT: Record<string, readonly string[]> = {
  turn: ['turn'],
  opencode: ['opencode', 'turn'],
  proxy: ['proxy', 'turn'],
  // OpenCode 2 loads the very LanguageModelV3 of OpenCode 1.18 (its AI SDK bridge takes the same
  // provider module shape), so its host is the 1.18 host's provider, errors, usage estimate and
  // request bound with OpenCode 2's registration, events and tool names over them: it imports
  // opencode/, and nothing in opencode/ imports it.
  opencode2: ['opencode2', 'opencode', 'turn'],
  // The package's plugin entry, one module for both majors (OpenCode 2's host on demand).
  entry: ['entry', 'opencode', 'opencode2'],
  cli: ['cli', 'opencode', 'proxy', 'turn'],
}

/** Every module of the host, as `folder/name.ts`. */
function modules(): string[] {
  return (readdirSync(plugin, { recursive: true }) as string[])
    .filter((file) => file.endsWith('.ts'))
    .map((file) => file.split('\\').join('/'))
}

/** The modules of the host a module imports, statically or on demand, as `folder/name.ts`. */
function importsOf(module: string): string[] {
  const source = readFileSync(join(plugin, module), 'utf8')
  const specifiers = [...source.matchAll(/(?:\bfrom|\bimport\()\s*'(\.{1,2}\/[^']+)'/g)].map((match) => match[1]!)
  return specifiers.map((specifier) =>
    relative(plugin, resolve(plugin, dirname(module), specifier.replace(/\.js$/, '.ts')))
      .split('\\')
      .join('/'),
  )
}

describe('the host folders', () => {
  it('hold every module, one folder per front end beside the shared turn', () => {
    const folders = new Set(modules().map((module) => module.split('/')[0]))
    assert.deepEqual([...folders].sort(), Object.keys(MAY_IMPORT).sort())
  })

  it('import only the folders beneath them', () => {
    const all = new Set(modules())
    const crossings: string[] = []
    for (const module of all) {
      const folder = module.split('/')[0]!
      for (const imported of importsOf(module)) {
        assert.ok(all.has(imported), `${module} imports ${imported}, which is not a module of plugin/`)
        if (!MAY_IMPORT[folder]!.includes(imported.split('/')[0]!)) crossings.push(`${module} -> ${imported}`)
      }
    }
    assert.deepEqual(crossings, [])
  })
})
