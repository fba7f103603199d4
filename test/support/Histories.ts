/**
 * The generated sessions of `test/transcripts.ts` as an agent outside Effect
 * holds them: OpenAI chat messages and AI SDK v5 `ModelMessage`s, with tool
 * calls and their results.
 */
import type { ModelMessage } from "ai"
import type * as Transcript from "../../src/Transcript.js"

/** A neutral transcript as OpenAI chat-completions messages. */
export const toOpenAiChat = (transcript: Transcript.Transcript): Array<Record<string, unknown>> =>
  transcript.map((message) => {
    switch (message._tag) {
      case "System":
        return { role: "system", content: message.content }
      case "User":
      case "Compacted":
        return { role: "user", content: message.content }
      case "Assistant":
        return message.toolCalls.length === 0
          ? { role: "assistant", content: message.content }
          : {
            role: "assistant",
            content: message.content,
            tool_calls: message.toolCalls.map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } }))
          }
      case "ToolResult":
        return { role: "tool", tool_call_id: message.toolCallId, content: message.content }
    }
  })

const jsonOrText = (text: string): { readonly type: "json"; readonly value: never } | { readonly type: "text"; readonly value: string } => {
  try {
    return { type: "json", value: JSON.parse(text) as never }
  } catch {
    return { type: "text", value: text }
  }
}

/** A neutral transcript as AI SDK v5 messages: consecutive tool results in one tool message. */
export const toModelMessages = (transcript: Transcript.Transcript): Array<ModelMessage> => {
  const messages: Array<ModelMessage> = []
  for (const message of transcript) {
    switch (message._tag) {
      case "System":
        messages.push({ role: "system", content: message.content })
        break
      case "User":
      case "Compacted":
        messages.push({ role: "user", content: [{ type: "text", text: message.content }] })
        break
      case "Assistant":
        messages.push({
          role: "assistant",
          content: [
            { type: "text", text: message.content },
            ...message.toolCalls.map((call) => ({ type: "tool-call" as const, toolCallId: call.id, toolName: call.name, input: JSON.parse(call.arguments) as unknown }))
          ]
        })
        break
      case "ToolResult": {
        const part = { type: "tool-result" as const, toolCallId: message.toolCallId, toolName: message.name ?? "tool", output: jsonOrText(message.content) }
        const last = messages[messages.length - 1]
        if (last?.role === "tool") last.content.push(part)
        else messages.push({ role: "tool", content: [part] })
        break
      }
    }
  }
  return messages
}
