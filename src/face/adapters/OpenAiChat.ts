/**
 * The adapter of OpenAI chat completions messages: an array of messages
 * (`system`, `developer`, `user`, `assistant` with `tool_calls`, `tool` with
 * `tool_call_id`), or a request body with a `messages` array, to the neutral
 * transcript and back. Message `i` of the document is the neutral message
 * `m<i>`, so the ids stay stable as an append-only transcript grows; a view
 * is written back with every unchanged message exactly as it came in.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import type * as Effect from "effect/Effect"
import * as Codec from "../../core/adapters/OpenAiChat.js"
import * as Steps from "../../core/Steps.js"
import type * as Transcript from "../models/Transcript.js"
import type * as Adapter from "./Adapter.js"
import * as Codecs from "./internal/Codecs.js"

/**
 * A chat completions message as it was parsed, every field kept as it came.
 *
 * @since 0.1.0
 * @category models
 */
export type NativeMessage = Codec.NativeMessage

/**
 * The neutral transcript of a chat completions document (an array of
 * messages, or a request body with `messages`), with the `encode` of its
 * views. A document that is not one is an `AdapterError` naming the message
 * at fault; a tool message answering a call no earlier message makes is
 * refused, the effect failing with it. Never throws; the same on Effect 3 and
 * Effect 4 (`yield*` it in `Effect.gen`).
 *
 * @example
 * ```ts
 * import { OpenAiChat } from "context-compressor/adapters"
 * import { Effect } from "effect"
 *
 * const messages = [
 *   { role: "system", content: "You are a coding agent." },
 *   { role: "user", content: "list the files" }
 * ]
 * const decoded = Effect.runSync(OpenAiChat.decode(messages))
 * assert.deepStrictEqual(decoded.transcript.map((message) => message.id), ["m0", "m1"])
 * // An unchanged view comes back as the same messages, each the very object it was.
 * const encoded = decoded.encode(decoded.transcript) as ReadonlyArray<unknown>
 * assert.deepStrictEqual(encoded, messages)
 * assert.strictEqual(encoded[1], messages[1])
 * ```
 *
 * @since 0.1.0
 * @category decoding
 */
export const decode = (document: unknown): Effect.Effect<Adapter.Decoded, Adapter.AdapterError> =>
  Compat.fromResult(decodeResult(document))

/**
 * {@link decode}'s answer as a pure value: the decoded document, or the
 * `AdapterError` (an `Either` on Effect 3, a `Result` on Effect 4). Never
 * throws.
 *
 * @example
 * ```ts
 * import { OpenAiChat } from "context-compressor/adapters"
 * import { Either } from "effect"
 *
 * const refused = OpenAiChat.decodeResult([{ role: "tool", tool_call_id: "nope", content: "x" }])
 * assert.ok(Either.isLeft(refused) && refused.left.index === 0)
 * ```
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeResult = (document: unknown): Compat.Result<Adapter.Decoded, Adapter.AdapterError> =>
  Steps.runSync(decodeSteps(document))

/**
 * {@link decode} as steps that pause every few messages, for a caller that
 * lets the event loop run while a long document is decoded
 * (`Cooperative.run`); `decodeResult` runs them to the end.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeSteps = (
  document: unknown
): Steps.Steps<Compat.Result<Adapter.Decoded, Adapter.AdapterError>> => Codecs.decodeSteps(Codec.codec, document)

/**
 * Writes a view of a decoded document back as a chat completions document of
 * the same shape (array or request body).
 *
 * @since 0.1.0
 * @category encoding
 */
export const encode = (decoded: Adapter.Decoded, view: Transcript.Transcript): unknown => decoded.encode(view)

/**
 * Whether a parsed document looks like chat completions messages: every
 * message has a chat completions role, string or null content or content
 * parts of the format, tool messages a `tool_call_id`; a request body has no
 * top-level `system` (that is Anthropic's). Content parts of other formats
 * (`tool-call`, `tool-result`, `tool_use`, `tool_result`, `thinking`,
 * `reasoning`) make it false.
 *
 * @since 0.1.0
 * @category detection
 */
export const detect: (document: unknown) => boolean = Codec.detect

/**
 * The OpenAI chat completions adapter.
 *
 * @since 0.1.0
 * @category adapters
 */
export const adapter: Adapter.Adapter = {
  format: Codec.codec.format,
  detect,
  decode,
  decodeResult,
  decodeSteps,
  continuing: () => Codecs.adapterOf(Codec.continuing())
}
