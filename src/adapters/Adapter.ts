/**
 * The contract of a message-format adapter: a parsed document of one format
 * (OpenAI chat completions, Anthropic messages, @effect/ai `Prompt`, AI SDK
 * `ModelMessage`) to the neutral transcript, and a view of that transcript
 * back to the same format. The engine sees only the neutral model; adapters
 * sit at both ends of it.
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type * as Cooperative from "../internal/Cooperative.js"
import type * as Transcript from "../Transcript.js"

/**
 * The formats adapters exist for.
 *
 * @since 0.1.0
 * @category models
 */
export const Format = Schema.Literal("openai", "anthropic", "effect-ai", "ai-sdk", "openai-responses")

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
  index: Schema.optionalWith(Schema.Int, { exact: true }),
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
  /** The neutral transcript of a parsed document, or what keeps it from being one. Never throws. */
  readonly decode: (document: unknown) => Either.Either<Decoded, AdapterError>
  /**
   * The same decoding as `decode`, as steps that pause between messages, so
   * that a server decoding a long document can let the event loop run
   * (`Cooperative.run`); `decode` is these steps run to the end. Optional: an
   * adapter without it is decoded in one piece (`Formats.decodeSteps`).
   */
  readonly decodeSteps?: (document: unknown) => Cooperative.Steps<Either.Either<Decoded, AdapterError>>
}

/**
 * A `decode` answer as an effect, for a program written once for both
 * faces: on Effect 3 an `Either` already is one, and this only says so; on
 * Effect 4 (`context-compressor/effect4/adapters`) the same call turns its
 * `Result` into one, so `yield* Adapter.toEffect(adapter.decode(document))`
 * reads the same on both.
 *
 * @example
 * ```ts
 * import { Adapter, OpenAiChat } from "context-compressor/adapters"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const decoded = yield* Adapter.toEffect(OpenAiChat.adapter.decode([{ role: "user", content: "Hi" }]))
 *   return decoded.transcript.length
 * })
 * assert.strictEqual(Effect.runSync(program), 1)
 * ```
 *
 * @since 0.1.0
 * @category conversions
 */
export const toEffect = <A, E>(answer: Either.Either<A, E>): Effect.Effect<A, E> => answer
