/**
 * The exact tokenizer of OpenAI's current models: byte-pair encoding with the
 * `o200k_base` vocabulary by `gpt-tokenizer`, counted linearly by the shared
 * core's `TokenCount.countLinear` (pre-tokens past `longPreToken` characters
 * in slices). The vocabulary is imported when the layer is built: the
 * package's vendored copy (`#o200k_base`), or `gpt-tokenizer`'s in a checkout
 * that has not been built. Effect 4 face of `layers/TokenizerBpe`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as TokenCount from "../../src/internal/services/TokenCount.js"
import * as Tokenizer from "../services/Tokenizer.js"

type Encoding = typeof import("gpt-tokenizer/encoding/o200k_base") & {
  /** The pattern that splits text into pre-tokens before merging. */
  readonly O200K_TOKEN_SPLIT_REGEX: RegExp
}

// A specifier in a variable: the vendored file has no declarations, and Node resolves it through
// the package's `imports` wherever the importing file ends up in the package.
const vendored: string = "#o200k_base"

/** The vendored vocabulary; gpt-tokenizer's where it is not built (a checkout before `npm run build`). */
const load = (): Promise<Encoding> =>
  (import(vendored) as Promise<Encoding>).catch(() =>
    Promise.all([import("gpt-tokenizer/encoding/o200k_base"), import("gpt-tokenizer/encodingParams/constants")]).then((
      [encoding, constants]
    ) => ({
      ...encoding,
      O200K_TOKEN_SPLIT_REGEX: constants.O200K_TOKEN_SPLIT_REGEX
    }))
  )

// No special token is recognised: a transcript quoting `<|endoftext|>` is text, and must not throw.
const plainText = { disallowedSpecial: new Set<string>() }

/**
 * The length from which a pre-token is counted in slices.
 *
 * @since 0.1.0
 * @category constants
 */
export const longPreToken: number = TokenCount.longPreToken

/**
 * The `o200k_base` tokenizer service, named `o200k_base`: imports the
 * vocabulary (once per process), counts special-token markers as plain text
 * and pre-tokens past {@link longPreToken} characters in slices.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<Tokenizer.Service> = Effect.map(
  Effect.promise(load),
  ({ O200K_TOKEN_SPLIT_REGEX, countTokens }): Tokenizer.Service =>
    Tokenizer.make({
      name: "o200k_base",
      count: TokenCount.countLinear((text) => countTokens(text, plainText), O200K_TOKEN_SPLIT_REGEX)
    })
).pipe(Effect.withSpan("TokenizerBpe.make"))

/**
 * Provides the `o200k_base` `Tokenizer`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Tokenizer.Tokenizer> = Layer.effect(Tokenizer.Tokenizer, make)
