/**
 * The message-format adapters that need no optional package, in the order
 * `--format auto` tries them: the formats with their own markers first, OpenAI
 * chat (which also claims a plain text-only chat) last. The @effect/ai
 * `Prompt` adapter needs `@effect/ai`: `context-compressor/effect-ai` exports
 * it and `adapters`, this list with it in front; `Installed.adapters` loads it
 * when the package is installed.
 *
 * @since 0.1.0
 */
import type * as Adapter from "./Adapter.js"
import * as AiSdkMessages from "./AiSdkMessages.js"
import * as AnthropicMessages from "./AnthropicMessages.js"
import * as OpenAiChat from "./OpenAiChat.js"
import * as OpenAiResponses from "./OpenAiResponses.js"

/**
 * The AI SDK, Anthropic, OpenAI Responses and OpenAI chat adapters, in the order `--format auto` tries them.
 *
 * @since 0.1.0
 * @category adapters
 */
export const all: ReadonlyArray<Adapter.Adapter> = [
  AiSdkMessages.adapter,
  AnthropicMessages.adapter,
  OpenAiResponses.adapter,
  OpenAiChat.adapter
]
