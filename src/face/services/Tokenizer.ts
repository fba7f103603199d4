/**
 * Counting tokens of text, so the engine knows how full the window is when
 * the provider did not say.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** A name for reports: `chars/4`, `o200k_base`. */
  readonly name: string
  /** The number of tokens of a text. Pure: the engine caches it per message. */
  readonly count: (text: string) => number
}

/**
 * The tokenizer service.
 *
 * @example
 * ```ts
 * import { Testing } from "context-compressor/layers"
 * import { Tokenizer } from "context-compressor/services"
 * import { Effect, Layer } from "effect"
 *
 * // The token count of one's own model: here one token per word.
 * const words = Layer.succeed(
 *   Tokenizer.Tokenizer,
 *   Tokenizer.Tokenizer.of({ name: "words", count: (text) => text.split(/\s+/).filter((word) => word !== "").length })
 * )
 *
 * const program = Effect.map(Tokenizer.Tokenizer, (tokenizer) => tokenizer.count("Run the parser tests again."))
 * assert.strictEqual(await Effect.runPromise(Effect.provide(program, words)), 5)
 *
 * // The engine counts with it when it is given in place of the default.
 * export const services = Testing.layer({ tokenizer: words })
 * ```
 *
 * @since 0.1.0
 * @category tags
 */
export class Tokenizer extends Compat.Service<Tokenizer, Service>()("context-compressor/Tokenizer") {}
