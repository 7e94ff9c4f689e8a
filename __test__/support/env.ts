// Running a piece of a test with some environment variables set (or removed, as `undefined`),
// restoring them afterwards, whatever the piece does; and a whole spec file's environment.
import { after, before } from 'node:test'

export async function withEnv<T>(values: Record<string, string | undefined>, body: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(values).map((name) => [name, process.env[name]]))
  const apply = (entries: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(entries)) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  }
  apply(values)
  try {
    return await body()
  } finally {
    apply(saved)
  }
}

/**
 * For the tests of a spec file: before them, every `CURSOR_ACP_*` and `FAKE_CURSOR_*` variable of
 * the process is removed and `settings` are set; after them, the environment is as it was.
 */
export function specEnvironment(settings: Record<string, string>): void {
  let saved: NodeJS.ProcessEnv = {}
  before(() => {
    saved = { ...process.env }
    for (const name of Object.keys(process.env)) if (/^(CURSOR_ACP_|FAKE_CURSOR_)/.test(name)) delete process.env[name]
    Object.assign(process.env, settings)
  })
  after(() => {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name]
    Object.assign(process.env, saved)
  })
}
