/**
 * The neutral transcript model on Effect 4: the messages of a session as
 * Effect 4 Schema classes with the names, fields and tags of the Effect 3
 * face's `Transcript`, and the text each contributes (the shared core's).
 * Each class carries this face's {@link kit}, so the shared core's stages copy
 * and make messages of these classes.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as MessageText from "../../src/internal/services/MessageText.js"
import * as TranscriptData from "../../src/internal/transcript/TranscriptData.js"

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
 * A user message.
 *
 * @since 0.1.0
 * @category models
 */
export class UserMessage extends Schema.TaggedClass<UserMessage>()("User", {
  id: Schema.String,
  content: Schema.String
}) {}

/**
 * A tool call of an assistant message; `arguments` is the JSON text as sent.
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
 * The result of a tool call.
 *
 * @since 0.1.0
 * @category models
 */
export class ToolResult extends Schema.TaggedClass<ToolResult>()("ToolResult", {
  id: Schema.String,
  toolCallId: Schema.String,
  name: Schema.optionalKey(Schema.String),
  content: Schema.String
}) {}

/**
 * The compacted block that stands for the span it replaced.
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
 * Any message of a transcript.
 *
 * @since 0.1.0
 * @category models
 */
export const Message = Schema.Union([SystemMessage, UserMessage, AssistantMessage, ToolResult, CompactedBlock])

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
 * The text a message contributes to the model's context: its content, and for an assistant its tool calls.
 *
 * @since 0.1.0
 * @category getters
 */
export const text: (message: Message) => string = MessageText.text

/**
 * The first user message of a transcript: the session's mandate.
 *
 * @since 0.1.0
 * @category getters
 */
export const firstUserMessage = (transcript: Transcript): UserMessage | undefined =>
  transcript.find((message): message is UserMessage => message._tag === "User")

/**
 * This face's constructors of the transcript's values, for the shared core
 * (`internal/transcript/TranscriptData.ts`): each makes this module's class
 * instance from fields already valid (their checks skipped). Every class here
 * carries it, so a copy the core makes of a message is of the message's own class.
 *
 * @since 0.1.0
 * @category constructors
 */
export const kit: TranscriptData.Kit = TranscriptData.carryKit({
  systemMessage: (fields) => new SystemMessage(fields, { disableChecks: true }),
  userMessage: (fields) => new UserMessage(fields, { disableChecks: true }),
  assistantMessage: (fields) => new AssistantMessage(fields as AssistantMessage, { disableChecks: true }),
  toolCall: (fields) => new ToolCall(fields, { disableChecks: true }),
  toolResult: (fields) => new ToolResult(fields, { disableChecks: true }),
  compactedBlock: (fields) => new CompactedBlock(fields, { disableChecks: true })
}, [SystemMessage, UserMessage, AssistantMessage, ToolCall, ToolResult, CompactedBlock])
