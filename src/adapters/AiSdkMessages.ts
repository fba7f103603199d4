/**
 * The Vercel AI SDK adapter: an array of v5 `ModelMessage`s, or an object
 * holding them in `messages` (a `generateText` call's options, say), to the
 * neutral transcript and back. AI SDK v4 tool parts (`args`, `result`) are
 * read too, and written back as they came. The shapes are described here; the
 * `ai` package is not a dependency.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Cooperative from "../internal/Cooperative.js"
import * as Json from "../Json.js"
import * as Transcript from "../Transcript.js"
import * as Adapter from "./Adapter.js"
import * as NativeSchema from "./internal/NativeSchema.js"
import * as PartsCodec from "./internal/PartsCodec.js"
import { describe, isRecord, jsonText, type Native, parseOrText } from "./internal/PartsCodec.js"

// =============================================================================
// Models
// =============================================================================

/**
 * Options for a provider, by provider name.
 *
 * @since 0.1.0
 * @category models
 */
export type ProviderOptions = Record<string, Record<string, unknown>>

/**
 * A JSON value, as tool inputs and JSON outputs hold.
 *
 * @since 0.1.0
 * @category models
 */
export type JSONValue =
  | null
  | string
  | number
  | boolean
  | { readonly [key: string]: JSONValue }
  | ReadonlyArray<JSONValue>

/**
 * Text of a user or assistant message.
 *
 * @since 0.1.0
 * @category models
 */
export interface TextPart {
  readonly type: "text"
  readonly text: string
  readonly providerOptions?: ProviderOptions
}

/**
 * An image of a user message.
 *
 * @since 0.1.0
 * @category models
 */
export interface ImagePart {
  readonly type: "image"
  readonly image: string | URL | Uint8Array | ArrayBuffer
  readonly mediaType?: string
  readonly providerOptions?: ProviderOptions
}

/**
 * A file of a user or assistant message (`mimeType` in AI SDK v4).
 *
 * @since 0.1.0
 * @category models
 */
export interface FilePart {
  readonly type: "file"
  readonly data: string | URL | Uint8Array | ArrayBuffer
  readonly filename?: string
  readonly mediaType: string
  readonly providerOptions?: ProviderOptions
}

/**
 * The model's reasoning, in an assistant message.
 *
 * @since 0.1.0
 * @category models
 */
export interface ReasoningPart {
  readonly type: "reasoning"
  readonly text: string
  readonly providerOptions?: ProviderOptions
}

/**
 * A tool call of an assistant message (`args` instead of `input` in AI SDK v4).
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolCallPart {
  readonly type: "tool-call"
  readonly toolCallId: string
  readonly toolName: string
  readonly input: unknown
  readonly providerExecuted?: boolean
  readonly providerOptions?: ProviderOptions
}

/**
 * What a tool returned.
 *
 * @since 0.1.0
 * @category models
 */
export type ToolResultOutput =
  | { readonly type: "text"; readonly value: string }
  | { readonly type: "json"; readonly value: JSONValue }
  | { readonly type: "error-text"; readonly value: string }
  | { readonly type: "error-json"; readonly value: JSONValue }
  | {
    readonly type: "content"
    readonly value: ReadonlyArray<
      { readonly type: "text"; readonly text: string } | {
        readonly type: "media"
        readonly data: string
        readonly mediaType: string
      }
    >
  }

/**
 * The result of a tool call (`result` instead of `output` in AI SDK v4).
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolResultPart {
  readonly type: "tool-result"
  readonly toolCallId: string
  readonly toolName: string
  readonly output: ToolResultOutput
  readonly providerOptions?: ProviderOptions
}

/**
 * A system message.
 *
 * @since 0.1.0
 * @category models
 */
export interface SystemModelMessage {
  readonly role: "system"
  readonly content: string
  readonly providerOptions?: ProviderOptions
}

/**
 * A user message.
 *
 * @since 0.1.0
 * @category models
 */
export interface UserModelMessage {
  readonly role: "user"
  readonly content: string | ReadonlyArray<TextPart | ImagePart | FilePart>
  readonly providerOptions?: ProviderOptions
}

/**
 * An assistant message.
 *
 * @since 0.1.0
 * @category models
 */
export interface AssistantModelMessage {
  readonly role: "assistant"
  readonly content: string | ReadonlyArray<TextPart | FilePart | ReasoningPart | ToolCallPart | ToolResultPart>
  readonly providerOptions?: ProviderOptions
}

/**
 * A tool message: the results of the calls of the assistant message before it.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolModelMessage {
  readonly role: "tool"
  readonly content: ReadonlyArray<ToolResultPart>
  readonly providerOptions?: ProviderOptions
}

/**
 * An AI SDK v5 `ModelMessage`.
 *
 * @since 0.1.0
 * @category models
 */
export type ModelMessage = SystemModelMessage | UserModelMessage | AssistantModelMessage | ToolModelMessage

// =============================================================================
// Decoding
// =============================================================================

const format = "ai-sdk" as const

interface Decoding extends PartsCodec.Decoding {
  readonly wrapped: boolean
  readonly document: unknown
}

const decodings = new WeakMap<Adapter.Decoded, Decoding>()

const roles: ReadonlyArray<unknown> = ["system", "user", "assistant", "tool"]

const parseJson = (text: string): { readonly value: unknown } | undefined =>
  Either.match(Json.parse(text), { onLeft: () => undefined, onRight: (value) => ({ value }) })

const decodeWrapper = NativeSchema.decoder(Schema.Struct({ messages: NativeSchema.UnknownArray }))

const messagesOf = (
  document: unknown
): { readonly wrapped: boolean; readonly messages: ReadonlyArray<unknown> } | undefined =>
  Array.isArray(document)
    ? { wrapped: false, messages: document }
    : isRecord(document) && !("role" in document) && Either.isRight(decodeWrapper(document))
    ? { wrapped: true, messages: document["messages"] as ReadonlyArray<unknown> }
    : undefined

/** A message's own fields: `providerOptions`, when present and not `undefined`, is an object (by provider). */
const decodeFields = NativeSchema.decoder(
  Schema.Struct({
    providerOptions: Schema.optional(
      NativeSchema.saying(NativeSchema.NativeObject, () => "has providerOptions that are not an object")
    )
  })
)

const decodeText = NativeSchema.decoder(
  Schema.Struct({ text: NativeSchema.required(NativeSchema.Text, () => "has no string text") })
)

const readText: PartsCodec.PartReader<string> = (part, where) =>
  Either.mapLeft(Either.map(decodeText(part), ({ text }) => text), (problem) => `${where} ${problem}`)

const decodeImage = NativeSchema.decoder(
  Schema.Struct({ image: NativeSchema.required(Schema.Unknown, () => "has no image") })
)

const decodeFileData = NativeSchema.decoder(
  Schema.Struct({ data: NativeSchema.required(Schema.Unknown, () => "has no data") })
)

const decodeMediaType = NativeSchema.decoder(NativeSchema.saying(NativeSchema.Text, () => "has no string mediaType"))

/** A file: its data, and its media type (`mimeType` in AI SDK v4); it stands as its name, or its media type. */
const readFile: PartsCodec.PartReader<string> = (part, where) =>
  Either.mapLeft(
    Either.gen(function*() {
      yield* decodeFileData(part)
      const mediaType = yield* decodeMediaType(part["mediaType"] ?? part["mimeType"])
      return `[file ${typeof part["filename"] === "string" ? part["filename"] : mediaType}]`
    }),
    (problem) => `${where} ${problem}`
  )

const decodeCall = NativeSchema.decoder(
  Schema.Struct({
    toolCallId: NativeSchema.required(NativeSchema.Text, () => "has no string toolCallId"),
    toolName: NativeSchema.required(NativeSchema.Text, () => "has no string toolName")
  })
)

/** A tool call: its id and name, and its `input` (v4 `args`) as JSON text. */
const readCall: PartsCodec.PartReader<PartsCodec.CallRead> = (part, where) =>
  Either.mapLeft(
    Either.flatMap(decodeCall(part), ({ toolCallId, toolName }) =>
      "input" in part || "args" in part
        ? Either.right({
          id: toolCallId,
          name: toolName,
          arguments: jsonText("input" in part ? part["input"] : part["args"])
        })
        : Either.left("has neither an input (v5) nor args (v4)")),
    (problem) => `${where} ${problem}`
  )

const OutputItem = Schema.Union(
  Schema.Struct({ type: Schema.Literal("text"), text: NativeSchema.Text }),
  Schema.Struct({ type: Schema.Literal("media"), mediaType: NativeSchema.Text })
)

const decodeOutputItem = NativeSchema.decoder(
  NativeSchema.saying(OutputItem, () => "is neither a text nor a media item")
)

const decodeOutputObject = NativeSchema.decoder(
  NativeSchema.saying(NativeSchema.NativeObject, (actual) => `is ${describe(actual)}, not an object with a type`)
)

const decodeTextValue = NativeSchema.decoder(Schema.Struct({ value: NativeSchema.Text }))

const decodeJsonValue = NativeSchema.decoder(Schema.Struct({ value: Schema.Unknown }))

const decodeContentValue = NativeSchema.decoder(Schema.Struct({ value: Schema.Array(Schema.Unknown) }))

/** The text of a tool output: text as it is, JSON values (an agentic-workspace/v1 envelope) as JSON text. */
const outputText = (raw: unknown, where: string): Either.Either<string, string> =>
  Either.gen(function*() {
    const output = yield* Either.mapLeft(decodeOutputObject(raw), (problem) => `${where} ${problem}`)
    const type = output["type"]
    switch (type) {
      case "text":
      case "error-text":
        return (yield* Either.mapLeft(decodeTextValue(output), () => `${where} is ${type} without a string value`))
          .value
      case "json":
      case "error-json":
        return jsonText(
          (yield* Either.mapLeft(decodeJsonValue(output), () => `${where} is ${type} without a value`)).value
        )
      case "content": {
        const { value } = yield* Either.mapLeft(
          decodeContentValue(output),
          () => `${where} is content without an array value`
        )
        const texts: Array<string> = []
        for (const [j, raw] of value.entries()) {
          const item = yield* Either.mapLeft(decodeOutputItem(raw), (problem) => `item ${j} of ${where} ${problem}`)
          texts.push(item.type === "text" ? item.text : `[media ${item.mediaType}]`)
        }
        return texts.join("\n")
      }
      default:
        return yield* Either.left(
          `${where} has the type ${describe(type)}; expected text, json, error-text, error-json or content`
        )
    }
  })

/** A tool result: its call's id and name, and its `output` (v4 `result`) as text. */
const readResult: PartsCodec.PartReader<PartsCodec.ResultRead> = (part, where) =>
  Either.gen(function*() {
    const { toolCallId, toolName } = yield* Either.mapLeft(decodeCall(part), (problem) => `${where} ${problem}`)
    const content = "output" in part
      ? yield* outputText(part["output"], `the output of ${where}`)
      : "result" in part
      ? (typeof part["result"] === "string" ? part["result"] : jsonText(part["result"]))
      : yield* Either.left(`${where} has neither an output (v5) nor a result (v4)`)
    return { toolCallId, name: toolName, content }
  })

const readImage: PartsCodec.PartReader<string> = (part, where) =>
  Either.mapLeft(Either.map(decodeImage(part), () => "[image]"), (problem) => `${where} ${problem}`)

const decodeMessages = PartsCodec.messagesDecoder({
  messageName: "a ModelMessage",
  contentExpected: (role) => (role === "tool" ? "an array of tool-result parts" : "a string or an array of parts"),
  checkFields: decodeFields,
  user: new Map([["text", readText], ["image", readImage], ["file", readFile]]),
  userHolds: "text, image and file parts",
  assistant: new Map<string, PartsCodec.PartReader<string | undefined>>([
    ["text", readText],
    ["reasoning", (part, where) => Either.map(readText(part, where), () => undefined)],
    ["redacted-reasoning", () => Either.right(undefined)],
    ["file", readFile]
  ]),
  assistantHolds: "text, file, reasoning, tool-call and tool-result parts",
  toolCall: readCall,
  toolResult: readResult
})

function* decodeWith(document: unknown): Cooperative.Steps<Either.Either<Decoding, PartsCodec.Refusal>> {
  const found = messagesOf(document)
  if (found === undefined) {
    return Either.left({
      index: undefined,
      reason: `expected an array of AI SDK ModelMessages or an object with a messages array, not ${describe(document)}`
    })
  }
  return Either.map(
    yield* decodeMessages(found.messages),
    (decoding) => ({ ...decoding, wrapped: found.wrapped, document })
  )
}

// =============================================================================
// Encoding
// =============================================================================

const textPart = (text: string): Native => ({ type: "text", text })

const toolCallPart = (call: Transcript.ToolCall): Native => ({
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
const changedResult = (part: Native, result: Transcript.ToolResult): Native =>
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

const emptyDecoding: Decoding = { ...PartsCodec.emptyDecoding, wrapped: false, document: [] }

const encodeDocument = (decoding: Decoding, view: Transcript.Transcript): unknown => {
  if (PartsCodec.isWhole(decoding, view)) return decoding.document
  const messages = PartsCodec.encodeMessages(decoding, view, vocabulary)
  return decoding.wrapped ? { ...(decoding.document as Native), messages } : messages
}

function* decodeSteps(document: unknown): Cooperative.Steps<Either.Either<Adapter.Decoded, Adapter.AdapterError>> {
  return Either.match(yield* decodeWith(document), {
    onLeft: (refusal) =>
      Either.left(
        new Adapter.AdapterError({
          format,
          reason: refusal.reason,
          ...(refusal.index === undefined ? {} : { index: refusal.index })
        })
      ),
    onRight: (decoding) => {
      const decoded: Adapter.Decoded = {
        format,
        transcript: decoding.transcript,
        encode: (view) => encodeDocument(decoding, view)
      }
      decodings.set(decoded, decoding)
      return Either.right(decoded)
    }
  })
}

const decode = (document: unknown): Either.Either<Adapter.Decoded, Adapter.AdapterError> =>
  Cooperative.runSync(decodeSteps(document))

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
 * adapter, which claims it.
 */
const detect = (document: unknown): boolean => {
  const found = messagesOf(document)
  return found !== undefined &&
    found.messages.every((message) => isRecord(message) && roles.includes(message["role"])) &&
    found.messages.some(hasAiSdkMarker)
}

// =============================================================================
// API
// =============================================================================

/**
 * The AI SDK `ModelMessage` adapter. It decodes an array of messages or an
 * object with a `messages` array (its other fields kept); neutral ids are
 * `m<index>` for the first neutral message of native message `index` and
 * `m<index>.<k>` for the next ones (one per tool result of a tool message, one
 * per provider-executed result of an assistant message). A tool call's
 * `input` (v4 `args`) becomes its JSON text; a tool output is its text
 * (`text`, `error-text`, the text items of `content`) or its JSON text
 * (`json`, `error-json`, an agentic-workspace/v1 envelope included).
 *
 * @since 0.1.0
 * @category adapters
 */
export const adapter: Adapter.Adapter = { format, detect, decode, decodeSteps }

/**
 * A `Decoded` of AI SDK messages that remembers their type (`ModelMessage`
 * of the `ai` package, `LanguageModelV2Message` of `@ai-sdk/provider`, or
 * this module's), so that `toMessages` gives back the same type.
 *
 * @since 0.1.0
 * @category models
 */
export interface DecodedMessages<M> extends Adapter.Decoded {
  readonly messageType?: (message: M) => M
}

/**
 * The neutral transcript of AI SDK messages an agent holds in memory, and how
 * to write a view of it back. `M` is the type of the messages given: the
 * view comes back as an array of it (see `toMessages`).
 *
 * @example
 * ```ts
 * import { AiSdkMessages } from "context-compressor/adapters"
 * import { Either } from "effect"
 *
 * const messages: Array<AiSdkMessages.ModelMessage> = [
 *   { role: "user", content: "list the files" },
 *   { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "bash", input: { command: "ls" } }] },
 *   { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "bash", output: { type: "text", value: "src" } }] }
 * ]
 * const decoded = Either.getOrThrow(AiSdkMessages.fromMessages(messages))
 * assert.deepStrictEqual(decoded.transcript.map((message) => message.id), ["m0", "m1", "m2"])
 * assert.deepStrictEqual(AiSdkMessages.toMessages(decoded, decoded.transcript), messages)
 * ```
 *
 * @since 0.1.0
 * @category decoding
 */
export const fromMessages = <M extends ModelMessage = ModelMessage>(
  messages: ReadonlyArray<M>
): Either.Either<DecodedMessages<M>, Adapter.AdapterError> => decode(messages)

/**
 * A view as AI SDK messages: the messages of the decoded document come back as
 * they were (regrouped, narrowed or re-encoded where the view changed them),
 * compacted blocks as user messages of one text part, in the message type the
 * messages were decoded from: every message it writes anew (a user message of
 * text parts, an assistant message of some of its parts, a tool result as
 * text) is valid both as an `ai` `ModelMessage` and as a
 * `LanguageModelV2Message`. For a `Decoded` of another format every message of
 * the view is written anew.
 *
 * @since 0.1.0
 * @category encoding
 */
export const toMessages: {
  <M>(decoded: DecodedMessages<M>, view: Transcript.Transcript): Array<M>
  (decoded: Adapter.Decoded, view: Transcript.Transcript): Array<ModelMessage>
} = (decoded: Adapter.Decoded, view: Transcript.Transcript): Array<never> => {
  const decoding = decodings.get(decoded) ?? emptyDecoding
  if (PartsCodec.isWhole(decoding, view)) return [...decoding.natives] as Array<never>
  return PartsCodec.encodeMessages(decoding, view, vocabulary) as Array<never>
}
