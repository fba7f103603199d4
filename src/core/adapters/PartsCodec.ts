/**
 * What the @effect/ai `Prompt` and AI SDK codecs share, in the shared core:
 * both formats keep messages whose content is a list of typed parts (text,
 * reasoning, files, tool calls and results), read them the same way (one
 * decoder, given each format's part readers: its `Grammar`) and write a view
 * back the same way, regrouping the neutral messages that came from one
 * native message (given each format's part writers: its `Vocabulary`). The
 * neutral messages are made with the face's kit. No Effect import.
 *
 * @since 0.1.0
 */
import * as JsonReader from "../json/JsonReader.js"
import * as JsonTree from "../json/JsonTree.js"
import * as JsonWrite from "../json/JsonWrite.js"
import * as Result from "../Result.js"
import * as Steps from "../Steps.js"
import type * as Transcript from "../transcript/TranscriptData.js"
import * as CallPositions from "./CallPositions.js"
import * as NativeSchema from "./Native.js"

/**
 * A native message or part, as parsed.
 *
 * @since 0.1.0
 * @category models
 */
export type Native = NativeSchema.Native

/**
 * What decoding a document kept to write a view of it back.
 *
 * @since 0.1.0
 * @category models
 */
export interface Decoding {
  readonly natives: ReadonlyArray<Native>
  /** The neutral transcript: the neutral messages of every native message, in order. */
  readonly transcript: Transcript.Transcript
  /** The neutral messages of each native message, by its index. */
  readonly neutral: ReadonlyArray<ReadonlyArray<Transcript.Message>>
  /** The native message each neutral message came from, by neutral id. */
  readonly origins: ReadonlyMap<string, { readonly index: number; readonly message: Transcript.Message }>
  /** The index of the tool-result part each neutral tool result came from, by neutral id. */
  readonly resultParts: ReadonlyMap<string, number>
  /** Tool names by call id, for results written fresh. */
  readonly callNames: ReadonlyMap<string, string>
}

/**
 * What a document of no messages decoded to: the decoding of a view whose
 * `Decoded` this module did not make.
 *
 * @since 0.1.0
 * @category models
 */
export const emptyDecoding = (): Decoding => ({
  natives: [],
  neutral: [],
  transcript: [],
  origins: new Map(),
  resultParts: new Map(),
  callNames: new Map()
})

/**
 * Whether the view is the decoded transcript itself, message for message:
 * then the document comes back as it is.
 *
 * @since 0.1.0
 * @category encoding
 */
export const isWhole = (decoding: Decoding, view: Transcript.Transcript): boolean =>
  view.length === decoding.transcript.length && view.every((message, i) => message === decoding.transcript[i])

/**
 * How a format writes its parts and messages.
 *
 * @since 0.1.0
 * @category models
 */
export interface Vocabulary {
  readonly message: (role: "system" | "user" | "assistant" | "tool", content: string | ReadonlyArray<unknown>) => Native
  readonly text: (text: string) => Native
  readonly toolCall: (call: Transcript.ToolCall) => Native
  readonly toolResult: (callId: string, name: string, content: string) => Native
  /** A tool-call part with changed arguments (JSON text). */
  readonly withArguments: (part: Native, args: string) => Native
  /** A tool-result part carrying a changed neutral result. */
  readonly changedResult: (part: Native, result: Transcript.ToolResult) => Native
}

/**
 * Whether a value is a plain object.
 *
 * @since 0.1.0
 * @category guards
 */
export const isRecord = NativeSchema.isRecord

/**
 * The neutral id of the `k`-th neutral message made from native message `index`: `m3`, `m3.1`, ….
 *
 * @since 0.1.0
 * @category ids
 */
export const neutralId = (index: number, k: number): string => (k === 0 ? `m${index}` : `m${index}.${k}`)

/**
 * Any value as JSON text (bounded and total).
 *
 * @since 0.1.0
 * @category json
 */
export const jsonText = (value: unknown): string =>
  JsonWrite.stringifyOrUndefined(value) ?? JsonWrite.stringify(JsonTree.fromUnknown(value).json)

/**
 * JSON text as the value it denotes (numbers kept exactly, as `Json.parse`
 * reads them), or the text itself when it is not JSON.
 *
 * @since 0.1.0
 * @category json
 */
export const parseOrText = (text: string): unknown => {
  const parsed = JsonReader.read(text)
  return parsed._tag === "Ok" ? parsed.value : text
}

/**
 * A value named in an error (see `NativeSchema.describe`).
 *
 * @since 0.1.0
 * @category errors
 */
export const describe = NativeSchema.describe

// =============================================================================
// Decoding
// =============================================================================

/**
 * Reads one part of a type the format knows: what it contributes, or the
 * whole reason it is refused. `where` names the part (`file part 2 of the user
 * message`), so a reason reads `${where} has no string mediaType`.
 *
 * @since 0.1.0
 * @category decoding
 */
export type PartReader<A> = (part: Native, where: string) => Result.Result<A, string>

/**
 * A tool call as a format's part holds it.
 *
 * @since 0.1.0
 * @category decoding
 */
export interface CallRead {
  readonly id: string
  readonly name: string
  /** The call's input as JSON text. */
  readonly arguments: string
}

/**
 * A tool result as a format's part holds it.
 *
 * @since 0.1.0
 * @category decoding
 */
export interface ResultRead {
  readonly toolCallId: string
  readonly name: string
  readonly content: string
}

/**
 * How a format's messages are read: its name for a message, what each role's
 * content must be, checks of the message's own fields, and a reader per part
 * type (by `type`) of user and assistant messages, and of tool calls and results.
 *
 * @since 0.1.0
 * @category decoding
 */
export interface Grammar {
  /** A message of the format, in errors: `a ModelMessage`. */
  readonly messageName: string
  /** What the content of a message of a role must be, in errors: `an array of tool-result parts`. */
  readonly contentExpected: (role: "user" | "assistant" | "tool") => string
  /** The message's own fields (options), read after its role and before its content: the problem, if any. */
  readonly checkFields?: (message: Native) => Result.Result<unknown, string>
  /** The whole message, read after its content (the format's own message schema): the whole reason, if refused. */
  readonly checkWhole?: (message: Native, index: number) => Result.Result<unknown, string>
  /** The text each part type of a user message contributes. */
  readonly user: ReadonlyMap<string, PartReader<string>>
  /** The part types of a user message, in errors: `text and file parts`. */
  readonly userHolds: string
  /** The text each part type of an assistant message contributes, other than tool calls and results (`undefined`: none). */
  readonly assistant: ReadonlyMap<string, PartReader<string | undefined>>
  /** The part types of an assistant message, in errors. */
  readonly assistantHolds: string
  readonly toolCall: PartReader<CallRead>
  readonly toolResult: PartReader<ResultRead>
}

/**
 * A document refused: the message at fault, when one is, and why.
 *
 * @since 0.1.0
 * @category decoding
 */
export interface Refusal {
  readonly index: number | undefined
  readonly reason: string
}

type Role = "system" | "user" | "assistant" | "tool"

const decodeMessageObject = NativeSchema.check(
  NativeSchema.isRecord,
  (actual) => `is ${describe(actual)}, not a message object`
)

const decodeSystemContent = NativeSchema.check(NativeSchema.isText, (actual) => `is ${describe(actual)}, not a string`)

const decodePartHead = NativeSchema.check(
  (value): value is Native =>
    NativeSchema.isRecord(value) && NativeSchema.has(value, "type") && NativeSchema.isText(value["type"]),
  (actual) => `is ${describe(actual)}, not a part with a type`
)

const isTextOrArray = (value: unknown): value is string | ReadonlyArray<unknown> =>
  NativeSchema.isText(value) || Array.isArray(value)

/**
 * The decoder of a format's messages: every message to its neutral messages
 * (`m<index>`, then `m<index>.<k>`: one per tool result of a tool message,
 * one per provider-executed result of an assistant message, after its call),
 * with what encoding a view needs; or the first message refused, and why.
 * The neutral messages are made with `kit`. As steps that pause every few
 * messages (run them with `Steps.runSync` or a face's `Cooperative.run`).
 *
 * @since 0.1.0
 * @category decoding
 */
export const messagesDecoder = (
  grammar: Grammar,
  kit: Transcript.Kit
): (messages: ReadonlyArray<unknown>) => Steps.Steps<Result.Result<Decoding, Refusal>> => {
  const decodeRole = NativeSchema.check(
    (role): role is Role => role === "system" || role === "user" || role === "assistant" || role === "tool",
    (role) => `has the role ${describe(role)}; ${grammar.messageName} is system, user, assistant or tool`
  )
  const contentDecoders = {
    user: NativeSchema.check(
      isTextOrArray,
      (actual) => `is ${describe(actual)}, not ${grammar.contentExpected("user")}`
    ),
    assistant: NativeSchema.check(
      isTextOrArray,
      (actual) => `is ${describe(actual)}, not ${grammar.contentExpected("assistant")}`
    ),
    tool: NativeSchema.check(
      NativeSchema.isArray,
      (actual) => `is ${describe(actual)}, not ${grammar.contentExpected("tool")}`
    )
  }

  interface Read {
    readonly natives: Array<Native>
    readonly neutral: Array<ReadonlyArray<Transcript.Message>>
    readonly origins: Map<string, { index: number; message: Transcript.Message }>
    readonly resultParts: Map<string, number>
    readonly callNames: Map<string, string>
  }
  // One message into what has been read so far, or why it is refused.
  const decodeMessage = (
    raw: unknown,
    index: number,
    { callNames, natives, neutral, origins, resultParts }: Read
  ): Result.Result<void, Refusal> =>
    Result.gen(function*() {
      const refuse = (reason: string): Refusal => ({ index, reason })
      const at = <A>(decoded: Result.Result<A, string>, where: string) =>
        Result.take(Result.mapError(decoded, (problem) => refuse(`${where} ${problem}`)))
      const whole = <A>(decoded: Result.Result<A, string>) => Result.take(Result.mapError(decoded, refuse))
      const fail = (reason: string) => Result.fail(refuse(reason))
      const id = (k: number) => neutralId(index, k)

      const message = yield* at(decodeMessageObject(raw), `message ${index}`)
      const role = yield* at(decodeRole(message["role"]), `message ${index}`)
      if (grammar.checkFields !== undefined) yield* at(grammar.checkFields(message), `message ${index}`)
      const partsOf = (content: ReadonlyArray<unknown>) =>
        Result.gen(function*() {
          const parts: Array<Native> = []
          for (const [k, part] of content.entries()) {
            yield* at(decodePartHead(part), `part ${k} of the ${role} message`)
            parts.push(part as Native)
          }
          return parts
        })
      const out: Array<Transcript.Message> = []
      switch (role) {
        case "system": {
          const content = yield* at(decodeSystemContent(message["content"]), "the system message's content")
          out.push(kit.systemMessage({ id: id(0), content }))
          break
        }
        case "user": {
          const content = yield* at(contentDecoders.user(message["content"]), "the user message's content")
          let text: string
          if (typeof content === "string") text = content
          else {
            const texts: Array<string> = []
            for (const [k, part] of (yield* Result.take(partsOf(content))).entries()) {
              const read = grammar.user.get(part["type"] as string)
              if (read === undefined) {
                return yield* fail(
                  `part ${k} of the user message has the type ${
                    describe(part["type"])
                  }; a user message holds ${grammar.userHolds}`
                )
              }
              texts.push(yield* whole(read(part, `${part["type"]} part ${k} of the user message`)))
            }
            text = texts.join("\n")
          }
          out.push(kit.userMessage({ id: id(0), content: text }))
          break
        }
        case "assistant": {
          const content = yield* at(contentDecoders.assistant(message["content"]), "the assistant message's content")
          const texts: Array<string> = []
          const calls: Array<Transcript.ToolCall> = []
          const results: Array<{ readonly part: Native; readonly k: number }> = []
          if (typeof content === "string") texts.push(content)
          else {
            for (const [k, part] of (yield* Result.take(partsOf(content))).entries()) {
              const type = part["type"] as string
              const where = `${type} part ${k} of the assistant message`
              if (type === "tool-call") {
                const read = yield* whole(grammar.toolCall(part, where))
                const call = kit.toolCall({ id: read.id, name: read.name, arguments: read.arguments })
                callNames.set(call.id, call.name)
                calls.push(call)
              } else if (type === "tool-result") {
                results.push({ part, k })
              } else {
                const read = grammar.assistant.get(type)
                if (read === undefined) {
                  return yield* fail(
                    `part ${k} of the assistant message has the type ${
                      describe(type)
                    }; an assistant message holds ${grammar.assistantHolds}`
                  )
                }
                const text = yield* whole(read(part, where))
                if (text !== undefined) texts.push(text)
              }
            }
          }
          out.push(kit.assistantMessage({ id: id(0), content: texts.join("\n"), toolCalls: calls }))
          // Results of provider-executed calls follow their call, as their own neutral messages.
          for (const { k, part } of results) {
            const read = yield* whole(grammar.toolResult(part, `tool-result part ${k} of the assistant message`))
            const result = kit.toolResult({ id: id(out.length), ...read })
            resultParts.set(result.id, k)
            out.push(result)
          }
          break
        }
        case "tool": {
          const content = yield* at(contentDecoders.tool(message["content"]), "the tool message's content")
          const parts = yield* Result.take(partsOf(content))
          if (parts.length === 0) return yield* fail("the tool message holds no tool results")
          for (const [k, part] of parts.entries()) {
            if (part["type"] !== "tool-result") {
              return yield* fail(
                `part ${k} of the tool message has the type ${
                  describe(part["type"])
                }; a tool message holds tool-result parts only`
              )
            }
            const read = yield* whole(grammar.toolResult(part, `tool-result part ${k} of the tool message`))
            const result = kit.toolResult({ id: id(k), ...read })
            resultParts.set(result.id, k)
            out.push(result)
          }
          break
        }
      }
      if (grammar.checkWhole !== undefined) yield* whole(grammar.checkWhole(message, index))
      natives.push(raw as Native)
      neutral.push(out)
      for (const neutralMessage of out) origins.set(neutralMessage.id, { index, message: neutralMessage })
    })

  return function*(messages) {
    const read: Read = { natives: [], neutral: [], origins: new Map(), resultParts: new Map(), callNames: new Map() }
    for (let index = 0; index < messages.length; index++) {
      const decoded = decodeMessage(messages[index], index, read)
      if (decoded._tag === "Err") return decoded
      if (index % Steps.itemsPerStep === Steps.itemsPerStep - 1) yield
    }
    const { callNames, natives, neutral, origins, resultParts } = read
    return Result.ok({ natives, neutral, transcript: neutral.flat(), origins, resultParts, callNames })
  }
}

/**
 * Whether two lists of calls are the same calls.
 *
 * @since 0.1.0
 * @category comparing
 */
export const sameCalls = (a: ReadonlyArray<Transcript.ToolCall>, b: ReadonlyArray<Transcript.ToolCall>): boolean =>
  a.length === b.length &&
  a.every((call, i) => call.id === b[i]!.id && call.name === b[i]!.name && call.arguments === b[i]!.arguments)

/**
 * Whether a view message is the decoded message, unchanged (the same object or equal fields).
 *
 * @since 0.1.0
 * @category comparing
 */
export const unchanged = (view: Transcript.Message, decoded: Transcript.Message): boolean => {
  if (view === decoded) return true
  if (view._tag !== decoded._tag || view.id !== decoded.id || view.content !== decoded.content) return false
  if (view._tag === "Assistant") return decoded._tag === "Assistant" && sameCalls(view.toolCalls, decoded.toolCalls)
  if (view._tag === "ToolResult") {
    return decoded._tag === "ToolResult" && view.toolCallId === decoded.toolCallId && view.name === decoded.name
  }
  return true
}

/**
 * Writes a view back as native messages: every run of view messages from one
 * native message regrouped into it (the original itself when nothing
 * changed), a narrowed assistant message keeping its reasoning and files with
 * the calls it keeps, results not from the document sharing one tool message,
 * and anything else (a compacted block among them, as a user message) written anew.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encodeMessages = (decoding: Decoding, view: Transcript.Transcript, build: Vocabulary): Array<Native> => {
  const out: Array<Native> = []
  const callNames = new Map(decoding.callNames)
  const originOf = (message: Transcript.Message) => {
    const origin = decoding.origins.get(message.id)
    return origin !== undefined && origin.message._tag === message._tag ? origin : undefined
  }

  const regroup = (index: number, group: ReadonlyArray<Transcript.Message>): Native => {
    const native = decoding.natives[index]!
    const decoded = decoding.neutral[index]!
    if (group.length === decoded.length && group.every((message, k) => unchanged(message, decoded[k]!))) return native
    const head = group[0]!
    switch (native["role"]) {
      case "system":
        return { ...native, content: head.content }
      case "user":
        return { ...native, content: typeof native["content"] === "string" ? head.content : [build.text(head.content)] }
      case "tool":
        return {
          ...native,
          content: group.map((message) => {
            const part = (native["content"] as ReadonlyArray<Native>)[decoding.resultParts.get(message.id)!]!
            const original = decoding.origins.get(message.id)!.message
            return message._tag === "ToolResult" && !unchanged(message, original)
              ? build.changedResult(part, message)
              : part
          })
        }
      default:
        return regroupAssistant(native, decoded, group)
    }
  }

  const regroupAssistant = (
    native: Native,
    decoded: ReadonlyArray<Transcript.Message>,
    group: ReadonlyArray<Transcript.Message>
  ): Native => {
    const original = decoded[0] as Transcript.AssistantMessage
    const assistant = group.find((message): message is Transcript.AssistantMessage => message._tag === "Assistant")
    const content = native["content"]
    if (typeof content === "string" && assistant !== undefined && assistant.toolCalls.length === 0) {
      return { ...native, content: assistant.content }
    }
    const parts: ReadonlyArray<Native> = typeof content === "string"
      ? [build.text(content)]
      : (content as ReadonlyArray<Native>)
    // Calls by position, not by id: one message can use an id twice.
    const keptCalls = CallPositions.keptByPosition(original.toolCalls, assistant?.toolCalls ?? [])
    let callPart = 0
    const keptResults = new Map<number, Transcript.ToolResult>()
    for (const message of group) {
      if (message._tag === "ToolResult") keptResults.set(decoding.resultParts.get(message.id)!, message)
    }
    const textChanged = assistant !== undefined && assistant.content !== original.content
    let textPlaced = false
    const kept: Array<Native> = []
    parts.forEach((part, k) => {
      switch (part["type"]) {
        case "tool-call": {
          const position = callPart++
          const call = keptCalls.at.get(position)
          if (call === undefined) return
          kept.push(
            call.arguments === original.toolCalls[position]?.arguments
              ? part
              : build.withArguments(part, call.arguments)
          )
          return
        }
        case "tool-result": {
          const result = keptResults.get(k)
          if (result === undefined) return
          const before = decoding.origins.get(result.id)!.message
          kept.push(unchanged(result, before) ? part : build.changedResult(part, result))
          return
        }
        case "text":
          if (assistant === undefined) return
          if (!textChanged) kept.push(part)
          else if (!textPlaced) {
            textPlaced = true
            if (assistant.content !== "") kept.push(build.text(assistant.content))
          }
          return
        default:
          // Reasoning and files stay with whatever calls of the message remain.
          if (assistant !== undefined) kept.push(part)
      }
    })
    if (textChanged && !textPlaced && assistant.content !== "") kept.unshift(build.text(assistant.content))
    for (const call of keptCalls.added) kept.push(build.toolCall(call))
    return { ...native, content: kept }
  }

  const fresh = (message: Exclude<Transcript.Message, Transcript.ToolResult>): Native => {
    switch (message._tag) {
      case "System":
        return build.message("system", message.content)
      case "User":
      case "Compacted":
        return build.message("user", [build.text(message.content)])
      case "Assistant":
        return build.message("assistant", [
          ...(message.content === "" ? [] : [build.text(message.content)]),
          ...message.toolCalls.map(build.toolCall)
        ])
    }
  }

  let i = 0
  while (i < view.length) {
    const message = view[i]!
    if (message._tag === "Assistant") { for (const call of message.toolCalls) callNames.set(call.id, call.name) }
    const origin = message._tag === "Compacted" ? undefined : originOf(message)
    if (origin !== undefined) {
      const group = [message]
      let j = i + 1
      while (
        j < view.length && originOf(view[j]!)?.index === origin.index && !group.some((m) => m.id === view[j]!.id)
      ) group.push(view[j++]!)
      out.push(regroup(origin.index, group))
      i = j
    } else if (message._tag === "ToolResult") {
      // Consecutive results not from the document share one tool message.
      const results: Array<Native> = []
      let j = i
      for (let next = view[j]; next?._tag === "ToolResult" && originOf(next) === undefined; next = view[++j]) {
        results.push(
          build.toolResult(next.toolCallId, next.name ?? callNames.get(next.toolCallId) ?? "unknown", next.content)
        )
      }
      out.push(build.message("tool", results))
      i = j
    } else {
      out.push(fresh(message))
      i++
    }
  }
  return out
}
