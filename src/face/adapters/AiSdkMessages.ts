/**
 * The Vercel AI SDK adapter: an array of v5 `ModelMessage`s, or an object
 * holding them in `messages` (a `generateText` call's options, say), to the
 * neutral transcript and back. AI SDK v4 tool parts (`args`, `result`) are
 * read too, and written back as they came. The shapes are described here; the
 * `ai` package is not a dependency.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import type * as Effect from "effect/Effect"
import * as Codec from "../../core/adapters/AiSdkMessages.js"
import type * as Models from "../../core/adapters/AiSdkModels.js"
import * as Steps from "../../core/Steps.js"
import type * as Transcript from "../models/Transcript.js"
import type * as Adapter from "./Adapter.js"
import * as Codecs from "./internal/Codecs.js"

// =============================================================================
// Models (the shared core's, core/adapters/AiSdkModels.ts)
// =============================================================================

/**
 * Options for a provider, by provider name.
 *
 * @since 0.1.0
 * @category models
 */
export type ProviderOptions = Models.ProviderOptions

/**
 * A JSON value, as tool inputs and JSON outputs hold.
 *
 * @since 0.1.0
 * @category models
 */
export type JSONValue = Models.JSONValue

/**
 * Text of a user or assistant message.
 *
 * @since 0.1.0
 * @category models
 */
export type TextPart = Models.TextPart

/**
 * An image of a user message.
 *
 * @since 0.1.0
 * @category models
 */
export type ImagePart = Models.ImagePart

/**
 * A file of a user or assistant message (`mimeType` in AI SDK v4).
 *
 * @since 0.1.0
 * @category models
 */
export type FilePart = Models.FilePart

/**
 * The model's reasoning, in an assistant message.
 *
 * @since 0.1.0
 * @category models
 */
export type ReasoningPart = Models.ReasoningPart

/**
 * A tool call of an assistant message (`args` instead of `input` in AI SDK v4).
 *
 * @since 0.1.0
 * @category models
 */
export type ToolCallPart = Models.ToolCallPart

/**
 * What a tool returned.
 *
 * @since 0.1.0
 * @category models
 */
export type ToolResultOutput = Models.ToolResultOutput

/**
 * The result of a tool call (`result` instead of `output` in AI SDK v4).
 *
 * @since 0.1.0
 * @category models
 */
export type ToolResultPart = Models.ToolResultPart

/**
 * A system message.
 *
 * @since 0.1.0
 * @category models
 */
export type SystemModelMessage = Models.SystemModelMessage

/**
 * A user message.
 *
 * @since 0.1.0
 * @category models
 */
export type UserModelMessage = Models.UserModelMessage

/**
 * An assistant message.
 *
 * @since 0.1.0
 * @category models
 */
export type AssistantModelMessage = Models.AssistantModelMessage

/**
 * A tool message: the results of the calls of the assistant message before it.
 *
 * @since 0.1.0
 * @category models
 */
export type ToolModelMessage = Models.ToolModelMessage

/**
 * An AI SDK v5 `ModelMessage`.
 *
 * @since 0.1.0
 * @category models
 */
export type ModelMessage = Models.ModelMessage

const format = "ai-sdk" as const

const decodeSteps = (document: unknown): Steps.Steps<Compat.Result<Adapter.Decoded, Adapter.AdapterError>> =>
  Codecs.decodeSteps(Codec.codec, document)

const decodeResult = (document: unknown): Compat.Result<Adapter.Decoded, Adapter.AdapterError> =>
  Steps.runSync(decodeSteps(document))

const decode = (document: unknown): Effect.Effect<Adapter.Decoded, Adapter.AdapterError> =>
  Compat.fromResult(decodeResult(document))

// =============================================================================
// API
// =============================================================================

/**
 * The AI SDK `ModelMessage` adapter. It decodes an array of messages or an
 * object with a `messages` array (its other fields kept); neutral ids are
 * `m<index>` for the first neutral message of native message `index` and
 * `m<index>.<k>` for the next ones (one per tool result of a tool message, one
 * per provider-executed result of an assistant message). A tool call's
 * `input` (v4 `args`) becomes its JSON text; a tool output is its text
 * (`text`, `error-text`, the text items of `content`) or its JSON text
 * (`json`, `error-json`, an agentic-workspace/v1 envelope included).
 *
 * @since 0.1.0
 * @category adapters
 */
export const adapter: Adapter.Adapter = { format, detect: Codec.detect, decode, decodeResult, decodeSteps }

/**
 * A `Decoded` of AI SDK messages that remembers their type (`ModelMessage`
 * of the `ai` package, `LanguageModelV2Message` of `@ai-sdk/provider`, or
 * this module's), so that `toMessages` gives back the same type.
 *
 * @since 0.1.0
 * @category models
 */
export interface DecodedMessages<M> extends Adapter.Decoded {
  readonly messageType?: (message: M) => M
}

/**
 * The neutral transcript of AI SDK messages an agent holds in memory, and how
 * to write a view of it back. `M` is the type of the messages given: the
 * view comes back as an array of it (see `toMessages`). The pure value (an
 * `Either` on Effect 3, a `Result` on Effect 4), as `adapter.decodeResult`
 * answers; `adapter.decode` is the same decoding as an effect.
 *
 * @example
 * ```ts
 * import { AiSdkMessages } from "context-compressor/adapters"
 * import { Either } from "effect"
 *
 * const messages: Array<AiSdkMessages.ModelMessage> = [
 *   { role: "user", content: "list the files" },
 *   { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "bash", input: { command: "ls" } }] },
 *   { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "bash", output: { type: "text", value: "src" } }] }
 * ]
 * const decoded = Either.getOrThrow(AiSdkMessages.fromMessages(messages))
 * assert.deepStrictEqual(decoded.transcript.map((message) => message.id), ["m0", "m1", "m2"])
 * assert.deepStrictEqual(AiSdkMessages.toMessages(decoded, decoded.transcript), messages)
 * ```
 *
 * @since 0.1.0
 * @category decoding
 */
export const fromMessages = <M extends ModelMessage = ModelMessage>(
  messages: ReadonlyArray<M>
): Compat.Result<DecodedMessages<M>, Adapter.AdapterError> => decodeResult(messages)

/**
 * A view as AI SDK messages: the messages of the decoded document come back as
 * they were (regrouped, narrowed or re-encoded where the view changed them),
 * compacted blocks as user messages of one text part, in the message type the
 * messages were decoded from: every message it writes anew (a user message of
 * text parts, an assistant message of some of its parts, a tool result as
 * text) is valid both as an `ai` `ModelMessage` and as a
 * `LanguageModelV2Message`. For a `Decoded` of another format every message of
 * the view is written anew.
 *
 * @since 0.1.0
 * @category encoding
 */
export const toMessages: {
  <M>(decoded: DecodedMessages<M>, view: Transcript.Transcript): Array<M>
  (decoded: Adapter.Decoded, view: Transcript.Transcript): Array<ModelMessage>
} = (decoded: Adapter.Decoded, view: Transcript.Transcript): Array<never> =>
  Codec.toMessages(decoded, view) as Array<never>
