// One check of `doctor`: what every check module returns and the report lists.

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
