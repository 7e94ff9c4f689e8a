// Running a piece of a test with some environment variables set (or removed, as `undefined`),
// restoring them afterwards, whatever the piece does.

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
