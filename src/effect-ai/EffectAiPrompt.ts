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
import * as Adapter from "../adapters/Adapter.js"
import * as NativeSchema from "../adapters/internal/NativeSchema.js"
import * as PartsCodec from "../adapters/internal/PartsCodec.js"
import { describe, isRecord, jsonText, type Native, parseOrText } from "../adapters/internal/PartsCodec.js"
import * as Cooperative from "../internal/Cooperative.js"
import * as Json from "../Json.js"
import * as Transcript from "../Transcript.js"

const format = "effect-ai" as const

/** How the document held its messages. */
type Shape = "prompt" | "wrapper" | "array"

interface Decoding extends PartsCodec.Decoding {
  readonly shape: Shape
  readonly document: unknown
}

const decodings = new WeakMap<Adapter.Decoded, Decoding>()

const roles: ReadonlyArray<unknown> = ["system", "user", "assistant", "tool"]

// A number `Json.parse` kept as a placeholder is its literal, as in any other result.
const resultText = (
  result: unknown
): string => (typeof result === "string" && !Json.isRawNumber(result) ? result : jsonText(result))

const decodeMessageSchema = Schema.decodeUnknownEither(Prompt.Message)

// =============================================================================
// Decoding
// =============================================================================

const decodeWrapper = NativeSchema.decoder(Schema.Struct({ content: NativeSchema.UnknownArray }))

const locate = (
  document: unknown
): Either.Either<{ readonly shape: Shape; readonly messages: ReadonlyArray<unknown> }, PartsCodec.Refusal> => {
  if (Prompt.isPrompt(document)) {
    return Array.isArray(document.content)
      ? Either.right({ shape: "prompt", messages: document.content })
      : Either.left({ index: undefined, reason: "the Prompt's content is not an array of messages" })
  }
  if (Array.isArray(document)) return Either.right({ shape: "array", messages: document })
  if (isRecord(document) && !("role" in document) && Either.isRight(decodeWrapper(document))) {
    return Either.right({ shape: "wrapper", messages: document["content"] as ReadonlyArray<unknown> })
  }
  return Either.left({
    index: undefined,
    reason: `expected a Prompt, an encoded Prompt ({ content: [...] }) or an array of encoded Prompt messages, not ${
      describe(document)
    }`
  })
}

const decodeText = NativeSchema.decoder(
  Schema.Struct({ text: NativeSchema.required(NativeSchema.Text, () => "has no string text") })
)

const readText: PartsCodec.PartReader<string> = (part, where) =>
  Either.mapLeft(Either.map(decodeText(part), ({ text }) => text), (problem) => `${where} ${problem}`)

const decodeFile = NativeSchema.decoder(
  Schema.Struct({ mediaType: NativeSchema.required(NativeSchema.Text, () => "has no string mediaType") })
)

/** A file stands as its name, or its media type. */
const readFile: PartsCodec.PartReader<string> = (part, where) =>
  Either.mapLeft(
    Either.map(decodeFile(part), ({ mediaType }) =>
      `[file ${typeof part["fileName"] === "string" ? part["fileName"] : mediaType}]`),
    (problem) =>
      `${where} ${problem}`
  )

const decodeCall = NativeSchema.decoder(
  Schema.Struct({
    id: NativeSchema.required(NativeSchema.Text, () => "has no string id"),
    name: NativeSchema.required(NativeSchema.Text, () => "has no string name")
  })
)

/** A tool call: its id and name, and its `params` as JSON text. */
const readCall: PartsCodec.PartReader<PartsCodec.CallRead> = (part, where) =>
  Either.mapLeft(
    Either.map(decodeCall(part), ({ id, name }) => ({ id, name, arguments: jsonText(part["params"]) })),
    (problem) => `${where} ${problem}`
  )

const decodeResult = NativeSchema.decoder(
  Schema.Struct({
    id: NativeSchema.required(NativeSchema.Text, () => "has no string id (the call it answers)"),
    name: NativeSchema.required(NativeSchema.Text, () => "has no string name"),
    isFailure: NativeSchema.required(Schema.Boolean, () => "has no boolean isFailure")
  })
)

/** A tool result: the call it answers, and its `result`, as text when it is a string, else as JSON text. */
const readResult: PartsCodec.PartReader<PartsCodec.ResultRead> = (part, where) =>
  Either.mapLeft(
    Either.map(decodeResult(part), ({ id, name }) => ({ toolCallId: id, name, content: resultText(part["result"]) })),
    (problem) => `${where} ${problem}`
  )

/** Encoded messages must also be what `Prompt.make` accepts (options, file data, the rest). */
const checkEncoded = (message: Native, index: number): Either.Either<unknown, string> =>
  Either.mapLeft(decodeMessageSchema(message), (error) => {
    const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
    return `message ${index} is not an encoded Prompt message${
      issue === undefined ? "" : ` (at ${issue.path.join(".") || "the message"}: ${issue.message})`
    }`
  })

const grammar: PartsCodec.Grammar = {
  messageName: "a Prompt message",
  contentExpected: () => "an array of parts",
  user: new Map([["text", readText], ["file", readFile]]),
  userHolds: "text and file parts",
  assistant: new Map<string, PartsCodec.PartReader<string | undefined>>([
    ["text", readText],
    ["reasoning", (part, where) => Either.map(readText(part, where), () => undefined)],
    ["file", readFile]
  ]),
  assistantHolds: "text, reasoning, file, tool-call and tool-result parts",
  toolCall: readCall,
  toolResult: readResult
}

const decodePromptMessages = PartsCodec.messagesDecoder(grammar)

const decodeEncodedMessages = PartsCodec.messagesDecoder({ ...grammar, checkWhole: checkEncoded })

function* decodeWith(document: unknown): Cooperative.Steps<Either.Either<Decoding, PartsCodec.Refusal>> {
  const located = locate(document)
  if (Either.isLeft(located)) return Either.left(located.left)
  const { messages, shape } = located.right
  return Either.map(
    yield* (shape === "prompt" ? decodePromptMessages : decodeEncodedMessages)(messages),
    (decoding) => ({ ...decoding, shape, document })
  )
}

// =============================================================================
// Encoding
// =============================================================================

/** How new messages and parts are made: `Prompt` values, or encoded JSON. */
type Build = PartsCodec.Vocabulary

const promptParts = {
  withArguments: (part: Native, args: string): Native => ({ ...part, params: parseOrText(args) }),
  changedResult: (part: Native, result: Transcript.ToolResult): Native => changedResult(part, result)
}

const buildJson: Build = {
  ...promptParts,
  message: (role, content) => ({ role, content }),
  text: (text) => ({ type: "text", text }),
  toolCall: (call) => ({ type: "tool-call", id: call.id, name: call.name, params: parseOrText(call.arguments) }),
  toolResult: (id, name, result) => ({
    type: "tool-result",
    id,
    name,
    isFailure: false,
    result,
    providerExecuted: false
  })
}

const buildValue: Build = {
  ...promptParts,
  message: (role, content) => Prompt.makeMessage(role, { content } as never) as unknown as Native,
  text: (text) => Prompt.makePart("text", { text }) as unknown as Native,
  toolCall: (call) =>
    Prompt.makePart("tool-call", {
      id: call.id,
      name: call.name,
      params: parseOrText(call.arguments),
      providerExecuted: false
    }) as unknown as Native,
  toolResult: (id, name, result) =>
    Prompt.makePart("tool-result", { id, name, isFailure: false, result, providerExecuted: false }) as unknown as Native
}

/** A tool-result part carrying a changed neutral result: JSON text goes back as the value it denotes when the original result was not text. */
const changedResult = (part: Native, result: Transcript.ToolResult): Native => ({
  ...part,
  id: result.toolCallId,
  result: typeof part["result"] === "string" ? result.content : parseOrText(result.content)
})

const emptyDecoding: Decoding = { ...PartsCodec.emptyDecoding, shape: "prompt", document: Prompt.empty }

const encodeDocument = (decoding: Decoding, view: Transcript.Transcript): unknown => {
  if (PartsCodec.isWhole(decoding, view)) return decoding.document
  switch (decoding.shape) {
    case "prompt":
      return Prompt.fromMessages(
        PartsCodec.encodeMessages(decoding, view, buildValue) as unknown as ReadonlyArray<Prompt.Message>
      )
    case "wrapper":
      return { ...(decoding.document as Native), content: PartsCodec.encodeMessages(decoding, view, buildJson) }
    case "array":
      return PartsCodec.encodeMessages(decoding, view, buildJson)
  }
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

const decodeDocument = (document: unknown): Either.Either<Adapter.Decoded, Adapter.AdapterError> =>
  Cooperative.runSync(decodeSteps(document))

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
  return isRecord(document) && !("role" in document) && Array.isArray(document["content"]) &&
    document["content"].every(isMessageLike)
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
export const adapter: Adapter.Adapter = Adapter.make({ format, detect, decodeResult: decodeDocument, decodeSteps })

/**
 * The neutral transcript of a `Prompt` an Effect agent runtime holds in memory,
 * and how to write a view of it back as a `Prompt`.
 *
 * @example
 * ```ts
 * import { EffectAiPrompt } from "context-compressor/effect-ai"
 * import { Prompt } from "@effect/ai"
 * import { Either } from "effect"
 *
 * const prompt = Prompt.make([
 *   { role: "system", content: "You are a coding agent." },
 *   { role: "user", content: "list the files" }
 * ])
 * const decoded = Either.getOrThrow(EffectAiPrompt.fromPrompt(prompt))
 * assert.strictEqual(decoded.transcript.length, 2)
 * assert.strictEqual(EffectAiPrompt.toPrompt(decoded, decoded.transcript), prompt)
 * ```
 *
 * @since 0.1.0
 * @category decoding
 */
export const fromPrompt = (prompt: Prompt.Prompt): Either.Either<Adapter.Decoded, Adapter.AdapterError> =>
  decodeDocument(prompt)

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
  return Prompt.make(
    PartsCodec.encodeMessages(decoding, view, buildJson) as unknown as ReadonlyArray<Prompt.MessageEncoded>
  )
}
