// The published shape of the package, for the tests that install it as users get it (from
// tarballs, or by name from a registry): this machine's platform package, npm itself, and the
// package's runtime dependencies as installed in a checkout.
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs'
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

/** The file name of `root`'s addon for this machine, as napi-rs names it. */
export function hostBinaryFile(root: string): string {
  const { napi } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { napi: { binaryName: string } }
  return `${napi.binaryName}.${hostPlatformDir()}.node`
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

/**
 * Packs the package as it is published, into `work`: the main package and this machine's
 * platform package (the built binary added to a copy: the tree keeps npm/ free of .node files);
 * and into `work/dependencies` the runtime dependencies, packed from this checkout's node_modules
 * as the registry would serve them. Returns that dependencies folder.
 */
export function packPublished(root: string, work: string): string {
  const platformDir = hostPlatformDir()
  const binaryFile = hostBinaryFile(root)
  if (!existsSync(join(root, binaryFile)))
    throw new Error(`${binaryFile} is missing: build first (npx napi build --platform)`)
  npm(['pack', '--ignore-scripts', '--pack-destination', work], root)
  const platformCopy = join(work, 'platform')
  cpSync(join(root, 'npm', platformDir), platformCopy, { recursive: true })
  cpSync(join(root, binaryFile), join(platformCopy, binaryFile))
  npm(['pack', '--ignore-scripts', '--pack-destination', work], platformCopy)
  const dependencies = join(work, 'dependencies')
  mkdirSync(dependencies)
  for (const dir of runtimeDependencies(root))
    npm(['pack', '--ignore-scripts', '--pack-destination', dependencies, dir], root)
  return dependencies
}
