/**
 * The transcript as the shared core reads it (docs/effect4.md): its messages as
 * structural types, which each face's Schema classes satisfy, the getters the
 * stages need, and the face's constructor kit through which the core makes new
 * messages of the same face as the ones it was given. No Effect import.
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
 * Where a face's classes carry their kit: a property of their prototypes, set
 * once by the face ({@link carryKit}), so a value tells the core which face
 * made it.
 *
 * @since 0.1.0
 * @category symbols
 */
export const KitTypeId: unique symbol = Symbol.for("context-compressor/Transcript/Kit")

/**
 * Gives a face's classes their kit: each prototype carries it (not enumerable,
 * outside the fields, so encoding and equality do not see it).
 *
 * @since 0.1.0
 * @category constructors
 */
export const carryKit = (kit: Kit, classes: ReadonlyArray<{ readonly prototype: object }>): Kit => {
  for (const { prototype } of classes) Object.defineProperty(prototype, KitTypeId, { value: kit })
  return kit
}

/**
 * The kit of the face that made a value: the one its class carries, else the
 * kit of plain data.
 *
 * @since 0.1.0
 * @category getters
 */
export const kitOf = (value: Message | ToolCall | undefined): Kit =>
  (value as { readonly [KitTypeId]?: Kit } | undefined)?.[KitTypeId] ?? dataKit

/**
 * A copy of a message with some fields changed, of the same face (and kind)
 * as the message: how the core makes a view's messages from a transcript's.
 *
 * @since 0.1.0
 * @category constructors
 */
export const withFields = <M extends Message>(message: M, fields: Partial<Fields<M>>): M => {
  const kit = kitOf(message)
  const all = { ...message, ...fields } as never
  switch (message._tag) {
    case "System":
      return kit.systemMessage(all) as M
    case "User":
      return kit.userMessage(all) as M
    case "Assistant":
      return kit.assistantMessage(all) as M
    case "ToolResult":
      return kit.toolResult(all) as M
    case "Compacted":
      return kit.compactedBlock(all) as M
  }
}

/**
 * A copy of a tool call with some fields changed, of the same face as the call.
 *
 * @since 0.1.0
 * @category constructors
 */
export const callWithFields = (call: ToolCall, fields: Partial<ToolCall>): ToolCall =>
  kitOf(call).toolCall({ ...call, ...fields })

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
