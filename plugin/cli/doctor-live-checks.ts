// The checks `doctor --live` adds, in order, each a run of `doctor-live.ts` on the Cursor account
// worded as a check, and the verdict on tool mode `opencode`.
import type { CursorAcpSettings } from '../turn/env.js'
import { type Check, type CheckStatus, check, checkOf, errorText, LOGIN_FIX, skipped } from './doctor-check.js'
import {
  checkBridgeTools,
  checkDeadline,
  checkHostInstructions,
  checkNativeRefused,
  checkPicture,
  checkProbeCall,
  checkReadOnly,
  checkRoundTrip,
  type LiveOutcome,
  type LiveSetup,
} from './doctor-live.js'

const ROUND_TRIP_ID = 'live-round-trip'
const INSTRUCTIONS_ID = 'live-host-instructions'
const PICTURE_ID = 'live-picture'
const READ_ONLY_ID = 'live-read-only'
const VERDICT_ID = 'tool-mode-opencode'
const BRIDGE_CHECKS: ReadonlyArray<{ id: string; run: (setup: LiveSetup) => Promise<LiveOutcome> }> = [
  { id: 'live-bridge-tools', run: checkBridgeTools },
  { id: 'live-probe-call', run: checkProbeCall },
  { id: 'live-deadline', run: checkDeadline },
  { id: 'live-native-refused', run: checkNativeRefused },
]
/** Every check `--live` adds, in order. */
export const LIVE_IDS = [
  ROUND_TRIP_ID,
  INSTRUCTIONS_ID,
  PICTURE_ID,
  READ_ONLY_ID,
  ...BRIDGE_CHECKS.map((check) => check.id),
  VERDICT_ID,
]

/** What to do when the round trip fails, by the run's error code; any other code: {@link debugFix}. */
const ROUND_TRIP_FIX: Readonly<Partial<Record<string, string>>> = {
  E_AUTH: LOGIN_FIX,
  E_MODEL: 'Pick another model with `--model <id>`, one of those the models check lists.',
  E_QUOTA: 'Wait for the usage limit to reset, or pick another model with `--model <id>`.',
  E_NETWORK:
    "Check the connection to Cursor's servers (and HTTPS_PROXY, if you need a proxy), then run the doctor again.",
}
const debugFix = (logFile: string) => `Rerun with CURSOR_ACP_LOG_LEVEL=debug and read the log, ${logFile}.`
const REPORT_FIX = 'Please report this output.'
const READ_ONLY_FIX =
  "Please report this output with your cursor-agent version and the model; meanwhile the Plan agent's answers may be empty with this model (another may answer: `--model <id>`)."

async function outcomeOf(run: (setup: LiveSetup) => Promise<LiveOutcome>, setup: LiveSetup): Promise<LiveOutcome> {
  try {
    return await run(setup)
  } catch (error) {
    const { code } = error as { code?: unknown }
    return { passed: false, detail: errorText(error), ...(typeof code === 'string' ? { code } : {}) }
  }
}

/** What `--check` leaves out of a run of the live checks. */
const notAsked = (id: string) => skipped(id, 'not among those --check names')

/**
 * The round trip, then the other checks `asked` names (all when undefined) and, when every check of
 * the bridge ran, the verdict on tool mode `opencode`. A failed round trip blocks any use, and skips
 * the rest (their requests would be spent for nothing); a failed bridge check blocks use only when
 * that mode is chosen.
 */
export async function liveChecks(
  setup: LiveSetup,
  settings: CursorAcpSettings,
  logFile: string,
  asked?: ReadonlySet<string>,
): Promise<Check[]> {
  const roundTrip = await outcomeOf(checkRoundTrip, setup)
  if (!roundTrip.passed) {
    const fix = (roundTrip.code === undefined ? undefined : ROUND_TRIP_FIX[roundTrip.code]) ?? debugFix(logFile)
    const rest = LIVE_IDS.filter((id) => id !== ROUND_TRIP_ID).map((id) =>
      skipped(id, `needs the ${ROUND_TRIP_ID} check to pass`),
    )
    return [check(ROUND_TRIP_ID, 'problem', roundTrip.detail, fix), ...rest]
  }
  const run = async (id: string, found: () => Promise<Check>) =>
    asked === undefined || asked.has(id) ? found() : notAsked(id)
  // A first turn with OpenCode's real system prompt, in the chosen tool mode: answered, not refused.
  const instructions = await run(INSTRUCTIONS_ID, async () =>
    checkOf(
      INSTRUCTIONS_ID,
      await outcomeOf((live) => checkHostInstructions(live, settings.toolMode), setup),
      'problem',
      'Please report this output with your cursor-agent version and the model; another model may accept it (`--model <id>`).',
    ),
  )
  // A picture the model must read: a warning when it does not (text still works).
  const picture = await run(PICTURE_ID, async () =>
    checkOf(PICTURE_ID, await outcomeOf(checkPicture, setup), 'warning', REPORT_FIX),
  )
  // A read-only turn, as the Plan agent's: a warning when no answer comes back (other agents still work).
  const readOnly = await run(READ_ONLY_ID, async () =>
    checkOf(READ_ONLY_ID, await outcomeOf(checkReadOnly, setup), 'warning', READ_ONLY_FIX),
  )
  const failing: CheckStatus = settings.toolMode === 'opencode' ? 'problem' : 'warning'
  const bridge: Check[] = []
  for (const { id, run: probe } of BRIDGE_CHECKS)
    bridge.push(await run(id, async () => checkOf(id, await outcomeOf(probe, setup), failing, REPORT_FIX)))
  return [
    check(ROUND_TRIP_ID, 'ok', roundTrip.detail),
    instructions,
    picture,
    readOnly,
    ...bridge,
    verdictOn(bridge, failing),
  ]
}

/** The verdict on tool mode `opencode`, from the bridge's checks: skipped unless all of them ran. */
function verdictOn(bridge: readonly Check[], failing: CheckStatus): Check {
  if (bridge.some((found) => found.status === 'skipped')) return notAsked(VERDICT_ID)
  return bridge.every((found) => found.status === 'ok')
    ? check(VERDICT_ID, 'ok', 'tool mode opencode can be used on this machine (CURSOR_ACP_TOOL_MODE=opencode)')
    : check(
        VERDICT_ID,
        failing,
        'tool mode opencode cannot be used on this machine yet',
        'Keep the default tool mode cursor, and please report this output with your cursor-agent version.',
      )
}
