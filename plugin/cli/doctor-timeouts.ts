// The doctor's `timeouts` check: the limits a run is stopped by, and where each value came from.
import { type Check, check } from './doctor-check.js'
import { type CursorAcpSettings, testTimeScale } from '../turn/env.js'

/**
 * The longest silence of cursor-agent's stdout seen in a healthy turn: 757 s while the model wrote
 * a 235 KB reply before its record appeared. An idle limit below it stops such turns.
 */
export const LONGEST_HEALTHY_SILENCE_MS = 757_358

/** A duration as a person reads it: `45 s`, `30 min`, `1 h 30 min`. */
export function readableMs(ms: number): string {
  if (ms < 60_000) return `${Math.round(ms / 100) / 10} s`
  const minutes = Math.round(ms / 60_000)
  if (minutes < 60) return `${minutes} min`
  const rest = minutes % 60
  return `${Math.floor(minutes / 60)} h${rest === 0 ? '' : ` ${rest} min`}`
}

/** Where a setting's value came from: its variable, or the default (with the test-only scale, if set). */
function sourceOf(name: string, env: Record<string, string | undefined>, warnings: string[]): string {
  const ignored = warnings.some((warning) => warning.startsWith(`${name}=`))
  if ((env[name] ?? '').trim() !== '' && !ignored) return name
  const scale = testTimeScale(env)
  return scale === 1 ? 'default' : `default, scaled by CURSOR_ACP_TEST_TIME_SCALE=${scale}`
}

/** The idle and overall limits in force (provider options in opencode.json may still override them per model). */
export function timeoutsCheck(
  settings: CursorAcpSettings,
  env: Record<string, string | undefined>,
  warnings: string[],
): Check {
  const limit = (ms: number): string => (ms === 0 ? 'none' : readableMs(ms))
  const idleSource = sourceOf('CURSOR_ACP_IDLE_TIMEOUT_MS', env, warnings)
  const detail =
    `idle limit ${limit(settings.idleTimeoutMs)} (${idleSource}), ` +
    `overall limit ${limit(settings.timeoutMs)} (${sourceOf('CURSOR_ACP_TIMEOUT_MS', env, warnings)})`
  const tight =
    idleSource === 'CURSOR_ACP_IDLE_TIMEOUT_MS' &&
    settings.idleTimeoutMs !== 0 &&
    settings.idleTimeoutMs < LONGEST_HEALTHY_SILENCE_MS
  if (!tight) return check('timeouts', 'ok', detail)
  return check(
    'timeouts',
    'warning',
    `${detail}; cursor-agent can print nothing for ${Math.round(LONGEST_HEALTHY_SILENCE_MS / 1000)} s in a healthy turn`,
    'Raise CURSOR_ACP_IDLE_TIMEOUT_MS, or unset it for the 30-minute default; stop a turn yourself with Esc.',
  )
}
