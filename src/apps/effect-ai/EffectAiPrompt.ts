/**
 * The @effect/ai `Prompt` adapter: a `Prompt.Prompt` value, its encoded form
 * (`{ content: [...] }`, as `Schema.encode(Prompt.Prompt)` gives it) or a bare
 * array of encoded messages, to the neutral transcript and back. A view is
 * written in the shape that came in: a `Prompt` value for a `Prompt` value,
 * encoded JSON for JSON. One source for both Effects: the `Prompt` of
 * @effect/ai 0.37 on Effect 3, of Effect 4's own `effect/ai` on Effect 4
 * (`#compat-ai`), read with the shared core's parts codec.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import { Prompt } from "#compat-ai"
import * as AdapterData from "../../core/adapters/AdapterData.js"
import * as Check from "../../core/adapters/Native.js"
import * as PartsCodec from "../../core/adapters/PartsCodec.js"
import { describe, isRecord, jsonText, type Native, parseOrText } from "../../core/adapters/PartsCodec.js"
import * as Result from "../../core/Result.js"
import * as Steps from "../../core/Steps.js"
import type * as TranscriptData from "../../core/transcript/TranscriptData.js"
import * as Adapter from "../../face/adapters/Adapter.js"
import * as Codecs from "../../face/adapters/internal/Codecs.js"
import * as Json from "../../face/models/Json.js"
import type * as Transcript from "../../face/models/Transcript.js"

const format = "effect-ai" as const

/** How the document held its messages. */
type Shape = "prompt" | "wrapper" | "array"

interface Decoding extends PartsCodec.Decoding {
  readonly shape: Shape
  readonly document: unknown
}

const decodings = new WeakMap<AdapterData.Decoded, Decoding>()

const roles: ReadonlyArray<unknown> = ["system", "user", "assistant", "tool"]

// A number `Json.parse` kept as a placeholder is its literal, as in any other result.
const resultText = (
  result: unknown
): string => (typeof result === "string" && !Json.isRawNumber(result) ? result : jsonText(result))

const decodeMessageSchema = Compat.decodeUnknownSchemaResult(Prompt.Message)

// =============================================================================
// Decoding
// =============================================================================

const isWrapper = (document: unknown): document is Native & { readonly content: ReadonlyArray<unknown> } =>
  isRecord(document) && !("role" in document) && Check.has(document, "content") && Array.isArray(document["content"])

const locate = (
  document: unknown
): Result.Result<{ readonly shape: Shape; readonly messages: ReadonlyArray<unknown> }, PartsCodec.Refusal> => {
  if (Prompt.isPrompt(document)) {
    return Array.isArray(document.content)
      ? Result.ok({ shape: "prompt", messages: document.content })
      : Result.err({ index: undefined, reason: "the Prompt's content is not an array of messages" })
  }
  if (Array.isArray(document)) return Result.ok({ shape: "array", messages: document })
  if (isWrapper(document)) return Result.ok({ shape: "wrapper", messages: document.content })
  return Result.err({
    index: undefined,
    reason: `expected a Prompt, an encoded Prompt ({ content: [...] }) or an array of encoded Prompt messages, not ${
      describe(document)
    }`
  })
}

const readText: PartsCodec.PartReader<string> = (part, where) =>
  Check.within(Check.required(part, "text", Check.isText, "has no string text"), where)

/** A file stands as its name, or its media type. */
const readFile: PartsCodec.PartReader<string> = (part, where) =>
  Check.within(
    Result.map(
      Check.required(part, "mediaType", Check.isText, "has no string mediaType"),
      (mediaType) => `[file ${typeof part["fileName"] === "string" ? part["fileName"] : mediaType}]`
    ),
    where
  )

/** A part's id and name, each a string of its own (`idMissing` says what the id is, when it has none). */
const readIds = (
  part: Native,
  idMissing: string
): Result.Result<{ readonly id: string; readonly name: string }, string> =>
  Result.gen(function*() {
    const id = yield* Result.take(Check.required(part, "id", Check.isText, idMissing))
    const name = yield* Result.take(Check.required(part, "name", Check.isText, "has no string name"))
    return { id, name }
  })

/** A tool call: its id and name, and its `params` as JSON text. */
const readCall: PartsCodec.PartReader<PartsCodec.CallRead> = (part, where) =>
  Check.within(
    Result.map(
      readIds(part, "has no string id"),
      ({ id, name }) => ({ id, name, arguments: jsonText(part["params"]) })
    ),
    where
  )

/** A tool result: the call it answers, and its `result`, as text when it is a string, else as JSON text. */
const readResult: PartsCodec.PartReader<PartsCodec.ResultRead> = (part, where) =>
  Check.within(
    Result.gen(function*() {
      const { id, name } = yield* Result.take(readIds(part, "has no string id (the call it answers)"))
      yield* Result.take(Check.required(part, "isFailure", isBoolean, "has no boolean isFailure"))
      return { toolCallId: id, name, content: resultText(part["result"]) }
    }),
    where
  )

const isBoolean = (value: unknown): value is boolean => typeof value === "boolean"

/** Encoded messages must also be what `Prompt.make` accepts (options, file data, the rest). */
const checkEncoded = (message: Native, index: number): Result.Result<unknown, string> =>
  Compat.matchResult(decodeMessageSchema(message), {
    onSuccess: (decoded): Result.Result<unknown, string> => Result.ok(decoded),
    onFailure: (error) => {
      const issue = Compat.formatIssues(error)[0]
      return Result.err(
        `message ${index} is not an encoded Prompt message${
          issue === undefined ? "" : ` (at ${issue.path.join(".") || "the message"}: ${issue.message})`
        }`
      )
    }
  })

const grammar: PartsCodec.Grammar = {
  messageName: "a Prompt message",
  contentExpected: () => "an array of parts",
  user: new Map([["text", readText], ["file", readFile]]),
  userHolds: "text and file parts",
  assistant: new Map<string, PartsCodec.PartReader<string | undefined>>([
    ["text", readText],
    ["reasoning", (part, where) => Result.map(readText(part, where), () => undefined)],
    ["file", readFile]
  ]),
  assistantHolds: "text, reasoning, file, tool-call and tool-result parts",
  toolCall: readCall,
  toolResult: readResult
}

function* decodeWith(
  document: unknown,
  kit: TranscriptData.Kit
): Steps.Steps<Result.Result<Decoding, PartsCodec.Refusal>> {
  const located = locate(document)
  if (located._tag === "Err") return located
  const { messages, shape } = located.value
  const decode = PartsCodec.messagesDecoder(
    shape === "prompt" ? grammar : { ...grammar, checkWhole: checkEncoded },
    kit
  )
  return Result.map(yield* decode(messages), (decoding) => ({ ...decoding, shape, document }))
}

// =============================================================================
// Encoding
// =============================================================================

/** How new messages and parts are made: `Prompt` values, or encoded JSON. */
type Build = PartsCodec.Vocabulary

const promptParts = {
  withArguments: (part: Native, args: string): Native => ({ ...part, params: parseOrText(args) }),
  changedResult: (part: Native, result: TranscriptData.ToolResult): Native => changedResult(part, result)
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
const changedResult = (part: Native, result: TranscriptData.ToolResult): Native => ({
  ...part,
  id: result.toolCallId,
  result: typeof part["result"] === "string" ? result.content : parseOrText(result.content)
})

const emptyDecoding = (): Decoding => ({ ...PartsCodec.emptyDecoding(), shape: "prompt", document: Prompt.empty })

const encodeDocument = (decoding: Decoding, view: TranscriptData.Transcript): unknown => {
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

/** The codec of the format, as the core's codecs are: the face's kit given, the decoding kept for `toPrompt`. */
const codec: AdapterData.Codec = {
  format,
  detect: (document) => detect(document),
  *decodeSteps(document, kit) {
    const decoding = yield* decodeWith(document, kit)
    if (decoding._tag === "Err") {
      return Result.err(AdapterData.failure(format, decoding.error.reason, decoding.error.index))
    }
    const decoded: AdapterData.Decoded = {
      format,
      transcript: decoding.value.transcript,
      encode: (view) => encodeDocument(decoding.value, view)
    }
    decodings.set(decoded, decoding.value)
    return Result.ok(decoded)
  }
}

const decodeSteps = (document: unknown): Steps.Steps<Compat.Result<Adapter.Decoded, Adapter.AdapterError>> =>
  Codecs.decodeSteps(codec, document)

const decodeDocument = (document: unknown): Compat.Result<Adapter.Decoded, Adapter.AdapterError> =>
  Steps.runSync(decodeSteps(document))

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
 * and how to write a view of it back as a `Prompt`: the pure value (an
 * `Either` on Effect 3, a `Result` on Effect 4), as `adapter.decodeResult`
 * answers.
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
export const fromPrompt = (prompt: Prompt.Prompt): Compat.Result<Adapter.Decoded, Adapter.AdapterError> =>
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
  const decoding = decodings.get(decoded) ?? emptyDecoding()
  if (decoding.shape === "prompt") return encodeDocument(decoding, view) as Prompt.Prompt
  return Prompt.make(
    PartsCodec.encodeMessages(decoding, view, buildJson) as unknown as ReadonlyArray<Prompt.MessageEncoded>
  )
}

/**
 * A transcript as a `Prompt` value, every message written anew: system, user
 * and assistant messages with their tool calls, tool results in tool
 * messages, a compacted block as a user message of one text part. The
 * `LanguageModel` summariser writes a shared-prefix request's view with it.
 *
 * @since 0.1.0
 * @category encoding
 */
export const fromTranscript = (transcript: Transcript.Transcript): Prompt.Prompt =>
  encodeDocument(emptyDecoding(), transcript) as Prompt.Prompt
