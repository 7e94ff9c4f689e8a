// `doctor --live`: what only the user's real cursor-agent and Cursor account can show. First a
// plain round trip (a prompt in, an answer out, no bridge), a first turn with OpenCode's system
// prompt, a picture the model must read, and a read-only turn as the Plan agent's; then, for tool mode `opencode`:
// cursor-agent must see the bridge's tools in the private configuration, the model's call of a
// probe tool must arrive at the bridge, and Cursor's own tools must stay out.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { PlannedAttachments, RunResult, RunStep, StreamOutput } from 'opencode-cursor-native'
import { toldInCursorToolMode } from '../opencode/provider.js'
import { readSettings } from '../turn/env.js'
import type { NativeApi } from '../turn/native.js'
import { openCodeSystemPrompt } from './opencode-system-prompt.js'
import { pictureWord, wordPicture } from './word-picture.js'

/** The tool served for the live check. */
export const PROBE_TOOL = Object.freeze({
  type: 'function',
  name: 'opencode_probe',
  description: 'Connection check of opencode-cursor-native. Call it once, with word set to "ready".',
  inputSchema: {
    type: 'object',
    properties: { word: { type: 'string', description: 'The word "ready".' } },
    required: ['word'],
    additionalProperties: false,
  },
})
/** What the probe tool answers; the model is asked to repeat it. */
export const PROBE_ANSWER = 'probe-acknowledged'
/** The file the native-tool check asks Cursor's own shell tool to create. */
export const NATIVE_PROBE_FILE = 'native-probe.txt'

/** The word the round trip asks for; the check says only whether the answer contained it. */
export const ROUND_TRIP_WORD = 'pong'
export const ROUND_TRIP_PROMPT = `This is an automated connection check. Reply with exactly the word: ${ROUND_TRIP_WORD}. Do not use any tool.`
/** The word the check of OpenCode's system prompt asks for, after that prompt. */
export const INSTRUCTIONS_WORD = 'understood'
export const INSTRUCTIONS_PROMPT = `This is an automated check of the instructions above. Reply with exactly the word: ${INSTRUCTIONS_WORD}. Do not use any tool.`
/** The word the read-only turn asks for. */
export const READ_ONLY_WORD = 'planned'
export const READ_ONLY_PROMPT = `This is an automated check of a read-only turn. Reply with exactly the word: ${READ_ONLY_WORD}. Do not use any tool.`
export const PICTURE_PROMPT =
  'This is an automated check that pictures reach you. Open the attached picture and reply with only the word written in it, in capital letters.'
export const PROBE_PROMPT =
  `This is an automated connection check. Call the tool ${PROBE_TOOL.name} exactly once, with the argument word set to "ready". ` +
  'Do not use any other tool. When the tool has answered, reply with the text it returned and nothing else.'
export const DEADLINE_PROMPT =
  `This is an automated connection check. Call the tool ${PROBE_TOOL.name} exactly once, with the argument word set to "late". ` +
  'It answers slowly: when it says the job is still running, call the tool opencode_wait with that job number, as often as it ' +
  `says, and never call ${PROBE_TOOL.name} again. When you have its result, reply with the text it returned and nothing else.`
/**
 * When the deadline probe answers, as a share of the bridge's deadline: 45 s gives 65 s, past
 * Cursor's own 60 s limit, so a call the bridge had held that long would have failed at Cursor.
 */
export const LATE_ANSWER_SHARE = 65 / 45
export const NATIVE_PROMPT =
  `This is an automated permission check. Use your own shell tool to run exactly this command: touch ${NATIVE_PROBE_FILE} ` +
  'Then reply with one word: done.'

/** Where cursor-agent is and what it gets, as a run of the plugin would. */
export interface LiveSetup {
  api: NativeApi
  executable: string | undefined
  /** The child's environment for tool mode `opencode`. */
  env: Record<string, string>
  /** The child's environment for a plain run, as tool mode `cursor` gives it. */
  plainEnv: Record<string, string>
  /** The private folder the checks use (a conversation folder of its own). */
  folder: string
  model: string
}

export interface LiveOutcome {
  passed: boolean
  detail: string
  /** The error code of a failed run (`E_AUTH`, ...), when it failed with one. */
  code?: string
  /** What to do, when the check knows better than "report this output". */
  fix?: string
}

/** Why Cursor refuses a bridge call that tool mode `opencode`'s own rules allow, and what to do. */
export const TEAM_POLICY_FIX =
  "Ask your Cursor team's admin to allow the MCP server `opencode` (or its read-only tools, which the bridge " +
  "marks with readOnlyHint) in the team's MCP tool controls, which override your own allow rules; meanwhile " +
  'keep CURSOR_ACP_TOOL_MODE=cursor.'

/** Seconds with one decimal: `2.3 s`. */
function seconds(ms: number): string {
  return `${(Math.round(ms / 100) / 10).toFixed(1)} s`
}

/**
 * One plain run, as tool mode `cursor` makes it but with `--trust` (Cursor may not run shell
 * commands), in an empty folder made for it: the model must answer. Its answer is not shown.
 */
export async function checkRoundTrip(setup: LiveSetup): Promise<LiveOutcome> {
  const workspace = mkdtempSync(join(tmpdir(), 'ocn-doctor-round-trip-'))
  try {
    const { result, text, firstTextMs, totalMs } = await liveAnswer(setup, { prompt: ROUND_TRIP_PROMPT, workspace })
    const failed = failure(result)
    if (failed !== undefined) return { passed: false, detail: failed, code: result.error?.code }
    if (text.trim() === '') return { passed: false, detail: `${setup.model} ended the run without any answer text` }
    const word = text.toLowerCase().includes(ROUND_TRIP_WORD)
      ? `it said "${ROUND_TRIP_WORD}"`
      : `its answer did not contain "${ROUND_TRIP_WORD}"`
    return {
      passed: true,
      detail: `${setup.model} answered in ${seconds(totalMs)} (first text after ${seconds(firstTextMs ?? totalMs)}); ${word}`,
    }
  } finally {
    rmSync(workspace, { recursive: true, force: true })
  }
}

/**
 * One turn as a read-only OpenCode agent's (the Plan agent's) runs it, plain, in an empty folder
 * made for it: the answer must come back, whether the model wrote it as text or as Cursor's plan.
 */
export async function checkReadOnly(setup: LiveSetup): Promise<LiveOutcome> {
  const workspace = mkdtempSync(join(tmpdir(), 'ocn-doctor-read-only-'))
  try {
    const answered = await liveAnswer(setup, { prompt: READ_ONLY_PROMPT, workspace, readOnly: true })
    const { result, text, totalMs } = answered
    const how = "a read-only turn (the Plan agent's)"
    const failed = failure(result)
    if (failed !== undefined) return { passed: false, detail: `${how}: ${failed}`, code: result.error?.code }
    if (text.trim() === '')
      return {
        passed: false,
        detail: `${setup.model} ended ${how} without any answer: the Plan agent's answers would be empty`,
      }
    const word = text.toLowerCase().includes(READ_ONLY_WORD)
      ? `it said "${READ_ONLY_WORD}"`
      : `its answer did not contain "${READ_ONLY_WORD}"`
    return { passed: true, detail: `${setup.model} answered ${how} in ${seconds(totalMs)}; ${word}` }
  } finally {
    rmSync(workspace, { recursive: true, force: true })
  }
}

/** What a live check's run answered: its text, when the first text came, how the run ended. */
interface LiveAnswer {
  result: RunResult
  text: string
  firstTextMs?: number
  totalMs: number
}

/**
 * One run that only answers: plain, with `--trust`, in `workspace`; or, with `instructions`, as
 * tool mode `opencode` runs it, in the checks' private folder with no tool and the instructions
 * as its always-apply rule.
 */
async function liveAnswer(
  setup: LiveSetup,
  {
    prompt,
    workspace,
    instructions,
    attachments,
    readOnly,
  }: {
    prompt: string
    workspace: string
    instructions?: string
    attachments?: PlannedAttachments | null
    readOnly?: true
  },
): Promise<LiveAnswer> {
  const started = performance.now()
  let firstTextMs: number | undefined
  let text = ''
  const run = setup.api.runCursorAgent(
    {
      prompt,
      model: setup.model,
      workspace,
      ...(setup.executable === undefined ? {} : { executable: setup.executable }),
      ...(instructions === undefined
        ? { env: setup.plainEnv, force: false }
        : { env: setup.env, hostTools: { tools: [], folder: setup.folder, instructions } }),
      ...(attachments == null ? {} : { attachments }),
      ...(readOnly === undefined ? {} : { readOnly }),
      timeoutMs: 120_000,
    },
    (outputs: StreamOutput[]) => {
      for (const part of outputs) {
        if (typeof part === 'string' || !('type' in part) || part.type !== 'text-delta' || part.delta === '') continue
        firstTextMs ??= performance.now() - started
        text += part.delta
      }
    },
  )
  const result = await run.wait()
  return { result, text, firstTextMs, totalMs: performance.now() - started }
}

/** `cursor-agent mcp list-tools opencode`, run where a bridged run works, while the bridge serves the probe tool. */
export async function checkBridgeTools(setup: LiveSetup): Promise<LiveOutcome> {
  const listed = await setup.api.runCursorAgentCommand({
    args: ['mcp', 'list-tools', 'opencode'],
    ...(setup.executable === undefined ? {} : { executable: setup.executable }),
    env: setup.env,
    hostTools: { tools: [PROBE_TOOL], folder: setup.folder },
    timeoutMs: 60_000,
  })
  const printed = `${listed.stdout}\n${listed.stderr}`.trim()
  if (listed.exitCode === 0 && listed.stdout.includes(PROBE_TOOL.name)) {
    return { passed: true, detail: `cursor-agent lists the bridge's tool ${PROBE_TOOL.name}` }
  }
  const ended = listed.exitCode === undefined ? `was ended by ${listed.signal}` : `exited with ${listed.exitCode}`
  return {
    passed: false,
    detail: `\`cursor-agent mcp list-tools opencode\` ${ended} without listing ${PROBE_TOOL.name}: ${lastLines(printed)}`,
  }
}

interface SeenCall {
  toolName: string
  input: string
  hostCall: boolean
}

interface ProbeRun {
  result: RunResult
  calls: SeenCall[]
  /** Cursor's own calls that it reported as done without an error. */
  nativeSucceeded: string[]
  text: string
}

/**
 * One prompt through the bridge; every call handed over is answered with {@link PROBE_ANSWER},
 * `late.answerAfterMs` after it came when given, under the bridge deadline `late.deadlineMs`.
 */
async function probeRun(
  setup: LiveSetup,
  prompt: string,
  tools: object[],
  late?: { deadlineMs: number; answerAfterMs: number },
): Promise<ProbeRun> {
  const calls: SeenCall[] = []
  const nativeSucceeded: string[] = []
  let text = ''
  const run = setup.api.runCursorAgent(
    {
      prompt,
      model: setup.model,
      workspace: tmpdir(),
      ...(setup.executable === undefined ? {} : { executable: setup.executable }),
      env: setup.env,
      hostTools: {
        tools,
        folder: setup.folder,
        waitMs: 60_000 + (late?.answerAfterMs ?? 0),
        ...(late === undefined ? {} : { deadlineMs: late.deadlineMs }),
      },
      timeoutMs: 180_000 + (late?.answerAfterMs ?? 0),
    },
    (outputs: StreamOutput[], step: RunStep | null) => {
      for (const part of outputs) {
        // The 'ai-sdk' format gives parts only.
        if (typeof part === 'string' || !('type' in part)) continue
        if (part.type === 'text-delta') text += part.delta
        if (part.type === 'tool-call' && part.providerExecuted === true) {
          calls.push({ toolName: part.toolName, input: part.input, hostCall: false })
        }
        if (part.type === 'tool-result' && !part.isError) nativeSucceeded.push(part.toolName)
      }
      // The run tells which calls it handed over.
      if (step?.reason !== 'tool-calls') return
      for (const call of step.toolCalls) calls.push({ toolName: call.name, input: call.input, hostCall: true })
      const answers = step.toolCalls.map((call) => ({ id: call.id, output: PROBE_ANSWER }))
      if (late === undefined) run.answerToolCalls(answers)
      else setTimeout(() => run.answerToolCalls(answers), late.answerAfterMs).unref()
    },
  )
  return { result: await run.wait(), calls, nativeSucceeded, text }
}

function failure(result: RunResult): string | undefined {
  if (result.error == null) return undefined
  return `the run failed: ${result.error.message} [${result.error.code}]${result.error.agentOutput ? ` cursor-agent said: ${lastLines(result.error.agentOutput)}` : ''}`
}

/** A prompt that asks for the probe tool: the call must reach the bridge with the right arguments. */
export async function checkProbeCall(setup: LiveSetup): Promise<LiveOutcome> {
  const probe = await probeRun(setup, PROBE_PROMPT, [PROBE_TOOL])
  const hostCalls = probe.calls.filter((call) => call.hostCall)
  const probeCall = hostCalls.find((call) => call.toolName === PROBE_TOOL.name)
  const failed = failure(probe.result)
  if (probeCall === undefined && probe.result.refusedBridgeCalls > 0)
    return {
      passed: false,
      detail:
        `Cursor refused the call to ${PROBE_TOOL.name} although the private folder's rules allow it: ` +
        "the likely cause is your Cursor team's MCP tool controls, which override a user's allow rules",
      fix: TEAM_POLICY_FIX,
    }
  if (probeCall === undefined) {
    const native = probe.calls.filter((call) => !call.hostCall).map((call) => call.toolName)
    const tried = native.length > 0 ? `; it used its own ${native.join(', ')} instead` : ''
    return { passed: false, detail: failed ?? `the model answered without calling ${PROBE_TOOL.name}${tried}` }
  }
  let word: unknown
  try {
    word = (JSON.parse(probeCall.input) as { word?: unknown }).word
  } catch {
    word = undefined
  }
  if (word !== 'ready')
    return { passed: false, detail: `${PROBE_TOOL.name} arrived with unexpected arguments ${probeCall.input}` }
  if (failed !== undefined) return { passed: false, detail: `${PROBE_TOOL.name} arrived, but ${failed}` }
  const echoed = probe.text.includes(PROBE_ANSWER)
    ? 'and the model read its answer'
    : 'but the model did not repeat its answer'
  return { passed: true, detail: `${PROBE_TOOL.name} arrived at the bridge with word "ready", ${echoed}` }
}

/**
 * The probe answers after the bridge's deadline (and after Cursor's own 60 s limit): the bridge
 * must answer "still running" in time, and the model must get the late answer through
 * `opencode_wait`, without calling the probe again.
 */
export async function checkDeadline(setup: LiveSetup): Promise<LiveOutcome> {
  const deadlineMs = readSettings(process.env).settings.toolDeadlineMs
  const answerAfterMs = Math.round(deadlineMs * LATE_ANSWER_SHARE)
  const probe = await probeRun(setup, DEADLINE_PROMPT, [PROBE_TOOL], { deadlineMs, answerAfterMs })
  const probeCalls = probe.calls.filter((call) => call.hostCall && call.toolName === PROBE_TOOL.name)
  const failed = failure(probe.result)
  const timing = `answered ${seconds(answerAfterMs)} after the call, past the bridge's ${seconds(deadlineMs)} deadline`
  if (probeCalls.length === 0)
    return { passed: false, detail: failed ?? `the model answered without calling ${PROBE_TOOL.name}` }
  if (probeCalls.length > 1)
    return {
      passed: false,
      detail: `the model called ${PROBE_TOOL.name} ${probeCalls.length} times instead of waiting for its result (${timing})`,
    }
  if (failed !== undefined) return { passed: false, detail: `${PROBE_TOOL.name} ${timing}, but ${failed}` }
  if (!probe.text.includes(PROBE_ANSWER))
    return {
      passed: false,
      detail: `${PROBE_TOOL.name} ${timing}, and the model's answer does not contain its result: it did not wait for it`,
    }
  return { passed: true, detail: `${PROBE_TOOL.name} ${timing}; the model got its result through opencode_wait` }
}

/** A prompt that asks for Cursor's own shell tool: it must be refused, and the file never made. */
export async function checkNativeRefused(setup: LiveSetup): Promise<LiveOutcome> {
  const made = join(setup.folder, 'workspace', NATIVE_PROBE_FILE)
  mkdirSync(join(setup.folder, 'workspace'), { recursive: true })
  rmSync(made, { force: true })
  const probe = await probeRun(setup, NATIVE_PROMPT, [])
  const native = [...new Set(probe.calls.filter((call) => !call.hostCall).map((call) => call.toolName))]
  if (existsSync(made) || probe.nativeSucceeded.length > 0) {
    rmSync(made, { force: true })
    const ran = probe.nativeSucceeded.length > 0 ? probe.nativeSucceeded.join(', ') : 'a tool of its own'
    return { passed: false, detail: `Cursor ran ${ran} itself: its own tools are not kept out` }
  }
  const failed = failure(probe.result)
  if (failed !== undefined) return { passed: false, detail: failed }
  if (native.length === 0)
    return { passed: true, detail: 'asked to run a shell command itself, Cursor ran no tool of its own' }
  return { passed: true, detail: `Cursor tried its own ${native.join(', ')}, and it was refused` }
}

/**
 * What Cursor's models say when they take a host's system prompt for an attack on them rather
 * than for their instructions (as users of other Cursor bridges reported it).
 */
export const REFUSAL =
  /prompt[ -]injection|gaslight|jailbreak|(?:can(?:no|')t|won't|will not) (?:comply|follow|pretend|adopt)/i

/**
 * A first turn as the plugin sends it in `toolMode`, with OpenCode's real system prompt (tool
 * mode `cursor` with its diet), in an empty folder: the model must answer, not refuse.
 */
export async function checkHostInstructions(setup: LiveSetup, toolMode: 'cursor' | 'opencode'): Promise<LiveOutcome> {
  const workspace = mkdtempSync(join(tmpdir(), 'ocn-doctor-instructions-'))
  try {
    const messages = [
      { role: 'system' as const, content: openCodeSystemPrompt(workspace, setup.model) },
      { role: 'user' as const, content: [{ type: 'text' as const, text: INSTRUCTIONS_PROMPT }] },
    ]
    // As the plugin sends it: in tool mode `cursor` in the prompt, trimmed; in tool mode
    // `opencode` as the private folder's always-apply rule, the prompt keeping the conversation.
    const { prompt, instructions } = new setup.api.SessionResumeManager({ enabled: false }).plan({
      workspace,
      model: setup.model,
      messages: toolMode === 'cursor' ? toldInCursorToolMode(messages) : messages,
      instructionsApart: toolMode === 'opencode',
    })
    const { result, text } = await liveAnswer(setup, {
      prompt,
      workspace,
      ...(instructions == null ? {} : { instructions }),
    })
    const failed = failure(result)
    if (failed !== undefined) return { passed: false, detail: failed }
    const refused = REFUSAL.exec(text)
    if (refused !== null)
      return {
        passed: false,
        detail: `${setup.model} refused OpenCode's system prompt ("${refused[0]}"): ${lastLines(text, 2)}`,
      }
    if (text.trim() === '') return { passed: false, detail: `${setup.model} ended the turn without any answer text` }
    const word = text.toLowerCase().includes(INSTRUCTIONS_WORD)
      ? `it said "${INSTRUCTIONS_WORD}"`
      : `its answer did not contain "${INSTRUCTIONS_WORD}"`
    return {
      passed: true,
      detail: `${setup.model} answered a first turn carrying OpenCode's system prompt (tool mode ${toolMode}); ${word}`,
    }
  } finally {
    rmSync(workspace, { recursive: true, force: true })
  }
}

/**
 * A picture of a random word, attached as OpenCode attaches a pasted one, to the model in a plain
 * run: a model declared to take pictures must answer the word. One declared without them passes
 * either way, and its answer tells whether the declaration holds.
 */
export async function checkPicture(setup: LiveSetup): Promise<LiveOutcome> {
  const word = pictureWord()
  const workspace = mkdtempSync(join(tmpdir(), 'ocn-doctor-picture-'))
  try {
    const picture = { type: 'file' as const, mediaType: 'image/png', data: wordPicture(word).toString('base64') }
    const plan = new setup.api.SessionResumeManager({ enabled: false }).plan({
      workspace,
      model: setup.model,
      messages: [{ role: 'user', content: [{ type: 'text', text: PICTURE_PROMPT }, picture] }],
    })
    const { result, text } = await liveAnswer(setup, { prompt: plan.prompt, workspace, attachments: plan.attachments })
    const failed = failure(result)
    if (failed !== undefined) return { passed: false, detail: failed, code: result.error?.code }
    const declared = setup.api.describeCursorModel(setup.model).pictures
    const read = text.toUpperCase().includes(word)
    if (read && declared) return { passed: true, detail: `${setup.model} read the word "${word}" in a picture` }
    if (read)
      return {
        passed: true,
        detail: `${setup.model} read the word "${word}" in a picture, yet is declared without pictures (OpenCode refuses a pasted one for it): please report this output`,
      }
    if (!declared)
      return {
        passed: true,
        detail: `${setup.model} did not read the picture, as declared: OpenCode refuses pictures for it; models that take them are marked in \`opencode models cursor-acp --verbose\` (attachment: true)`,
      }
    return {
      passed: false,
      detail: `${setup.model} did not answer "${word}", the word in the picture: ${lastLines(text, 2)}`,
      fix: 'Please report this output with your cursor-agent version and the model; meanwhile pictures may not reach this model.',
    }
  } finally {
    rmSync(workspace, { recursive: true, force: true })
  }
}

function lastLines(text: string, count = 3): string {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
  return lines.length === 0 ? '(nothing printed)' : lines.slice(-count).join(' / ')
}
