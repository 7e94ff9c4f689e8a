// A request's body, read within the server's limits (its size and the time it may take to
// arrive), and the connection of a body refused on the way closed without a reset.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { type Refusal, refusalFor } from './refusal.js'

/** The request body, at most `limit` bytes, within `timeoutMs`; a refusal otherwise. */
export function readBody(request: IncomingMessage, limit: number, timeoutMs: number): Promise<Buffer | Refusal> {
  return new Promise((settle) => {
    const chunks: Buffer[] = []
    let size = 0
    let done = false
    const finish = (value: Buffer | Refusal): void => {
      if (done) return
      done = true
      clearTimeout(timer)
      settle(value)
    }
    const late = refusalFor('E_REQUEST_TIMEOUT', `The request body did not arrive within ${timeoutMs / 1000} s.`)
    const timer = setTimeout(() => finish(late), timeoutMs)
    const tooLarge = refusalFor('E_PAYLOAD_TOO_LARGE', `The request body is larger than ${limit} bytes.`)
    if (Number(request.headers['content-length'] ?? Number.NaN) > limit) finish(tooLarge)
    request.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) finish(tooLarge)
      else chunks.push(chunk)
    })
    request.on('end', () => finish(Buffer.concat(chunks)))
    request.on('error', () => finish(refusalFor('E_INVALID_ARG', 'The request body could not be read.')))
  })
}

/** How long the rest of a refused body is read (and dropped) before its connection is cut. */
const LINGER_MS = 2000

/**
 * The rest of an oversized or stalled body is not kept: its connection closes with the refusal,
 * and the refusal says so (`Connection: close`), or the client would send its next request into
 * a closed socket. Node ends such a response's socket with `destroySoon()`, which cuts it at once;
 * a client still sending its body would then get a reset instead of the refusal. Here it only
 * stops writing, drops what still arrives, and cuts the connection {@link LINGER_MS} later.
 */
export function closeAfterRefusal(request: IncomingMessage, response: ServerResponse): void {
  const socket = request.socket
  response.setHeader('connection', 'close')
  socket.destroySoon = () => {
    socket.end()
    const timer = setTimeout(() => socket.destroy(), LINGER_MS)
    timer.unref()
    socket.once('close', () => clearTimeout(timer))
  }
}
