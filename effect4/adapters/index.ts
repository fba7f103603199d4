/**
 * The message-format adapters on Effect 4 (docs/effect4.md), under the names
 * of `context-compressor/adapters`: each decodes a format's messages to the
 * neutral transcript of the Effect 4 face's classes and encodes a compacted
 * view back into the same format, answering with Effect 4's `Result`. Their
 * codecs are the shared core's. The @effect/ai `Prompt` adapter and
 * `Installed` stay on Effect 3 (`context-compressor/effect-ai`,
 * `context-compressor/adapters`).
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
export * as OpenAiChat from "./OpenAiChat.js"
/** @since 0.1.0 */
export * as OpenAiResponses from "./OpenAiResponses.js"
