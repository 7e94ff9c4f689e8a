// The documentation's own links: every relative link of README.md, CONTRIBUTING.md, SECURITY.md,
// ARCHITECTURE.md and docs/*.md names a file that exists, and its `#anchor` a heading of that file
// by GitHub's rule; links to other sites are not followed. The README stays short, with the user's
// install and then a clone's two set-up commands in its first 40 lines. Runs under Node and Bun.
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { describe, it } from 'node:test'

const root = resolve(__dirname, '..')
const FILES = [
  'README.md',
  'CONTRIBUTING.md',
  'SECURITY.md',
  'ARCHITECTURE.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
]
const read = (file: string): string => readFileSync(join(root, file), 'utf8')

/** The lines of a markdown file, those of fenced code blocks (fences included) left empty. */
function prose(markdown: string): string[] {
  let fenced = false
  return markdown.split('\n').map((line) => {
    const fence = /^\s*(```|~~~)/.test(line)
    if (fence) fenced = !fenced
    return fenced || fence ? '' : line
  })
}

/** GitHub's anchor of a heading's text: lower case, punctuation but `-` and `_` dropped, spaces to `-`. */
function slug(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N} _-]/gu, '')
    .replace(/ /g, '-')
}

/** The anchors a markdown file's headings make; a repeated one gets `-1`, `-2`, ... as on GitHub. */
function anchors(markdown: string): Set<string> {
  const times = new Map<string, number>()
  const found = new Set<string>()
  for (const line of prose(markdown)) {
    const heading = /^#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)
    if (heading === null) continue
    const base = slug(heading[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1'))
    const n = times.get(base) ?? 0
    times.set(base, n + 1)
    found.add(n === 0 ? base : `${base}-${n}`)
  }
  return found
}

/** The targets of a markdown file's links, those inside code left out. */
function links(markdown: string): string[] {
  const text = prose(markdown)
    .join('\n')
    .replace(/`[^`]*`/g, '')
  return [...text.matchAll(/\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)/g)].map((match) => match[1]!)
}

/** What is wrong with the links of `file`, one line a link (a link to another site is not followed). */
function brokenLinks(file: string): string[] {
  return links(read(file)).flatMap((link) => {
    if (/^[a-z][a-z\d+.-]*:/i.test(link)) return []
    const [path = '', anchor] = link.split('#')
    const target = path === '' ? join(root, file) : resolve(dirname(join(root, file)), decodeURIComponent(path))
    if (!existsSync(target)) return [`${file}: ${link}: no such file`]
    if (anchor === undefined || !target.endsWith('.md')) return []
    if (!anchors(readFileSync(target, 'utf8')).has(anchor)) return [`${file}: ${link}: no heading makes #${anchor}`]
    return []
  })
}

describe('the documentation', () => {
  it('every relative link names a file that exists, and every anchor a heading of it', () => {
    assert.deepEqual(FILES.flatMap(brokenLinks), [])
  })

  it('README.md has at most 300 lines', () => {
    const lines = read('README.md').split('\n').length - 1 // as `wc -l` counts them
    assert.ok(lines <= 300, `README.md has ${lines} lines`)
  })

  it("README.md's first 40 lines give the user's install, then a clone's two set-up commands in a sh block", () => {
    const first = read('README.md').split('\n').slice(0, 40).join('\n')
    const install = first.indexOf('{ "plugin": ["opencode-cursor-native"] }')
    assert.ok(install >= 0, "the user's one-line install")
    const blocks = [...first.matchAll(/^```sh\n([\s\S]*?)^```/gm)]
    for (const command of ['npm install && npm run demo', 'npm install && npm test']) {
      const block = blocks.find((match) => match[1]!.split('\n').some((line) => line.startsWith(command)))
      assert.ok(block !== undefined, `\`${command}\` in a sh block of the first 40 lines`)
      assert.ok(block.index! > install, `\`${command}\` after the user's install`)
    }
  })
})
