// `npx opencode-cursor-native replay <capture>`: a run's capture fed through the pipeline again,
// offline, and what each of the four places a cut-off answer can come from made of it: the
// process, framing, reconciliation and the consumer.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { ReplayGap, ReplayReport } from 'opencode-cursor-native'
import { captureFolder } from '../turn/env.js'
import { native } from '../turn/native.js'

/** A capture's name, as a failure's message gives it. */
const CAPTURE_NAME = /^cap-[a-z]+(-[a-z]+)*$/

/** The capture file `target` names: a path, or a name in the capture folder. */
export function capturePath(target: string, env: Record<string, string | undefined> = process.env): string {
  if (existsSync(target)) return target
  if (CAPTURE_NAME.test(target)) {
    const path = join(captureFolder(env), `${target}.ndjson`)
    if (existsSync(path)) return path
    throw new Error(
      `there is no capture ${target} in ${captureFolder(env)} (captures are rotated by size: CURSOR_ACP_CAPTURE_MAX_BYTES)`,
    )
  }
  throw new Error(`${target} is neither a capture file nor a capture name (cap-...)`)
}

export function replayCapture(target: string, env: Record<string, string | undefined> = process.env): ReplayReport {
  return native().replayCapture(capturePath(target, env))
}

/** How many of the tracker's last decisions the text report lists (`--json` has them all). */
const SHOWN_DECISIONS = 8
/** How much of the end of the answer the text report quotes. */
const QUOTED_TAIL = 120

const counted = (counts: Array<[string, number]>): string =>
  counts.map(([what, count]) => `${count} ${what}`).join(', ')
const ms = (value: number | null): string =>
  value === null ? '?' : value < 1000 ? `${Math.round(value)} ms` : `${(value / 1000).toFixed(1)} s`

function tail(text: string): string {
  if (text === '') return 'no answer text'
  const shown = text.length > QUOTED_TAIL ? `…${text.slice(-QUOTED_TAIL)}` : text
  return `${text.length} characters, ending ${JSON.stringify(shown)}`
}

/** A gap as `from 12.0 s to 769.4 s: 757.4 s, stdout to stdout`. */
function gapLine(gap: ReplayGap): string {
  return `${ms(gap.ms)} from ${ms(gap.fromMs)} to ${ms(gap.toMs)} (${gap.after} until ${gap.until})`
}

/**
 * The silences of stdout: every long one, and the longest. Cursor is silent in a healthy turn
 * (for its context compaction, or while the model writes a long reply), so a long gap followed by
 * output is no fault; one that ends the run (`until close`) shows where a stuck run stopped.
 */
function gapLines(gaps: ReplayReport['gaps']): string[] {
  const lines = [`   silences        longest ${gaps.longest === null ? 'none' : gapLine(gaps.longest)}`]
  for (const gap of gaps.long) lines.push(`                   of 60 s or more: ${gapLine(gap)}`)
  return lines
}

function lastLines(text: string, count = 3): string {
  const lines = text.split('\n').filter((line) => line.trim() !== '')
  return lines.length === 0 ? '(empty)' : lines.slice(-count).join(' / ')
}

/**
 * C0 and C1 control characters (but line feed and tab), and the bidirectional overrides: a
 * capture holds whatever cursor-agent and the model printed, which may set the window title,
 * write the clipboard (OSC 52) or reorder what is shown.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters it escapes
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g

/** `text` with every terminal control shown as its escape (`\x1b`, `\u202e`), never acted on. */
export function escapeControls(text: string): string {
  return text.replace(CONTROLS, (char) => {
    const code = char.charCodeAt(0)
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`
  })
}

/** The report as text for a terminal or a bug report, terminal controls escaped. */
export function formatReplay(report: ReplayReport): string {
  return escapeControls(reportLines(report).join('\n')).concat('\n')
}

function reportLines(report: ReplayReport): string[] {
  const { process: run, framing, reconciliation, consumer } = report
  const out: string[] = []
  out.push(`Capture ${report.name} (opencode-cursor-native ${report.package}, model ${report.model}, ${report.format})`)
  out.push(`  ${report.argv.join(' ')}`)
  out.push('')
  const exit =
    run.signal !== null ? `ended by ${run.signal}` : run.exitCode === null ? 'no exit status' : `exit ${run.exitCode}`
  out.push(
    `1. process         ${run.ending ?? 'no end recorded'}, ${exit}, ${ms(run.durationMs)} in all; first stdout after ${ms(run.firstStdoutMs)}; ${run.stdoutBytes} bytes in ${run.reads} ${run.reads === 1 ? 'read' : 'reads'}`,
  )
  out.push(`                   stderr: ${lastLines(run.stderr)}`)
  if (run.error !== undefined) out.push(`                   error: ${run.error.code} ${run.error.message}`)
  out.push(...gapLines(report.gaps))
  out.push(
    `2. framing         ${framing.records} records: ${counted(framing.kinds) || 'none'}; ${framing.sawResult ? 'the result record arrived' : 'no result record'}`,
  )
  for (const skipped of framing.skipped) {
    out.push(
      `                   skipped record ${skipped.record} (${skipped.bytes} bytes): ${skipped.reason}${skipped.prefix ? `, begins ${JSON.stringify(skipped.prefix)}` : ''}`,
    )
  }
  if (report.unknownRecords.length > 0)
    out.push(`                   ignored, of kinds this version does not know: ${counted(report.unknownRecords)}`)
  out.push(
    `3. reconciliation  ${reconciliation.decisions.length} decisions: ${counted(reconciliation.counts) || 'none'}`,
  )
  for (const d of reconciliation.decisions.slice(-SHOWN_DECISIONS)) {
    const where = d.record === null ? d.event : `record ${d.record} ${d.event}${d.partial ? ' (delta)' : ''}`
    out.push(
      `                   ${where}: ${[d.channel, d.decision].filter((word) => word !== null).join(' ')}, ${d.inputBytes} bytes in, ${d.emittedBytes} out`,
    )
  }
  const delivered = consumer.delivered === null ? 'delivery unknown' : `${consumer.delivered} delivered`
  out.push(
    `4. consumer        ${consumer.outputs.length} outputs (the run produced ${consumer.liveOutputs}, ${delivered}); ${tail(consumer.text)}`,
  )
  out.push('')
  if (report.matches) out.push('The replay matches the live run: the same outputs, in the same order.')
  else if (report.truncated)
    out.push('The capture reached its size limit (CURSOR_ACP_CAPTURE_MAX_BYTES), so the replay cannot match past it.')
  else {
    const m = report.mismatch
    out.push(
      `The replay does NOT match the live run${m ? ` from output ${m.index}: live ${JSON.stringify(m.live)}, replayed ${JSON.stringify(m.replayed)}` : ''}.`,
    )
  }
  const stopped = report.textStopped
  out.push(
    stopped === undefined
      ? 'The answer is complete at every stage.'
      : `The answer stopped at the ${stopped.stage} stage: ${stopped.reason.replace(/\.$/, '')}.`,
  )
  return out
}
