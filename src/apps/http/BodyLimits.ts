/**
 * The limits `serve` and the proxy hold a body to, shared by both: how deeply
 * a JSON request body may nest (past it, 400 instead of a walk that could
 * exhaust the stack), a request body's declared size, what a body reserves of
 * the compaction queue's budget, a request body read to a limit without
 * closing the connection (so that the 413 can be read), and reading at most
 * so many bytes of a body while keeping what was read when the read fails.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Http from "#compat-http"
import type { HttpServerRequest } from "#compat-http"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { isUtf8 } from "node:buffer"
import type * as NodeHttp from "node:http"
import { StringDecoder } from "node:string_decoder"
import * as JsonReader from "../../core/json/JsonReader.js"
import * as Json from "../../face/models/Json.js"

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
  Json.nestingDepth(text, maxJsonDepth) > maxJsonDepth ? tooDeep : undefined

/**
 * {@link depthRefusal} of a body the proxy read: over its bytes when it has
 * them, so that its text is not decoded for it.
 *
 * @since 0.1.0
 * @category guards
 */
export const depthRefusalOf = (body: Body): string | undefined =>
  body.bytes === undefined ? depthRefusal(body.text) : refusalOfDepth(depthOfBytes(body.bytes))

/**
 * How deeply a body's bytes nest ({@link depthRefusal}'s scan, stopping past
 * {@link maxJsonDepth}): those from byte `at` to `end`, where the text is `depth` deep.
 *
 * @since 0.1.0
 * @category guards
 */
export const depthOfBytes = (
  bytes: Uint8Array,
  at: number = 0,
  end: number = bytes.byteLength,
  depth: number = 0
): number => JsonReader.nestingDepthOf(new Bytes(bytes.subarray(at, end)), maxJsonDepth, depth)

/**
 * Why a body of a depth is refused, or `undefined` when it nests no deeper than {@link maxJsonDepth}.
 *
 * @since 0.1.0
 * @category guards
 */
export const refusalOfDepth = (depth: number): string | undefined => depth > maxJsonDepth ? tooDeep : undefined

const tooDeep = `the body nests arrays and objects deeper than the limit of ${maxJsonDepth} levels`

/**
 * A body's bytes read as a text by the depth scan: the byte at an index, and the next quote found by
 * `Buffer`'s native search (much faster than a typed array's `indexOf`).
 */
class Bytes implements JsonReader.Scanned {
  readonly buffer: Buffer
  constructor(readonly bytes: Uint8Array) {
    this.buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  }
  get length() {
    return this.bytes.length
  }
  charCodeAt(index: number): number {
    return this.bytes[index]!
  }
  indexOf(_quote: "\"", from: number): number {
    return this.buffer.indexOf(0x22, from)
  }
}

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
 * The bytes a request's body reserves of the compaction queue's budget before
 * it is read: its `Content-Length` when it declares one within `maxBytes`,
 * else `maxBytes` (a chunked body may be as long as the limit).
 *
 * @since 0.1.0
 * @category guards
 */
export const reservedBytes = (
  headers: Readonly<Record<string, string | undefined>>,
  maxBytes: number
): number => {
  const declared = Number(headers["content-length"] ?? Number.NaN)
  return Number.isInteger(declared) && declared >= 0 && declared <= maxBytes ? declared : maxBytes
}

/**
 * The words of the failure of a body read past its limit: the platform's own
 * (`maxBytes exceeded`), which the guard answers with 413.
 *
 * @since 0.1.0
 * @category constants
 */
export const pastLimitReason = "maxBytes exceeded"

/** The Node message under a request, when it has one (not a request of `HttpServerRequest.fromWeb`). */
const nodeMessageOf = (request: HttpServerRequest.HttpServerRequest): NodeHttp.IncomingMessage | undefined => {
  try {
    const source: unknown = Http.toIncomingMessage(request)
    return typeof source === "object" && source !== null && "resume" in source && "socket" in source
      ? source as NodeHttp.IncomingMessage
      : undefined
  } catch {
    return undefined
  }
}

/**
 * Discards what is left of a request's body as it comes, without closing the
 * connection: for a request answered without its body (a refusal), so that
 * the client, still sending, is not reset before it reads the answer. The
 * server's connections (`Connections.guard`) bound how long it goes on.
 *
 * @since 0.1.0
 * @category reading
 */
export const discardBody = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<void> =>
  Effect.sync(() => {
    const message = nodeMessageOf(request)
    if (message !== undefined && !message.complete) {
      message.removeAllListeners("data")
      message.resume()
    }
  })

/**
 * Reads a Node request's body as UTF-8 text up to `maxBytes`, with its bytes
 * when `keepBytes` (the chunks as they came, joined once at the end; then
 * decoded in one piece when they are valid UTF-8, else chunk by chunk as
 * without them, replacement characters and all). Past the
 * limit it stops keeping what comes and discards the rest, the connection left
 * open (the platform's reader destroys the request there, and with it the
 * socket, so that a chunked client met a reset instead of the 413): it fails
 * with {@link pastLimitReason}.
 */
const readNodeBody = (
  request: HttpServerRequest.HttpServerRequest,
  message: NodeHttp.IncomingMessage,
  maxBytes: number,
  keepBytes: boolean
): Effect.Effect<Body, Http.RequestError> =>
  Compat.callback((resume) => {
    const decoder = new StringDecoder("utf8")
    let text = ""
    let size = 0
    const chunks: Array<Buffer> = []
    const failed = (cause: unknown) => Http.requestBodyError(request, cause)
    const stop = () => {
      message.off("data", onData)
      message.off("end", onEnd)
      message.off("error", onError)
      message.off("close", onClose)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength
      if (size > maxBytes) {
        stop()
        text = ""
        chunks.length = 0
        message.resume()
        resume(Effect.fail(failed(new Error(pastLimitReason))))
        return
      }
      if (keepBytes) chunks.push(chunk)
      else text += decoder.write(chunk)
    }
    const onEnd = () => {
      stop()
      if (!keepBytes) return resume(Effect.succeed({ text: text + decoder.end(), bytes: undefined }))
      const bytes = Buffer.concat(chunks, size)
      if (isUtf8(bytes)) return resume(Effect.succeed(bodyOfBytes(bytes)))
      for (const chunk of chunks) text += decoder.write(chunk)
      resume(Effect.succeed({ text: text + decoder.end(), bytes: undefined }))
    }
    const onError = (error: Error) => {
      stop()
      resume(Effect.fail(failed(error)))
    }
    const onClose = () => {
      stop()
      resume(Effect.fail(failed(new Error("the client closed the connection before the body's end"))))
    }
    message.on("data", onData)
    message.once("end", onEnd)
    message.once("error", onError)
    message.once("close", onClose)
    return Effect.sync(stop)
  })

/**
 * A request body as the proxy read it: its text, and the bytes it came as
 * when they are exactly that text in UTF-8 (none when the request is not on
 * Node's server, or when the bytes were not valid UTF-8 and the text holds
 * replacement characters in their place). A body with its bytes decodes its
 * text when it is first read ({@link bodyOfBytes}).
 *
 * @since 0.1.0
 * @category models
 */
export interface Body {
  readonly text: string
  readonly bytes: Uint8Array | undefined
}

/**
 * Whether a body opens with a byte-order mark (read from its bytes when it has them).
 *
 * @since 0.1.0
 * @category reading
 */
export const byteOrderMark = (body: Body): boolean =>
  body.bytes === undefined
    ? body.text.charCodeAt(0) === 0xfeff
    : body.bytes[0] === 0xef && body.bytes[1] === 0xbb && body.bytes[2] === 0xbf

/**
 * The {@link Body} of valid UTF-8 bytes: its text decoded when first read, then
 * kept. A proxy that reads only what a session's body adds (`ProxyCompaction.bodies`)
 * and sends the body on as it came never decodes the rest.
 *
 * @since 0.1.0
 * @category reading
 */
export const bodyOfBytes = (bytes: Uint8Array): Body => {
  let text: string | undefined
  return {
    bytes,
    get text() {
      return text ??= textOfBytes(bytes)
    }
  }
}

/**
 * The UTF-8 text of valid UTF-8 bytes, from byte `from` (a character's first byte).
 *
 * @since 0.1.0
 * @category reading
 */
export const textOfBytes = (bytes: Uint8Array, from: number = 0): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset + from, bytes.byteLength - from).toString("utf8")

/**
 * Reads a request's body at most `maxBytes` long without closing the
 * connection when it is longer, as {@link boundedRequest} reads it, keeping
 * its bytes when they are its text's own UTF-8 ({@link Body}): a body sent on
 * as it came is then sent as those bytes, not encoded again.
 *
 * @since 0.1.0
 * @category reading
 */
export const readBody = (
  request: HttpServerRequest.HttpServerRequest,
  maxBytes: number
): Effect.Effect<Body, Http.RequestError> => bodyOf(request, maxBytes, true)

/** A body at most `maxBytes` long: on Node's server by {@link readNodeBody}, else by the platform's reader. */
const bodyOf = (
  request: HttpServerRequest.HttpServerRequest,
  maxBytes: number,
  keepBytes: boolean
): Effect.Effect<Body, Http.RequestError> => {
  const message = nodeMessageOf(request)
  return message === undefined
    ? Effect.map(Http.withMaxBodySize(maxBytes)(request.text), (text) => ({ text, bytes: undefined }))
    : readNodeBody(request, message, maxBytes, keepBytes)
}

/**
 * What to send on for a body read by {@link readBody}: its own bytes when the
 * prepared body is the body as it came (`asItCame`), else the prepared text.
 *
 * @since 0.1.0
 * @category reading
 */
export const sendable = (
  body: Body,
  prepared: { readonly body: string; readonly asItCame?: boolean | undefined }
): string | Uint8Array => prepared.asItCame === true && body.bytes !== undefined ? body.bytes : prepared.body

/**
 * A request whose `text` (and so `json`, which the platform's schema readers
 * use) reads its body at most `maxBytes` long without closing the connection
 * when the body is longer ({@link readNodeBody}), read once and kept; the rest
 * of the request is the one given. A request that is not on Node's server
 * reads with the platform's reader, under `maxBytes`.
 *
 * @since 0.1.0
 * @category reading
 */
export const boundedRequest = (
  request: HttpServerRequest.HttpServerRequest,
  maxBytes: number
): HttpServerRequest.HttpServerRequest => {
  const text = Effect.map(bodyOf(request, maxBytes, false), (body) => body.text)
  // Read once: the route's schema and a handler reading the text again see the same body.
  const once = Effect.runSync(Effect.cached(text))
  // The request's own getters (json, urlParamsBody) read `this.text`: they read this one.
  return Object.create(request, { text: { value: once, enumerable: false } }) as HttpServerRequest.HttpServerRequest
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
      Compat.result,
      Effect.map((ended) => ({
        bytes: concat(chunks),
        pastLimit: size > maxBytes,
        failure: Http.isFailure(ended) ? Option.some(Http.failureOf(ended)) : Option.none()
      }))
    )
  })
