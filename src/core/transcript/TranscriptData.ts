/**
 * The transcript as the shared core reads it (docs/effect4.md): its messages as
 * structural types, which each face's Schema classes satisfy, the getters the
 * stages need, copies of a message of its own class, and the kit of
 * constructors through which a face has the core make its new messages
 * (`Transcript.kit`). No Effect import.
 *
 * @since 0.1.0
 */
import * as MessageText from "../services/MessageText.js"

/**
 * A system message.
 *
 * @since 0.1.0
 * @category models
 */
export interface SystemMessage {
  readonly _tag: "System"
  readonly id: string
  readonly content: string
}

/**
 * A message the user wrote.
 *
 * @since 0.1.0
 * @category models
 */
export interface UserMessage {
  readonly _tag: "User"
  readonly id: string
  readonly content: string
}

/**
 * A tool call made by the assistant; `arguments` is the raw JSON text the model produced.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolCall {
  readonly id: string
  readonly name: string
  readonly arguments: string
}

/**
 * An assistant message, with the tool calls it made.
 *
 * @since 0.1.0
 * @category models
 */
export interface AssistantMessage {
  readonly _tag: "Assistant"
  readonly id: string
  readonly content: string
  readonly toolCalls: ReadonlyArray<ToolCall>
}

/**
 * The result of one tool call, as text.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolResult {
  readonly _tag: "ToolResult"
  readonly id: string
  readonly toolCallId: string
  readonly name?: string
  readonly content: string
}

/**
 * The compacted block that replaces the older span in an outbound view.
 *
 * @since 0.1.0
 * @category models
 */
export interface CompactedBlock {
  readonly _tag: "Compacted"
  readonly id: string
  readonly content: string
  readonly firstReplacedId: string
  readonly lastReplacedId: string
}

/**
 * A message of a transcript or of an outbound view.
 *
 * @since 0.1.0
 * @category models
 */
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolResult | CompactedBlock

/**
 * A transcript: the messages of a session, oldest first.
 *
 * @since 0.1.0
 * @category models
 */
export type Transcript = ReadonlyArray<Message>

/** The fields of a value, its tag aside. */
type Fields<A> = Omit<A, "_tag">

/**
 * A face's constructors of the transcript's values: one per kind, each making
 * that face's class instance from fields already known to be valid (the core
 * copies or derives them from the face's own values), so the core's messages
 * encode and compare as the face's.
 *
 * @since 0.1.0
 * @category models
 */
export interface Kit {
  readonly systemMessage: (fields: Fields<SystemMessage>) => SystemMessage
  readonly userMessage: (fields: Fields<UserMessage>) => UserMessage
  readonly assistantMessage: (fields: Fields<AssistantMessage>) => AssistantMessage
  readonly toolCall: (fields: ToolCall) => ToolCall
  readonly toolResult: (fields: Fields<ToolResult>) => ToolResult
  readonly compactedBlock: (fields: Fields<CompactedBlock>) => CompactedBlock
}

/**
 * The kit of plain data: messages as plain objects with their `_tag`, for
 * values no face made (messages written as data).
 *
 * @since 0.1.0
 * @category constructors
 */
export const dataKit: Kit = {
  systemMessage: (fields) => ({ ...fields, _tag: "System" }),
  userMessage: (fields) => ({ ...fields, _tag: "User" }),
  assistantMessage: (fields) => ({ ...fields, _tag: "Assistant" }),
  toolCall: (fields) => ({ ...fields }),
  toolResult: (fields) => ({ ...fields, _tag: "ToolResult" }),
  compactedBlock: (fields) => ({ ...fields, _tag: "Compacted" })
}

/**
 * A copy of a value of its own class, with some fields changed: its own
 * fields (string keys only, so no cached hash comes along) on an object of
 * the same prototype. The class's constructor is not run: the fields are
 * the value's own or derived from them, already valid. A plain object's copy
 * is plain.
 */
const copyOf = <A extends object>(value: A, fields: Partial<A>): A => {
  const copy = Object.create(Object.getPrototypeOf(value)) as Record<string, unknown>
  for (const key of Object.keys(value)) copy[key] = (value as Record<string, unknown>)[key]
  return Object.assign(copy, fields) as A
}

/**
 * A copy of a message with some fields changed, of the same class (and kind)
 * as the message: how the core makes a view's messages from a transcript's.
 *
 * @since 0.1.0
 * @category constructors
 */
export const withFields = <M extends Message>(message: M, fields: Partial<Fields<M>>): M =>
  copyOf<M>(message, fields as Partial<M>)

/**
 * A copy of a tool call with some fields changed, of the same class as the call.
 *
 * @since 0.1.0
 * @category constructors
 */
export const callWithFields = (call: ToolCall, fields: Partial<ToolCall>): ToolCall => copyOf(call, fields)

/**
 * The text a message contributes to the model's context, for counting and
 * rendering: its content, and for an assistant its tool calls.
 *
 * @since 0.1.0
 * @category getters
 */
export const text: (message: Message) => string = MessageText.text

/**
 * The first user message of a transcript: the session's mandate, pinned in every compacted block.
 *
 * @since 0.1.0
 * @category getters
 */
export const firstUserMessage = <M extends Message>(
  transcript: ReadonlyArray<M>
): Extract<M, UserMessage> | undefined =>
  transcript.find((message): message is Extract<M, UserMessage> => message._tag === "User")
