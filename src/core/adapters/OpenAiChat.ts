/**
 * The OpenAI chat completions codec, in the shared core: an array of messages
 * (`system`, `developer`, `user`, `assistant` with `tool_calls`, `tool` with
 * `tool_call_id`), or a request body with a `messages` array, to neutral
 * messages made with the face's kit, and a view back. Message `i` of the
 * document is the neutral message `m<i>`; a view is written back with every
 * unchanged message exactly as it came in. Each face's `OpenAiChat` is this
 * codec with its kit and its error. No Effect import.
 *
 * @since 0.1.0
 */
import * as Result from "../Result.js"
import * as Steps from "../Steps.js"
import type * as TranscriptData from "../transcript/TranscriptData.js"
import * as AdapterData from "./AdapterData.js"
import * as CallPositions from "./CallPositions.js"
import * as Native from "./Native.js"
import * as Unchanged from "./Unchanged.js"

type Message = TranscriptData.Message

type ToolCall = TranscriptData.ToolCall

/**
 * A chat completions message as it was parsed, every field kept as it came.
 *
 * @since 0.1.0
 * @category models
 */
export type NativeMessage = { readonly [key: string]: unknown }

const format: AdapterData.Format = "openai"

const describe = Native.describe

const fail = (reason: string, index?: number): AdapterData.Failure => AdapterData.failure(format, reason, index)

/** A reading of message `index` whose failure names what is wrong (`where`, then the problem). */
const at = <A>(
  read: Result.Result<A, string>,
  where: string,
  index?: number
): Result.Result<A, AdapterData.Failure> => Result.mapError(read, (problem) => fail(`${where} ${problem}`, index))

// =============================================================================
// Reading native values
// =============================================================================

/** The messages of a document, and the request body around them when there is one. */
interface Located {
  readonly messages: ReadonlyArray<unknown>
  readonly body: Native.Native | undefined
}

const locate = (document: unknown): Located | undefined =>
  Array.isArray(document)
    ? { messages: document, body: undefined }
    : Native.hasMessages(document)
    ? { messages: document["messages"], body: document }
    : undefined

const roles: ReadonlySet<string> = new Set(["system", "developer", "user", "assistant", "tool", "function"])

/** The content part types of chat completions; other formats' parts (`tool-call`, `tool_use`, `image` …) are not among them. */
const partTypes: ReadonlySet<string> = new Set(["text", "image_url", "input_audio", "file", "refusal"])

const readMessageObject = Native.check(Native.isRecord, () => "is not an object")

const readContent = Native.check(
  (value): value is string | null | undefined | ReadonlyArray<unknown> =>
    value === undefined || value === null || Native.isText(value) || Array.isArray(value),
  () => "is neither text, null nor an array of content parts"
)

type Role = "system" | "developer" | "user" | "assistant" | "tool"

const readRole = Native.check(
  (role): role is Role =>
    role === "system" || role === "developer" || role === "user" || role === "assistant" || role === "tool",
  (role) =>
    role === "function"
      ? "has the legacy role \"function\", whose results name no call: use tool_calls and role \"tool\""
      : `has the role ${describe(role)}, not one of system, developer, user, assistant, tool`
)

/**
 * A content part: text and refusals with their text, files (with the file's
 * name, when it has one), and any other typed part; its type, as read.
 */
const readContentPart = (part: unknown): Result.Result<Native.Native & { readonly type: string }, string> => {
  const type = Native.isRecord(part) ? Native.own(part, "type") : undefined
  const fits = Native.isRecord(part) && Native.has(part, "type") && Native.isText(type) && (
    type === "text"
      ? Native.has(part, "text") && Native.isText(part["text"])
      : type === "refusal"
      ? Native.has(part, "refusal") && Native.isText(part["refusal"])
      : true
  )
  return fits
    ? Result.ok(part as Native.Native & { readonly type: string })
    : Result.err("is not a content part with a type (and its text, for a text or refusal part)")
}

/** A file part's name, when its `file` is an object with a string `filename` of its own. */
const fileName = (file: unknown): string | undefined => {
  if (!Native.isRecord(file) || !Native.has(file, "filename")) return undefined
  const name = file["filename"]
  return Native.isText(name) ? name : undefined
}

const readToolCalls = Native.check(
  (value): value is ReadonlyArray<unknown> | null | undefined =>
    value === undefined || value === null || Array.isArray(value),
  () => "are not an array"
)

const readCallId = (raw: unknown): Result.Result<string, string> =>
  Native.isRecord(raw) && Native.has(raw, "id") && Native.isText(raw["id"])
    ? Result.ok(raw["id"])
    : Result.err("is not an object with a string id")

/** A struct's words in the Effect 3 face's Schema, for a custom call that is not one. */
const customShape = "{ readonly name: Text; readonly input?: unknown | undefined }"

/** A custom tool call, whose input is free text: its name and input, or what is wrong (words of no check's own). */
const readCustomCall = (
  raw: Native.Native
): Result.Result<{ readonly name: string; readonly input: unknown }, string> => {
  if (!Native.has(raw, "type")) return Result.err("is missing")
  if (!Native.has(raw, "custom")) return Result.err("is missing")
  const custom = raw["custom"]
  if (!Native.isRecord(custom)) return Result.err(`Expected ${customShape}, actual ${Native.formatUnknown(custom)}`)
  if (!Native.has(custom, "name")) return Result.err("is missing")
  const name = custom["name"]
  if (typeof name !== "string") return Result.err(`Expected string, actual ${Native.formatUnknown(name)}`)
  if (!Native.isText(name)) return Result.err(`Expected Text, actual ${Native.formatUnknown(name)}`)
  return Result.ok({ name, input: Native.own(custom, "input") })
}

const readFunctionName = (raw: Native.Native): Result.Result<string, string> => {
  const fn = Native.own(raw, "function")
  return Native.has(raw, "function") && Native.isRecord(fn) && Native.has(fn, "name") && Native.isText(fn["name"])
    ? Result.ok(fn["name"])
    : Result.err("has no function with a name")
}

const readArguments = Native.check(Native.isText, () => "has arguments that are not a JSON string")

// =============================================================================
// Decoding
// =============================================================================

/** The text a content part contributes; media stand as a bracketed placeholder, so a summary knows they were there. */
const partText = (part: Native.Native & { readonly type: string }): string => {
  switch (part.type) {
    case "text":
      return part["text"] as string
    case "refusal":
      return part["refusal"] as string
    case "image_url":
      return "[image]"
    case "input_audio":
      return "[audio]"
    case "file": {
      const name = fileName(Native.own(part, "file"))
      return name === undefined ? "[file]" : `[file: ${name}]`
    }
    default:
      return `[${part.type}]`
  }
}

/** The neutral text of a message's content: a string, nothing, or content parts (their texts one a line). */
const contentText = (content: unknown, index: number): Result.Result<string, AdapterData.Failure> =>
  Result.gen(function*() {
    const read = yield* Result.take(at(readContent(content), `the content of message ${index}`, index))
    if (typeof read === "string") return read
    if (read === null || read === undefined) return ""
    const texts: Array<string> = []
    for (const [k, part] of read.entries()) {
      texts.push(
        partText(yield* Result.take(at(readContentPart(part), `content part ${k} of message ${index}`, index)))
      )
    }
    return texts.join("\n")
  })

/** A tool call of an assistant message: a function call, or a custom tool call (whose input is free text). */
const decodeCall = (
  raw: unknown,
  k: number,
  index: number,
  kit: TranscriptData.Kit
): Result.Result<ToolCall, AdapterData.Failure> =>
  Result.gen(function*() {
    const id = yield* Result.take(at(readCallId(raw), `tool call ${k} of message ${index}`, index))
    const call = raw as Native.Native
    // A custom tool call says so in its type; anything else is read as a function call.
    if (call["type"] === "custom") {
      const { input, name } = yield* Result.take(
        at(readCustomCall(call), `tool call ${id} of message ${index}`, index)
      )
      return kit.toolCall({ id, name, arguments: typeof input === "string" ? input : "" })
    }
    const name = yield* Result.take(at(readFunctionName(call), `tool call ${id} of message ${index}`, index))
    const args = yield* Result.take(
      at(
        readArguments((call["function"] as Native.Native)["arguments"]),
        `tool call ${id} of message ${index}`,
        index
      )
    )
    return kit.toolCall({ id, name, arguments: args })
  })

const decodeMessage = (
  raw: unknown,
  index: number,
  callNames: Map<string, string>,
  kit: TranscriptData.Kit
): Result.Result<Message, AdapterData.Failure> =>
  Result.gen(function*() {
    const message = yield* Result.take(at(readMessageObject(raw), `message ${index}`, index))
    const id = `m${index}`
    const content = yield* Result.take(contentText(message["content"], index))
    const role = yield* Result.take(at(readRole(message["role"]), `message ${index}`, index))
    switch (role) {
      case "system":
      case "developer":
        return kit.systemMessage({ id, content })
      case "user":
        return kit.userMessage({ id, content })
      case "assistant": {
        const rawCalls = yield* Result.take(
          at(readToolCalls(message["tool_calls"]), `the tool_calls of message ${index}`, index)
        )
        const toolCalls: Array<ToolCall> = []
        for (const [k, rawCall] of (rawCalls ?? []).entries()) {
          const call = yield* Result.take(decodeCall(rawCall, k, index, kit))
          callNames.set(call.id, call.name)
          toolCalls.push(call)
        }
        return kit.assistantMessage({ id, content, toolCalls })
      }
      case "tool": {
        const toolCallId = yield* Result.take(
          at(
            Native.required(message, "tool_call_id", Native.isText, "has no string tool_call_id"),
            `tool message ${index}`,
            index
          )
        )
        // A result whose call no earlier message makes is refused, as the API refuses it.
        const name = callNames.get(toolCallId)
        if (name === undefined) {
          return yield* Result.fail(
            fail(
              `tool message ${index} answers the call ${toolCallId}, which no earlier assistant message makes`,
              index
            )
          )
        }
        return kit.toolResult({ id, toolCallId, name, content })
      }
    }
  })

// =============================================================================
// Encoding
// =============================================================================

const freshCall = (call: ToolCall): NativeMessage => ({
  id: call.id,
  type: "function",
  function: { name: call.name, arguments: call.arguments }
})

/** A message the document did not hold, written in the format. */
const fresh = (message: Exclude<Message, TranscriptData.CompactedBlock>): NativeMessage => {
  switch (message._tag) {
    case "System":
      return { role: "system", content: message.content }
    case "User":
      return { role: "user", content: message.content }
    case "Assistant":
      return message.toolCalls.length === 0
        ? { role: "assistant", content: message.content }
        : {
          role: "assistant",
          content: message.content === "" ? null : message.content,
          tool_calls: message.toolCalls.map(freshCall)
        }
    case "ToolResult":
      return { role: "tool", tool_call_id: message.toolCallId, content: message.content }
  }
}

/**
 * A message of the document changed in the view (an assistant message
 * narrowed to some of its calls, say): the original with what changed
 * written over it, unchanged calls kept as they came.
 */
const patched = (native: NativeMessage, original: Message, message: Message): NativeMessage => {
  const result: { [key: string]: unknown } = { ...native }
  if (message.content !== original.content) result["content"] = message.content
  if (message._tag === "Assistant" && original._tag === "Assistant") {
    const rawCalls = Array.isArray(native["tool_calls"]) ? (native["tool_calls"] as ReadonlyArray<unknown>) : []
    // By position, not by id: one message can use an id twice.
    const positions = CallPositions.callPositions(original.toolCalls, message.toolCalls)
    const calls = message.toolCalls.map((call, n) => {
      const k = positions[n]
      const known = k === undefined ? undefined : original.toolCalls[k]
      return k !== undefined && known !== undefined && known.name === call.name && known.arguments === call.arguments
        ? rawCalls[k]
        : freshCall(call)
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
const encodeView = (located: Located, transcript: ReadonlyArray<Message>, view: TranscriptData.Transcript): unknown => {
  const byId = new Map(transcript.map((message, index) => [message.id, index]))
  const messages = view.map((message): unknown => {
    if (message._tag === "Compacted") return { role: "user", content: message.content }
    const index = byId.get(message.id)
    const original = index === undefined ? undefined : transcript[index]
    if (index === undefined || original === undefined || original._tag !== message._tag) return fresh(message)
    const native = located.messages[index] as NativeMessage
    return Unchanged.unchanged(original, message) ? native : patched(native, original, message)
  })
  return located.body === undefined ? messages : { ...located.body, messages }
}

/**
 * The neutral transcript of a chat completions document, made with `kit`,
 * and the `encode` of its views, as steps that pause every few messages; or
 * the failure naming the message at fault (a tool message answering a call no
 * earlier message makes among them).
 *
 * @since 0.1.0
 * @category decoding
 */
export function* decodeSteps(
  document: unknown,
  kit: TranscriptData.Kit
): Steps.Steps<Result.Result<AdapterData.Decoded, AdapterData.Failure>> {
  return yield* decodeStepsWith(document, kit, undefined)
}

/**
 * The decodings a {@link continuing} codec keeps: by an array's first native
 * message, the native values it last decoded, their messages and the tool
 * calls' names they made.
 */
type Decodings = WeakMap<object, {
  readonly kit: TranscriptData.Kit
  readonly natives: ReadonlyArray<unknown>
  readonly transcript: ReadonlyArray<Message>
  readonly callNames: ReadonlyMap<string, string>
}>

function* decodeStepsWith(
  document: unknown,
  kit: TranscriptData.Kit,
  decodings: Decodings | undefined
): Steps.Steps<Result.Result<AdapterData.Decoded, AdapterData.Failure>> {
  const located = locate(document)
  if (located === undefined) {
    return Result.err(fail("expected an array of chat messages, or a request body with a messages array"))
  }
  const natives = located.messages
  // Decoding a message depends on the messages before it only (its position, the calls they made): an array that
  // repeats the very values decoded last has their decoding, and only the rest is decoded.
  const first = natives[0]
  const memo = decodings !== undefined && typeof first === "object" && first !== null
    ? decodings.get(first)
    : undefined
  const kept = memo !== undefined && memo.kit === kit && AdapterData.repeats(natives, memo.natives)
    ? memo.natives.length
    : 0
  const transcript: Array<Message> = kept === 0 ? [] : memo!.transcript.slice()
  const callNames = kept === 0 ? new Map<string, string>() : new Map(memo!.callNames)
  for (let index = kept; index < natives.length; index++) {
    const message = decodeMessage(natives[index], index, callNames, kit)
    if (message._tag === "Err") return message
    transcript.push(message.value)
    if (index % Steps.itemsPerStep === Steps.itemsPerStep - 1) yield
  }
  if (decodings !== undefined && typeof first === "object" && first !== null) {
    decodings.set(first, { kit, natives, transcript: transcript.slice(), callNames })
  }
  return Result.ok({ format, transcript, encode: (view) => encodeView(located, transcript, view) })
}

// =============================================================================
// Detection
// =============================================================================

const looksLikeMessage = (message: unknown): boolean => {
  if (!Native.isRecord(message) || typeof message["role"] !== "string" || !roles.has(message["role"])) {
    return false
  }
  const content = message["content"]
  if (Array.isArray(content)) {
    const partsFit = content.every((part) =>
      Native.isRecord(part) && typeof part["type"] === "string" && partTypes.has(part["type"]) &&
      // An AI SDK file part has `data`, a chat completions one a `file` object.
      (part["type"] !== "file" || Native.isRecord(part["file"]))
    )
    if (!partsFit) return false
  } else if (content !== undefined && content !== null && typeof content !== "string") {
    return false
  }
  if (message["role"] === "tool" && typeof message["tool_call_id"] !== "string") return false
  const calls = message["tool_calls"]
  if (calls !== undefined && calls !== null) {
    if (
      !Array.isArray(calls) || !calls.every((call) =>
        Native.isRecord(call) &&
        (Native.isRecord(call["function"]) || Native.isRecord(call["custom"]))
      )
    ) return false
  }
  return true
}

/**
 * Whether a parsed document looks like chat completions messages (see the faces' `OpenAiChat.detect`).
 *
 * @since 0.1.0
 * @category detection
 */
export const detect = (document: unknown): boolean => detectWith(document, undefined)

/** What a continuing codec's `detect` found of an array: by its first message, the values it looked at, all messages. */
type Detections = WeakMap<object, ReadonlyArray<unknown>>

const detectWith = (document: unknown, detections: Detections | undefined): boolean => {
  const located = locate(document)
  if (located === undefined || located.messages.length === 0) return false
  if (located.body !== undefined && "system" in located.body) return false
  const natives = located.messages
  const first = natives[0]
  const seen = detections !== undefined && typeof first === "object" && first !== null
    ? detections.get(first)
    : undefined
  // The very values found to be messages before are messages still: only the rest is looked at.
  const from = seen !== undefined && AdapterData.repeats(natives, seen) ? seen.length : 0
  for (let index = from; index < natives.length; index++) {
    if (!looksLikeMessage(natives[index])) return false
  }
  if (detections !== undefined && typeof first === "object" && first !== null) detections.set(first, natives)
  return true
}

/**
 * The chat completions codec.
 *
 * @since 0.1.0
 * @category codecs
 */
export const codec: AdapterData.Codec = { format, detect, decodeSteps }

/**
 * A chat completions codec that keeps its last decodings: a document whose
 * messages repeat the very values of an array it decoded (by the same first
 * message), and add others after them, decodes only the added ones. For a
 * caller that decodes a growing history again and again (the proxy, whose
 * bodies repeat their sessions' last ones: `JsonContinuation`); what it keeps
 * lives as long as those message values.
 *
 * @since 0.1.0
 * @category codecs
 */
export const continuing = (): AdapterData.Codec =>
  AdapterData.continuingCodec<Detections, Decodings>(format, detectWith, decodeStepsWith)
