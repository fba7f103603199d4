/**
 * The Vercel AI SDK codec, in the shared core: an array of v5
 * `ModelMessage`s, or an object holding them in `messages`, to neutral
 * messages made with the face's kit, and a view back (AI SDK v4 tool parts,
 * `args` and `result`, read too and written back as they came). Each face's
 * `AiSdkMessages` is this codec with its kit and its error, and its
 * `toMessages` is {@link toMessages}. No Effect import.
 *
 * @since 0.1.0
 */
import * as JsonReader from "../json/JsonReader.js"
import * as Result from "../Result.js"
import type * as Steps from "../Steps.js"
import type * as TranscriptData from "../transcript/TranscriptData.js"
import * as AdapterData from "./AdapterData.js"
import * as Check from "./Native.js"
import * as PartsCodec from "./PartsCodec.js"
import { describe, isRecord, jsonText, type Native, parseOrText } from "./PartsCodec.js"

const format = "ai-sdk" as const

/**
 * What decoding a document kept to write a view of it back, and how it was held.
 *
 * @since 0.1.0
 * @category models
 */
export interface Decoding extends PartsCodec.Decoding {
  readonly wrapped: boolean
  readonly document: unknown
}

/**
 * Where a `Decoded` of this codec keeps its decoding, for `toMessages`: a
 * non-enumerable symbol outside its fields (the core holds no state of its own).
 */
const DecodingId: unique symbol = Symbol.for("context-compressor/adapters/AiSdkMessages/Decoding")

const decodingOf = (decoded: object): Decoding | undefined =>
  (decoded as { readonly [DecodingId]?: Decoding })[DecodingId]

const roles: ReadonlyArray<unknown> = ["system", "user", "assistant", "tool"]

const parseJson = (text: string): { readonly value: unknown } | undefined => {
  const parsed = JsonReader.read(text)
  return parsed._tag === "Ok" ? { value: parsed.value } : undefined
}

const messagesOf = (
  document: unknown
): { readonly wrapped: boolean; readonly messages: ReadonlyArray<unknown> } | undefined =>
  Array.isArray(document)
    ? { wrapped: false, messages: document }
    : isRecord(document) && !("role" in document) && Check.hasMessages(document)
    ? { wrapped: true, messages: document["messages"] as ReadonlyArray<unknown> }
    : undefined

/** A message's own fields: `providerOptions`, when present and not `undefined`, is an object (by provider). */
/** A message's own fields: `providerOptions`, when present and not `undefined`, is an object (by provider). */
const decodeFields = (message: Native): Result.Result<unknown, string> => {
  const options = Check.own(message, "providerOptions")
  return options === undefined || isRecord(options)
    ? Result.ok(message)
    : Result.err("has providerOptions that are not an object")
}

const readText: PartsCodec.PartReader<string> = (part, where) =>
  Check.within(Check.required(part, "text", Check.isText, "has no string text"), where)

/** A file: its data, and its media type (`mimeType` in AI SDK v4); it stands as its name, or its media type. */
const readFile: PartsCodec.PartReader<string> = (part, where) =>
  Check.within(
    Result.gen(function*() {
      yield* Result.take(Check.required(part, "data", Check.isAnything, "has no data"))
      const mediaType = part["mediaType"] ?? part["mimeType"]
      if (!Check.isText(mediaType)) return yield* Result.fail("has no string mediaType")
      return `[file ${typeof part["filename"] === "string" ? part["filename"] : mediaType}]`
    }),
    where
  )

/** A call's id and name, each a string of the part's own. */
const readCallIds = (part: Native): Result.Result<{ readonly toolCallId: string; readonly toolName: string }, string> =>
  Result.gen(function*() {
    const toolCallId = yield* Result.take(
      Check.required(part, "toolCallId", Check.isText, "has no string toolCallId")
    )
    const toolName = yield* Result.take(Check.required(part, "toolName", Check.isText, "has no string toolName"))
    return { toolCallId, toolName }
  })

/** A tool call: its id and name, and its `input` (v4 `args`) as JSON text. */
const readCall: PartsCodec.PartReader<PartsCodec.CallRead> = (part, where) =>
  Check.within(
    Result.gen(function*() {
      const { toolCallId, toolName } = yield* Result.take(readCallIds(part))
      if (!("input" in part || "args" in part)) {
        return yield* Result.fail("has neither an input (v5) nor args (v4)")
      }
      return {
        id: toolCallId,
        name: toolName,
        arguments: jsonText("input" in part ? part["input"] : part["args"])
      }
    }),
    where
  )

/** An item of a `content` output: a text item's text, or a media item's media type. */
const readOutputItem = (item: unknown): Result.Result<string, string> =>
  isRecord(item) && Check.has(item, "type") && item["type"] === "text" && Check.has(item, "text") &&
    Check.isText(item["text"])
    ? Result.ok(item["text"])
    : isRecord(item) && Check.has(item, "type") && item["type"] === "media" && Check.has(item, "mediaType") &&
        Check.isText(item["mediaType"])
    ? Result.ok(`[media ${item["mediaType"]}]`)
    : Result.err("is neither a text nor a media item")

const readOutputObject = Check.check(isRecord, (actual) => `is ${describe(actual)}, not an object with a type`)

/** The text of a tool output: text as it is, JSON values (an agentic-workspace/v1 envelope) as JSON text. */
const outputText = (raw: unknown, where: string): Result.Result<string, string> =>
  Result.gen(function*() {
    const output = yield* Result.take(Check.within(readOutputObject(raw), where))
    const type = output["type"]
    switch (type) {
      case "text":
      case "error-text":
        return yield* Result.take(
          Check.required(output, "value", Check.isText, `${where} is ${type} without a string value`)
        )
      case "json":
      case "error-json":
        return jsonText(
          yield* Result.take(Check.required(output, "value", Check.isAnything, `${where} is ${type} without a value`))
        )
      case "content": {
        const value = yield* Result.take(
          Check.required(output, "value", Check.isArray, `${where} is content without an array value`)
        )
        const texts: Array<string> = []
        for (const [j, raw] of value.entries()) {
          texts.push(yield* Result.take(Check.within(readOutputItem(raw), `item ${j} of ${where}`)))
        }
        return texts.join("\n")
      }
      default:
        return yield* Result.take(
          Result.err(`${where} has the type ${describe(type)}; expected text, json, error-text, error-json or content`)
        )
    }
  })

/** A tool result: its call's id and name, and its `output` (v4 `result`) as text. */
const readResult: PartsCodec.PartReader<PartsCodec.ResultRead> = (part, where) =>
  Result.gen(function*() {
    const { toolCallId, toolName } = yield* Result.take(Check.within(readCallIds(part), where))
    const content = "output" in part
      ? yield* Result.take(outputText(part["output"], `the output of ${where}`))
      : "result" in part
      ? (typeof part["result"] === "string" ? part["result"] : jsonText(part["result"]))
      : yield* Result.fail(`${where} has neither an output (v5) nor a result (v4)`)
    return { toolCallId, name: toolName, content }
  })

const readImage: PartsCodec.PartReader<string> = (part, where) =>
  Check.within(Result.map(Check.required(part, "image", Check.isAnything, "has no image"), () => "[image]"), where)

/** The grammar of AI SDK messages. */
const grammar = (): PartsCodec.Grammar => ({
  messageName: "a ModelMessage",
  contentExpected: (role) => (role === "tool" ? "an array of tool-result parts" : "a string or an array of parts"),
  checkFields: decodeFields,
  user: new Map([["text", readText], ["image", readImage], ["file", readFile]]),
  userHolds: "text, image and file parts",
  assistant: new Map<string, PartsCodec.PartReader<string | undefined>>([
    ["text", readText],
    ["reasoning", (part, where) => Result.map(readText(part, where), () => undefined)],
    ["redacted-reasoning", () => Result.ok(undefined)],
    ["file", readFile]
  ]),
  assistantHolds: "text, file, reasoning, tool-call and tool-result parts",
  toolCall: readCall,
  toolResult: readResult
})

function* decodeWith(
  document: unknown,
  kit: TranscriptData.Kit
): Steps.Steps<Result.Result<Decoding, PartsCodec.Refusal>> {
  const found = messagesOf(document)
  if (found === undefined) {
    return Result.err({
      index: undefined,
      reason: `expected an array of AI SDK ModelMessages or an object with a messages array, not ${describe(document)}`
    })
  }
  return Result.map(
    yield* PartsCodec.messagesDecoder(grammar(), kit)(found.messages),
    (decoding) => ({ ...decoding, wrapped: found.wrapped, document })
  )
}

// =============================================================================
// Encoding
// =============================================================================

const textPart = (text: string): Native => ({ type: "text", text })

const toolCallPart = (call: TranscriptData.ToolCall): Native => ({
  type: "tool-call",
  toolCallId: call.id,
  toolName: call.name,
  input: parseOrText(call.arguments)
})

/** A changed output: the same kind where the new text allows it (JSON kinds need JSON text), else text. */
const changedOutput = (output: Native, content: string): Native => {
  switch (output["type"]) {
    case "error-text":
      return { type: "error-text", value: content }
    case "json":
    case "error-json": {
      const parsed = parseJson(content)
      return parsed === undefined
        ? { type: output["type"] === "json" ? "text" : "error-text", value: content }
        : { type: output["type"], value: parsed.value }
    }
    default:
      return { type: "text", value: content }
  }
}

/** A tool-result part carrying a changed neutral result, in the version (v5 `output`, v4 `result`) it came in. */
const changedResult = (part: Native, result: TranscriptData.ToolResult): Native =>
  "output" in part
    ? { ...part, toolCallId: result.toolCallId, output: changedOutput(part["output"] as Native, result.content) }
    : {
      ...part,
      toolCallId: result.toolCallId,
      result: typeof part["result"] === "string" ? result.content : parseOrText(result.content)
    }

const vocabulary: PartsCodec.Vocabulary = {
  message: (role, content) => ({ role, content }),
  text: textPart,
  toolCall: toolCallPart,
  toolResult: (toolCallId, toolName, value) => ({
    type: "tool-result",
    toolCallId,
    toolName,
    output: { type: "text", value }
  }),
  withArguments: (
    part,
    args
  ) => ("input" in part ? { ...part, input: parseOrText(args) } : { ...part, args: parseOrText(args) }),
  changedResult
}

const encodeDocument = (decoding: Decoding, view: TranscriptData.Transcript): unknown => {
  if (PartsCodec.isWhole(decoding, view)) return decoding.document
  const messages = PartsCodec.encodeMessages(decoding, view, vocabulary)
  return decoding.wrapped ? { ...(decoding.document as Native), messages } : messages
}

/**
 * The neutral transcript of AI SDK messages, made with `kit`, and the
 * `encode` of its views, as steps that pause every few messages; or the
 * failure naming the message at fault.
 *
 * @since 0.1.0
 * @category decoding
 */
export function* decodeSteps(
  document: unknown,
  kit: TranscriptData.Kit
): Steps.Steps<Result.Result<AdapterData.Decoded, AdapterData.Failure>> {
  const decoding = yield* decodeWith(document, kit)
  if (decoding._tag === "Err") {
    return Result.err(AdapterData.failure(format, decoding.error.reason, decoding.error.index))
  }
  const decoded: AdapterData.Decoded = {
    format,
    transcript: decoding.value.transcript,
    encode: (view) => encodeDocument(decoding.value, view)
  }
  Object.defineProperty(decoded, DecodingId, { value: decoding.value })
  return Result.ok(decoded)
}

// =============================================================================
// Detection
// =============================================================================

/** A part only the AI SDK writes: tool parts with `toolCallId`/`toolName`, an image part with `image`. */
const isAiSdkPart = (part: unknown): boolean =>
  isRecord(part) &&
  (((part["type"] === "tool-call" || part["type"] === "tool-result") && typeof part["toolCallId"] === "string" &&
    typeof part["toolName"] === "string") ||
    (part["type"] === "image" && "image" in part))

const hasAiSdkMarker = (message: unknown): boolean => {
  const record = message as Native
  const content = record["content"]
  return isRecord(record["providerOptions"]) || (Array.isArray(content) && content.some(isAiSdkPart))
}

/**
 * Whether a document looks like AI SDK messages: every message has one of the
 * four roles, and one at least has an AI SDK part (`tool-call` or
 * `tool-result` with `toolCallId`/`toolName`, `image` with `image`) or
 * `providerOptions`. A plain text transcript is left to the OpenAI chat
 * codec, which claims it.
 *
 * @since 0.1.0
 * @category detection
 */
export const detect = (document: unknown): boolean => {
  const found = messagesOf(document)
  return found !== undefined &&
    found.messages.every((message) => isRecord(message) && roles.includes(message["role"])) &&
    found.messages.some(hasAiSdkMarker)
}

/**
 * The AI SDK codec.
 *
 * @since 0.1.0
 * @category codecs
 */
export const codec: AdapterData.Codec = { format, detect, decodeSteps }

/**
 * A view as AI SDK messages (see the faces' `AiSdkMessages.toMessages`): the
 * messages of the decoded document as they were, regrouped, narrowed or
 * re-encoded where the view changed them; for a `Decoded` this codec did not
 * make, every message of the view written anew.
 *
 * @since 0.1.0
 * @category encoding
 */
export const toMessages = (decoded: object, view: TranscriptData.Transcript): Array<unknown> => {
  const decoding = decodingOf(decoded) ?? { ...PartsCodec.emptyDecoding(), wrapped: false, document: [] }
  if (PartsCodec.isWhole(decoding, view)) return [...decoding.natives]
  return PartsCodec.encodeMessages(decoding, view, vocabulary)
}
