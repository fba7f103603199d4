/**
 * context-compressor in @effect/ai: the `Prompt` adapter (`EffectAiPrompt`,
 * format `effect-ai`) and `CompactingLanguageModel`, a `LanguageModel` layer
 * that sends every call the compacted prompt, `RecallToolkit`, the
 * `context_recall` tool as a `Toolkit`, and the layers over @effect/ai:
 * `SummarizerLanguageModel`, a summariser over any `LanguageModel`, and
 * `ChatCompletionsLanguageModel`, the chat-completions client as a
 * `LanguageModel` provider. This entry point needs the optional peer
 * `@effect/ai`; `context-compressor/adapters` and `context-compressor/layers`
 * do not (their declarations name no @effect/ai type).
 *
 * @since 0.1.0
 */
import type * as Adapter from "../../face/adapters/Adapter.js"
import * as Adapters from "../../face/adapters/Adapters.js"
import * as EffectAiPrompt from "./EffectAiPrompt.js"

/** @since 0.1.0 */
export * as CompactingLanguageModel from "./CompactingLanguageModel.js"
/** @since 0.1.0 */
export * as EffectAiPrompt from "./EffectAiPrompt.js"
/** @since 0.1.0 */
export * as RecallToolkit from "./RecallToolkit.js"
/** @since 0.1.0 */
export * as SummarizerLanguageModel from "./SummarizerLanguageModel.js"
/** @since 0.1.0 */
export * as ChatCompletionsLanguageModel from "./ChatCompletionsLanguageModel.js"

/**
 * Every adapter, in the order `--format auto` tries them: the @effect/ai
 * `Prompt` adapter first (its tool parts are its own markers), then those of
 * `Adapters.all`.
 *
 * @since 0.1.0
 * @category adapters
 */
export const adapters: ReadonlyArray<Adapter.Adapter> = [EffectAiPrompt.adapter, ...Adapters.all]
