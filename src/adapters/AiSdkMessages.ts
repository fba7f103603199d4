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
import * as Adapter from "./Adapter.js"
import * as PartsCodec from "./internal/PartsCodec.js"
import { describe, isRecord, jsonText, type Native, neutralId, parseOrText } from "./internal/PartsCodec.js"
import * as Transcript from "../Transcript.js"

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
export type JSONValue = null | string | number | boolean | { readonly [key: string]: JSONValue } | ReadonlyArray<JSONValue>

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
      { readonly type: "text"; readonly text: string } | { readonly type: "media"; readonly data: string; readonly mediaType: string }
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


interface Decoding {
  readonly wrapped: boolean
  readonly document: unknown
  readonly natives: ReadonlyArray<Native>
  /** The neutral messages of each native message, by its index. */
  readonly neutral: ReadonlyArray<ReadonlyArray<Transcript.Message>>
  readonly transcript: Transcript.Transcript
  /** The native message each neutral message came from, by neutral id. */
  readonly origins: ReadonlyMap<string, { readonly index: number; readonly message: Transcript.Message }>
  /** The index of the tool-result part each neutral tool result came from, by neutral id. */
  readonly resultParts: ReadonlyMap<string, number>
  readonly callNames: ReadonlyMap<string, string>
}

const decodings = new WeakMap<Adapter.Decoded, Decoding>()

class Refusal {
  constructor(readonly index: number | undefined, readonly reason: string) {}
}

const refuse = (index: number | undefined, reason: string): never => {
  throw new Refusal(index, reason)
}


const roles: ReadonlyArray<unknown> = ["system", "user", "assistant", "tool"]



const parseJson = (text: string): { readonly value: unknown } | undefined => {
  try {
    return { value: JSON.parse(text) as unknown }
  } catch {
    return undefined
  }
}



const messagesOf = (document: unknown): { readonly wrapped: boolean; readonly messages: ReadonlyArray<unknown> } | undefined =>
  Array.isArray(document)
    ? { wrapped: false, messages: document }
    : isRecord(document) && !("role" in document) && Array.isArray(document["messages"])
    ? { wrapped: true, messages: document["messages"] }
    : undefined

const partsOf = (message: Native, index: number, role: string): ReadonlyArray<Native> => {
  const content = message["content"]
  if (!Array.isArray(content)) return refuse(index, `the ${role} message's content is ${describe(content)}, not ${role === "tool" ? "an array of tool-result parts" : "a string or an array of parts"}`)
  content.forEach((part, k) => {
    if (!isRecord(part) || typeof part["type"] !== "string") refuse(index, `part ${k} of the ${role} message is ${describe(part)}, not a part with a type`)
  })
  return content as ReadonlyArray<Native>
}

const textOf = (part: Native, index: number, k: number, role: string): string => {
  const text = part["text"]
  return typeof text === "string" ? text : refuse(index, `${part["type"]} part ${k} of the ${role} message has no string text`)
}

const fileText = (part: Native, index: number, k: number, role: string): string => {
  const mediaType = part["mediaType"] ?? part["mimeType"]
  if (!("data" in part)) refuse(index, `file part ${k} of the ${role} message has no data`)
  if (typeof mediaType !== "string") refuse(index, `file part ${k} of the ${role} message has no string mediaType`)
  return `[file ${typeof part["filename"] === "string" ? part["filename"] : mediaType}]`
}

/** The text of a tool output: text as it is, JSON values (an agentic-workspace/v1 envelope) as JSON text. */
const outputText = (output: unknown, index: number, k: number, role: string): string => {
  const where = `the output of tool-result part ${k} of the ${role} message`
  if (!isRecord(output)) return refuse(index, `${where} is ${describe(output)}, not an object with a type`)
  switch (output["type"]) {
    case "text":
    case "error-text":
      return typeof output["value"] === "string" ? output["value"] : refuse(index, `${where} is ${output["type"]} without a string value`)
    case "json":
    case "error-json":
      return "value" in output ? jsonText(output["value"]) : refuse(index, `${where} is ${output["type"]} without a value`)
    case "content": {
      const value = output["value"]
      if (!Array.isArray(value)) return refuse(index, `${where} is content without an array value`)
      return value.map((item, j) => {
        if (isRecord(item) && item["type"] === "text" && typeof item["text"] === "string") return item["text"]
        if (isRecord(item) && item["type"] === "media" && typeof item["mediaType"] === "string") return `[media ${item["mediaType"]}]`
        return refuse(index, `item ${j} of ${where} is neither a text nor a media item`)
      }).join("\n")
    }
    default:
      return refuse(index, `${where} has the type ${describe(output["type"])}; expected text, json, error-text, error-json or content`)
  }
}

const toolResult = (part: Native, index: number, k: number, role: string, id: string): Transcript.ToolResult => {
  if (typeof part["toolCallId"] !== "string") refuse(index, `tool-result part ${k} of the ${role} message has no string toolCallId`)
  if (typeof part["toolName"] !== "string") refuse(index, `tool-result part ${k} of the ${role} message has no string toolName`)
  const content = "output" in part
    ? outputText(part["output"], index, k, role)
    : "result" in part
    ? (typeof part["result"] === "string" ? part["result"] : jsonText(part["result"]))
    : refuse(index, `tool-result part ${k} of the ${role} message has neither an output (v5) nor a result (v4)`)
  return new Transcript.ToolResult(
    { id, toolCallId: part["toolCallId"] as string, name: part["toolName"] as string, content },
    { disableValidation: true }
  )
}

const decodeWith = (document: unknown): Decoding => {
  const found = messagesOf(document)
  if (found === undefined) return refuse(undefined, `expected an array of AI SDK ModelMessages or an object with a messages array, not ${describe(document)}`)
  const natives: Array<Native> = []
  const neutral: Array<ReadonlyArray<Transcript.Message>> = []
  const origins = new Map<string, { index: number; message: Transcript.Message }>()
  const resultParts = new Map<string, number>()
  const callNames = new Map<string, string>()
  found.messages.forEach((raw, index) => {
    if (!isRecord(raw)) return refuse(index, `message ${index} is ${describe(raw)}, not a message object`)
    const role = raw["role"]
    if (!roles.includes(role)) return refuse(index, `message ${index} has the role ${describe(role)}; a ModelMessage is system, user, assistant or tool`)
    if (raw["providerOptions"] !== undefined && !isRecord(raw["providerOptions"])) refuse(index, `message ${index} has providerOptions that are not an object`)
    const out: Array<Transcript.Message> = []
    const id = (k: number) => neutralId(index, k)
    const content = raw["content"]
    switch (role) {
      case "system":
        if (typeof content !== "string") refuse(index, `the system message's content is ${describe(content)}, not a string`)
        out.push(new Transcript.SystemMessage({ id: id(0), content: content as string }, { disableValidation: true }))
        break
      case "user": {
        const text = typeof content === "string"
          ? content
          : partsOf(raw, index, "user").map((part, k) => {
            switch (part["type"]) {
              case "text":
                return textOf(part, index, k, "user")
              case "image":
                return "image" in part ? "[image]" : refuse(index, `image part ${k} of the user message has no image`)
              case "file":
                return fileText(part, index, k, "user")
              default:
                return refuse(index, `part ${k} of the user message has the type ${describe(part["type"])}; a user message holds text, image and file parts`)
            }
          }).join("\n")
        out.push(new Transcript.UserMessage({ id: id(0), content: text }, { disableValidation: true }))
        break
      }
      case "assistant": {
        const texts: Array<string> = []
        const calls: Array<Transcript.ToolCall> = []
        const results: Array<{ readonly part: Native; readonly k: number }> = []
        if (typeof content === "string") texts.push(content)
        else {
          partsOf(raw, index, "assistant").forEach((part, k) => {
            switch (part["type"]) {
              case "text":
                texts.push(textOf(part, index, k, "assistant"))
                break
              case "reasoning":
                textOf(part, index, k, "assistant")
                break
              case "redacted-reasoning":
                break
              case "file":
                texts.push(fileText(part, index, k, "assistant"))
                break
              case "tool-call": {
                if (typeof part["toolCallId"] !== "string") refuse(index, `tool-call part ${k} of the assistant message has no string toolCallId`)
                if (typeof part["toolName"] !== "string") refuse(index, `tool-call part ${k} of the assistant message has no string toolName`)
                const input = "input" in part ? part["input"] : "args" in part ? part["args"] : refuse(index, `tool-call part ${k} of the assistant message has neither an input (v5) nor args (v4)`)
                const call = new Transcript.ToolCall(
                  { id: part["toolCallId"] as string, name: part["toolName"] as string, arguments: jsonText(input) },
                  { disableValidation: true }
                )
                callNames.set(call.id, call.name)
                calls.push(call)
                break
              }
              case "tool-result":
                results.push({ part, k })
                break
              default:
                refuse(index, `part ${k} of the assistant message has the type ${describe(part["type"])}; an assistant message holds text, file, reasoning, tool-call and tool-result parts`)
            }
          })
        }
        out.push(new Transcript.AssistantMessage({ id: id(0), content: texts.join("\n"), toolCalls: calls }, { disableValidation: true }))
        // Results of provider-executed calls follow their call, as their own neutral messages.
        for (const { k, part } of results) {
          const result = toolResult(part, index, k, "assistant", id(out.length))
          resultParts.set(result.id, k)
          out.push(result)
        }
        break
      }
      case "tool": {
        const parts = partsOf(raw, index, "tool")
        if (parts.length === 0) refuse(index, "the tool message holds no tool results")
        parts.forEach((part, k) => {
          if (part["type"] !== "tool-result") refuse(index, `part ${k} of the tool message has the type ${describe(part["type"])}; a tool message holds tool-result parts only`)
          const result = toolResult(part, index, k, "tool", id(k))
          resultParts.set(result.id, k)
          out.push(result)
        })
        break
      }
    }
    natives.push(raw)
    neutral.push(out)
    for (const message of out) origins.set(message.id, { index, message })
  })
  return { wrapped: found.wrapped, document, natives, neutral, transcript: neutral.flat(), origins, resultParts, callNames }
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
      return parsed === undefined ? { type: output["type"] === "json" ? "text" : "error-text", value: content } : { type: output["type"], value: parsed.value }
    }
    default:
      return { type: "text", value: content }
  }
}

/** A tool-result part carrying a changed neutral result, in the version (v5 `output`, v4 `result`) it came in. */
const changedResult = (part: Native, result: Transcript.ToolResult): Native =>
  "output" in part
    ? { ...part, toolCallId: result.toolCallId, output: changedOutput(part["output"] as Native, result.content) }
    : { ...part, toolCallId: result.toolCallId, result: typeof part["result"] === "string" ? result.content : parseOrText(result.content) }

const vocabulary: PartsCodec.Vocabulary = {
  message: (role, content) => ({ role, content }),
  text: textPart,
  toolCall: toolCallPart,
  toolResult: (toolCallId, toolName, value) => ({ type: "tool-result", toolCallId, toolName, output: { type: "text", value } }),
  callIdOf: (part) => part["toolCallId"] as string,
  withArguments: (part, args) => ("input" in part ? { ...part, input: parseOrText(args) } : { ...part, args: parseOrText(args) }),
  changedResult
}

const emptyDecoding: Decoding = {
  wrapped: false,
  document: [],
  natives: [],
  neutral: [],
  transcript: [],
  origins: new Map(),
  resultParts: new Map(),
  callNames: new Map()
}

const isWhole = (decoding: Decoding, view: Transcript.Transcript): boolean =>
  view.length === decoding.transcript.length && view.every((message, i) => message === decoding.transcript[i])

const encodeDocument = (decoding: Decoding, view: Transcript.Transcript): unknown => {
  if (isWhole(decoding, view)) return decoding.document
  const messages = PartsCodec.encodeMessages(decoding, view, vocabulary)
  return decoding.wrapped ? { ...(decoding.document as Native), messages } : messages
}

const decode = (document: unknown): Either.Either<Adapter.Decoded, Adapter.AdapterError> => {
  try {
    const decoding = decodeWith(document)
    const decoded: Adapter.Decoded = { format, transcript: decoding.transcript, encode: (view) => encodeDocument(decoding, view) }
    decodings.set(decoded, decoding)
    return Either.right(decoded)
  } catch (error) {
    if (error instanceof Refusal) {
      return Either.left(new Adapter.AdapterError({ format, reason: error.reason, ...(error.index === undefined ? {} : { index: error.index }) }))
    }
    return Either.left(new Adapter.AdapterError({ format, reason: `the document could not be read: ${error instanceof Error ? error.message : String(error)}` }))
  }
}

// =============================================================================
// Detection
// =============================================================================

/** A part only the AI SDK writes: tool parts with `toolCallId`/`toolName`, an image part with `image`. */
const isAiSdkPart = (part: unknown): boolean =>
  isRecord(part) &&
  (((part["type"] === "tool-call" || part["type"] === "tool-result") && typeof part["toolCallId"] === "string" && typeof part["toolName"] === "string") ||
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
export const adapter: Adapter.Adapter = { format, detect, decode }

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
  if (isWhole(decoding, view)) return [...decoding.natives] as Array<never>
  return PartsCodec.encodeMessages(decoding, view, vocabulary) as Array<never>
}
