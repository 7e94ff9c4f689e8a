// The provider as a user's own configuration sets it up. A reserved setting (the executable, the
// workspace, force, the tool mode, captures: plugin/opencode/trusted-settings.ts) stands in the
// provider's options only as the user's own sources give it; a test that hands the provider such
// options directly plays a user who wrote them in their global opencode.json.

/**
 * Calls `create(options)` while `OPENCODE_CONFIG_CONTENT` holds the options as the user's own
 * provider block; the provider reads it as it is built.
 */
export function userProvider<O extends Record<string, unknown>, T>(create: (options: O) => T, options: O): T {
  const saved = process.env.OPENCODE_CONFIG_CONTENT
  const name = typeof options.name === 'string' ? options.name : 'cursor-acp'
  process.env.OPENCODE_CONFIG_CONTENT = JSON.stringify({ provider: { [name]: { options } } })
  try {
    return create(options)
  } finally {
    if (saved === undefined) delete process.env.OPENCODE_CONFIG_CONTENT
    else process.env.OPENCODE_CONFIG_CONTENT = saved
  }
}
