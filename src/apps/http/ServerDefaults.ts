/**
 * The server's defaults that the command line shows in its help, apart from
 * the server itself so that `context-compressor --help` does not load it
 * (`HttpServer` re-exports them).
 *
 * @since 0.1.0
 */

/**
 * The default body size limit: 16 MiB, room for a long transcript pasted whole.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxBodyBytes = 16 * 1_048_576

/**
 * The environment variable the token is read from when `serve --token` is not given.
 *
 * @since 0.1.0
 * @category constants
 */
export const tokenEnv = "CONTEXT_COMPRESSOR_TOKEN"

/**
 * The server's default limits: 4 compactions at once and 256 more waiting
 * for a place, each up to 120 s (the drain of a full queue on a slow machine,
 * within the timeouts of common clients); 64 open event streams; 1,024 open
 * connections; 10 s to send a complete request head (from the connection's
 * opening or its last answer), 120 s to send a whole request.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultLimits = {
  maxCompactions: 4,
  maxQueue: 256,
  queueTimeoutMs: 120_000,
  maxEventStreams: 64,
  maxConnections: 1_024,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 120_000
} as const

/**
 * How long a connection answered and closed before its request's body ended
 * (a 413, a 503 before the body is read) waits for more of the body,
 * discarding what the client still sends, before it is closed: 5 s of
 * silence, as nginx's `lingering_timeout`, and six times that in all (its
 * `lingering_time`, 30 s).
 *
 * @since 0.1.0
 * @category constants
 */
export const lingerMs = 5_000

/**
 * How often Node's HTTP server checks the deadlines of its connections (the
 * headers and request timeouts): every second, so that a slow client is cut
 * within a second of its deadline (Node's own default checks every 30 s, which
 * let a deadline of 30 s run to 59.5 s).
 *
 * @since 0.1.0
 * @category constants
 */
export const deadlineCheckMs = 1_000

/**
 * The options of Node's HTTP server for `serve` and the proxy: the time a
 * client has for its headers and for its whole request (default
 * {@link defaultLimits}), checked every {@link deadlineCheckMs}.
 *
 * @since 0.1.0
 * @category constants
 */
export const nodeServerOptions = (limits: {
  readonly headersTimeoutMs?: number | undefined
  readonly requestTimeoutMs?: number | undefined
}): {
  readonly headersTimeout: number
  readonly requestTimeout: number
  readonly connectionsCheckingInterval: number
} => ({
  headersTimeout: limits.headersTimeoutMs ?? defaultLimits.headersTimeoutMs,
  requestTimeout: limits.requestTimeoutMs ?? defaultLimits.requestTimeoutMs,
  connectionsCheckingInterval: deadlineCheckMs
})

/**
 * The context window assumed when neither the request, the per-model table nor
 * `--window` gives one.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultWindow = 128_000

/**
 * The request header giving the model's context window in tokens.
 *
 * @since 0.1.0
 * @category constants
 */
export const windowHeader = "x-context-window"

/**
 * The request header that carries the proxy's own token when it has one.
 *
 * @since 0.1.0
 * @category constants
 */
export const tokenHeader = "x-context-compressor-token"

/**
 * The request header naming the session; without it the session is derived
 * from the transcript's first messages, as `/v1/compact` derives it.
 *
 * @since 0.1.0
 * @category constants
 */
export const sessionHeader = "x-session-id"

/**
 * The seconds a 503 of a server at its limits asks the client to wait (`Retry-After`).
 *
 * @since 0.1.0
 * @category constants
 */
export const busyRetrySeconds = 2
