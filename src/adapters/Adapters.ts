/**
 * Every message-format adapter, in the order `--format auto` tries them: the
 * formats with their own markers first, OpenAI chat (which also claims a plain
 * text-only chat) last.
 *
 * @since 0.1.0
 */
import type * as Adapter from "./Adapter.js"
import * as AiSdkMessages from "./AiSdkMessages.js"
import * as AnthropicMessages from "./AnthropicMessages.js"
import * as EffectAiPrompt from "./EffectAiPrompt.js"
import * as OpenAiChat from "./OpenAiChat.js"

/**
 * @since 0.1.0
 * @category adapters
 */
export const all: ReadonlyArray<Adapter.Adapter> = [EffectAiPrompt.adapter, AiSdkMessages.adapter, AnthropicMessages.adapter, OpenAiChat.adapter]
