// The published shape of the package, for the tests that install it as users get it (from
// tarballs, or by name from a registry): this machine's platform package, npm itself, and the
// package's runtime dependencies as installed in a checkout; packed once for all of them.
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { withLock } from './process.ts'

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

/** The tarballs `packPublished` makes: the main package's, the platform package's and the dependencies'. */
export interface Packed {
  /** The main and the platform package's tarballs. */
  folder: string
  /** The runtime dependencies' tarballs. */
  dependencies: string
  /** Every tarball, the main package's first. */
  tarballs: string[]
}

/**
 * The package packed as `packPublished` packs it, into `root`'s `.cache/packed/<key>`, once for as
 * long as what it packs is the same: the test files that install the package share it (packing
 * costs seconds of CPU, the platform package's tarball most), the first one packing it while the
 * others wait. The key is a hash of every file that goes in (the packed files, the binary, the
 * platform package's folder, the dependencies' manifests) and of this file, which says how.
 */
export async function packedOnce(checkout: string): Promise<Packed> {
  const root = resolve(checkout)
  const cache = join(root, '.cache', 'packed')
  const folder = join(cache, packingKey(root))
  mkdirSync(cache, { recursive: true })
  await withLock(join(cache, '.lock'), () => {
    if (existsSync(folder)) return
    // Packed aside and renamed whole: a folder under its key is complete. Other keys are stale.
    for (const entry of readdirSync(cache)) if (entry !== '.lock') rmSync(join(cache, entry), { recursive: true })
    const partial = join(cache, `.partial-${process.pid}`)
    mkdirSync(partial)
    packPublished(root, partial)
    rmSync(join(partial, 'platform'), { recursive: true })
    renameSync(partial, folder)
  })
  const tarballsIn = (dir: string) =>
    readdirSync(dir)
      .filter((file) => file.endsWith('.tgz'))
      .map((file) => join(dir, file))
  const { name, version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, string>
  const main = join(folder, `${name}-${version}.tgz`)
  const tarballs = [
    main,
    ...tarballsIn(folder).filter((file) => file !== main),
    ...tarballsIn(join(folder, 'dependencies')),
  ]
  return { folder, dependencies: join(folder, 'dependencies'), tarballs }
}

/** A hash of what `packPublished` reads from `root`, and of how it packs it. */
function packingKey(root: string): string {
  const hash = createHash('sha256')
  const add = (path: string) => {
    if (!existsSync(path)) return
    if (statSync(path).isDirectory()) {
      for (const entry of readdirSync(path).sort()) add(join(path, entry))
      return
    }
    hash.update(`${path.slice(root.length)}\0`).update(readFileSync(path))
  }
  const { files = [] } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { files?: string[] }
  const rootFiles = readdirSync(root).filter(
    (entry) => /^(package\.json|readme|licen[cs]e|changelog)/i.test(entry) || files.includes(entry),
  )
  for (const entry of rootFiles.sort()) add(join(root, entry))
  for (const path of ['dist/plugin', join('npm', hostPlatformDir()), hostBinaryFile(root)]) add(join(root, path))
  for (const dependency of runtimeDependencies(root)) add(join(dependency, 'package.json'))
  add(fileURLToPath(import.meta.url))
  return hash.digest('hex').slice(0, 16)
}
