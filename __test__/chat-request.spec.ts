// The OpenAI chat request as the OpenAI-compatible server reads it (plugin/proxy/chat/request.ts),
// one schema: valid shapes are read as they are, each malformed field is refused by its name with
// status 400 and `E_INVALID_ARG`; and the messages, as the addon reads them for every API, each
// malformed field of theirs refused by its path. Runs under Node and Bun.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'

import { readChatRequest } from '../plugin/proxy/chat/request.ts'

describe('reading a chat request', () => {
  it('reads each valid shape: optional fields absent, null or set; every other field ignored', () => {
    const ask = [{ role: 'user', content: 'hi' }]
    const tool = { type: 'function', function: { name: 'read', parameters: { type: 'object' } } }
    const plain = { request: { model: 'auto', messages: ask }, stream: false, includeUsage: false }
    const table: Array<[string, Record<string, unknown>, unknown]> = [
      ['the two required fields', { model: 'auto', messages: ask }, plain],
      [
        'optional fields null',
        { model: 'auto', messages: ask, tools: null, stream: null, stream_options: null },
        plain,
      ],
      [
        'include_usage null',
        { model: 'auto', messages: ask, stream: true, stream_options: { include_usage: null } },
        { ...plain, stream: true },
      ],
      [
        'tools kept when there are any',
        { model: 'auto', messages: ask, tools: [tool] },
        { ...plain, request: { model: 'auto', messages: ask, tools: [tool] } },
      ],
      ['fields the server does not read', { model: 'auto', messages: ask, temperature: 2, n: 1, user: {} }, plain],
    ]
    for (const [name, body, reading] of table) assert.deepEqual(readChatRequest(body), reading, name)
  })

  it('reads the fields it needs, and refuses each malformed one by name', () => {
    const ask = [{ role: 'user', content: 'hi' }]
    const read = readChatRequest({ model: 'auto', messages: ask, tools: [], stream: true, user: 'ignored' })
    assert.ok(!('status' in read))
    assert.deepEqual(read, { request: { model: 'auto', messages: ask }, stream: true, includeUsage: false })
    const withUsage = readChatRequest({ model: 'auto', messages: ask, stream_options: { include_usage: true } })
    assert.ok(!('status' in withUsage) && withUsage.includeUsage && !withUsage.stream)
    const refusals: Array<[string, unknown, RegExp]> = [
      ['not an object', 'hi', /JSON object/],
      ['no model', { messages: ask }, /`model`/],
      ['a blank model', { model: '  ', messages: ask }, /`model`/],
      ['no messages', { model: 'auto', messages: [] }, /`messages`/],
      ['a 300,000-character model', { model: 'x'.repeat(300_000), messages: ask }, /`model` must be at most 256/],
      ['n other than 1', { model: 'auto', messages: ask, n: 2 }, /`n` must be 1/],
      ['n of another kind', { model: 'auto', messages: ask, n: 'many' }, /`n` must be 1/],
      ['stream_options as an array', { model: 'auto', messages: ask, stream_options: [] }, /`stream_options` must be/],
      ['tools of another kind', { model: 'auto', messages: ask, tools: {} }, /`tools`/],
      ['a stream flag of another kind', { model: 'auto', messages: ask, stream: 'yes' }, /`stream`/],
      [
        'stream_options of another kind',
        { model: 'auto', messages: ask, stream_options: 'all' },
        /`stream_options` must be/,
      ],
      [
        'include_usage of another kind',
        { model: 'auto', messages: ask, stream_options: { include_usage: 1 } },
        /`stream_options.include_usage`/,
      ],
    ]
    for (const [name, body, message] of refusals) {
      const refused = readChatRequest(body)
      assert.ok('status' in refused, name)
      assert.equal(refused.status, 400, name)
      assert.equal(refused.code, 'E_INVALID_ARG', name)
      assert.match(refused.message, message, name)
    }
  })
})

describe("a chat request's messages, as the addon reads them", () => {
  const api = require('../index.js')
  const ask = [{ role: 'user', content: 'hi' }]
  const refusals: Array<[string, unknown[], RegExp]> = [
    ['a message of another kind', ['hi'], /^`messages\[0\]` must be a message object/],
    ['a message without a role', [{ content: 'hi' }], /^`messages\[0\]\.role` must be one of/],
    ['a role of another kind', [{ role: 5 }], /^`messages\[0\]\.role`/],
    ['content of another kind', [...ask, { role: 'user', content: 5 }], /^`messages\[1\]\.content` must be/],
    ['a content part of another kind', [{ role: 'user', content: ['hi'] }], /^`messages\[0\]\.content\[0\]`/],
    [
      'a text part without its text',
      [{ role: 'user', content: [{ type: 'input_text' }] }],
      /^`messages\[0\]\.content\[0\]\.text` must be a string/,
    ],
    ['tool_calls of another kind', [{ role: 'assistant', tool_calls: 'read' }], /^`messages\[0\]\.tool_calls`/],
    [
      'a tool call without a function',
      [{ role: 'assistant', tool_calls: [{ id: 'c1' }] }],
      /^`messages\[0\]\.tool_calls\[0\]\.function` must be an object/,
    ],
    [
      'an image part without its URL',
      [{ role: 'user', content: [{ type: 'image_url', image_url: {} }] }],
      /^`messages\[0\]\.content\[0\]\.image_url\.url` must be a string/,
    ],
  ]
  for (const [name, messages, message] of refusals)
    it(name, () => {
      assert.throws(
        () => api.buildPrompt({ messages }),
        (error: { code?: string; message?: string }) => error.code === 'E_INVALID_ARG' && message.test(error.message!),
      )
    })
})
