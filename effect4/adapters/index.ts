/**
 * The message-format adapters on Effect 4 (docs/effect4.md), `context-compressor/effect4/adapters`:
 * the modules of `context-compressor/adapters`, compiled for Effect 4 (one source, `src/adapters/`),
 * each decoding a format's messages to the neutral transcript of the `Transcript` classes and
 * encoding a compacted view back into the same format: `decode` answers an effect, as on Effect 3,
 * and `decodeResult` Effect 4's `Result`. The `Prompt` adapter is in `context-compressor/effect4/effect-ai`,
 * over Effect 4's own `effect/ai`; `Installed` loads it when asked for every adapter.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Adapter from "../../src/adapters/Adapter.js"
/** @since 0.1.0 */
export * as Adapters from "../../src/adapters/Adapters.js"
/** @since 0.1.0 */
export * as AiSdkMessages from "../../src/adapters/AiSdkMessages.js"
/** @since 0.1.0 */
export * as AnthropicMessages from "../../src/adapters/AnthropicMessages.js"
/** @since 0.1.0 */
export * as Formats from "../../src/adapters/Formats.js"
/** @since 0.1.0 */
export * as Installed from "../../src/adapters/Installed.js"
/** @since 0.1.0 */
export * as OpenAiChat from "../../src/adapters/OpenAiChat.js"
/** @since 0.1.0 */
export * as OpenAiResponses from "../../src/adapters/OpenAiResponses.js"
