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
