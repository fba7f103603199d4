/**
 * The connections of a Node HTTP server held in bounds, for `serve` and the
 * proxy: a connection that sends no complete request head within
 * `headersTimeoutMs` of its opening or of its last answer is closed (Node's
 * own `headersTimeout` only watches a connection once its first bytes came,
 * so a socket that sends nothing would stay open for ever), and at most
 * `maxConnections` are open at once: a new one past it closes the connection
 * idle the longest, and is itself refused only when every open connection has
 * a request in progress. A connection answered before its request's body
 * ended (a refusal: 413, 503) is not reset under a client still sending:
 * it is half-closed once the answer is written, and what still comes is
 * discarded until the client ends, or stays silent for `lingerMs`, or six
 * times that have passed, then it is closed (a reset would make the client
 * fail on its write before it reads the answer).
 * A client that sends requests keeps being answered
 * while others hold idle sockets.
 *
 * @since 0.1.0
 */
import * as Http from "node:http"
import type * as Net from "node:net"
import { defaultLimits, lingerMs as defaultLingerMs, nodeServerOptions } from "./ServerDefaults.js"

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
  /**
   * How long a connection answered and closed before its request's body ended
   * waits for more of it, discarding what the client sends, in milliseconds
   * (default `ServerDefaults.lingerMs`); six times that in all.
   */
  readonly lingerMs?: number | undefined
}

type Tracked = {
  readonly socket: Net.Socket
  /** Requests of the connection whose answer has not ended. */
  inProgress: number
  timer: ReturnType<typeof setTimeout> | undefined
  /** The latest request of the connection. */
  request: Http.IncomingMessage | undefined
  /** Closing after a refusal: its own bounds hold it, not the idle deadline. */
  lingering: boolean
}

/** Node's own close of a connection after its last answer (`Connection: close`): end, then destroy once ended. */
type DestroySoon = (this: Net.Socket) => void

/**
 * Closes a connection whose answer went before its request's body ended
 * without resetting it under the client: the end of the answer is followed
 * by a FIN (the client reads the whole answer and learns that no more comes),
 * what the client still sends is discarded, and the socket is destroyed when
 * the body or the client's side has ended, when nothing came for `lingerMs`,
 * or after six times that in all (nginx's `lingering_timeout` and
 * `lingering_time`, 5 s and 30 s).
 */
const lingeringClose = (tracked: Tracked, request: Http.IncomingMessage, lingerMs: number) => {
  const socket = tracked.socket
  tracked.lingering = true
  socket.end()
  let closed = false
  const close = () => {
    if (closed) return
    closed = true
    clearTimeout(silence)
    clearTimeout(deadline)
    if (socket.writableFinished) socket.destroy()
    else socket.once("finish", () => socket.destroy())
  }
  const deadline = setTimeout(close, lingerMs * 6)
  deadline.unref()
  let silence = setTimeout(close, lingerMs)
  silence.unref()
  request.removeAllListeners("data")
  request.on("data", () => {
    clearTimeout(silence)
    silence = setTimeout(close, lingerMs)
    silence.unref()
  })
  request.once("end", close)
  socket.once("end", close)
  socket.once("close", () => {
    clearTimeout(silence)
    clearTimeout(deadline)
  })
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
  const lingerMs = Math.max(0, limits.lingerMs ?? defaultLingerMs)
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
    const tracked: Tracked = { socket, inProgress: 0, timer: undefined, request: undefined, lingering: false }
    open.set(socket, tracked)
    // Node closes a connection after an answer with `Connection: close` by destroying it once its end is
    // written: with the request's body still coming, that resets the client as it writes.
    const nodeDestroySoon = (socket as unknown as { destroySoon?: DestroySoon }).destroySoon
    if (typeof nodeDestroySoon === "function") {
      Object.defineProperty(socket, "destroySoon", {
        configurable: true,
        writable: true,
        value: () => {
          const request = tracked.request
          if (request === undefined || request.complete || socket.destroyed) nodeDestroySoon.call(socket)
          else lingeringClose(tracked, request, lingerMs)
        }
      })
    }
    markIdle(tracked)
    socket.once("close", () => {
      markBusy(tracked)
      if (open.get(socket) === tracked) open.delete(socket)
    })
  })

  server.on("request", (request: Http.IncomingMessage, response: Http.ServerResponse) => {
    const tracked = open.get(request.socket)
    if (tracked === undefined) return
    tracked.request = request
    tracked.inProgress++
    markBusy(tracked)
    response.once("close", () => {
      tracked.inProgress--
      if (
        tracked.inProgress === 0 && !tracked.lingering && !tracked.socket.destroyed &&
        open.get(tracked.socket) === tracked
      ) {
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
