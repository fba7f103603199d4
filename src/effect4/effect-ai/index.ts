/**
 * context-compressor in Effect 4's own `effect/ai`, under the names of `context-compressor/effect-ai`
 * (the same modules, one source, compiled for Effect 4; docs/effect4.md): the `Prompt` adapter
 * (`EffectAiPrompt`, format `effect-ai`) and `CompactingLanguageModel`, a `LanguageModel` layer that
 * sends every call the compacted prompt, `RecallToolkit`, the `context_recall` tool as a `Toolkit`,
 * and the layers over `effect/ai`: `SummarizerLanguageModel`, a summariser over any `LanguageModel`
 * (the OpenAI, Anthropic and other providers of Effect 4), and `ChatCompletionsLanguageModel`, the
 * chat-completions client as a `LanguageModel` provider. `effect/ai` is part of `effect`: this entry
 * needs no other package.
 *
 * @since 0.1.0
 */
import * as EffectAiPrompt from "../../apps/effect-ai/EffectAiPrompt.js"
import type * as Adapter from "../../face/adapters/Adapter.js"
import * as Adapters from "../../face/adapters/Adapters.js"

/** @since 0.1.0 */
export * as CompactingLanguageModel from "../../apps/effect-ai/CompactingLanguageModel.js"
/** @since 0.1.0 */
export * as EffectAiPrompt from "../../apps/effect-ai/EffectAiPrompt.js"
/** @since 0.1.0 */
export * as RecallToolkit from "../../apps/effect-ai/RecallToolkit.js"
/** @since 0.1.0 */
export * as SummarizerLanguageModel from "../../apps/effect-ai/SummarizerLanguageModel.js"
/** @since 0.1.0 */
export * as ChatCompletionsLanguageModel from "../../apps/effect-ai/ChatCompletionsLanguageModel.js"

/**
 * Every adapter, in the order `--format auto` tries them: the `Prompt`
 * adapter first (its tool parts are its own markers), then those of
 * `Adapters.all`.
 *
 * @since 0.1.0
 * @category adapters
 */
export const adapters: ReadonlyArray<Adapter.Adapter> = [EffectAiPrompt.adapter, ...Adapters.all]
