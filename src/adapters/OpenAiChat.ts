/**
 * The adapter of OpenAI chat completions messages: an array of messages
 * (`system`, `developer`, `user`, `assistant` with `tool_calls`, `tool` with
 * `tool_call_id`), or a request body with a `messages` array, to the neutral
 * transcript and back. Message `i` of the document is the neutral message
 * `m<i>`, so the ids stay stable as an append-only transcript grows; a view
 * is written back with every unchanged message exactly as it came in.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Adapter from "./Adapter.js"
import * as Transcript from "../Transcript.js"

/**
 * A chat completions message as it was parsed, every field kept as it came.
 *
 * @since 0.1.0
 * @category models
 */
export type NativeMessage = { readonly [key: string]: unknown }

const format: Adapter.Format = "openai"

type Record_ = { readonly [key: string]: unknown }

const isRecord = (value: unknown): value is Record_ => typeof value === "object" && value !== null && !Array.isArray(value)

/** A value named in an error: a string quoted, anything else by its kind. */
const describe = (value: unknown): string => (typeof value === "string" ? JSON.stringify(value) : value === null ? "null" : typeof value)

const fail = (reason: string, index?: number): Adapter.AdapterError =>
  new Adapter.AdapterError({ format, reason, ...(index === undefined ? {} : { index }) })

/** The messages of a document, and the request body around them when there is one. */
interface Located {
  readonly messages: ReadonlyArray<unknown>
  readonly body: Record_ | undefined
}

const locate = (document: unknown): Located | undefined => {
  if (Array.isArray(document)) return { messages: document, body: undefined }
  if (isRecord(document) && Array.isArray(document["messages"])) return { messages: document["messages"], body: document }
  return undefined
}

const roles = new Set(["system", "developer", "user", "assistant", "tool", "function"])

/** The content part types of chat completions; other formats' parts (`tool-call`, `tool_use`, `image` …) are not among them. */
const partTypes = new Set(["text", "image_url", "input_audio", "file", "refusal"])

/** The text a content part contributes; media stand as a bracketed placeholder, so a summary knows they were there. */
const partText = (part: Record_): string | undefined => {
  switch (part["type"]) {
    case "text":
      return typeof part["text"] === "string" ? part["text"] : undefined
    case "refusal":
      return typeof part["refusal"] === "string" ? part["refusal"] : undefined
    case "image_url":
      return "[image]"
    case "input_audio":
      return "[audio]"
    case "file": {
      const file = part["file"]
      const name = isRecord(file) && typeof file["filename"] === "string" ? file["filename"] : undefined
      return name === undefined ? "[file]" : `[file: ${name}]`
    }
    default:
      return typeof part["type"] === "string" ? `[${part["type"]}]` : undefined
  }
}

/** The neutral text of a message's content: a string, nothing, or content parts (their texts one a line). */
const contentText = (content: unknown, index: number): Either.Either<string, Adapter.AdapterError> => {
  if (typeof content === "string") return Either.right(content)
  if (content === null || content === undefined) return Either.right("")
  if (!Array.isArray(content)) return Either.left(fail(`the content of message ${index} is neither text, null nor an array of content parts`, index))
  const texts: Array<string> = []
  for (let k = 0; k < content.length; k++) {
    const part: unknown = content[k]
    const text = isRecord(part) ? partText(part) : undefined
    if (text === undefined) {
      return Either.left(fail(`content part ${k} of message ${index} is not a content part with a type (and its text, for a text or refusal part)`, index))
    }
    texts.push(text)
  }
  return Either.right(texts.join("\n"))
}

/** A tool call of an assistant message: a function call, or a custom tool call (whose input is free text). */
const decodeCall = (raw: unknown, k: number, index: number): Either.Either<Transcript.ToolCall, Adapter.AdapterError> => {
  if (!isRecord(raw) || typeof raw["id"] !== "string") return Either.left(fail(`tool call ${k} of message ${index} is not an object with a string id`, index))
  const id = raw["id"]
  const custom = raw["custom"]
  if (raw["type"] === "custom" && isRecord(custom) && typeof custom["name"] === "string") {
    return Either.right(new Transcript.ToolCall({ id, name: custom["name"], arguments: typeof custom["input"] === "string" ? custom["input"] : "" }))
  }
  const fn = raw["function"]
  if (!isRecord(fn) || typeof fn["name"] !== "string") return Either.left(fail(`tool call ${id} of message ${index} has no function with a name`, index))
  const args = fn["arguments"]
  if (typeof args !== "string") return Either.left(fail(`tool call ${id} of message ${index} has arguments that are not a JSON string`, index))
  return Either.right(new Transcript.ToolCall({ id, name: fn["name"], arguments: args }))
}

const decodeMessage = (raw: unknown, index: number, callNames: Map<string, string>): Either.Either<Transcript.Message, Adapter.AdapterError> =>
  Either.gen(function*() {
    if (!isRecord(raw)) return yield* Either.left(fail(`message ${index} is not an object`, index))
    const id = `m${index}`
    const role = raw["role"]
    const content = yield* contentText(raw["content"], index)
    switch (role) {
      case "system":
      case "developer":
        return new Transcript.SystemMessage({ id, content })
      case "user":
        return new Transcript.UserMessage({ id, content })
      case "assistant": {
        const rawCalls = raw["tool_calls"]
        if (rawCalls !== undefined && rawCalls !== null && !Array.isArray(rawCalls)) {
          return yield* Either.left(fail(`the tool_calls of message ${index} are not an array`, index))
        }
        const toolCalls: Array<Transcript.ToolCall> = []
        for (const [k, rawCall] of (rawCalls ?? []).entries()) {
          const call = yield* decodeCall(rawCall, k, index)
          callNames.set(call.id, call.name)
          toolCalls.push(call)
        }
        return new Transcript.AssistantMessage({ id, content, toolCalls })
      }
      case "tool": {
        const toolCallId = raw["tool_call_id"]
        if (typeof toolCallId !== "string") return yield* Either.left(fail(`tool message ${index} has no string tool_call_id`, index))
        // A result whose call no earlier message makes is refused, as the API refuses it.
        const name = callNames.get(toolCallId)
        if (name === undefined) {
          return yield* Either.left(fail(`tool message ${index} answers the call ${toolCallId}, which no earlier assistant message makes`, index))
        }
        return new Transcript.ToolResult({ id, toolCallId, name, content })
      }
      case "function":
        return yield* Either.left(fail(`message ${index} has the legacy role "function", whose results name no call: use tool_calls and role "tool"`, index))
      default:
        return yield* Either.left(fail(`message ${index} has the role ${describe(role)}, not one of system, developer, user, assistant, tool`, index))
    }
  })

/** Whether two neutral messages say the same thing: same kind, id, content, calls and answered call. */
const sameMessage = (a: Transcript.Message, b: Transcript.Message): boolean => {
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

const freshCall = (call: Transcript.ToolCall): NativeMessage => ({
  id: call.id,
  type: "function",
  function: { name: call.name, arguments: call.arguments }
})

/** A message the document did not hold, written in the format. */
const fresh = (message: Exclude<Transcript.Message, Transcript.CompactedBlock>): NativeMessage => {
  switch (message._tag) {
    case "System":
      return { role: "system", content: message.content }
    case "User":
      return { role: "user", content: message.content }
    case "Assistant":
      return message.toolCalls.length === 0
        ? { role: "assistant", content: message.content }
        : { role: "assistant", content: message.content === "" ? null : message.content, tool_calls: message.toolCalls.map(freshCall) }
    case "ToolResult":
      return { role: "tool", tool_call_id: message.toolCallId, content: message.content }
  }
}

/**
 * A message of the document changed in the view (an assistant message
 * narrowed to some of its calls, say): the original with what changed
 * written over it, unchanged calls kept as they came.
 */
const patched = (native: NativeMessage, original: Transcript.Message, message: Transcript.Message): NativeMessage => {
  const result: { [key: string]: unknown } = { ...native }
  if (message.content !== original.content) result["content"] = message.content
  if (message._tag === "Assistant" && original._tag === "Assistant") {
    const rawCalls = Array.isArray(native["tool_calls"]) ? (native["tool_calls"] as ReadonlyArray<unknown>) : []
    const calls = message.toolCalls.map((call) => {
      const k = original.toolCalls.findIndex((known) => known.id === call.id)
      const known = original.toolCalls[k]
      return known !== undefined && known.name === call.name && known.arguments === call.arguments ? rawCalls[k] : freshCall(call)
    })
    if (calls.length > 0) {
      result["tool_calls"] = calls
    } else {
      delete result["tool_calls"]
      if (result["content"] === null || result["content"] === undefined) result["content"] = ""
    }
  }
  if (message._tag === "ToolResult" && original._tag === "ToolResult" && message.toolCallId !== original.toolCallId) {
    result["tool_call_id"] = message.toolCallId
  }
  return result
}

/**
 * The document of a view: every message of the view that is a message of the
 * transcript, unchanged, as the original native message; a changed one as the
 * original with the change written over it; a compacted block as a user
 * message; the request body's other fields kept.
 */
const encodeView = (
  located: Located,
  transcript: ReadonlyArray<Transcript.Message>,
  view: Transcript.Transcript
): unknown => {
  const byId = new Map(transcript.map((message, index) => [message.id, index]))
  const messages = view.map((message): unknown => {
    if (message._tag === "Compacted") return { role: "user", content: message.content }
    const index = byId.get(message.id)
    const original = index === undefined ? undefined : transcript[index]
    if (index === undefined || original === undefined || original._tag !== message._tag) return fresh(message)
    const native = located.messages[index] as NativeMessage
    return sameMessage(original, message) ? native : patched(native, original, message)
  })
  return located.body === undefined ? messages : { ...located.body, messages }
}

/**
 * The neutral transcript of a chat completions document (an array of
 * messages, or a request body with `messages`), with the `encode` of its
 * views. A document that is not one is an `AdapterError` naming the message
 * at fault; a tool message answering a call no earlier message makes is
 * refused. Never throws.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decode = (document: unknown): Either.Either<Adapter.Decoded, Adapter.AdapterError> => {
  const located = locate(document)
  if (located === undefined) return Either.left(fail("expected an array of chat messages, or a request body with a messages array"))
  const transcript: Array<Transcript.Message> = []
  const callNames = new Map<string, string>()
  for (let index = 0; index < located.messages.length; index++) {
    const message = decodeMessage(located.messages[index], index, callNames)
    if (Either.isLeft(message)) return Either.left(message.left)
    transcript.push(message.right)
  }
  return Either.right({ format, transcript, encode: (view) => encodeView(located, transcript, view) })
}

/**
 * Writes a view of a decoded document back as a chat completions document of
 * the same shape (array or request body).
 *
 * @since 0.1.0
 * @category encoding
 */
export const encode = (decoded: Adapter.Decoded, view: Transcript.Transcript): unknown => decoded.encode(view)

const looksLikeMessage = (message: unknown): boolean => {
  if (!isRecord(message) || typeof message["role"] !== "string" || !roles.has(message["role"])) return false
  const content = message["content"]
  if (Array.isArray(content)) {
    const partsFit = content.every((part) =>
      isRecord(part) && typeof part["type"] === "string" && partTypes.has(part["type"]) &&
      // An AI SDK file part has `data`, a chat completions one a `file` object.
      (part["type"] !== "file" || isRecord(part["file"]))
    )
    if (!partsFit) return false
  } else if (content !== undefined && content !== null && typeof content !== "string") {
    return false
  }
  if (message["role"] === "tool" && typeof message["tool_call_id"] !== "string") return false
  const calls = message["tool_calls"]
  if (calls !== undefined && calls !== null) {
    if (!Array.isArray(calls) || !calls.every((call) => isRecord(call) && (isRecord(call["function"]) || isRecord(call["custom"])))) return false
  }
  return true
}

/**
 * Whether a parsed document looks like chat completions messages: every
 * message has a chat completions role, string or null content or content
 * parts of the format, tool messages a `tool_call_id`; a request body has no
 * top-level `system` (that is Anthropic's). Content parts of other formats
 * (`tool-call`, `tool-result`, `tool_use`, `tool_result`, `thinking`,
 * `reasoning`) make it false.
 *
 * @since 0.1.0
 * @category detection
 */
export const detect = (document: unknown): boolean => {
  const located = locate(document)
  if (located === undefined || located.messages.length === 0) return false
  if (located.body !== undefined && "system" in located.body) return false
  return located.messages.every(looksLikeMessage)
}

/**
 * The OpenAI chat completions adapter.
 *
 * @since 0.1.0
 * @category adapters
 */
export const adapter: Adapter.Adapter = { format, detect, decode }
