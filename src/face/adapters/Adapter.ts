/**
 * The contract of a message-format adapter: a parsed document of one format
 * (OpenAI chat completions, Anthropic messages, @effect/ai `Prompt`, AI SDK
 * `ModelMessage`) to the neutral transcript, and a view of that transcript
 * back to the same format. The engine sees only the neutral model; adapters
 * sit at both ends of it. The same module on Effect 3
 * (`context-compressor/adapters`) and Effect 4
 * (`context-compressor/effect4/adapters`): `decode` answers an effect on
 * both, `decodeResult` the pure value (an `Either` on Effect 3, a `Result`
 * on Effect 4).
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Steps from "../../core/Steps.js"
import type * as Transcript from "../models/Transcript.js"

/**
 * The formats adapters exist for (`effect-ai`, the `Prompt` of @effect/ai on
 * Effect 3 and of `effect/ai` on Effect 4, is read by `context-compressor/effect-ai`).
 *
 * @since 0.1.0
 * @category models
 */
export const Format = Compat.Literals(["openai", "anthropic", "effect-ai", "ai-sdk", "openai-responses"])

/**
 * @since 0.1.0
 * @category models
 */
export type Format = typeof Format.Type

/**
 * A document that is not a transcript of the format: which message (its
 * index in the document, when one is at fault) and what is wrong.
 *
 * @since 0.1.0
 * @category errors
 */
export class AdapterError extends Schema.TaggedError<AdapterError>()("AdapterError", {
  format: Schema.String,
  index: Compat.optionalKey(Schema.Int),
  reason: Schema.String
}) {}

/**
 * A decoded document: its neutral transcript, and how to write a view of it
 * (the engine's outbound view: messages of the transcript, some of them
 * narrowed, and compacted blocks) back as a document of the same format and
 * shape. Every message of the view that is a message of the transcript as
 * decoded comes back exactly as it came in; a compacted block becomes the
 * message kind the format expects for it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Decoded {
  readonly format: Format
  readonly transcript: Transcript.Transcript
  readonly encode: (view: Transcript.Transcript) => unknown
}

/**
 * An adapter.
 *
 * @since 0.1.0
 * @category models
 */
export interface Adapter {
  readonly format: Format
  /** Whether a parsed document looks like this format (a cheap structural test, for `--format auto`). */
  readonly detect: (document: unknown) => boolean
  /**
   * The neutral transcript of a parsed document, as an effect that fails
   * with what keeps it from being one: `yield*` it in `Effect.gen`, on
   * Effect 3 and Effect 4 alike. Never throws; the answer is
   * `decodeResult`'s, as an effect.
   */
  readonly decode: (document: unknown) => Effect.Effect<Decoded, AdapterError>
  /**
   * The same decoding as a pure value: the transcript, or what keeps it
   * from being one (an `Either` on Effect 3, a `Result` on Effect 4). Never
   * throws.
   */
  readonly decodeResult: (document: unknown) => Compat.Result<Decoded, AdapterError>
  /**
   * The same decoding as steps that pause between messages, so that a
   * server decoding a long document can let the event loop run
   * (`Cooperative.run`); `decodeResult` is these steps run to the end.
   * Optional: an adapter without it is decoded in one piece
   * (`Formats.decodeSteps`).
   */
  readonly decodeSteps?: (document: unknown) => Steps.Steps<Compat.Result<Decoded, AdapterError>>
  /**
   * An adapter of the same format that keeps its last decodings: a document
   * whose messages repeat the very values of one it decoded, and add others
   * after them, decodes only the added ones (the same answer, sooner). For a
   * caller that decodes a growing history again and again; absent where the
   * format has none.
   */
  readonly continuing?: () => Adapter
}

/**
 * An adapter from its pure decoding: its `decode` is `decodeResult`'s
 * answer as an effect, so the two never disagree.
 *
 * @example
 * ```ts
 * import { Adapter, OpenAiChat } from "context-compressor/adapters"
 * import { Effect } from "effect"
 *
 * // Chat completions, detected only as a request body (never a bare array).
 * const requests = Adapter.make({
 *   format: "openai",
 *   detect: (document) => !Array.isArray(document) && OpenAiChat.detect(document),
 *   decodeResult: OpenAiChat.decodeResult
 * })
 * assert.strictEqual(requests.detect([{ role: "user", content: "Hi" }]), false)
 * const decoded = Effect.runSync(requests.decode({ model: "gpt-4.1", messages: [{ role: "user", content: "Hi" }] }))
 * assert.strictEqual(decoded.transcript.length, 1)
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (adapter: Omit<Adapter, "decode">): Adapter => ({
  ...adapter,
  decode: (document) => Compat.fromResult(adapter.decodeResult(document))
})

/**
 * A `decode` answer as an effect. `decode` answers an effect on both
 * Effects now, so a program `yield*`s it as it is: this is the identity on
 * an effect, and still turns the pure value of `decodeResult` (an `Either`
 * on Effect 3, a `Result` on Effect 4) into one.
 *
 * @deprecated `yield* adapter.decode(document)` (docs/moved.md); goes away in 0.2.0.
 * @since 0.1.0
 * @category conversions
 */
export const toEffect = <A, E>(answer: Compat.Result<A, E> | Effect.Effect<A, E>): Effect.Effect<A, E> =>
  Compat.isResult(answer) ? Compat.fromResult(answer as Compat.Result<A, E>) : answer
