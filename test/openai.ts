/**
 * A small loader of OpenAI chat-completion transcripts ({role, content,
 * tool_calls}, {role: "tool", tool_call_id, content}) into the neutral model,
 * for the example tests on the recorded transcripts of shared/transcripts/ beside the checkout.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as Transcript from "../src/face/models/Transcript.js"

/**
 * Where the recorded transcripts live: the steering repository's shared/ folder, beside the checkout,
 * or the folder `CONTEXT_COMPRESSOR_TRANSCRIPTS` names (a checkout elsewhere, such as a git worktree).
 */
export const transcriptsDirectory = process.env["CONTEXT_COMPRESSOR_TRANSCRIPTS"] ??
  fileURLToPath(new URL("../../shared/transcripts", import.meta.url))

/** Whether the recorded transcripts are available on this machine. */
export const hasTranscripts = (): boolean => {
  try {
    return Fs.readdirSync(transcriptsDirectory).some((name) => name.endsWith(".json"))
  } catch {
    return false
  }
}

/**
 * Where the example envelopes of every tool shape live: the steering repository's shared/fixtures/, beside the
 * checkout, or the folder `CONTEXT_COMPRESSOR_FIXTURES` names. The tests that read them skip without them, so
 * `npm test` passes in a checkout that has no shared/ beside it.
 */
export const sharedFixturesDirectory = process.env["CONTEXT_COMPRESSOR_FIXTURES"] ??
  fileURLToPath(new URL("../../shared/fixtures", import.meta.url))

/** Whether the shared example envelopes are available on this machine. */
export const hasSharedFixtures = (): boolean => Fs.existsSync(Path.join(sharedFixturesDirectory, "plan-propose.json"))

/** The text of one shared example envelope. */
export const sharedFixture = (name: string): string => Fs.readFileSync(Path.join(sharedFixturesDirectory, name), "utf8")

const textOf = (content: unknown): string => {
  if (typeof content === "string") return content
  if (Array.isArray(content)) {
    return content
      .map((
        part
      ) => (typeof part === "object" && part !== null && typeof (part as { text?: unknown }).text === "string"
        ? (part as { text: string }).text
        : "")
      )
      .join("")
  }
  return ""
}

const record = (
  value: unknown
): Record<string, unknown> => (typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {})

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
          return new Transcript.ToolCall({
            id: callId,
            name,
            arguments: typeof args === "string" ? args : JSON.stringify(args ?? {})
          })
        })
        return new Transcript.AssistantMessage({ id, content, toolCalls })
      }
    }
  })
}

/** Every recorded transcript, by file name, mapped to the neutral model. */
export const loadTranscripts = (): ReadonlyArray<
  { readonly name: string; readonly transcript: Transcript.Transcript }
> =>
  Fs.readdirSync(transcriptsDirectory)
    .filter((name) => name.endsWith(".json"))
    .sort()
    .map((name) => ({
      name,
      transcript: fromOpenAI(
        JSON.parse(Fs.readFileSync(Path.join(transcriptsDirectory, name), "utf8")) as ReadonlyArray<unknown>
      )
    }))

type Json = Record<string, unknown>

/** A recorded chat completions transcript as a Messages API request: the system prompt in `system`, calls as tool_use, consecutive results as tool_result blocks of one user message. */
export const toAnthropic = (
  messages: ReadonlyArray<Json>
): { model: string; system: string; messages: Array<Json> } => {
  const out: Array<Json> = []
  for (const message of messages) {
    switch (message["role"]) {
      case "system":
        break
      case "user":
        out.push({ role: "user", content: message["content"] })
        break
      case "assistant": {
        const calls = (message["tool_calls"] ?? []) as ReadonlyArray<
          { id: string; function: { name: string; arguments: string } }
        >
        const content = (message["content"] ?? "") as string
        out.push({
          role: "assistant",
          content: [
            ...(content === "" ? [] : [{ type: "text", text: content }]),
            ...calls.map((c) => ({
              type: "tool_use",
              id: c.id,
              name: c.function.name,
              input: JSON.parse(c.function.arguments)
            }))
          ]
        })
        break
      }
      case "tool": {
        const result = { type: "tool_result", tool_use_id: message["tool_call_id"], content: message["content"] }
        const last = out.at(-1)
        if (last?.["role"] === "user" && Array.isArray(last["content"])) (last["content"] as Array<Json>).push(result)
        else out.push({ role: "user", content: [result] })
      }
    }
  }
  return {
    model: "claude-sonnet-4-5",
    system: messages.filter((m) => m["role"] === "system").map((m) => m["content"]).join("\n\n"),
    messages: out
  }
}

/**
 * What a provider would refuse in a chat completions or Messages document, pairing by position as
 * providers do: a call's results are the tool messages (tool_result blocks) right after it; each call
 * answered once before anything else is said, but the last message's calls (in flight).
 */
export const pairingProblems = (document: unknown): ReadonlyArray<string> => {
  const messages =
    (Array.isArray(document) ? document : (document as { messages: ReadonlyArray<Json> }).messages) as ReadonlyArray<
      Json
    >
  const problems: Array<string> = []
  let open: Array<string> = []
  messages.forEach((message, index) => {
    const content = message["content"]
    const blocks = Array.isArray(content) ? (content as ReadonlyArray<Json>) : []
    const results = message["role"] === "tool"
      ? [String(message["tool_call_id"])]
      : blocks.filter((b) => b["type"] === "tool_result").map((b) => String(b["tool_use_id"]))
    for (const id of results) {
      const at = open.indexOf(id)
      if (at === -1) {
        problems.push(`message ${index} answers ${id}, which the calls before it do not make or were answered`)
      } else open.splice(at, 1)
    }
    const saysMore = message["role"] !== "tool" &&
      (results.length === 0 || blocks.some((b) => b["type"] !== "tool_result"))
    if (saysMore && open.length > 0) problems.push(`message ${index} comes before the results of ${open.join(", ")}`)
    if (saysMore || message["role"] === "assistant") open = []
    if (message["role"] === "assistant") {
      const calls = Array.isArray(message["tool_calls"])
        ? (message["tool_calls"] as ReadonlyArray<Json>).map((c) => String(c["id"]))
        : blocks.filter((b) => b["type"] === "tool_use").map((b) => String(b["id"]))
      open = [...calls]
    }
  })
  return problems
}
