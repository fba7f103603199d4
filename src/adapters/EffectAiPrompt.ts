/**
 * The @effect/ai `Prompt` adapter: a `Prompt.Prompt` value, its encoded form
 * (`{ content: [...] }`, as `Schema.encode(Prompt.Prompt)` gives it) or a bare
 * array of encoded messages, to the neutral transcript and back. A view is
 * written in the shape that came in: a `Prompt` value for a `Prompt` value,
 * encoded JSON for JSON.
 *
 * @since 0.1.0
 */
import * as Prompt from "@effect/ai/Prompt"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Adapter from "./Adapter.js"
import * as PartsCodec from "./internal/PartsCodec.js"
import { describe, isRecord, jsonText, type Native, neutralId, parseOrText } from "./internal/PartsCodec.js"
import * as Transcript from "../Transcript.js"

const format = "effect-ai" as const

/** A message or a part, encoded or a `Prompt` value: both are plain objects read by their fields. */

/** How the document held its messages. */
type Shape = "prompt" | "wrapper" | "array"

interface Decoding {
  readonly shape: Shape
  readonly document: unknown
  readonly natives: ReadonlyArray<Native>
  /** The neutral messages of each native message, by its index. */
  readonly neutral: ReadonlyArray<ReadonlyArray<Transcript.Message>>
  readonly transcript: Transcript.Transcript
  /** The native message each neutral message came from, by neutral id. */
  readonly origins: ReadonlyMap<string, { readonly index: number; readonly message: Transcript.Message }>
  /** The index of the tool-result part each neutral tool result came from, by neutral id. */
  readonly resultParts: ReadonlyMap<string, number>
  /** Tool names by call id, for results written fresh. */
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

/** The neutral id of the `k`-th neutral message made from native message `index`. */

/** A value as JSON text: cycles, `bigint`s and nesting past the stack never throw. */

const resultText = (result: unknown): string => (typeof result === "string" ? result : jsonText(result))



const decodeMessageSchema = Schema.decodeUnknownEither(Prompt.Message)

// =============================================================================
// Decoding
// =============================================================================

const locate = (document: unknown): { readonly shape: Shape; readonly messages: ReadonlyArray<unknown> } => {
  if (Prompt.isPrompt(document)) {
    return Array.isArray(document.content) ? { shape: "prompt", messages: document.content } : refuse(undefined, "the Prompt's content is not an array of messages")
  }
  if (Array.isArray(document)) return { shape: "array", messages: document }
  if (isRecord(document) && Array.isArray(document["content"]) && !("role" in document)) return { shape: "wrapper", messages: document["content"] }
  return refuse(undefined, `expected a Prompt, an encoded Prompt ({ content: [...] }) or an array of encoded Prompt messages, not ${describe(document)}`)
}

const partsOf = (message: Native, index: number, role: string): ReadonlyArray<Native> => {
  const content = message["content"]
  if (!Array.isArray(content)) return refuse(index, `the ${role} message's content is ${describe(content)}, not an array of parts`)
  content.forEach((part, k) => {
    if (!isRecord(part) || typeof part["type"] !== "string") refuse(index, `part ${k} of the ${role} message is ${describe(part)}, not a part with a type`)
  })
  return content as ReadonlyArray<Native>
}

const textPartText = (part: Native, index: number, k: number, role: string): string => {
  const text = part["text"]
  return typeof text === "string" ? text : refuse(index, `${part["type"]} part ${k} of the ${role} message has no string text`)
}

const fileText = (part: Native, index: number, k: number, role: string): string => {
  if (typeof part["mediaType"] !== "string") refuse(index, `file part ${k} of the ${role} message has no string mediaType`)
  return `[file ${typeof part["fileName"] === "string" ? part["fileName"] : part["mediaType"]}]`
}

const toolResult = (part: Native, index: number, k: number, role: string, id: string): Transcript.ToolResult => {
  if (typeof part["id"] !== "string") refuse(index, `tool-result part ${k} of the ${role} message has no string id (the call it answers)`)
  if (typeof part["name"] !== "string") refuse(index, `tool-result part ${k} of the ${role} message has no string name`)
  if (typeof part["isFailure"] !== "boolean") refuse(index, `tool-result part ${k} of the ${role} message has no boolean isFailure`)
  return new Transcript.ToolResult(
    { id, toolCallId: part["id"] as string, name: part["name"] as string, content: resultText(part["result"]) },
    { disableValidation: true }
  )
}

const decodeWith = (document: unknown): Decoding => {
  const { messages, shape } = locate(document)
  const natives: Array<Native> = []
  const neutral: Array<ReadonlyArray<Transcript.Message>> = []
  const origins = new Map<string, { index: number; message: Transcript.Message }>()
  const resultParts = new Map<string, number>()
  const callNames = new Map<string, string>()
  messages.forEach((raw, index) => {
    if (!isRecord(raw)) return refuse(index, `message ${index} is ${describe(raw)}, not a message object`)
    const role = raw["role"]
    if (!roles.includes(role)) return refuse(index, `message ${index} has the role ${describe(role)}; a Prompt message is system, user, assistant or tool`)
    const out: Array<Transcript.Message> = []
    const id = (k: number) => neutralId(index, k)
    switch (role) {
      case "system": {
        const content = raw["content"]
        if (typeof content !== "string") refuse(index, `the system message's content is ${describe(content)}, not a string`)
        out.push(new Transcript.SystemMessage({ id: id(0), content: content as string }, { disableValidation: true }))
        break
      }
      case "user": {
        const content = raw["content"]
        const text = typeof content === "string"
          ? content
          : partsOf(raw, index, "user").map((part, k) => {
            switch (part["type"]) {
              case "text":
                return textPartText(part, index, k, "user")
              case "file":
                return fileText(part, index, k, "user")
              default:
                return refuse(index, `part ${k} of the user message has the type ${describe(part["type"])}; a user message holds text and file parts`)
            }
          }).join("\n")
        out.push(new Transcript.UserMessage({ id: id(0), content: text }, { disableValidation: true }))
        break
      }
      case "assistant": {
        const content = raw["content"]
        const texts: Array<string> = []
        const calls: Array<Transcript.ToolCall> = []
        const results: Array<{ readonly part: Native; readonly k: number }> = []
        if (typeof content === "string") texts.push(content)
        else {
          partsOf(raw, index, "assistant").forEach((part, k) => {
            switch (part["type"]) {
              case "text":
                texts.push(textPartText(part, index, k, "assistant"))
                break
              case "reasoning":
                textPartText(part, index, k, "assistant")
                break
              case "file":
                texts.push(fileText(part, index, k, "assistant"))
                break
              case "tool-call": {
                if (typeof part["id"] !== "string") refuse(index, `tool-call part ${k} of the assistant message has no string id`)
                if (typeof part["name"] !== "string") refuse(index, `tool-call part ${k} of the assistant message has no string name`)
                const call = new Transcript.ToolCall({ id: part["id"] as string, name: part["name"] as string, arguments: jsonText(part["params"]) }, { disableValidation: true })
                callNames.set(call.id, call.name)
                calls.push(call)
                break
              }
              case "tool-result":
                results.push({ part, k })
                break
              default:
                refuse(index, `part ${k} of the assistant message has the type ${describe(part["type"])}; an assistant message holds text, reasoning, file, tool-call and tool-result parts`)
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
    // Encoded messages must also be what `Prompt.make` accepts (options, file data, the rest).
    if (shape !== "prompt") {
      const checked = decodeMessageSchema(raw)
      if (Either.isLeft(checked)) {
        const issue = ParseResult.ArrayFormatter.formatErrorSync(checked.left)[0]
        refuse(index, `message ${index} is not an encoded Prompt message${issue === undefined ? "" : ` (at ${issue.path.join(".") || "the message"}: ${issue.message})`}`)
      }
    }
    natives.push(raw)
    neutral.push(out)
    for (const message of out) origins.set(message.id, { index, message })
  })
  return { shape, document, natives, neutral, transcript: neutral.flat(), origins, resultParts, callNames }
}

// =============================================================================
// Encoding
// =============================================================================

/** How new messages and parts are made: `Prompt` values, or encoded JSON. */
type Build = PartsCodec.Vocabulary

const promptParts = {
  callIdOf: (part: Native) => part["id"] as string,
  withArguments: (part: Native, args: string): Native => ({ ...part, params: parseOrText(args) }),
  changedResult: (part: Native, result: Transcript.ToolResult): Native => changedResult(part, result)
}

const buildJson: Build = {
  ...promptParts,
  message: (role, content) => ({ role, content }),
  text: (text) => ({ type: "text", text }),
  toolCall: (call) => ({ type: "tool-call", id: call.id, name: call.name, params: parseOrText(call.arguments) }),
  toolResult: (id, name, result) => ({ type: "tool-result", id, name, isFailure: false, result, providerExecuted: false })
}

const buildValue: Build = {
  ...promptParts,
  message: (role, content) => Prompt.makeMessage(role, { content } as never) as unknown as Native,
  text: (text) => Prompt.makePart("text", { text }) as unknown as Native,
  toolCall: (call) =>
    Prompt.makePart("tool-call", { id: call.id, name: call.name, params: parseOrText(call.arguments), providerExecuted: false }) as unknown as Native,
  toolResult: (id, name, result) => Prompt.makePart("tool-result", { id, name, isFailure: false, result, providerExecuted: false }) as unknown as Native
}



/** A tool-result part carrying a changed neutral result: JSON text goes back as the value it denotes when the original result was not text. */
const changedResult = (part: Native, result: Transcript.ToolResult): Native => ({
  ...part,
  id: result.toolCallId,
  result: typeof part["result"] === "string" ? result.content : parseOrText(result.content)
})

const emptyDecoding: Decoding = {
  shape: "prompt",
  document: Prompt.empty,
  natives: [],
  neutral: [],
  transcript: [],
  origins: new Map(),
  resultParts: new Map(),
  callNames: new Map()
}

/** Whether the view is the decoded transcript itself: then the document comes back as it is. */
const isWhole = (decoding: Decoding, view: Transcript.Transcript): boolean =>
  view.length === decoding.transcript.length && view.every((message, i) => message === decoding.transcript[i])

const encodeDocument = (decoding: Decoding, view: Transcript.Transcript): unknown => {
  if (isWhole(decoding, view)) return decoding.document
  switch (decoding.shape) {
    case "prompt":
      return Prompt.fromMessages(PartsCodec.encodeMessages(decoding, view, buildValue) as unknown as ReadonlyArray<Prompt.Message>)
    case "wrapper":
      return { ...(decoding.document as Native), content: PartsCodec.encodeMessages(decoding, view, buildJson) }
    case "array":
      return PartsCodec.encodeMessages(decoding, view, buildJson)
  }
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

const isMessageLike = (value: unknown): boolean => isRecord(value) && roles.includes(value["role"])

/** A tool part only @effect/ai writes: a tool call with `id`/`name`/`params`, a tool result with `id`/`name`/`result`. */
const hasPromptToolPart = (message: unknown): boolean => {
  const content = (message as Native)["content"]
  return Array.isArray(content) &&
    content.some((part) =>
      isRecord(part) &&
      typeof part["id"] === "string" &&
      typeof part["name"] === "string" &&
      ((part["type"] === "tool-call" && "params" in part) || (part["type"] === "tool-result" && "result" in part))
    )
}

/**
 * Whether a document looks like a Prompt: a `Prompt` value; an object with a
 * `content` array of messages and no `role` (the encoded Prompt); or an array
 * of messages with at least one @effect/ai tool part. A bare array of text
 * messages is left to the OpenAI chat adapter, which claims it.
 */
const detect = (document: unknown): boolean => {
  if (Prompt.isPrompt(document)) return true
  if (Array.isArray(document)) return document.every(isMessageLike) && document.some(hasPromptToolPart)
  return isRecord(document) && !("role" in document) && Array.isArray(document["content"]) && document["content"].every(isMessageLike)
}

// =============================================================================
// API
// =============================================================================

/**
 * The @effect/ai `Prompt` adapter. It decodes a `Prompt.Prompt` value, an
 * encoded Prompt (`{ content: [...] }`, other fields kept) or a bare array of
 * encoded messages; neutral ids are `m<index>` for the first neutral message
 * of native message `index` and `m<index>.<k>` for the next ones (one per tool
 * result of a tool message, one per provider-executed result of an assistant
 * message). A tool call's `params` becomes its JSON text; a tool result's
 * `result` is its text when it is a string, else its JSON text (an
 * agentic-workspace/v1 envelope object included). `detect` claims `Prompt`
 * values, the `{ content: [...] }` wrapper, and arrays with an @effect/ai
 * tool part; not an array of plain text messages.
 *
 * @since 0.1.0
 * @category adapters
 */
export const adapter: Adapter.Adapter = { format, detect, decode }

/**
 * The neutral transcript of a `Prompt` an Effect agent runtime holds in memory,
 * and how to write a view of it back as a `Prompt`.
 *
 * @since 0.1.0
 * @category decoding
 */
export const fromPrompt = (prompt: Prompt.Prompt): Either.Either<Adapter.Decoded, Adapter.AdapterError> => decode(prompt)

/**
 * A view as a `Prompt` value: the messages of the decoded document come back
 * as they were (regrouped, narrowed or re-encoded where the view changed
 * them), compacted blocks as user messages of one text part. A document
 * decoded from JSON is written as JSON and decoded into a `Prompt`; a
 * `Decoded` of another format has every message of the view written anew.
 *
 * @since 0.1.0
 * @category encoding
 */
export const toPrompt = (decoded: Adapter.Decoded, view: Transcript.Transcript): Prompt.Prompt => {
  const decoding = decodings.get(decoded) ?? emptyDecoding
  if (decoding.shape === "prompt") return encodeDocument(decoding, view) as Prompt.Prompt
  return Prompt.make(PartsCodec.encodeMessages(decoding, view, buildJson) as unknown as ReadonlyArray<Prompt.MessageEncoded>)
}
