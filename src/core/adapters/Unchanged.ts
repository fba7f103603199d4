/**
 * Whether a view's message is the one an adapter decoded, unchanged, so that
 * the adapter writes the original native message back as it came (its
 * provider fields and formatting kept) instead of re-encoding it. The OpenAI
 * chat and Anthropic messages adapters both decide it here.
 *
 * @since 0.1.0
 */
import type * as Transcript from "../transcript/TranscriptData.js"

/**
 * Whether two neutral messages say the same thing: the same kind, id and
 * content; for an assistant message the same calls (id, name, arguments) in
 * order; for a tool result the same answered call.
 *
 * @since 0.1.0
 * @category predicates
 */
export const unchanged = (a: Transcript.Message, b: Transcript.Message): boolean => {
  if (a === b) return true
  if (a._tag !== b._tag || a.id !== b.id || a.content !== b.content) return false
  if (a._tag === "Assistant" && b._tag === "Assistant") {
    return a.toolCalls.length === b.toolCalls.length &&
      a.toolCalls.every((call, k) => {
        const other = b.toolCalls[k]!
        return call.id === other.id && call.name === other.name && call.arguments === other.arguments
      })
  }
  if (a._tag === "ToolResult" && b._tag === "ToolResult") return a.toolCallId === b.toolCallId
  return true
}
