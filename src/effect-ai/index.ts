/**
 * context-compressor in @effect/ai: the `Prompt` adapter (`EffectAiPrompt`,
 * format `effect-ai`) and `CompactingLanguageModel`, a `LanguageModel` layer
 * that sends every call the compacted prompt, and `RecallToolkit`, the
 * `context_recall` tool as a `Toolkit`. This entry point needs the
 * optional peer `@effect/ai`; `context-compressor/adapters` does not.
 *
 * @since 0.1.0
 */
import type * as Adapter from "../adapters/Adapter.js"
import * as Adapters from "../adapters/Adapters.js"
import * as EffectAiPrompt from "./EffectAiPrompt.js"

/** @since 0.1.0 */
export * as CompactingLanguageModel from "./CompactingLanguageModel.js"
/** @since 0.1.0 */
export * as EffectAiPrompt from "./EffectAiPrompt.js"
/** @since 0.1.0 */
export * as RecallToolkit from "./RecallToolkit.js"

/**
 * Every adapter, in the order `--format auto` tries them: the @effect/ai
 * `Prompt` adapter first (its tool parts are its own markers), then those of
 * `Adapters.all`.
 *
 * @since 0.1.0
 * @category adapters
 */
export const adapters: ReadonlyArray<Adapter.Adapter> = [EffectAiPrompt.adapter, ...Adapters.all]
