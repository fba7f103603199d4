/**
 * The contract of a message-format adapter on Effect 4 (docs/effect4.md): a
 * parsed document of one format (OpenAI chat completions, Anthropic messages,
 * AI SDK `ModelMessage`) to the neutral transcript of the Effect 4 face's
 * classes, and a view of that transcript back to the same format. The same
 * names and fields as `context-compressor/adapters`' `Adapter`, with Effect
 * 4's `Result` where the Effect 3 face answers with an `Either`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as Steps from "../../src/internal/Steps.js"
import type * as Transcript from "../src/Transcript.js"

/**
 * The formats adapters exist for (`effect-ai`, the @effect/ai `Prompt`, is
 * read on Effect 3 only, by `context-compressor/effect-ai`).
 *
 * @since 0.1.0
 * @category models
 */
export const Format = Schema.Literals(["openai", "anthropic", "effect-ai", "ai-sdk", "openai-responses"])

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
  index: Schema.optionalKey(Schema.Int),
  reason: Schema.String
}) {}

/**
 * A decoded document: its neutral transcript (messages of the Effect 4
 * face's `Transcript` classes) and how to write a view of it back as a
 * document of the same format and shape. Every message of the view that is a
 * message of the transcript as decoded comes back exactly as it came in; a
 * compacted block becomes the message kind the format expects for it.
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
  /** Whether a parsed document looks like this format (a cheap structural test, for `auto` detection). */
  readonly detect: (document: unknown) => boolean
  /** The neutral transcript of a parsed document, or what keeps it from being one. Never throws. */
  readonly decode: (document: unknown) => Result.Result<Decoded, AdapterError>
  /**
   * The same decoding as `decode`, as steps that pause between messages, so
   * that a caller decoding a long document can let the event loop run;
   * `decode` is these steps run to the end. Optional: an adapter without it
   * is decoded in one piece (`Formats.decodeSteps`).
   */
  readonly decodeSteps?: (document: unknown) => Steps.Steps<Result.Result<Decoded, AdapterError>>
}

/**
 * A `decode` answer as an effect: Effect 4's `Result` is not one, so a
 * program yields `Adapter.toEffect(adapter.decode(document))` in
 * `Effect.gen`. The Effect 3 face has the same function (its `Either` is
 * already an effect), so a program written for one face runs on the other
 * with its import paths changed (docs/integration.md).
 *
 * @example
 * ```ts
 * import { Adapter, OpenAiChat } from "context-compressor/effect4/adapters"
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
export const toEffect = <A, E>(answer: Result.Result<A, E>): Effect.Effect<A, E> => Effect.fromResult(answer)
