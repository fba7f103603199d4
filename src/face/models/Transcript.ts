/**
 * The neutral transcript model the compaction engine works on: system, user
 * and assistant messages (with tool calls), tool results, and the compacted
 * block that stands for a summarised span in an outbound view. Adapters map
 * message formats (OpenAI chat, Anthropic, @effect/ai `Prompt`) onto it.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Schema from "effect/Schema"
import * as TranscriptData from "../../core/transcript/TranscriptData.js"

/**
 * A system message.
 *
 * @since 0.1.0
 * @category models
 */
export class SystemMessage extends Schema.TaggedClass<SystemMessage>()("System", {
  id: Schema.String,
  content: Schema.String
}) {}

/**
 * A message the user wrote.
 *
 * @since 0.1.0
 * @category models
 */
export class UserMessage extends Schema.TaggedClass<UserMessage>()("User", {
  id: Schema.String,
  content: Schema.String
}) {}

/**
 * A tool call made by the assistant; `arguments` is the raw JSON text the model produced.
 *
 * @since 0.1.0
 * @category models
 */
export class ToolCall extends Schema.Class<ToolCall>("ToolCall")({
  id: Schema.String,
  name: Schema.String,
  arguments: Schema.String
}) {}

/**
 * An assistant message, with the tool calls it made.
 *
 * @since 0.1.0
 * @category models
 */
export class AssistantMessage extends Schema.TaggedClass<AssistantMessage>()("Assistant", {
  id: Schema.String,
  content: Schema.String,
  toolCalls: Schema.Array(ToolCall)
}) {}

/**
 * The result of one tool call. `content` is what the tool returned, as text
 * (an agentic-workspace/v1 envelope is JSON text).
 *
 * @since 0.1.0
 * @category models
 */
export class ToolResult extends Schema.TaggedClass<ToolResult>()("ToolResult", {
  id: Schema.String,
  toolCallId: Schema.String,
  name: Compat.optionalKey(Schema.String),
  content: Schema.String
}) {}

/**
 * The compacted block that replaces the older span in an outbound view:
 * its text (summary, working state, the user's words, where the verbatim turns
 * are kept) and the ids of the first and last message it replaces.
 *
 * @since 0.1.0
 * @category models
 */
export class CompactedBlock extends Schema.TaggedClass<CompactedBlock>()("Compacted", {
  id: Schema.String,
  content: Schema.String,
  firstReplacedId: Schema.String,
  lastReplacedId: Schema.String
}) {}

/**
 * A message of a transcript or of an outbound view.
 *
 * @since 0.1.0
 * @category models
 */
export const Message = Compat.Union([SystemMessage, UserMessage, AssistantMessage, ToolResult, CompactedBlock])

/**
 * @since 0.1.0
 * @category models
 */
export type Message = typeof Message.Type

/**
 * A transcript: the messages of a session, oldest first.
 *
 * @since 0.1.0
 * @category models
 */
export const Transcript = Schema.Array(Message)

/**
 * @since 0.1.0
 * @category models
 */
export type Transcript = ReadonlyArray<Message>

/**
 * The text a message contributes to the model's context, for counting and
 * rendering: its content, and for an assistant its tool calls.
 *
 * @example
 * ```ts
 * import { Transcript } from "context-compressor"
 *
 * const call = new Transcript.ToolCall({ id: "c1", name: "bash", arguments: "{\"command\":\"ls\"}" })
 * const step = new Transcript.AssistantMessage({ id: "m1", content: "Listing.", toolCalls: [call] })
 * assert.strictEqual(Transcript.text(step), "Listing.\nbash({\"command\":\"ls\"})")
 * ```
 *
 * @since 0.1.0
 * @category getters
 */
export const text: (message: Message) => string = TranscriptData.text

/**
 * The first user message of a transcript: the session's mandate, pinned in every compacted block.
 *
 * @since 0.1.0
 * @category getters
 */
export const firstUserMessage = (transcript: Transcript): UserMessage | undefined =>
  TranscriptData.firstUserMessage(transcript)

const assistantMessage = Compat.makeUnchecked(AssistantMessage, "Assistant")

/**
 * The face's constructors of the transcript's values, which the engine gives
 * the shared core (`core/transcript/TranscriptData.ts`) to make the messages
 * a view adds (the block, a lost result's stand-in): each makes this module's
 * class instance from fields already valid.
 *
 * @since 0.1.0
 * @category constructors
 */
export const kit: TranscriptData.Kit = {
  systemMessage: Compat.makeUnchecked(SystemMessage, "System"),
  userMessage: Compat.makeUnchecked(UserMessage, "User"),
  assistantMessage: (fields) => assistantMessage(fields as AssistantMessage),
  toolCall: Compat.makeUnchecked(ToolCall, undefined),
  toolResult: Compat.makeUnchecked(ToolResult, "ToolResult"),
  compactedBlock: Compat.makeUnchecked(CompactedBlock, "Compacted")
}
