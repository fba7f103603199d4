/**
 * The exact tokenizer of OpenAI's current models: byte-pair encoding with the
 * `o200k_base` vocabulary (GPT-4o, GPT-4.1, o-series, GPT-5), by
 * `gpt-tokenizer`. Exact where the approximate tokenizer guesses, at the cost
 * of loading the vocabulary and of encoding every text once (the engine
 * caches the count per message). Text that looks like a special token, such
 * as `<|endoftext|>` in a transcript, is counted as the plain text it is.
 *
 * @since 0.1.0
 */
import { countTokens } from "gpt-tokenizer/encoding/o200k_base"
import * as Layer from "effect/Layer"
import * as Tokenizer from "../services/Tokenizer.js"

// No special token is recognised: a transcript quoting `<|endoftext|>` is text, and must not throw.
const plainText = { disallowedSpecial: new Set<string>() }

/**
 * The `o200k_base` tokens of a text, special-token markers counted as plain text.
 *
 * @since 0.1.0
 * @category utils
 */
export const count = (text: string): number => (text === "" ? 0 : countTokens(text, plainText))

/**
 * The `o200k_base` tokenizer service, named `o200k_base`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Tokenizer.Service = Tokenizer.make({ name: "o200k_base", count })

/**
 * Provides the `o200k_base` `Tokenizer`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Tokenizer.Tokenizer> = Layer.succeed(Tokenizer.Tokenizer, make)
