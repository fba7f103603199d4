/**
 * The connections of a Node HTTP server held in bounds, for `serve` and the
 * proxy: a connection that sends no complete request head within
 * `headersTimeoutMs` of its opening or of its last answer is closed (Node's
 * own `headersTimeout` only watches a connection once its first bytes came,
 * so a socket that sends nothing would stay open for ever), and at most
 * `maxConnections` are open at once: a new one past it closes the connection
 * idle the longest, and is itself refused only when every open connection has
 * a request in progress. A client that sends requests keeps being answered
 * while others hold idle sockets.
 *
 * @since 0.1.0
 */
import * as Http from "node:http"
import type * as Net from "node:net"
import { defaultLimits, nodeServerOptions } from "./ServerDefaults.js"

/**
 * The bounds of a server's connections.
 *
 * @since 0.1.0
 * @category models
 */
export interface Limits {
  /** How many connections may be open at once (default `defaultLimits.maxConnections`). */
  readonly maxConnections?: number | undefined
  /** How long a connection may go without a complete request head, in milliseconds (default `defaultLimits.headersTimeoutMs`). */
  readonly headersTimeoutMs?: number | undefined
  /** How long a client may take to send a whole request, in milliseconds (default `defaultLimits.requestTimeoutMs`). */
  readonly requestTimeoutMs?: number | undefined
}

type Tracked = {
  readonly socket: Net.Socket
  /** Requests of the connection whose answer has not ended. */
  inProgress: number
  timer: ReturnType<typeof setTimeout> | undefined
}

/**
 * Holds the connections of `server` in the bounds of `limits` (see the
 * module's description) and gives the server back. Call it before the server
 * listens.
 *
 * @since 0.1.0
 * @category constructors
 */
export const guard = <S extends Http.Server>(server: S, limits: Limits = {}): S => {
  const maxConnections = Math.max(1, limits.maxConnections ?? defaultLimits.maxConnections)
  const headersTimeoutMs = Math.max(1, limits.headersTimeoutMs ?? defaultLimits.headersTimeoutMs)
  const open = new Map<Net.Socket, Tracked>()
  // Insertion order: the connection idle the longest comes first.
  const idle = new Set<Tracked>()

  const markIdle = (tracked: Tracked) => {
    idle.delete(tracked)
    idle.add(tracked)
    clearTimeout(tracked.timer)
    tracked.timer = setTimeout(() => tracked.socket.destroy(), headersTimeoutMs)
    tracked.timer.unref()
  }
  const markBusy = (tracked: Tracked) => {
    idle.delete(tracked)
    clearTimeout(tracked.timer)
    tracked.timer = undefined
  }

  server.on("connection", (socket: Net.Socket) => {
    if (open.size >= maxConnections) {
      const longestIdle = idle.values().next()
      if (longestIdle.done === true) {
        socket.destroy()
        return
      }
      markBusy(longestIdle.value)
      open.delete(longestIdle.value.socket)
      longestIdle.value.socket.destroy()
    }
    const tracked: Tracked = { socket, inProgress: 0, timer: undefined }
    open.set(socket, tracked)
    markIdle(tracked)
    socket.once("close", () => {
      markBusy(tracked)
      if (open.get(socket) === tracked) open.delete(socket)
    })
  })

  server.on("request", (request: Http.IncomingMessage, response: Http.ServerResponse) => {
    const tracked = open.get(request.socket)
    if (tracked === undefined) return
    tracked.inProgress++
    markBusy(tracked)
    response.once("close", () => {
      tracked.inProgress--
      if (tracked.inProgress === 0 && !tracked.socket.destroyed && open.get(tracked.socket) === tracked) {
        markIdle(tracked)
      }
    })
  })

  // An upgraded connection (a WebSocket) is no longer HTTP: it is never idle for the guard. Alone, the
  // listener would keep Node from closing an upgrade nobody handles: it closes it as Node would.
  server.on("upgrade", (request: Http.IncomingMessage, socket: Net.Socket) => {
    const tracked = open.get(request.socket)
    if (tracked !== undefined) {
      tracked.inProgress++
      markBusy(tracked)
    }
    if (server.listenerCount("upgrade") === 1) socket.destroy()
  })

  server.once("close", () => {
    for (const tracked of open.values()) markBusy(tracked)
  })
  return server
}

/**
 * A Node HTTP server whose connections are held in the bounds of `limits`
 * ({@link guard}), with Node's own header and request timeouts set from them and checked every `ServerDefaults.deadlineCheckMs`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const createServer = (limits: Limits = {}): Http.Server => {
  const requestTimeout = limits.requestTimeoutMs ?? defaultLimits.requestTimeoutMs
  const headers = limits.headersTimeoutMs ?? defaultLimits.headersTimeoutMs
  const headersTimeout = requestTimeout > 0 ? Math.min(headers, requestTimeout) : headers
  return guard(Http.createServer({ ...nodeServerOptions(limits), headersTimeout }), limits)
}
