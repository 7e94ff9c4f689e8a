// Captures of runs (`RunCaptureOptions`) and their replay (`replayCapture`, the `replay` command),
// against fake cursor-agent executables (__test__/support/agents/*). Every expected value is
// worked out here from the fixtures and the documented layout (index.d.ts): the masked stdout is
// the fixture with the echoed prompt replaced by hand, hashes are computed here, the outputs are
// those the test's own `onOutput` received. Nothing the code under test wrote is used to check
// itself, but for `--json` against `replayCapture` (the same report, two ways).
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, describe, it } from 'node:test'

import { replayCapture, runCursorAgent } from '../index.js'
import type { ReplayReport, RunResult, StreamOutput } from '../index.js'
import { capture as fixtureBytes } from './support/captures.ts'
import { groupMembers, killGroupsAfter, waitFor } from './support/process.ts'
import { fixture } from './support/stream.ts'

type RunCursorAgentOptions = Parameters<typeof runCursorAgent>[0]

const here = __dirname
const root = join(here, '..')
const cli = join(root, 'dist', 'plugin', 'cli', 'main.js')
const agents = join(here, 'support', 'agents')
const replayAgent = join(agents, 'replay-agent.mjs')
const rawAgent = join(agents, 'raw-agent.mjs')

const MAESTRO = [
  '01_simple_no_tool.jsonl',
  '02_shell_tool_call.jsonl',
  '03_edit_tool_call.jsonl',
  '04_partial_output.jsonl',
  '05_rejected_shell.jsonl',
] as const
const fixturePath = (name: string) => join(here, 'fixtures', 'captures', 'maestro', name)

const scratch = mkdtempSync(join(tmpdir(), 'ocn-capture-spec-'))
const workspace = join(scratch, 'ws')
mkdirSync(workspace, { recursive: true })
after(() => rmSync(scratch, { recursive: true, force: true }))

let counter = 0
/** A fresh path in the scratch folder. */
function fresh(name: string): string {
  counter += 1
  return join(scratch, `${counter}-${name}`)
}

/** The child's complete environment: only what a fake agent needs, plus the given variables. */
function agentEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, ...extra }
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex')

/** One line of a capture file, as index.d.ts describes the layout. */
type CaptureLine = Record<string, any> & { kind: string }

interface Captured {
  result: RunResult
  /** Every output `onOutput` received, in order. */
  outputs: StreamOutput[]
  name: string
  file: string
  /** The file's text. */
  text: string
  lines: CaptureLine[]
  start: CaptureLine
  end: CaptureLine | undefined
}

function readCapture(file: string): CaptureLine[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as CaptureLine)
}

/** Runs cursor-agent (a fake one) with a capture into `folder`, collecting the outputs live. */
async function captured(
  options: Partial<RunCursorAgentOptions> & { folder: string; maxBytes?: number; includePrompt?: boolean },
  onOutput?: (outputs: StreamOutput[]) => void,
): Promise<Captured> {
  const { folder, maxBytes, includePrompt, ...rest } = options
  const outputs: StreamOutput[] = []
  const capture = {
    folder,
    ...(maxBytes === undefined ? {} : { maxBytes }),
    ...(includePrompt === undefined ? {} : { includePrompt }),
  }
  const run = runCursorAgent(
    { prompt: 'Say hi', model: 'auto', workspace, executable: replayAgent, capture, ...rest },
    (batch) => {
      outputs.push(...batch)
      onOutput?.(batch)
    },
  )
  const result = await run.wait()
  assert.equal(typeof result.capture, 'string', `the run names its capture: ${JSON.stringify(result)}`)
  const name = result.capture!
  assert.match(name, /^cap-[a-z]+-[a-z]+$/, 'a capture name is letters only')
  const file = join(folder, `${name}.ndjson`)
  assert.ok(existsSync(file), `${file} exists`)
  const text = readFileSync(file, 'utf8')
  const lines = readCapture(file)
  assert.equal(lines[0]?.kind, 'start', 'the first line is the start line')
  return { result, outputs, name, file, text, lines, start: lines[0]!, end: lines.find((line) => line.kind === 'end') }
}

/** The stdout the capture kept: every stdout line's `data` (or decoded `base64`), in order. */
function keptStdout(lines: CaptureLine[]): Buffer {
  return Buffer.concat(
    lines
      .filter((line) => line.kind === 'stdout')
      .map((line) =>
        typeof line.data === 'string'
          ? Buffer.from(line.data, 'utf8')
          : typeof line.base64 === 'string'
            ? Buffer.from(line.base64, 'base64')
            : Buffer.alloc(0),
      ),
  )
}

/** Every output the capture recorded as produced live, in order. */
function recordedOutputs(lines: CaptureLine[]): StreamOutput[] {
  return lines.flatMap((line) => (Array.isArray(line.outputs) ? (line.outputs as StreamOutput[]) : []))
}

const PROMPT_MASK = '[prompt masked]'

/**
 * A maestro capture as a masking capture must keep it: byte for byte, but for the string value of
 * the `text` key in the one `user` record (cursor-agent's echo of the prompt), replaced here by
 * string surgery on that line alone. Also returns the echoed prompt text.
 */
function maskedFixture(name: string): { expected: Buffer; echoed: string; records: number } {
  const original = fixtureBytes(`maestro/${name}`).toString('utf8')
  const lines = original.split('\n')
  let echoed: string | undefined
  const masked = lines.map((line) => {
    if (line === '' || JSON.parse(line).type !== 'user') return line
    assert.equal(echoed, undefined, `${name} has one user record`)
    const record = JSON.parse(line)
    const content = record.message.content as Array<{ type: string; text: string }>
    assert.equal(content.length, 1, `${name}: the echo holds one text part`)
    echoed = content[0]!.text
    const literal = `"text":${JSON.stringify(echoed)}`
    assert.equal(
      line.split(literal).length - 1,
      1,
      `${name}: the echo's text is written as JSON.stringify writes it, once`,
    )
    return line.replace(literal, `"text":${JSON.stringify(PROMPT_MASK)}`)
  })
  assert.ok(echoed !== undefined, `${name} echoes the prompt`)
  return {
    expected: Buffer.from(masked.join('\n'), 'utf8'),
    echoed,
    records: lines.filter((line) => line !== '').length,
  }
}

/** The documented command line after the program (docs/how-it-works.md, index.d.ts `runCursorAgent`). */
function documentedArgs(model: string): string[] {
  return [
    '--print',
    '--output-format',
    'stream-json',
    '--stream-partial-output',
    '--workspace',
    workspace,
    '--model',
    model,
    '--force',
  ]
}

/** The failure note a captured run's error message ends with (index.d.ts `RunCaptureOptions`). */
const FAILURE_NOTE =
  /The run was captured as (cap-[a-z]+-[a-z]+): `npx opencode-cursor-native replay \1` shows where it went wrong\.$/

function assertNamesCapture(message: string, name: string): void {
  const note = FAILURE_NOTE.exec(message)
  assert.ok(note, `the message ends with the capture's note: ${message}`)
  assert.equal(note[1], name, 'the note names this run capture')
  assert.ok(!/\d/.test(note[0]), `the note holds no digits (OpenCode reads numbers as retry hints): ${note[0]}`)
}

// Stream pieces in cursor-agent's stream-json shape, for the hand-made streams below.
const SESSION = 'capture-spec-session'
const record = (value: Record<string, unknown>) => `${JSON.stringify({ ...value, session_id: SESSION })}\n`
const init = () => record({ type: 'system', subtype: 'init', model: 'Auto' })
const echo = (text: string) => record({ type: 'user', message: { role: 'user', content: [{ type: 'text', text }] } })
/** A partial-output fragment (it carries `timestamp_ms`). */
const delta = (text: string, at: number) =>
  record({
    type: 'assistant',
    message: { role: 'assistant', content: [{ type: 'text', text }] },
    timestamp_ms: 1_790_000_000_000 + at,
  })
/** The recap of the whole text (no `timestamp_ms`). */
const recap = (text: string) =>
  record({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text }] } })
const resultRecord = (text: string) => record({ type: 'result', subtype: 'success', is_error: false, result: text })

/** The answer text of AI SDK parts. */
const answerOf = (outputs: StreamOutput[]) =>
  (outputs as Array<Record<string, any>>)
    .filter((part) => part.type === 'text-delta')
    .map((part) => part.delta as string)
    .join('')

describe('a capture keeps stdout byte for byte, the prompt echo masked', () => {
  for (const format of ['ai-sdk', 'openai-sse'] as const) {
    for (const name of MAESTRO) {
      it(`${name} (${format})`, async () => {
        const { expected, echoed, records } = maskedFixture(name)
        // The prompt the echo stands for: the same text, as cursor-agent echoes what it was given.
        const prompt = echoed
        const folder = fresh('captures')
        const env = agentEnv({ FAKE_AGENT_REPLAY: fixturePath(name) })
        const run = await captured({ folder, prompt, format, env })
        assert.equal(run.result.error, undefined)
        assert.equal(run.result.exitCode, 0)

        assert.ok(keptStdout(run.lines).equals(expected), `the capture's stdout is ${name} with only the echo masked`)
        // The prompt has no character JSON escapes, so any copy of it would show as it is.
        assert.equal(JSON.stringify(prompt), `"${prompt}"`)
        assert.ok(!run.text.includes(prompt), 'the prompt text is nowhere in the capture')

        const { start, end } = run
        assert.equal(start.name, run.name)
        assert.deepEqual(
          start.prompt,
          { bytes: Buffer.byteLength(prompt), sha256: sha256(prompt) },
          'size and hash, no text',
        )
        assert.deepEqual(start.masked, { prompt: true, secrets: [] })
        assert.deepEqual(start.argv, [replayAgent, ...documentedArgs('auto')])
        assert.deepEqual(start.env, Object.keys(env).sort(), 'the names of the variables, never their values')
        assert.equal(start.transformer.format, format)
        assert.ok(end !== undefined && run.lines.at(-1) === end, 'the end line is the last')
        assert.equal(end.ending, 'finished')
        assert.equal(end.exitCode, 0)
        assert.equal(end.stdoutBytes, fixtureBytes(`maestro/${name}`).length, 'every byte read is counted')
        assert.equal(end.delivered, run.outputs.length, 'every output was delivered')
        assert.equal(end.truncated, false)
        assert.deepEqual(recordedOutputs(run.lines), run.outputs, 'the capture records the outputs onOutput received')

        const report = replayCapture(run.file)
        assert.equal(report.matches, true, JSON.stringify(report.mismatch))
        assert.equal(report.mismatch, undefined)
        assert.equal(report.truncated, false)
        assert.deepEqual(report.unknownRecords, [], 'every record of a real capture is of a known kind')
        assert.deepEqual(report.consumer.outputs, run.outputs, 'the replay produces what onOutput received')
        assert.equal(report.consumer.liveOutputs, run.outputs.length)
        assert.equal(report.consumer.delivered, run.outputs.length)
        assert.equal(report.consumer.text, report.consumer.liveText)
        assert.equal(report.name, run.name)
        assert.equal(report.format, format)
        assert.equal(report.model, 'auto')
        assert.equal(report.process.ending, 'finished')
        assert.equal(report.process.exitCode, 0)
        assert.equal(report.framing.records, records, 'every line of the fixture is one record')
        assert.deepEqual(report.framing.skipped, [])
        assert.equal(report.framing.sawResult, true)
        // All five fixtures are whole runs: each ends with its `result` record and exit 0. Capture
        // 04's "partial" is --stream-partial-output (token fragments, then the recap), not a
        // cut-off answer, so nothing stopped short there either.
        assert.equal(report.textStopped, undefined, JSON.stringify(report.textStopped))
      })
    }
  }
})

describe('the cursor-agent version of a captured run', () => {
  it("is the release folder its launcher's link points into, with that source; none for another path", async () => {
    // Cursor's installer's layout: each release in its own folder, `~/.local/bin/cursor-agent` a link.
    const home = fresh('home')
    const release = join(home, '.local', 'share', 'cursor-agent', 'versions', '2026.09.18-9a7762b')
    mkdirSync(release, { recursive: true })
    symlinkSync(replayAgent, join(release, 'cursor-agent'))
    mkdirSync(join(home, '.local', 'bin'), { recursive: true })
    const link = join(home, '.local', 'bin', 'cursor-agent')
    symlinkSync(join(release, 'cursor-agent'), link)
    const env = agentEnv({ FAKE_AGENT_REPLAY: fixturePath('01_simple_no_tool.jsonl') })

    const linked = await captured({ folder: fresh('captures'), executable: link, env })
    assert.equal(linked.result.error, undefined)
    assert.deepEqual(linked.start.agentVersion, { value: '2026.09.18-9a7762b', source: 'path' })
    assert.equal(linked.start.argv[0], link, 'the command line is the one started, the link itself')

    const plain = await captured({ folder: fresh('captures'), env })
    assert.equal(plain.start.agentVersion, undefined, 'a binary in no release folder names no version')
  })
})

describe('includePrompt keeps the prompt', () => {
  it('in the start line and in the echo, and the replay still matches', async () => {
    const name = '01_simple_no_tool.jsonl'
    // Several lines and characters beyond ASCII: `bytes` counts UTF-8 bytes, not characters.
    const prompt = 'Reply with exactly the word: PONG\nünïcödé ✓ "quoted" \\ back'
    assert.notEqual(Buffer.byteLength(prompt), prompt.length)
    const run = await captured({
      folder: fresh('captures'),
      prompt,
      includePrompt: true,
      env: agentEnv({ FAKE_AGENT_REPLAY: fixturePath(name) }),
    })
    assert.deepEqual(run.start.prompt, { bytes: Buffer.byteLength(prompt), sha256: sha256(prompt), text: prompt })
    assert.deepEqual(run.start.masked, { prompt: false, secrets: [] })
    assert.ok(
      keptStdout(run.lines).equals(fixtureBytes(`maestro/${name}`)),
      'the echo is kept too: stdout is the fixture exactly',
    )
    assert.ok(!run.text.includes(PROMPT_MASK))
    const report = replayCapture(run.file)
    assert.equal(report.matches, true, JSON.stringify(report.mismatch))
    assert.deepEqual(report.consumer.outputs, run.outputs)
    assert.equal(report.textStopped, undefined)
  })
})

describe('a secret never reaches a capture', () => {
  it('the API key, in the stream, stderr, the command line and the error, is masked everywhere', async () => {
    const key = 'crsr_capture_spec_5f0c2a9e7b1d4c3a8e6f0b2d9c7a1e4f'
    const token = 'ghp_capturespec0123456789abcdefABCDEF'
    const stream = fresh('secret.ndjson')
    writeFileSync(
      stream,
      init() +
        echo(`use ${key} please`) +
        delta('The key is ', 1) +
        delta(`${key}, and the token `, 2) +
        delta(`${token}.`, 3) +
        recap(`The key is ${key}, and the token ${token}.`) +
        resultRecord(`The key is ${key}, and the token ${token}.`),
    )
    const env = agentEnv({
      CURSOR_API_KEY: key,
      GITHUB_TOKEN: token,
      FAKE_AGENT_REPLAY: stream,
      FAKE_AGENT_STDERR: `Error: key ${key} was refused\n`,
      FAKE_AGENT_EXIT: '1',
    })
    const run = await captured({ folder: fresh('captures'), env, extraArgs: ['--api-key', key] })
    // The live run is not masked: what the consumer sees is Cursor's text.
    assert.equal(answerOf(run.outputs), `The key is ${key}, and the token ${token}.`)
    assert.equal(run.result.error?.code, 'E_AGENT_EXIT')
    // The error quotes what cursor-agent said, its secrets masked as everywhere they are kept.
    assert.ok(run.result.error!.agentOutput?.includes('was refused'), 'the live error quotes what cursor-agent said')
    assert.ok(!run.result.error!.agentOutput?.includes(key), 'the live error holds no key')
    assert.ok(run.result.error!.agentOutput?.includes('[masked CURSOR_API_KEY]'), run.result.error!.agentOutput)

    for (const [secret, variable] of [
      [key, 'CURSOR_API_KEY'],
      [token, 'GITHUB_TOKEN'],
    ] as const) {
      assert.ok(!run.text.includes(secret), `the capture file holds no ${variable}`)
      assert.ok(!keptStdout(run.lines).includes(secret), `nor does its stdout (${variable})`)
      assert.ok(run.text.includes(`[masked ${variable}]`), `[masked ${variable}] stands in its place`)
    }
    assert.deepEqual([...run.start.masked.secrets].sort(), ['CURSOR_API_KEY', 'GITHUB_TOKEN'])
    assert.ok(
      run.start.env.includes('CURSOR_API_KEY') && run.start.env.includes('GITHUB_TOKEN'),
      'the names are listed',
    )
    assert.deepEqual(run.start.argv.slice(-2), ['--api-key', '[masked CURSOR_API_KEY]'])
    const close = run.lines.find((line) => line.kind === 'close')!
    assert.equal(close.closing.outcome.stderr, 'Error: key [masked CURSOR_API_KEY] was refused\n')
    assert.ok(run.end!.error.agentOutput.includes('[masked CURSOR_API_KEY]'))
    // Everything but the secrets stays as it was: unmasking by hand gives the stream back.
    const unmasked = keptStdout(run.lines)
      .toString('utf8')
      .replaceAll('[masked CURSOR_API_KEY]', key)
      .replaceAll('[masked GITHUB_TOKEN]', token)
    assert.equal(
      unmasked,
      readFileSync(stream, 'utf8').replace(`"text":${JSON.stringify(`use ${key} please`)}`, `"text":"${PROMPT_MASK}"`),
    )

    const report = replayCapture(run.file)
    assert.equal(report.matches, true, JSON.stringify(report.mismatch))
    assert.equal(report.consumer.text, 'The key is [masked CURSOR_API_KEY], and the token [masked GITHUB_TOKEN].')
    assert.ok(!JSON.stringify(report).includes(key), 'nor does the replay report hold the key')
  })

  it('a value that needs escaping in JSON is masked as stdout writes it', async () => {
    const password = 'pa"ss\\word/ünï 42'
    const stream = fresh('escaped.ndjson')
    writeFileSync(stream, init() + recap(`It is ${password}.`) + resultRecord(`It is ${password}.`))
    const run = await captured({
      folder: fresh('captures'),
      env: agentEnv({ DB_PASSWORD: password, FAKE_AGENT_REPLAY: stream, FAKE_AGENT_STDERR: password }),
    })
    const stdout = keptStdout(run.lines).toString('utf8')
    const inJson = JSON.stringify(password).slice(1, -1)
    assert.ok(!stdout.includes(inJson) && !stdout.includes(password), 'stdout holds the value in no form')
    assert.ok(!run.text.includes(JSON.stringify(password).slice(1, -1)), 'the file holds no JSON copy of it')
    assert.ok(!run.text.includes(JSON.stringify(inJson).slice(1, -1)), 'nor a copy of its form in stdout')
    assert.equal(stdout, readFileSync(stream, 'utf8').replaceAll(inJson, '[masked DB_PASSWORD]'))
    assert.equal(run.lines.find((line) => line.kind === 'close')!.closing.outcome.stderr, '[masked DB_PASSWORD]')
    assert.deepEqual(run.start.masked.secrets, ['DB_PASSWORD'])
    assert.equal(replayCapture(run.file).matches, true)
  })

  it('values shorter than 8 characters are not masked (a documented limit), 8 are', async () => {
    for (const [value, masked] of [
      ['k3y_sev', false],
      ['k3y_eigh', true],
    ] as const) {
      assert.equal(value.length, masked ? 8 : 7)
      const stream = fresh('short.ndjson')
      writeFileSync(stream, init() + recap(`Key ${value}.`) + resultRecord(`Key ${value}.`))
      const run = await captured({
        folder: fresh('captures'),
        env: agentEnv({ CURSOR_API_KEY: value, FAKE_AGENT_REPLAY: stream }),
      })
      assert.equal(run.text.includes(value), !masked, value)
      assert.equal(run.text.includes('[masked CURSOR_API_KEY]'), masked, value)
      assert.deepEqual(run.start.masked.secrets, masked ? ['CURSOR_API_KEY'] : [])
      assert.ok(run.start.env.includes('CURSOR_API_KEY'))
      assert.equal(replayCapture(run.file).matches, true)
    }
  })

  it('the name decides: *API_KEY*, *TOKEN*, *SECRET*, *PASSWORD*, *PASSWD*, *CREDENTIAL*, *_KEY; others stay', async () => {
    const names = [
      'OPENAI_API_KEY',
      'my_token',
      'CLIENT_SECRET_VALUE',
      'DB_PASSWORD',
      'PASSWD',
      'GOOGLE_CREDENTIALS',
      'SIGNING_KEY',
    ]
    const plain = ['KEYBOARD', 'MONKEY', 'HOME_DIR']
    const values = Object.fromEntries(
      [...names, ...plain].map((name, i) => [name, `value-${String.fromCharCode(97 + i).repeat(10)}`]),
    )
    const stream = fresh('names.ndjson')
    const text = Object.values(values).join(' ')
    writeFileSync(stream, init() + recap(text) + resultRecord(text))
    const run = await captured({ folder: fresh('captures'), env: agentEnv({ ...values, FAKE_AGENT_REPLAY: stream }) })
    for (const name of names) {
      assert.ok(!run.text.includes(values[name]!), `${name} is masked`)
      assert.ok(run.text.includes(`[masked ${name}]`), name)
    }
    for (const name of plain)
      assert.ok(keptStdout(run.lines).toString('utf8').includes(values[name]!), `${name} is not a secret`)
    assert.deepEqual([...run.start.masked.secrets].sort(), [...names].sort())
  })
})

describe('a cut-off run names its stage', () => {
  it('a last record without its line feed and exit 1: the process stage, the record skipped as cut off', async () => {
    const head = init() + echo('Say hello') + delta('Hello', 1) + delta(' wor', 2) + delta('ld', 3)
    const cut = recap('Hello world, and then some more').replace(/\n$/, '')
    const stream = fresh('cut.raw')
    writeFileSync(stream, head + cut)
    const run = await captured({
      folder: fresh('captures'),
      executable: rawAgent,
      env: agentEnv({ FAKE_AGENT_RAW: stream, FAKE_AGENT_EXIT: '1' }),
    })
    assert.equal(run.result.exitCode, 1)
    assert.equal(run.result.error?.code, 'E_AGENT_EXIT')
    assertNamesCapture(run.result.error!.message, run.name)
    assert.equal(answerOf(run.outputs), 'Hello world')
    // The cut-off record is kept in the capture as it was read.
    assert.equal(
      keptStdout(run.lines).toString('utf8'),
      head.replace(`"text":"Say hello"`, `"text":"${PROMPT_MASK}"`) + cut,
    )

    const report = replayCapture(run.file)
    assert.equal(report.matches, true, JSON.stringify(report.mismatch))
    assert.deepEqual(report.consumer.outputs, run.outputs)
    assert.equal(report.textStopped?.stage, 'process', JSON.stringify(report.textStopped))
    assert.equal(report.framing.sawResult, false)
    assert.equal(report.framing.skipped.length, 1, JSON.stringify(report.framing.skipped))
    const [skipped] = report.framing.skipped
    assert.equal(skipped!.record, 6, 'the sixth record')
    assert.equal(skipped!.bytes, Buffer.byteLength(cut))
    assert.match(skipped!.reason, /cut off/)
    assert.equal(report.process.exitCode, 1)
    assert.equal(report.consumer.text, 'Hello world')
    assert.equal(report.process.error?.code, 'E_AGENT_EXIT')
  })

  it('a record that is not valid UTF-8 in an otherwise whole run: the framing stage', async () => {
    const bad = Buffer.concat([
      Buffer.from('{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"caf'),
      Buffer.from([0xe9, 0xff]),
      Buffer.from('"}]}}\n'),
    ])
    const bytes = Buffer.concat([
      Buffer.from(init() + delta('Hello', 1)),
      bad,
      Buffer.from(delta(' world', 2) + recap('Hello world') + resultRecord('Hello world')),
    ])
    assert.throws(() => new TextDecoder('utf-8', { fatal: true }).decode(bytes), 'the stream is not valid UTF-8')
    const stream = fresh('bad-utf8.raw')
    writeFileSync(stream, bytes)
    const run = await captured({
      folder: fresh('captures'),
      executable: rawAgent,
      env: agentEnv({ FAKE_AGENT_RAW: stream }),
    })
    assert.equal(run.result.error, undefined)
    assert.equal(run.result.skippedLines, 1)
    assert.ok(
      keptStdout(run.lines).equals(bytes),
      'the capture keeps the bytes as read (base64 where they are not UTF-8)',
    )
    assert.ok(run.lines.some((line) => line.kind === 'stdout' && typeof line.base64 === 'string'))

    const report = replayCapture(run.file)
    assert.equal(report.matches, true, JSON.stringify(report.mismatch))
    assert.deepEqual(report.consumer.outputs, run.outputs)
    assert.equal(report.framing.sawResult, true)
    assert.equal(report.textStopped?.stage, 'framing', JSON.stringify(report.textStopped))
    assert.equal(report.framing.skipped.length, 1)
    assert.equal(report.framing.skipped[0]!.record, 3)
    assert.equal(report.framing.skipped[0]!.bytes, bad.length - 1, 'the record without its line feed')
    assert.match(report.framing.skipped[0]!.reason, /UTF-8/)
  })

  it('onOutput throws: the consumer stage', async () => {
    let calls = 0
    const run = await captured(
      {
        folder: fresh('captures'),
        env: agentEnv({ FAKE_AGENT_REPLAY: fixturePath('04_partial_output.jsonl'), FAKE_AGENT_DELAY_MS: '2' }),
      },
      () => {
        calls += 1
        throw new Error('consumer broke')
      },
    )
    assert.equal(calls, 1)
    assert.equal(run.result.error?.code, 'E_CALLBACK')
    assertNamesCapture(run.result.error!.message, run.name)
    const report = replayCapture(run.file)
    assert.equal(report.matches, true, JSON.stringify(report.mismatch))
    assert.equal(report.textStopped?.stage, 'consumer', JSON.stringify(report.textStopped))
    assert.equal(report.process.ending, 'callback threw')
    assert.ok(
      report.consumer.delivered! < report.consumer.liveOutputs,
      'fewer outputs reached the consumer than were produced',
    )
  })

  it('an idle timeout: the process stage, naming the idle timeout', async () => {
    const run = await captured({
      folder: fresh('captures'),
      // The limit counts from the agent's start: long enough for a busy machine to print first.
      idleTimeoutMs: 2_000,
      env: agentEnv({ FAKE_AGENT_REPLAY: fixturePath('04_partial_output.jsonl'), FAKE_AGENT_HANG_AFTER: '5' }),
    })
    assert.equal(run.result.error?.code, 'E_TIMEOUT')
    assertNamesCapture(run.result.error!.message, run.name)
    const report = replayCapture(run.file)
    assert.equal(report.matches, true, JSON.stringify(report.mismatch))
    assert.deepEqual(report.consumer.outputs, run.outputs)
    assert.equal(report.textStopped?.stage, 'process', JSON.stringify(report.textStopped))
    assert.match(report.textStopped!.reason, /idle timeout/)
    assert.equal(report.process.ending, 'idle timeout')
    assert.equal(report.process.error?.code, 'E_TIMEOUT')
  })
})

describe('the capture folder is kept within maxBytes', () => {
  it('the oldest captures go first; files that are not captures stay', async () => {
    const folder = fresh('captures')
    mkdirSync(folder)
    const maxBytes = 40_000
    // Five captures of 8,000 bytes fill the folder; a capture keeps at most a quarter of the
    // limit, so the rest must fit in 30,000: the two oldest go (40,000 -> 32,000 -> 24,000).
    const now = Date.now() / 1000
    const old = ['cap-first-oldest', 'cap-second-oldest', 'cap-third-oldest', 'cap-fourth-oldest', 'cap-newest-before']
    // Written newest first, so the order of their mtimes is not that of their creation.
    for (const [i, name] of [...old.entries()].reverse()) {
      const path = join(folder, `${name}.ndjson`)
      writeFileSync(path, `${'x'.repeat(7_999)}\n`)
      utimesSync(path, now - 1000 + i * 10, now - 1000 + i * 10)
    }
    const others = ['notes.txt', 'cap-not-a-capture.json', 'README.md']
    for (const name of others) {
      writeFileSync(join(folder, name), 'y'.repeat(50_000))
      utimesSync(join(folder, name), now - 5000, now - 5000)
    }
    const run = await captured({
      folder,
      maxBytes,
      env: agentEnv({ FAKE_AGENT_REPLAY: fixturePath('01_simple_no_tool.jsonl') }),
    })
    const left = readdirSync(folder).sort()
    assert.deepEqual(left, [...others, ...old.slice(2).map((name) => `${name}.ndjson`), `${run.name}.ndjson`].sort())
    assert.ok(statSync(run.file).size <= maxBytes / 4, 'the new capture fits its quarter')
    assert.equal(replayCapture(run.file).matches, true)
  })

  it('a run whose output exceeds a quarter of maxBytes ends its capture with a truncated line', async () => {
    const folder = fresh('captures')
    const maxBytes = 12_000
    const run = await captured({
      folder,
      maxBytes,
      env: agentEnv({ FAKE_AGENT_REPLAY: fixturePath('05_rejected_shell.jsonl') }),
    })
    assert.equal(run.result.error, undefined, 'the run itself is not affected')
    const kinds = run.lines.map((line) => line.kind)
    const at = kinds.indexOf('truncated')
    assert.ok(at > 0, `a truncated line: ${kinds.join(' ')}`)
    assert.equal(kinds.lastIndexOf('truncated'), at, 'one truncated line')
    const dataKinds = ['stdout', 'handOver', 'close']
    assert.deepEqual(
      kinds.slice(at + 1).filter((kind) => dataKinds.includes(kind)),
      [],
      'no data after it',
    )
    assert.equal(kinds.at(-1), 'end')
    assert.equal(run.end!.truncated, true)
    const kept = Buffer.byteLength(run.text.split('\n').slice(0, at).join('\n')) + 1
    assert.ok(kept <= maxBytes / 4, `what comes before the truncated line (${kept} bytes) fits a quarter of maxBytes`)
    // What it kept of stdout is the start of the (masked) stream, not all of it.
    const stdout = keptStdout(run.lines)
    const { expected } = maskedFixture('05_rejected_shell.jsonl')
    assert.ok(stdout.length < expected.length)
    assert.ok(expected.subarray(0, stdout.length).equals(stdout))

    const report = replayCapture(run.file)
    assert.equal(report.truncated, true)
    assert.equal(report.matches, false)
  })
})

describe('npx opencode-cursor-native replay', () => {
  // Where the plugin puts captures on Linux: `$XDG_DATA_HOME/opencode-cursor-native/captures`.
  const xdg = join(scratch, 'xdg-data')
  const folder = join(xdg, 'opencode-cursor-native', 'captures')

  function replay(args: string[]): { status: number | null; stdout: string; stderr: string } {
    const ran = spawnSync(process.execPath, [cli, 'replay', ...args], {
      encoding: 'utf8',
      env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: join(scratch, 'home'), XDG_DATA_HOME: xdg },
      timeout: 60_000,
    })
    return { status: ran.status, stdout: ran.stdout, stderr: ran.stderr }
  }

  it('a whole capture, by name: exit 0, the replay matches; --json is the report', async () => {
    assert.ok(existsSync(cli), `${cli} is missing: run \`npm run build:plugin\` first`)
    const run = await captured({
      folder,
      env: agentEnv({ FAKE_AGENT_REPLAY: fixturePath('02_shell_tool_call.jsonl') }),
    })
    const text = replay([run.name])
    assert.equal(text.status, 0, text.stderr)
    assert.match(text.stdout, /The replay matches/)
    assert.match(text.stdout, new RegExp(`Capture ${run.name}`))
    assert.match(text.stdout, /The answer is complete at every stage/)
    const json = replay([run.name, '--json'])
    assert.equal(json.status, 0, json.stderr)
    const parsed = JSON.parse(json.stdout) as ReplayReport
    assert.deepEqual(parsed, replayCapture(run.file))
    // A file path works as well as a name.
    assert.equal(replay([run.file]).status, 0)
  })

  it('lists the silences of stdout of 60 s or more, and the longest', async () => {
    const run = await captured({
      folder: fresh('captures'),
      env: agentEnv({ FAKE_AGENT_REPLAY: fixturePath('02_shell_tool_call.jsonl') }),
    })
    // The same run as if the model had written for 757 s after its first read (as Cursor once
    // did): every later time moves on by that much. A replay reads the times and nothing else of
    // it. How many reads the pipe gave depends on the machine's load, so the silence ends with
    // whatever came next: another read, the exit or the stream's close.
    const GENERATION_MS = 757_358
    const reads = run.lines.filter((line) => line.kind === 'stdout' && line.read > 0)
    assert.ok(reads.length >= 1, 'the run printed something')
    const quietFrom = reads[0]!.t as number
    const shifted = run.lines.map((line) =>
      typeof line.t === 'number' && line.t > quietFrom ? { ...line, t: line.t + GENERATION_MS } : line,
    )
    const file = fresh('silent.ndjson')
    writeFileSync(file, shifted.map((line) => `${JSON.stringify(line)}\n`).join(''))
    const next = shifted.find(
      (line) =>
        line.t > quietFrom &&
        ((line.kind === 'stdout' && line.read > 0) || line.kind === 'exit' || line.kind === 'close'),
    )!
    const expected = { fromMs: quietFrom, toMs: next.t, ms: next.t - quietFrom, after: 'stdout', until: next.kind }

    const report = replayCapture(file)
    assert.deepEqual(report.gaps, { long: [expected], longest: expected })
    assert.equal(report.matches, true, 'the outputs are those of the live run')
    const text = replay([file])
    assert.equal(text.status, 0, text.stderr)
    assert.match(text.stdout, /silences {8}longest 75\d\.\d s from /)
    assert.match(text.stdout, new RegExp(`of 60 s or more: 75\\d\\.\\d s from .* \\(stdout until ${next.kind}\\)`))

    // The run as it was: nothing long, and the longest still named.
    const whole = replayCapture(run.file)
    assert.deepEqual(whole.gaps.long, [])
    assert.ok(whole.gaps.longest !== null && whole.gaps.longest.ms < 60_000)
    assert.doesNotMatch(replay([run.file]).stdout, /of 60 s or more/)
  })

  it('prints what the capture holds with terminal controls escaped, never acted on', async () => {
    const run = await captured({
      folder: fresh('captures'),
      env: agentEnv({ FAKE_AGENT_REPLAY: fixturePath('02_shell_tool_call.jsonl') }),
    })
    // What a model or cursor-agent may print: a window title, a clipboard write (OSC 52), a C1
    // CSI and a right-to-left override.
    const hostile = ['\u001b]0;pwned\u0007', '\u001b]52;c;ZXZpbA==\u0007', '\u009b31m', '\u202e']
    const lines = run.lines.map((line) =>
      line.kind === 'start' ? { ...line, argv: [...(line.argv as string[]), ...hostile] } : line,
    )
    const file = fresh('hostile.ndjson')
    writeFileSync(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(''))
    const text = replay([file])
    assert.equal(text.status, 0, text.stderr)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters that must not reach the terminal
    assert.doesNotMatch(text.stdout, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/)
    for (const shown of ['\\x1b]0;pwned\\x07', '\\x1b]52;c;ZXZpbA==\\x07', '\\x9b31m', '\\u202e'])
      assert.ok(text.stdout.includes(shown), `${shown} in ${text.stdout.split('\n')[1]}`)
  })

  it('the cut-off capture: the text names the process stage', async () => {
    const stream = fresh('cut.raw')
    writeFileSync(stream, init() + delta('Hello', 1) + recap('Hello world').replace(/\n$/, ''))
    const run = await captured({
      folder,
      executable: rawAgent,
      env: agentEnv({ FAKE_AGENT_RAW: stream, FAKE_AGENT_EXIT: '1' }),
    })
    const text = replay([run.name])
    assert.equal(text.status, 0, 'the replay matches the live run, cut off as it was')
    assert.match(text.stdout, /The replay matches/)
    assert.match(text.stdout, /process stage/)
    assert.match(text.stdout, /cut off/)
  })

  it('records of kinds this version does not know are listed with their counts', async () => {
    const stream = fresh('unknown-records.raw')
    writeFileSync(stream, fixture('unknown-records.ndjson'))
    const run = await captured({ folder, executable: rawAgent, env: agentEnv({ FAKE_AGENT_RAW: stream }) })
    assert.equal(run.result.error, undefined, 'unknown records are never fatal')
    const report = replayCapture(run.file)
    assert.deepEqual(report.unknownRecords, [
      ['heartbeat', 3],
      ['system/compaction', 1],
      ['tool_call/progress', 1],
      ['prompt_suggestion', 1],
    ])
    const text = replay([run.name])
    assert.equal(text.status, 0, text.stderr)
    assert.match(
      text.stdout,
      /ignored, of kinds this version does not know: 3 heartbeat, 1 system\/compaction, 1 tool_call\/progress, 1 prompt_suggestion\n/,
    )
  })

  it('a capture that does not match: exit 1', async () => {
    const run = await captured({
      folder: fresh('captures'),
      maxBytes: 12_000,
      env: agentEnv({ FAKE_AGENT_REPLAY: fixturePath('05_rejected_shell.jsonl') }),
    })
    const text = replay([run.file])
    assert.equal(text.status, 1, text.stderr)
    assert.match(text.stdout, /size limit/)
  })

  it('an unknown name, or a file that is no capture: exit 2 with a clear message', () => {
    const unknown = replay(['cap-nothing-here'])
    assert.equal(unknown.status, 2)
    assert.equal(unknown.stdout, '')
    assert.match(
      unknown.stderr,
      new RegExp(`there is no capture cap-nothing-here in ${folder.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
    )
    const neither = replay(['not-a-capture'])
    assert.equal(neither.status, 2)
    assert.match(neither.stderr, /neither a capture file nor a capture name/)
    const junk = fresh('junk.ndjson')
    writeFileSync(junk, '{"kind":"stdout","t":0,"read":1,"data":"x","outputs":[]}\n')
    const notCapture = replay([junk])
    assert.equal(notCapture.status, 2)
    assert.match(notCapture.stderr, /not a readable capture/)
    assert.equal(replay([]).status, 2)
  })
})

describe('a host killed in the middle of a captured run', {
  skip: process.platform !== 'linux' && 'reads process groups from Linux /proc',
}, () => {
  const exitHost = join(here, 'support', 'exit-host.mjs')
  const hangAgent = join(agents, 'hang-agent.sh')
  const groups = killGroupsAfter(after)

  it('leaves its capture whole up to the last read, and replay blames the host', async () => {
    const folder = fresh('captures')
    const pidFile = fresh('pids')
    const host = spawn(process.execPath, [exitHost, hangAgent, pidFile, workspace, 'idle', folder], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const exited = new Promise<NodeJS.Signals | null>((resolve) => host.on('exit', (_code, signal) => resolve(signal)))
    await new Promise<void>((resolve) => host.stdout!.once('data', () => resolve()))
    const [agentPid] = readFileSync(pidFile, 'utf8').trim().split(/\s+/).map(Number)
    groups.add(agentPid!)
    const file = () => join(folder, readdirSync(folder)[0]!)
    // The agent's text delta, with what the run made of it, is on a line of its own.
    const deltaKept = () =>
      existsSync(folder) &&
      readdirSync(folder).length === 1 &&
      readFileSync(file(), 'utf8')
        .split('\n')
        .slice(0, -1)
        .some((line) => {
          const parsed = JSON.parse(line) as CaptureLine
          return parsed.kind === 'stdout' && String(parsed.data).includes('Working') && parsed.outputs.length > 0
        })
    assert.ok(await waitFor(deltaKept, 30_000), 'the capture holds the delta while the host runs')
    host.kill('SIGKILL')
    assert.equal(await exited, 'SIGKILL')
    assert.ok(await waitFor(() => groupMembers(agentPid!).length === 0, 30_000), 'the agent went with its host')

    const lines = readFileSync(file(), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as CaptureLine)
    assert.equal(lines[0]!.kind, 'start')
    assert.ok(!lines.some((line) => line.kind === 'end'), 'a killed host writes no end line')
    const report = replayCapture(file())
    assert.equal(report.textStopped?.stage, 'process')
    assert.match(report.textStopped!.reason, /host stopped before the run ended/)
    assert.ok(report.matches, 'what was captured replays to the same outputs')
    assert.equal(report.consumer.liveText, 'Working')
    assert.equal(report.consumer.text, 'Working')
  })
})
