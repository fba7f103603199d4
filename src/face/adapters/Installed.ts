/**
 * Every adapter whose package is installed, for programs
 * that must start without the optional ones (the command line, the HTTP
 * server): the @effect/ai `Prompt` adapter (of `context-compressor/effect-ai`)
 * is imported only when `@effect/ai` is installed. Without it, the other four are tried in the same order, and
 * a transcript named `effect-ai` fails to decode with a one-line reason naming
 * the package to install. One source for both Effects: on Effect 4 the
 * `Prompt` adapter is over `effect/ai`, part of `effect`, and always there.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Effect from "effect/Effect"
import * as OptionalPackage from "../models/OptionalPackage.js"
import * as Adapter from "./Adapter.js"
import * as Adapters from "./Adapters.js"

/**
 * The stand-in for the `effect-ai` adapter when `@effect/ai` is missing: it
 * detects nothing and refuses to decode, saying what to install.
 *
 * @since 0.1.0
 * @category adapters
 */
export const missingEffectAi = (missing: OptionalPackage.MissingPackageError): Adapter.Adapter =>
  Adapter.make({
    format: "effect-ai",
    detect: () => false,
    decodeResult: () => Compat.Result.fail(new Adapter.AdapterError({ format: "effect-ai", reason: missing.message }))
  })

/**
 * Every adapter: the @effect/ai `Prompt` one first (`missingEffectAi` when
 * `@effect/ai` is not installed), then those of `Adapters.all` in its order.
 *
 * @since 0.1.0
 * @category adapters
 */
export const adapters: Effect.Effect<ReadonlyArray<Adapter.Adapter>> = Effect.map(
  Compat.result(
    OptionalPackage.load(
      "@effect/ai",
      "the @effect/ai Prompt format",
      () => import("../../apps/effect-ai/EffectAiPrompt.js")
    )
  ),
  (loaded) => [
    Compat.matchResult(loaded, { onFailure: missingEffectAi, onSuccess: (EffectAiPrompt) => EffectAiPrompt.adapter }),
    ...Adapters.all
  ]
)
