/**
 * The limits `serve` and the proxy hold a body to, shared by both: how deeply
 * a JSON request body may nest (past it, 400 instead of a walk that could
 * exhaust the stack), a request body's declared size, and reading at most so
 * many bytes of a body while keeping what was read when the read fails.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as Json from "../Json.js"

/**
 * How deeply the arrays and objects of a JSON request body may nest, on
 * `/v1/compact`, `/v1/reduce` and the proxy's chat routes: 512 levels, far
 * past any transcript or tool result, far under what a recursive walk of the
 * value can bear.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxJsonDepth = 512

/**
 * Why a JSON body is refused for its depth (the one line of the 400 answer),
 * or `undefined` when it nests no deeper than {@link maxJsonDepth}.
 *
 * @since 0.1.0
 * @category guards
 */
export const depthRefusal = (text: string): string | undefined =>
  Json.nestingDepth(text, maxJsonDepth) > maxJsonDepth
    ? `the body nests arrays and objects deeper than the limit of ${maxJsonDepth} levels`
    : undefined

/**
 * The size a request declares in its `Content-Length` when it is past
 * `maxBytes`, so that it is refused (413) before any of it is read.
 *
 * @since 0.1.0
 * @category guards
 */
export const declaredPastLimit = (
  headers: Readonly<Record<string, string | undefined>>,
  maxBytes: number
): number | undefined => {
  const declared = Number(headers["content-length"] ?? 0)
  return Number.isFinite(declared) && declared > maxBytes ? declared : undefined
}

/**
 * The start of a body read by {@link readPrefix}: its bytes, whether the body
 * went on past the limit (the bytes then hold the limit and a little more),
 * and the failure that ended the read early, if one did.
 *
 * @since 0.1.0
 * @category models
 */
export interface Prefix<E> {
  readonly bytes: Uint8Array
  readonly pastLimit: boolean
  readonly failure: Option.Option<E>
}

/**
 * The chunks of a body as one array of bytes.
 *
 * @since 0.1.0
 * @category reading
 */
export const concat = (chunks: ReadonlyArray<Uint8Array>): Uint8Array => {
  const bytes = new Uint8Array(chunks.reduce((size, chunk) => size + chunk.byteLength, 0))
  let at = 0
  for (const chunk of chunks) {
    bytes.set(chunk, at)
    at += chunk.byteLength
  }
  return bytes
}

/**
 * Reads a body until its end or until more than `maxBytes` came, never
 * failing: a failure of the stream (a cut, a stall) is returned with the
 * bytes read before it, so that a caller can pass them on before it reports
 * the failure.
 *
 * @since 0.1.0
 * @category reading
 */
export const readPrefix = <E>(body: Stream.Stream<Uint8Array, E>, maxBytes: number): Effect.Effect<Prefix<E>> =>
  Effect.suspend(() => {
    const chunks: Array<Uint8Array> = []
    let size = 0
    return body.pipe(
      Stream.runForEachWhile((chunk) =>
        Effect.sync(() => {
          chunks.push(chunk)
          size += chunk.byteLength
          return size <= maxBytes
        })
      ),
      Effect.either,
      Effect.map((ended) => ({ bytes: concat(chunks), pastLimit: size > maxBytes, failure: Either.getLeft(ended) }))
    )
  })
