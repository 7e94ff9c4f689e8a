// The doctor's report for a person: a line per check with its verdict, its fix below.
import type { Check, CheckStatus } from './doctor-check.js'

export interface DoctorReport {
  /** No check is a problem. */
  ok: boolean
  checks: Check[]
}

const LABEL: Readonly<Record<CheckStatus, string>> = {
  ok: 'ok',
  problem: 'PROBLEM',
  warning: 'warning',
  skipped: 'skipped',
}

export function formatReport(report: DoctorReport, version: string): string {
  const width = Math.max(...report.checks.map((check) => check.id.length))
  const lines = [`opencode-cursor-native ${version} doctor`]
  for (const check of report.checks) {
    lines.push(`${LABEL[check.status].padEnd(8)} ${check.id.padEnd(width)}  ${check.detail}`)
    if (check.fix !== undefined && check.status !== 'ok') lines.push(`${' '.repeat(8 + width + 3)}fix: ${check.fix}`)
  }
  lines.push(report.ok ? 'No problems found.' : 'Problems found: see PROBLEM above.')
  return `${lines.join('\n')}\n`
}
