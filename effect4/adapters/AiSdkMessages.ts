/**
 * The Vercel AI SDK adapter: an array of v5 `ModelMessage`s, or an object
 * holding them in `messages` (a `generateText` call's options, say), to the
 * neutral transcript and back. AI SDK v4 tool parts (`args`, `result`) are
 * read too, and written back as they came. The shapes are described here; the
 * `ai` package is not a dependency.
 *
 * On Effect 4 (docs/effect4.md): the names of `context-compressor/adapters`'
 * module of the same name over the same codec of the shared core
 * (`src/internal/adapters/`), the neutral messages the Effect 4 face's
 * `Transcript` classes, `Result` where the Effect 3 face answers with an
 * `Either`.
 *
 * @since 0.1.0
 */
import type * as Result from "effect/Result"
import * as Codec from "../../src/internal/adapters/AiSdkMessages.js"
import type { ModelMessage } from "../../src/internal/adapters/AiSdkModels.js"
import * as Steps from "../../src/internal/Steps.js"
import type * as Transcript from "../src/Transcript.js"
import type * as Adapter from "./Adapter.js"
import * as Codecs from "./internal/Codecs.js"

/**
 * The AI SDK's `ModelMessage` and its parts (`ProviderOptions`, `JSONValue`,
 * `TextPart`, `ImagePart`, `FilePart`, `ReasoningPart`, `ToolCallPart`,
 * `ToolResultOutput`, `ToolResultPart`, `SystemModelMessage`,
 * `UserModelMessage`, `AssistantModelMessage`, `ToolModelMessage`,
 * `ModelMessage`): the shared core's types, as `context-compressor/adapters`
 * exports them.
 *
 * @since 0.1.0
 * @category models
 */
export type * from "../../src/internal/adapters/AiSdkModels.js"

const format = "ai-sdk" as const

const decodeSteps = (document: unknown): Steps.Steps<Result.Result<Adapter.Decoded, Adapter.AdapterError>> =>
  Codecs.decodeSteps(Codec.codec, document)

const decode = (document: unknown): Result.Result<Adapter.Decoded, Adapter.AdapterError> =>
  Steps.runSync(decodeSteps(document))

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
export const adapter: Adapter.Adapter = { format, detect: Codec.detect, decode, decodeSteps }

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
 * view comes back as an array of it (see `toMessages`).
 *
 * @example
 * ```ts
 * import { AiSdkMessages } from "context-compressor/effect4/adapters"
 * import { Result } from "effect"
 *
 * const messages: Array<AiSdkMessages.ModelMessage> = [
 *   { role: "user", content: "list the files" },
 *   { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "bash", input: { command: "ls" } }] },
 *   { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "bash", output: { type: "text", value: "src" } }] }
 * ]
 * const decoded = Result.getOrThrow(AiSdkMessages.fromMessages(messages))
 * assert.deepStrictEqual(decoded.transcript.map((message) => message.id), ["m0", "m1", "m2"])
 * assert.deepStrictEqual(AiSdkMessages.toMessages(decoded, decoded.transcript), messages)
 * ```
 *
 * @since 0.1.0
 * @category decoding
 */
export const fromMessages = <M extends ModelMessage = ModelMessage>(
  messages: ReadonlyArray<M>
): Result.Result<DecodedMessages<M>, Adapter.AdapterError> => decode(messages)

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
