/**
 * The text a message contributes to the model's context, in the shared core
 * (docs/effect4.md): over structural message types that both faces' Schema
 * classes satisfy, so that counting, cache keys and recall handles read the
 * same text on Effect 3 and Effect 4. `Transcript.text` gives it.
 *
 * @since 0.1.0
 */

/**
 * A tool call as the core reads it.
 *
 * @since 0.1.0
 * @category models
 */
export interface CallShape {
  readonly name: string
  readonly arguments: string
}

/**
 * A message as the core reads it: its kind, its id, its content, and an
 * assistant's tool calls.
 *
 * @since 0.1.0
 * @category models
 */
export type MessageShape =
  | {
    readonly _tag: "Assistant"
    readonly id: string
    readonly content: string
    readonly toolCalls: ReadonlyArray<CallShape>
  }
  | { readonly _tag: "System" | "User" | "ToolResult" | "Compacted"; readonly id: string; readonly content: string }

/**
 * The text of a message: its content, and for an assistant its tool calls,
 * one `name(arguments)` line each.
 *
 * @since 0.1.0
 * @category getters
 */
export const text = (message: MessageShape): string => {
  switch (message._tag) {
    case "Assistant":
      return message.toolCalls.length === 0
        ? message.content
        : message.content + message.toolCalls.map((call) => `\n${call.name}(${call.arguments})`).join("")
    default:
      return message.content
  }
}
