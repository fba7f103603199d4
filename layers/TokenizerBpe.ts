/**
 * The exact tokenizer of OpenAI's current models: byte-pair encoding with the
 * `o200k_base` vocabulary (GPT-4o, GPT-4.1, o-series, GPT-5), by
 * `gpt-tokenizer`. Exact where the approximate tokenizer guesses, at the cost
 * of loading the vocabulary and of encoding every text once (the engine
 * caches the count per message). Text that looks like a special token, such
 * as `<|endoftext|>` in a transcript, is counted as the plain text it is.
 * The vocabulary (a few megabytes of JavaScript) is imported when the layer
 * is built, not when the module is.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Tokenizer from "../services/Tokenizer.js"

// No special token is recognised: a transcript quoting `<|endoftext|>` is text, and must not throw.
const plainText = { disallowedSpecial: new Set<string>() }

/**
 * The `o200k_base` tokenizer service, named `o200k_base`: imports the
 * vocabulary (once per process) and counts special-token markers as plain
 * text.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<Tokenizer.Service> = Effect.map(
  Effect.promise(() => import("gpt-tokenizer/encoding/o200k_base")),
  ({ countTokens }): Tokenizer.Service =>
    Tokenizer.make({
      name: "o200k_base",
      count: (text) => (text === "" ? 0 : countTokens(text, plainText))
    })
).pipe(Effect.withSpan("TokenizerBpe.make"))

/**
 * Provides the `o200k_base` `Tokenizer`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Tokenizer.Tokenizer> = Layer.effect(Tokenizer.Tokenizer, make)
