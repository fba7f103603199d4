/**
 * The exact tokenizer of OpenAI's current models: byte-pair encoding with the
 * `o200k_base` vocabulary (GPT-4o, GPT-4.1, o-series, GPT-5), by
 * `gpt-tokenizer`. Exact where the approximate tokenizer guesses, at the cost
 * of loading the vocabulary and of encoding every text once (the engine
 * caches the count per message). Text that looks like a special token, such
 * as `<|endoftext|>` in a transcript, is counted as the plain text it is.
 * The vocabulary (a few megabytes of JavaScript) is imported when the layer
 * is built, not when the module is: the package's own copy of it
 * (`#o200k_base`, vendored from `gpt-tokenizer` by `scripts/vendor-tokenizer.mjs`
 * so that no other vocabulary is installed), or `gpt-tokenizer`'s in a
 * checkout that has not been built.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Tokenizer from "../services/Tokenizer.js"

type Encoding = typeof import("gpt-tokenizer/encoding/o200k_base")

// A specifier in a variable: the vendored file has no declarations, and bundlers leave it to Node,
// which resolves it through the package's `imports` wherever the importing file ends up in the package.
const vendored: string = "#o200k_base"

/** The vendored vocabulary; gpt-tokenizer's where it is not built (a checkout before `npm run build`). */
const load = (): Promise<Encoding> =>
  (import(vendored) as Promise<Encoding>).catch(() => import("gpt-tokenizer/encoding/o200k_base"))

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
  Effect.promise(load),
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
