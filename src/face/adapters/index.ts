/**
 * The message-format adapters: each decodes a format's messages to the neutral
 * transcript and encodes a compacted view back into the same format. None
 * needs an optional package; the @effect/ai `Prompt` adapter and the
 * compacting `LanguageModel` are in `context-compressor/effect-ai`.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Adapter from "./Adapter.js"
/** @since 0.1.0 */
export * as Adapters from "./Adapters.js"
/** @since 0.1.0 */
export * as AiSdkMessages from "./AiSdkMessages.js"
/** @since 0.1.0 */
export * as AnthropicMessages from "./AnthropicMessages.js"
/** @since 0.1.0 */
export * as Formats from "./Formats.js"
/** @since 0.1.0 */
export * as Installed from "./Installed.js"
/** @since 0.1.0 */
export * as OpenAiChat from "./OpenAiChat.js"
/** @since 0.1.0 */
export * as OpenAiResponses from "./OpenAiResponses.js"
