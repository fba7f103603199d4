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
 * The server's default limits: 4 compactions at once, 64 open event streams,
 * 30 s to send the headers, 120 s to send a whole request.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultLimits = { maxCompactions: 4, maxEventStreams: 64, headersTimeoutMs: 30_000, requestTimeoutMs: 120_000 } as const
