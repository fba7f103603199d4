/**
 * The message-format adapters on Effect 4 (docs/effect4.md), `context-compressor/effect4/adapters`:
 * the modules of `context-compressor/adapters`, compiled for Effect 4 (one source, `src/face/adapters/`),
 * each decoding a format's messages to the neutral transcript of the `Transcript` classes and
 * encoding a compacted view back into the same format: `decode` answers an effect, as on Effect 3,
 * and `decodeResult` Effect 4's `Result`. The `Prompt` adapter is in `context-compressor/effect4/effect-ai`,
 * over Effect 4's own `effect/ai`; `Installed` loads it when asked for every adapter.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Adapter from "../../face/adapters/Adapter.js"
/** @since 0.1.0 */
export * as Adapters from "../../face/adapters/Adapters.js"
/** @since 0.1.0 */
export * as AiSdkMessages from "../../face/adapters/AiSdkMessages.js"
/** @since 0.1.0 */
export * as AnthropicMessages from "../../face/adapters/AnthropicMessages.js"
/** @since 0.1.0 */
export * as Formats from "../../face/adapters/Formats.js"
/** @since 0.1.0 */
export * as Installed from "../../face/adapters/Installed.js"
/** @since 0.1.0 */
export * as OpenAiChat from "../../face/adapters/OpenAiChat.js"
/** @since 0.1.0 */
export * as OpenAiResponses from "../../face/adapters/OpenAiResponses.js"
