/**
 * context-compressor in Effect 4's own `effect/ai`: `SummarizerLanguageModel`, a
 * summariser over any `effect/ai` `LanguageModel` (the OpenAI, Anthropic and
 * other providers of Effect 4), under the name of `context-compressor/effect-ai`.
 * The other modules of that entry (`EffectAiPrompt`, `CompactingLanguageModel`,
 * `RecallToolkit`, `ChatCompletionsLanguageModel`) are built on @effect/ai for
 * Effect 3 and are not here yet (docs/effect4.md).
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as SummarizerLanguageModel from "../../src/effect-ai/SummarizerLanguageModel.js"
