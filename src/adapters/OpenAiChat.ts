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
import * as Schema from "effect/Schema"
import * as Cooperative from "../internal/Cooperative.js"
import * as Transcript from "../Transcript.js"
import * as Adapter from "./Adapter.js"
import * as CallPositions from "./internal/CallPositions.js"
import * as NativeSchema from "./internal/NativeSchema.js"
import * as Unchanged from "./internal/Unchanged.js"

/**
 * A chat completions message as it was parsed, every field kept as it came.
 *
 * @since 0.1.0
 * @category models
 */
export type NativeMessage = { readonly [key: string]: unknown }

const format: Adapter.Format = "openai"

const describe = NativeSchema.describe

const fail = (reason: string, index?: number): Adapter.AdapterError =>
  new Adapter.AdapterError({ format, reason, ...(index === undefined ? {} : { index }) })

/** A decoding of message `index` whose failure names what is wrong (`where`, then the schema's problem). */
const at = <A>(
  decoded: Either.Either<A, string>,
  where: string,
  index?: number
): Either.Either<A, Adapter.AdapterError> => Either.mapLeft(decoded, (problem) => fail(`${where} ${problem}`, index))

// =============================================================================
// Schemas
// =============================================================================

/** The messages of a document, and the request body around them when there is one. */
interface Located {
  readonly messages: ReadonlyArray<unknown>
  readonly body: NativeSchema.Native | undefined
}

const decodeDocument = NativeSchema.decoder(
  Schema.Union(NativeSchema.UnknownArray, Schema.Struct({ messages: NativeSchema.UnknownArray }))
)

const locate = (document: unknown): Located | undefined =>
  Either.isLeft(decodeDocument(document))
    ? undefined
    : Array.isArray(document)
    ? { messages: document, body: undefined }
    : {
      messages: (document as NativeSchema.Native)["messages"] as ReadonlyArray<unknown>,
      body: document as NativeSchema.Native
    }

const roles = new Set(["system", "developer", "user", "assistant", "tool", "function"])

/** The content part types of chat completions; other formats' parts (`tool-call`, `tool_use`, `image` …) are not among them. */
const partTypes = new Set(["text", "image_url", "input_audio", "file", "refusal"])

const decodeMessageObject = NativeSchema.decoder(
  NativeSchema.saying(NativeSchema.NativeObject, () => "is not an object")
)

const decodeContent = NativeSchema.decoder(
  NativeSchema.saying(
    Schema.UndefinedOr(Schema.Union(NativeSchema.Text, Schema.Null, Schema.Array(Schema.Unknown))),
    () => "is neither text, null nor an array of content parts"
  )
)

const Role = Schema.Literal("system", "developer", "user", "assistant", "tool")

const decodeRole = NativeSchema.decoder(
  NativeSchema.saying(Role, (role) =>
    role === "function"
      ? "has the legacy role \"function\", whose results name no call: use tool_calls and role \"tool\""
      : `has the role ${describe(role)}, not one of system, developer, user, assistant, tool`)
)

/**
 * A content part: text and refusals with their text, media and files (the
 * file's name, when it has one), and any other typed part.
 */
const TextPart = Schema.Struct({ type: Schema.Literal("text"), text: NativeSchema.Text })

const RefusalPart = Schema.Struct({ type: Schema.Literal("refusal"), refusal: NativeSchema.Text })

const FilePart = Schema.Struct({ type: Schema.Literal("file"), file: Schema.optional(Schema.Unknown) })

const ContentPart = Schema.Union(
  TextPart,
  RefusalPart,
  FilePart,
  Schema.Struct({
    type: NativeSchema.Text.pipe(Schema.filter((type) => type !== "text" && type !== "refusal" && type !== "file"))
  })
)

const decodeContentPart = NativeSchema.decoder(
  NativeSchema.saying(ContentPart, () => "is not a content part with a type (and its text, for a text or refusal part)")
)

const decodeFileName = NativeSchema.decoder(Schema.Struct({ filename: NativeSchema.Text }))

const decodeToolCalls = NativeSchema.decoder(
  NativeSchema.saying(Schema.UndefinedOr(Schema.NullOr(Schema.Array(Schema.Unknown))), () => "are not an array")
)

const decodeCallId = NativeSchema.decoder(
  NativeSchema.saying(Schema.Struct({ id: NativeSchema.Text }), () => "is not an object with a string id")
)

/** A custom tool call, whose input is free text. */
const decodeCustomCall = NativeSchema.decoder(
  Schema.Struct({
    type: Schema.Literal("custom"),
    custom: Schema.Struct({ name: NativeSchema.Text, input: Schema.optional(Schema.Unknown) })
  })
)

const decodeFunction = NativeSchema.decoder(
  Schema.Struct({
    function: NativeSchema.required(Schema.Struct({ name: NativeSchema.Text }), () => "has no function with a name")
  })
)

const decodeArguments = NativeSchema.decoder(
  NativeSchema.saying(NativeSchema.Text, () => "has arguments that are not a JSON string")
)

const decodeToolCallId = NativeSchema.decoder(
  Schema.Struct({ tool_call_id: NativeSchema.required(NativeSchema.Text, () => "has no string tool_call_id") })
)

// =============================================================================
// Decoding
// =============================================================================

/** The text a content part contributes; media stand as a bracketed placeholder, so a summary knows they were there. */
const partText = (part: typeof ContentPart.Type): string => {
  switch (part.type) {
    case "text":
      return (part as typeof TextPart.Type).text
    case "refusal":
      return (part as typeof RefusalPart.Type).refusal
    case "image_url":
      return "[image]"
    case "input_audio":
      return "[audio]"
    case "file": {
      const name = Either.getOrUndefined(decodeFileName((part as typeof FilePart.Type).file))?.filename
      return name === undefined ? "[file]" : `[file: ${name}]`
    }
    default:
      return `[${part.type}]`
  }
}

/** The neutral text of a message's content: a string, nothing, or content parts (their texts one a line). */
const contentText = (content: unknown, index: number): Either.Either<string, Adapter.AdapterError> =>
  Either.gen(function*() {
    const decoded = yield* at(decodeContent(content), `the content of message ${index}`, index)
    if (typeof decoded === "string") return decoded
    if (decoded === null || decoded === undefined) return ""
    const texts: Array<string> = []
    for (const [k, part] of decoded.entries()) {
      texts.push(partText(yield* at(decodeContentPart(part), `content part ${k} of message ${index}`, index)))
    }
    return texts.join("\n")
  })

/** A tool call of an assistant message: a function call, or a custom tool call (whose input is free text). */
const decodeCall = (raw: unknown, k: number, index: number): Either.Either<Transcript.ToolCall, Adapter.AdapterError> =>
  Either.gen(function*() {
    const { id } = yield* at(decodeCallId(raw), `tool call ${k} of message ${index}`, index)
    // A custom tool call says so in its type; anything else is read as a function call.
    if ((raw as NativeSchema.Native)["type"] === "custom") {
      const { input, name } = (yield* at(decodeCustomCall(raw), `tool call ${id} of message ${index}`, index)).custom
      return new Transcript.ToolCall({ id, name, arguments: typeof input === "string" ? input : "" })
    }
    const { name } = (yield* at(decodeFunction(raw), `tool call ${id} of message ${index}`, index)).function
    const args = yield* at(
      decodeArguments((raw as { readonly function: NativeSchema.Native }).function["arguments"]),
      `tool call ${id} of message ${index}`,
      index
    )
    return new Transcript.ToolCall({ id, name, arguments: args })
  })

const decodeMessage = (
  raw: unknown,
  index: number,
  callNames: Map<string, string>
): Either.Either<Transcript.Message, Adapter.AdapterError> =>
  Either.gen(function*() {
    const message = yield* at(decodeMessageObject(raw), `message ${index}`, index)
    const id = `m${index}`
    const content = yield* contentText(message["content"], index)
    const role = yield* at(decodeRole(message["role"]), `message ${index}`, index)
    switch (role) {
      case "system":
      case "developer":
        return new Transcript.SystemMessage({ id, content })
      case "user":
        return new Transcript.UserMessage({ id, content })
      case "assistant": {
        const rawCalls = yield* at(decodeToolCalls(message["tool_calls"]), `the tool_calls of message ${index}`, index)
        const toolCalls: Array<Transcript.ToolCall> = []
        for (const [k, rawCall] of (rawCalls ?? []).entries()) {
          const call = yield* decodeCall(rawCall, k, index)
          callNames.set(call.id, call.name)
          toolCalls.push(call)
        }
        return new Transcript.AssistantMessage({ id, content, toolCalls })
      }
      case "tool": {
        const toolCallId = (yield* at(decodeToolCallId(message), `tool message ${index}`, index)).tool_call_id
        // A result whose call no earlier message makes is refused, as the API refuses it.
        const name = callNames.get(toolCallId)
        if (name === undefined) {
          return yield* Either.left(
            fail(
              `tool message ${index} answers the call ${toolCallId}, which no earlier assistant message makes`,
              index
            )
          )
        }
        return new Transcript.ToolResult({ id, toolCallId, name, content })
      }
    }
  })

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
const patched = (native: NativeMessage, original: Transcript.Message, message: Transcript.Message): NativeMessage => {
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
    return Unchanged.unchanged(original, message) ? native : patched(native, original, message)
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
 * @example
 * ```ts
 * import { OpenAiChat } from "context-compressor/adapters"
 * import { Either } from "effect"
 *
 * const messages = [
 *   { role: "system", content: "You are a coding agent." },
 *   { role: "user", content: "list the files" }
 * ]
 * const decoded = Either.getOrThrow(OpenAiChat.decode(messages))
 * assert.deepStrictEqual(decoded.transcript.map((message) => message.id), ["m0", "m1"])
 * // An unchanged view comes back as the same messages, each the very object it was.
 * const encoded = decoded.encode(decoded.transcript) as ReadonlyArray<unknown>
 * assert.deepStrictEqual(encoded, messages)
 * assert.strictEqual(encoded[1], messages[1])
 * ```
 *
 * @since 0.1.0
 * @category decoding
 */
export const decode = (document: unknown): Either.Either<Adapter.Decoded, Adapter.AdapterError> =>
  Cooperative.runSync(decodeSteps(document))

/**
 * {@link decode} as steps that pause every few messages, for a caller that
 * lets the event loop run while a long document is decoded
 * (`Cooperative.run`); `decode` runs them to the end.
 *
 * @since 0.1.0
 * @category decoding
 */
export function* decodeSteps(
  document: unknown
): Cooperative.Steps<Either.Either<Adapter.Decoded, Adapter.AdapterError>> {
  const located = locate(document)
  if (located === undefined) {
    return Either.left(fail("expected an array of chat messages, or a request body with a messages array"))
  }
  const transcript: Array<Transcript.Message> = []
  const callNames = new Map<string, string>()
  for (let index = 0; index < located.messages.length; index++) {
    const message = decodeMessage(located.messages[index], index, callNames)
    if (Either.isLeft(message)) return Either.left(message.left)
    transcript.push(message.right)
    if (index % Cooperative.itemsPerStep === Cooperative.itemsPerStep - 1) yield
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
  if (!NativeSchema.isRecord(message) || typeof message["role"] !== "string" || !roles.has(message["role"])) {
    return false
  }
  const content = message["content"]
  if (Array.isArray(content)) {
    const partsFit = content.every((part) =>
      NativeSchema.isRecord(part) && typeof part["type"] === "string" && partTypes.has(part["type"]) &&
      // An AI SDK file part has `data`, a chat completions one a `file` object.
      (part["type"] !== "file" || NativeSchema.isRecord(part["file"]))
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
        NativeSchema.isRecord(call) &&
        (NativeSchema.isRecord(call["function"]) || NativeSchema.isRecord(call["custom"]))
      )
    ) return false
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
export const adapter: Adapter.Adapter = { format, detect, decode, decodeSteps }
