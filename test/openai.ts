/**
 * A small loader of OpenAI chat-completion transcripts ({role, content,
 * tool_calls}, {role: "tool", tool_call_id, content}) into the neutral model,
 * for the example tests on the recorded transcripts in /work/shared/transcripts.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as Transcript from "../src/Transcript.js"

/**
 * Where the recorded transcripts live: the steering repository's shared/ folder, beside the checkout,
 * or the folder `CONTEXT_COMPRESSOR_TRANSCRIPTS` names (a checkout elsewhere, such as a git worktree).
 */
export const transcriptsDirectory = process.env["CONTEXT_COMPRESSOR_TRANSCRIPTS"] ?? fileURLToPath(new URL("../../shared/transcripts", import.meta.url))

/** Whether the recorded transcripts are available on this machine. */
export const hasTranscripts = (): boolean => {
  try {
    return Fs.readdirSync(transcriptsDirectory).some((name) => name.endsWith(".json"))
  } catch {
    return false
  }
}

const textOf = (content: unknown): string => {
  if (typeof content === "string") return content
  if (Array.isArray(content)) {
    return content
      .map((part) => (typeof part === "object" && part !== null && typeof (part as { text?: unknown }).text === "string" ? (part as { text: string }).text : ""))
      .join("")
  }
  return ""
}

const record = (value: unknown): Record<string, unknown> => (typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {})

/** Maps OpenAI chat messages onto the neutral model; message ids are `m<index>`. */
export const fromOpenAI = (messages: ReadonlyArray<unknown>): Transcript.Transcript => {
  const callNames = new Map<string, string>()
  return messages.map((raw, index): Transcript.Message => {
    const message = record(raw)
    const id = `m${index}`
    const content = textOf(message["content"])
    switch (message["role"]) {
      case "system":
      case "developer":
        return new Transcript.SystemMessage({ id, content })
      case "user":
        return new Transcript.UserMessage({ id, content })
      case "tool": {
        const toolCallId = String(message["tool_call_id"] ?? "")
        const name = callNames.get(toolCallId)
        return new Transcript.ToolResult({ id, toolCallId, content, ...(name === undefined ? {} : { name }) })
      }
      default: {
        const calls = Array.isArray(message["tool_calls"]) ? message["tool_calls"] : []
        const toolCalls = calls.map((rawCall, callIndex) => {
          const call = record(rawCall)
          const fn = record(call["function"])
          const callId = String(call["id"] ?? `${id}-call-${callIndex}`)
          const name = String(fn["name"] ?? "unknown")
          callNames.set(callId, name)
          const args = fn["arguments"]
          return new Transcript.ToolCall({ id: callId, name, arguments: typeof args === "string" ? args : JSON.stringify(args ?? {}) })
        })
        return new Transcript.AssistantMessage({ id, content, toolCalls })
      }
    }
  })
}

/** Every recorded transcript, by file name, mapped to the neutral model. */
export const loadTranscripts = (): ReadonlyArray<{ readonly name: string; readonly transcript: Transcript.Transcript }> =>
  Fs.readdirSync(transcriptsDirectory)
    .filter((name) => name.endsWith(".json"))
    .sort()
    .map((name) => ({
      name,
      transcript: fromOpenAI(JSON.parse(Fs.readFileSync(Path.join(transcriptsDirectory, name), "utf8")) as ReadonlyArray<unknown>)
    }))
