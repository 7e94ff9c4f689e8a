// One check of `doctor`: what every check module returns and the report lists, and the wording
// every group of checks shares (a check skipped, an error's text, a finding as a check).

export type CheckStatus = 'ok' | 'problem' | 'warning' | 'skipped'

export interface Check {
  /** Stable, for scripts: `addon`, `agent`, `version`, `login`, ... */
  id: string
  status: CheckStatus
  /** What was found. Never a token or a prompt. */
  detail: string
  /** What to do about it, for anything but `ok`. */
  fix?: string
}

export const LOGIN_FIX = 'Run `cursor-agent login`, `opencode auth login` (Cursor API key), or set CURSOR_API_KEY.'

export const check = (id: string, status: CheckStatus, detail: string, fix?: string): Check => ({
  id,
  status,
  detail,
  ...(fix === undefined ? {} : { fix }),
})

export const skipped = (id: string, detail: string, fix?: string): Check => check(id, 'skipped', detail, fix)

export function errorText(error: unknown): string {
  const { message, code } = error as { message?: string; code?: string }
  return code === undefined ? String(message ?? error) : `${message} [${code}]`
}

/** A finding as a check: `ok` when it passed, else `failing` with its own fix, or `fix`. */
export function checkOf(
  id: string,
  found: { passed: boolean; detail: string; fix?: string | undefined },
  failing: CheckStatus,
  fix?: string,
): Check {
  return found.passed ? check(id, 'ok', found.detail) : check(id, failing, found.detail, found.fix ?? fix)
}
