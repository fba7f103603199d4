/**
 * The approximate tokenizer: one token per four characters, rounded up. No
 * vocabulary to load, close enough for English prose and JSON to place a
 * trigger, and what the engine falls back on when the provider gives no count.
 *
 * @since 0.1.0
 */
import * as Layer from "effect/Layer"
import * as TokenCount from "../../core/services/TokenCount.js"
import * as Tokenizer from "../services/Tokenizer.js"

/**
 * The tokens of a text by the approximation: `Math.ceil(text.length / 4)`.
 *
 * @since 0.1.0
 * @category utils
 */
export const count: (text: string) => number = TokenCount.approximate

/**
 * The approximate tokenizer service, named `chars/4`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Tokenizer.Service = Tokenizer.Tokenizer.of({ name: "chars/4", count })

/**
 * Provides the approximate `Tokenizer`.
 *
 * @example
 * ```ts
 * import { TokenizerApprox } from "context-compressor/layers"
 * import { Tokenizer } from "context-compressor/services"
 * import { Effect } from "effect"
 *
 * // A quick estimate where the exact count does not matter: four characters a token.
 * const count = Effect.map(Tokenizer.Tokenizer, (tokenizer) => tokenizer.count("Run the parser tests."))
 * assert.strictEqual(await Effect.runPromise(Effect.provide(count, TokenizerApprox.layer)), 6)
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Tokenizer.Tokenizer> = Layer.succeed(Tokenizer.Tokenizer, make)
