// The server's gate, before anything runs: a `Host` that is a loopback name or the address listened
// on (no DNS rebinding), no `Origin` (no web page), and the server's token on every endpoint but
// `/health`.
import { timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { type Refusal, refusalFor } from './refusal.js'

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1'])

/** An address as a Host header and a URL write it: an IPv6 one bracketed, `::1` as `[::1]`. */
export function bracketed(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
}

/** The host name of a `Host` header, without its port. */
function hostName(header: string | undefined): string | undefined {
  if (header === undefined) return undefined
  const bracket = /^\[([^\]]+)\]/.exec(header)
  if (bracket !== null) return `[${bracket[1]}]`
  return (header.split(':')[0] ?? '').toLowerCase()
}

/** The `Host` names served: the loopback names and the address the server listens on. */
export function allowedHosts(host: string): Set<string> {
  return new Set([...LOOPBACK_NAMES, hostName(bracketed(host)) ?? host])
}

function tokenMatches(given: string, token: string): boolean {
  const [a, b] = [Buffer.from(given), Buffer.from(token)]
  return a.length === b.length && timingSafeEqual(a, b)
}

/** The token a request carries: `Authorization: Bearer` (OpenAI's clients) or `x-api-key` (Anthropic's). */
function givenToken(request: IncomingMessage): string {
  const bearer = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1]
  if (bearer !== undefined) return bearer
  const key = request.headers['x-api-key']
  return typeof key === 'string' ? key : ''
}

/** Why a request is refused before anything runs, or `null`. Checked in this order. */
export function gate(request: IncomingMessage, allowed: Set<string>, token: string): Refusal | null {
  const host = hostName(request.headers.host)
  if (host === undefined || !allowed.has(host))
    return refusalFor('E_FORBIDDEN', 'This Host is not served: only loopback names and the --host value are.')
  if (request.headers.origin !== undefined)
    return refusalFor('E_FORBIDDEN', 'Requests from web pages (with an Origin) are refused.')
  const path = (request.url ?? '').split('?')[0]
  if (path === '/health') return null
  if (!tokenMatches(givenToken(request), token))
    return refusalFor(
      'E_UNAUTHORIZED',
      "The server's token is required: Authorization: Bearer <the token serve printed>, or x-api-key: <it>.",
    )
  return null
}
