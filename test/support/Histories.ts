/**
 * The generated sessions of `test/transcripts.ts` as an agent outside Effect
 * holds them: OpenAI chat messages and AI SDK v5 `ModelMessage`s, with tool
 * calls and their results.
 */
import type { ModelMessage } from "ai"
import * as Transcript from "../../src/face/models/Transcript.js"

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
            tool_calls: message.toolCalls.map((call) => ({
              id: call.id,
              type: "function",
              function: { name: call.name, arguments: call.arguments }
            }))
          }
      case "ToolResult":
        return { role: "tool", tool_call_id: message.toolCallId, content: message.content }
    }
  })

const jsonOrText = (
  text: string
): { readonly type: "json"; readonly value: never } | { readonly type: "text"; readonly value: string } => {
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
            ...message.toolCalls.map((call) => ({
              type: "tool-call" as const,
              toolCallId: call.id,
              toolName: call.name,
              input: JSON.parse(call.arguments) as unknown
            }))
          ]
        })
        break
      case "ToolResult": {
        const part = {
          type: "tool-result" as const,
          toolCallId: message.toolCallId,
          toolName: message.name ?? "tool",
          output: jsonOrText(message.content)
        }
        const last = messages[messages.length - 1]
        if (last?.role === "tool") last.content.push(part)
        else messages.push({ role: "tool", content: [part] })
        break
      }
    }
  }
  return messages
}

const codeLines = (chars: number): string => {
  const out: Array<string> = []
  let used = 0
  for (let i = 0; used < chars; i++) {
    const line = `+ const value${(i * 7919) % 1000} = compute(${i % 97}) // line ${i}`
    out.push(line)
    used += line.length + 1
  }
  return out.join("\n").slice(0, chars)
}

/** A short session of a few turns, each a command and its output. */
const shortSession = (turns: number): Array<Transcript.Message> => {
  const messages: Array<Transcript.Message> = [
    new Transcript.SystemMessage({ id: "s", content: "You are a coding agent working in a repository." }),
    new Transcript.UserMessage({
      id: "u0",
      content: "Migrate the importer to the new parser and keep job ids in the notes."
    })
  ]
  for (let i = 0; i < turns; i++) {
    messages.push(
      new Transcript.AssistantMessage({
        id: `a${i}`,
        content: "",
        toolCalls: [
          new Transcript.ToolCall({
            id: `call_${i}`,
            name: "bash",
            arguments: JSON.stringify({ command: `pytest tests/test_step${i}.py` })
          })
        ]
      })
    )
    messages.push(
      new Transcript.ToolResult({
        id: `r${i}`,
        toolCallId: `call_${i}`,
        name: "bash",
        content: `job_${1000 + i}x exit code 0\n` + "collected 12 items, all passed\n".repeat(10)
      })
    )
    messages.push(new Transcript.AssistantMessage({ id: `d${i}`, content: `Step ${i} passes.`, toolCalls: [] }))
  }
  return messages
}

/**
 * A short session whose newest tool result is a 400,000-character diff: in a
 * 32,000-token window its view fits only with that result clipped, and there
 * is nothing older worth compacting, so the checkpoint does not compact.
 */
export const hugeNewestResult: Transcript.Transcript = [
  ...shortSession(2),
  new Transcript.UserMessage({ id: "ask", content: "Show me the whole diff." }),
  new Transcript.AssistantMessage({
    id: "call",
    content: "Here.",
    toolCalls: [
      new Transcript.ToolCall({ id: "call_diff", name: "bash", arguments: JSON.stringify({ command: "git diff" }) })
    ]
  }),
  new Transcript.ToolResult({ id: "diff", toolCallId: "call_diff", name: "bash", content: codeLines(400_000) })
]

/** The window {@link hugeNewestResult} is checkpointed in. */
export const hugeNewestResultWindow = 32_000

/** A short session one of whose tool calls (`call_1`) never got its result: the view answers it with a synthetic one. */
export const lostResult: Transcript.Transcript = shortSession(3).filter((message) =>
  !(message._tag === "ToolResult" && message.toolCallId === "call_1")
)

/**
 * An OpenAI chat session as Messages API messages: tool calls as tool_use
 * blocks, results as tool_result blocks, consecutive messages of one role
 * merged so that roles alternate; the system messages joined apart.
 */
export const toAnthropicMessages = (
  session: ReadonlyArray<any>
): { readonly system: string; readonly messages: Array<{ role: "user" | "assistant"; content: Array<any> }> } => {
  const system = session.filter((message) => message.role === "system").map((message) => message.content).join("\n")
  const messages: Array<{ role: "user" | "assistant"; content: Array<any> }> = []
  const push = (role: "user" | "assistant", blocks: Array<any>) => {
    const last = messages[messages.length - 1]
    if (last !== undefined && last.role === role) last.content.push(...blocks)
    else messages.push({ role, content: blocks })
  }
  for (const message of session) {
    if (message.role === "user") push("user", [{ type: "text", text: message.content }])
    if (message.role === "tool") {
      push("user", [{ type: "tool_result", tool_use_id: message.tool_call_id, content: message.content }])
    }
    if (message.role === "assistant") {
      const blocks: Array<any> = typeof message.content === "string" && message.content !== ""
        ? [{ type: "text", text: message.content }]
        : []
      for (const call of message.tool_calls ?? []) {
        blocks.push({
          type: "tool_use",
          id: call.id,
          name: call.function.name,
          input: JSON.parse(call.function.arguments)
        })
      }
      push("assistant", blocks)
    }
  }
  return { system, messages }
}

/**
 * OpenAI chat messages as a Responses `input`: a system message as one of role `system`, user text as
 * `input_text`, an assistant message as a reasoning item (its encrypted content, when it calls tools), its text as
 * an `output_text` message and each call as a `function_call` item, a tool message as a `function_call_output`.
 */
export const toResponsesInput = (messages: ReadonlyArray<any>): Array<Record<string, unknown>> =>
  messages.flatMap((message, index): Array<Record<string, unknown>> => {
    const text = typeof message.content === "string" ? message.content : ""
    switch (message.role) {
      case "system":
      case "developer":
        return [{ role: message.role, content: text }]
      case "user":
        return [{ role: "user", content: [{ type: "input_text", text }] }]
      case "tool":
        return [{ type: "function_call_output", call_id: message.tool_call_id, output: text }]
      default: {
        const calls: ReadonlyArray<any> = message.tool_calls ?? []
        return [
          ...(calls.length === 0 ? [] : [{
            type: "reasoning",
            id: `rs_${index}`,
            summary: [],
            encrypted_content: `gAAAAB${Buffer.from(`reasoning of ${index} \u00e9\n`).toString("base64")}==`
          }]),
          ...(text === "" ? [] : [{
            type: "message",
            id: `msg_${index}`,
            role: "assistant",
            status: "completed",
            content: [{ type: "output_text", text, annotations: [] }]
          }]),
          ...calls.map((call) => ({
            type: "function_call",
            id: `fc_${call.id}`,
            call_id: call.id,
            name: call.function.name,
            arguments: call.function.arguments
          }))
        ]
      }
    }
  })
