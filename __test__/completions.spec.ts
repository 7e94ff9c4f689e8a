// `completions`: the SSE format with each response's whole `chat.completion` after its frames,
// which the OpenAI-compatible server answers a request that asked for no stream with. Checked
// against the real captures and their hand-written expectations.
import assert from 'node:assert/strict'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'

import { type ChatCompletion, StreamTransformer, type StreamOutput } from '../index.js'
import { capture, captureExpectation, capturesDir } from './support/captures.ts'

const CAPTURES = readdirSync(join(capturesDir, 'maestro'))
  .filter((name) => name.endsWith('.jsonl'))
  .map((name) => `maestro/${name}`)

function translated(name: string, options: { completions?: boolean; toolCalls?: 'emit' | 'omit' }): StreamOutput[] {
  const transformer = new StreamTransformer({ format: 'openai-sse', id: 'c-1', created: 1, ...options })
  return [...transformer.push(capture(name)), ...transformer.finish({ exitCode: 0 })]
}

describe('completions', () => {
  for (const name of CAPTURES) {
    it(`${name}: the frames stay as they were, and the completion after them holds the whole answer`, () => {
      for (const toolCalls of ['emit', 'omit'] as const) {
        const plain = translated(name, { toolCalls })
        const outputs = translated(name, { toolCalls, completions: true })
        const frames = outputs.filter((output) => typeof output === 'string')
        assert.deepEqual(frames, plain, 'the frames do not change')
        const completion = outputs.at(-1) as ChatCompletion
        assert.equal(outputs.indexOf(completion), frames.length, 'one completion, after the last frame')
        assert.equal(completion.object, 'chat.completion')
        assert.equal(completion.id, 'c-1')
        const expected = captureExpectation(name)
        // `content` is one string: text on either side of a tool call is parted by a blank line.
        let content = ''
        let toolSinceText = false
        let thinking = ''
        for (const block of expected.blocks) {
          if (block.kind === 'tool') toolSinceText = content !== ''
          if (block.kind === 'reasoning') thinking += block.text
          if (block.kind !== 'text') continue
          content += (toolSinceText ? '\n\n' : '') + block.text
          toolSinceText = false
        }
        assert.equal(completion.choices[0]?.message.content, content, `${name} (${toolCalls})`)
        assert.equal(completion.choices[0]?.message.reasoning_content ?? '', thinking)
        const calls = completion.choices[0]?.message.tool_calls ?? []
        const tools = expected.blocks.filter((block) => block.kind === 'tool')
        assert.deepEqual(
          calls.map((call) => call.id),
          toolCalls === 'emit' ? tools.map((tool) => tool.id) : [],
        )
        assert.equal(completion.choices[0]?.finish_reason, 'stop')
        assert.equal(completion.usage?.prompt_tokens !== undefined, true, 'usage as the frames have it')
      }
    })
  }

  it('a failure ends with the error object the error frame carries', () => {
    const transformer = new StreamTransformer({ format: 'openai-sse', completions: true })
    const outputs = transformer.finish({ exitCode: 1, stderr: 'Error: Authentication required.' })
    const failure = outputs.at(-1) as { error: { code: string; message: string; type: string } }
    assert.equal(failure.error.code, 'E_AUTH')
    const frame = outputs.find((output) => typeof output === 'string' && output.includes('"error"')) as string
    assert.deepEqual(JSON.parse(frame.slice('data: '.length)), failure)
  })
})
