// The published shape of the package, for the tests that install it as users get it (from
// tarballs, or by name from a registry): this machine's platform package, npm itself, and the
// package's runtime dependencies as installed in a checkout.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/** This machine's platform package folder, as napi-rs names it. */
export function hostPlatformDir(): string {
  const { platform, arch } = process
  if (platform === 'linux') {
    const glibc = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } })?.header
      ?.glibcVersionRuntime
    return `linux-${arch}-${glibc ? 'gnu' : 'musl'}`
  }
  return platform === 'win32' ? `win32-${arch}-msvc` : `${platform}-${arch}`
}

/** Runs npm in `cwd` and returns its stdout. */
export function npm(args: string[], cwd: string): string {
  return execFileSync('npm', args, {
    cwd,
    encoding: 'utf8',
    shell: process.platform === 'win32',
    stdio: ['ignore', 'pipe', 'pipe'],
  })
}

/** The installed folders of `root`'s runtime dependencies, transitively. */
export function runtimeDependencies(root: string): string[] {
  const found = new Map<string, string>()
  const visit = (manifestDir: string) => {
    const manifest = JSON.parse(readFileSync(join(manifestDir, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>
    }
    for (const name of Object.keys(manifest.dependencies ?? {})) {
      if (found.has(name)) continue
      const dir = join(root, 'node_modules', name)
      found.set(name, dir)
      visit(dir)
    }
  }
  visit(root)
  return [...found.values()]
}
