/**
 * The approximate tokenizer: one token per four characters, rounded up (the
 * shared core's `TokenCount.approximate`). Effect 4 face of `layers/TokenizerApprox`.
 *
 * @since 0.1.0
 */
import * as Layer from "effect/Layer"
import * as TokenCount from "../../src/internal/services/TokenCount.js"
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
export const make: Tokenizer.Service = Tokenizer.make({ name: "chars/4", count })

/**
 * Provides the approximate `Tokenizer`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Tokenizer.Tokenizer> = Layer.succeed(Tokenizer.Tokenizer, make)
