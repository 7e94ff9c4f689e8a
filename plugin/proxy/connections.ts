// The server's connections: at most so many open (the oldest one waiting for a request makes room
// for a new one), and each given a while to deliver a whole authenticated request.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'

export interface Connections {
  /** A new connection: taken in, or closed at the cap. */
  accept(socket: Socket): void
  /** A request has begun: its connection is not waiting for one until its response is over. */
  begun(request: IncomingMessage, response: ServerResponse): void
  /** A request is answered: its connection's clock stops until the response is over. */
  serving(request: IncomingMessage, response: ServerResponse): void
  /** Cuts every open connection (the server is closing). */
  destroyAll(): void
}

/**
 * Each connection has `requestTimeoutMs` to deliver a whole authenticated request; the clock
 * stops while that request is answered and starts again once its response is over. Set here
 * rather than through Node's `headersTimeout`/`requestTimeout`, which Bun does not honour.
 */
export function connectionCap(maxConnections: number, requestTimeoutMs: number): Connections {
  const sockets = new Set<Socket>()
  const idleTimers = new Map<Socket, NodeJS.Timeout>()
  const answering = new Set<Socket>()
  const waitForRequest = (socket: Socket): void => {
    clearTimeout(idleTimers.get(socket))
    const timer = setTimeout(() => socket.destroy(), requestTimeoutMs)
    timer.unref()
    idleTimers.set(socket, timer)
  }
  const accept = (socket: Socket): void => {
    // At the cap, the oldest connection waiting for a request makes room: idle connections
    // (nothing sent, or a keep-alive between requests) cannot keep a client with the token out, nor
    // cut a body still arriving. Only when every connection has a request is the new one closed.
    if (sockets.size >= maxConnections) {
      const idle = [...sockets].find((open) => !answering.has(open))
      if (idle === undefined) {
        socket.destroy()
        return
      }
      idle.destroy()
      sockets.delete(idle)
    }
    sockets.add(socket)
    waitForRequest(socket)
    socket.on('close', () => {
      sockets.delete(socket)
      clearTimeout(idleTimers.get(socket))
      idleTimers.delete(socket)
    })
  }
  const begun = (request: IncomingMessage, response: ServerResponse): void => {
    answering.add(request.socket)
    response.once('close', () => answering.delete(request.socket))
  }
  const serving = (request: IncomingMessage, response: ServerResponse): void => {
    const socket = request.socket
    clearTimeout(idleTimers.get(socket))
    idleTimers.delete(socket)
    response.once('close', () => {
      if (!socket.destroyed) waitForRequest(socket)
    })
  }
  const destroyAll = (): void => {
    for (const socket of sockets) socket.destroy()
  }
  return { accept, begun, serving, destroyAll }
}
