/**
 * The OpenAI Responses codec, in the shared core: a Responses request's
 * `input` (a string, or an array of items), or a request body holding it, to
 * neutral messages made with the face's kit, and a view back. A `user`,
 * `system` or `developer` message item is a neutral message of its own, a
 * `function_call_output` or `custom_tool_call_output` a tool result; every
 * run of items between them (assistant messages, `function_call` and
 * `custom_tool_call` items, `reasoning`, provider `compaction` items and any
 * item type the codec does not know) is one assistant message, its calls the
 * run's calls. The neutral message of the items from `i` on is `m<i>`.
 * Reasoning, compaction and unknown items are opaque: never read as text,
 * written back byte for byte with their message, dropped with it; a reasoning
 * item stays with the item it precedes. A view is written back with every
 * unchanged message's items exactly as they came in. No Effect import.
 *
 * @since 0.1.0
 */
import * as Result from "../Result.js"
import * as Steps from "../Steps.js"
import type * as TranscriptData from "../transcript/TranscriptData.js"
import type * as AdapterData from "./AdapterData.js"
import * as CallPositions from "./CallPositions.js"
import * as Native from "./Native.js"
import * as Unchanged from "./Unchanged.js"

type Message = TranscriptData.Message

type ToolCall = TranscriptData.ToolCall

/**
 * A Responses input item as it was parsed, every field kept as it came.
 *
 * @since 0.1.0
 * @category models
 */
export type NativeItem = { readonly [key: string]: unknown }

const format: AdapterData.Format = "openai-responses"

const describe = Native.describe

const fail = (reason: string, index?: number): AdapterData.Failure =>
  index === undefined ? { format, reason } : { format, reason, index }

// =============================================================================
// Reading native values
// =============================================================================

/** The items of a document, the request body around them when there is one, and the text of a string `input`. */
interface Located {
  readonly items: ReadonlyArray<unknown>
  readonly body: Native.Native | undefined
  /** The `input` of a body that gave it as one string, read as one user message (`items`' only one). */
  readonly text: string | undefined
}

const locate = (document: unknown): Located | undefined => {
  if (Array.isArray(document)) return { items: document, body: undefined, text: undefined }
  if (!Native.isRecord(document) || !Native.has(document, "input") || Native.has(document, "messages")) {
    return undefined
  }
  const input = document["input"]
  if (Array.isArray(input)) return { items: input, body: document, text: undefined }
  return Native.isText(input) ? { items: [{ role: "user", content: input }], body: document, text: input } : undefined
}

/** What an item is to the codec. */
type Kind =
  | { readonly _tag: "Message"; readonly role: "user" | "system" | "developer" | "assistant" }
  | { readonly _tag: "Call"; readonly custom: boolean }
  | { readonly _tag: "Output"; readonly custom: boolean }
  | { readonly _tag: "Reasoning" }
  | { readonly _tag: "Opaque"; readonly type: string }

const messageRoles: ReadonlySet<string> = new Set(["user", "system", "developer", "assistant"])

/** The item types of the Responses API the codec reads or names in detection (the rest are opaque to it). */
const knownTypes: ReadonlySet<string> = new Set([
  "message",
  "function_call",
  "function_call_output",
  "custom_tool_call",
  "custom_tool_call_output",
  "reasoning",
  "compaction",
  "item_reference"
])

/** The content part types of Responses messages. */
const partTypes: ReadonlySet<string> = new Set(["input_text", "output_text", "input_image", "input_file", "refusal"])

const kindOf = (
  raw: unknown,
  index: number
): Result.Result<{ readonly item: Native.Native; readonly kind: Kind }, AdapterData.Failure> => {
  if (!Native.isRecord(raw)) return Result.err(fail(`item ${index} is not an object`, index))
  const type = Native.own(raw, "type")
  if (type === undefined || type === "message") {
    const role = Native.own(raw, "role")
    if (typeof role === "string" && messageRoles.has(role)) {
      return Result.ok({
        item: raw,
        kind: { _tag: "Message", role: role as "user" | "system" | "developer" | "assistant" }
      })
    }
    return Result.err(
      fail(
        type === undefined
          ? `item ${index} has neither a type nor a message role (user, system, developer, assistant)`
          : `message item ${index} has the role ${describe(role)}, not one of user, system, developer, assistant`,
        index
      )
    )
  }
  if (!Native.isText(type)) return Result.err(fail(`item ${index} has a type that is not a string`, index))
  switch (type) {
    case "function_call":
      return Result.ok({ item: raw, kind: { _tag: "Call", custom: false } })
    case "custom_tool_call":
      return Result.ok({ item: raw, kind: { _tag: "Call", custom: true } })
    case "function_call_output":
      return Result.ok({ item: raw, kind: { _tag: "Output", custom: false } })
    case "custom_tool_call_output":
      return Result.ok({ item: raw, kind: { _tag: "Output", custom: true } })
    case "reasoning":
      return Result.ok({ item: raw, kind: { _tag: "Reasoning" } })
    default:
      return Result.ok({ item: raw, kind: { _tag: "Opaque", type } })
  }
}

/** A string field an item must have, or what is wrong. */
const text = (
  item: Native.Native,
  key: string,
  where: string,
  index: number
): Result.Result<string, AdapterData.Failure> => {
  const value = Native.own(item, key)
  return Native.has(item, key) && Native.isText(value)
    ? Result.ok(value)
    : Result.err(fail(`${where} has no string ${key}`, index))
}

/** A file part's name, when it has a string `filename` of its own. */
const fileName = (part: Native.Native): string | undefined => {
  const name = Native.own(part, "filename")
  return Native.isText(name) ? name : undefined
}

/** The text a content part contributes; media stand as a bracketed placeholder, so a summary knows they were there. */
const partText = (part: unknown, where: string, index: number): Result.Result<string, AdapterData.Failure> => {
  const type = Native.isRecord(part) ? Native.own(part, "type") : undefined
  if (!Native.isRecord(part) || !Native.isText(type)) {
    return Result.err(fail(`${where} is not a content part with a type`, index))
  }
  switch (type) {
    case "input_text":
    case "output_text":
      return text(part, "text", where, index)
    case "refusal":
      return text(part, "refusal", where, index)
    case "input_image":
      return Result.ok("[image]")
    case "input_file": {
      const name = fileName(part)
      return Result.ok(name === undefined ? "[file]" : `[file: ${name}]`)
    }
    default:
      return Result.ok(`[${type}]`)
  }
}

/** The neutral text of a message's content or an output's `output`: a string, or content parts (their texts one a line). */
const contentText = (content: unknown, where: string, index: number): Result.Result<string, AdapterData.Failure> =>
  Result.gen(function*() {
    if (Native.isText(content)) return content
    if (!Array.isArray(content)) {
      return yield* Result.fail(fail(`${where} is neither text nor an array of content parts`, index))
    }
    const texts: Array<string> = []
    for (const [k, part] of content.entries()) {
      texts.push(yield* Result.take(partText(part, `content part ${k} of ${where}`, index)))
    }
    return texts.join("\n")
  })

// =============================================================================
// Decoding
// =============================================================================

/** The items of a document a neutral message stands for: `[start, end)`. */
interface Span {
  readonly start: number
  readonly end: number
}

/** A decoded document: the neutral messages, the items each stands for, what each item is, and each call's kind. */
interface Reading {
  readonly transcript: ReadonlyArray<Message>
  readonly spans: ReadonlyArray<Span>
  readonly kinds: ReadonlyArray<Kind>
  /** Whether a call id is a custom tool call's, so that a result written anew has the matching output type. */
  readonly custom: ReadonlyMap<string, boolean>
}

/** The neutral assistant message of a run of assistant-side items. */
const assistantOf = (
  items: ReadonlyArray<Native.Native>,
  kinds: ReadonlyArray<Kind>,
  span: Span,
  custom: Map<string, boolean>,
  kit: TranscriptData.Kit
): Result.Result<Message, AdapterData.Failure> =>
  Result.gen(function*() {
    const texts: Array<string> = []
    const toolCalls: Array<ToolCall> = []
    for (let index = span.start; index < span.end; index++) {
      const item = items[index]!
      const kind = kinds[index]!
      switch (kind._tag) {
        case "Message":
          texts.push(
            yield* Result.take(contentText(Native.own(item, "content"), `the content of item ${index}`, index))
          )
          break
        case "Call": {
          const where = `${kind.custom ? "custom_tool_call" : "function_call"} item ${index}`
          const id = yield* Result.take(text(item, "call_id", where, index))
          const name = yield* Result.take(text(item, "name", where, index))
          const args = yield* Result.take(text(item, kind.custom ? "input" : "arguments", where, index))
          custom.set(id, kind.custom)
          toolCalls.push(kit.toolCall({ id, name, arguments: args }))
          break
        }
        case "Opaque":
          // Provider compaction and items of unknown types stand as a placeholder; reasoning stands for nothing.
          texts.push(`[${kind.type}]`)
          break
      }
    }
    return kit.assistantMessage({ id: `m${span.start}`, content: texts.join("\n"), toolCalls })
  })

/** Whether an item is on the assistant's side of the conversation (a run of them is one assistant message). */
const assistantSide = (kind: Kind): boolean =>
  kind._tag === "Call" || kind._tag === "Reasoning" || kind._tag === "Opaque" ||
  (kind._tag === "Message" && kind.role === "assistant")

function* read(
  located: Located,
  kit: TranscriptData.Kit
): Steps.Steps<Result.Result<Reading, AdapterData.Failure>> {
  const items: Array<Native.Native> = []
  const kinds: Array<Kind> = []
  const transcript: Array<Message> = []
  const spans: Array<Span> = []
  const custom = new Map<string, boolean>()
  const names = new Map<string, string>()
  let run: number | undefined
  const closeRun = (end: number): Result.Result<void, AdapterData.Failure> => {
    if (run === undefined) return Result.ok(undefined)
    const span = { start: run, end }
    run = undefined
    const message = assistantOf(items, kinds, span, custom, kit)
    if (message._tag === "Err") return message
    if (message.value._tag === "Assistant") {
      for (const call of message.value.toolCalls) {
        names.set(call.id, call.name)
      }
    }
    transcript.push(message.value)
    spans.push(span)
    return Result.ok(undefined)
  }
  for (let index = 0; index < located.items.length; index++) {
    const read = kindOf(located.items[index], index)
    if (read._tag === "Err") return read
    const { item, kind } = read.value
    items.push(item)
    kinds.push(kind)
    if (assistantSide(kind)) {
      run ??= index
    } else {
      const closed = closeRun(index)
      if (closed._tag === "Err") return closed
      const id = `m${index}`
      if (kind._tag === "Message") {
        const content = contentText(Native.own(item, "content"), `the content of item ${index}`, index)
        if (content._tag === "Err") return content
        transcript.push(
          kind.role === "user"
            ? kit.userMessage({ id, content: content.value })
            : kit.systemMessage({ id, content: content.value })
        )
      } else if (kind._tag === "Output") {
        const where = `${kind.custom ? "custom_tool_call_output" : "function_call_output"} item ${index}`
        const callId = text(item, "call_id", where, index)
        if (callId._tag === "Err") return callId
        // An output whose call no earlier item makes is refused, as the API refuses it.
        const name = names.get(callId.value)
        if (name === undefined) {
          return Result.err(fail(`${where} answers the call ${callId.value}, which no earlier item makes`, index))
        }
        const content = contentText(Native.own(item, "output"), `the output of item ${index}`, index)
        if (content._tag === "Err") return content
        transcript.push(kit.toolResult({ id, toolCallId: callId.value, name, content: content.value }))
      }
      spans.push({ start: index, end: index + 1 })
    }
    if (index % Steps.itemsPerStep === Steps.itemsPerStep - 1) yield
  }
  const closed = closeRun(located.items.length)
  if (closed._tag === "Err") return closed
  return Result.ok({ transcript, spans, kinds, custom })
}

// =============================================================================
// Encoding
// =============================================================================

const freshCall = (call: ToolCall, custom: boolean): NativeItem =>
  custom
    ? { type: "custom_tool_call", call_id: call.id, name: call.name, input: call.arguments }
    : { type: "function_call", call_id: call.id, name: call.name, arguments: call.arguments }

const freshText = (role: "user" | "system" | "assistant", content: string): NativeItem =>
  role === "assistant"
    ? { type: "message", role, content: [{ type: "output_text", text: content, annotations: [] }] }
    : { type: "message", role, content: [{ type: "input_text", text: content }] }

/** A message item with another text: a string content stays a string, content parts become one text part. */
const withText = (item: NativeItem, content: string): NativeItem =>
  Array.isArray(item["content"])
    ? { ...item, content: [{ type: "output_text", text: content, annotations: [] }] }
    : { ...item, content }

/** The items of a message the document did not hold (a lost call's stand-in result, say). */
const fresh = (
  message: Exclude<Message, TranscriptData.CompactedBlock>,
  reading: Reading
): ReadonlyArray<NativeItem> => {
  switch (message._tag) {
    case "System":
      return [freshText("system", message.content)]
    case "User":
      return [freshText("user", message.content)]
    case "Assistant":
      return [
        ...(message.content === "" ? [] : [freshText("assistant", message.content)]),
        ...message.toolCalls.map((call) => freshCall(call, reading.custom.get(call.id) === true))
      ]
    case "ToolResult":
      return [{
        type: reading.custom.get(message.toolCallId) === true ? "custom_tool_call_output" : "function_call_output",
        call_id: message.toolCallId,
        output: message.content
      }]
  }
}

/**
 * The items of an assistant run changed in the view (narrowed to some of its
 * calls, its text clipped): each call kept as it came when the view keeps it
 * unchanged, the run's text written over its last message when it changed
 * (the other messages left out; a run of opaque items only keeps no text of
 * theirs), opaque items kept, and a reasoning item kept only with the item it
 * precedes (or, ending the input, last as it came).
 */
const patchedRun = (
  items: ReadonlyArray<unknown>,
  reading: Reading,
  span: Span,
  original: TranscriptData.AssistantMessage,
  message: TranscriptData.AssistantMessage
): ReadonlyArray<unknown> => {
  const out: Array<unknown> = []
  const positions = CallPositions.keptByPosition(original.toolCalls, message.toolCalls)
  const textChanged = message.content !== original.content
  let lastText = -1
  for (let index = span.start; index < span.end; index++) {
    if (reading.kinds[index]!._tag === "Message") lastText = index
  }
  let call = 0
  let reasoning: Array<unknown> = []
  // A reasoning item goes with the item after it: kept when that item is, dropped when it is not.
  const emit = (item: unknown | undefined) => {
    if (item !== undefined) out.push(...reasoning, item)
    reasoning = []
  }
  for (let index = span.start; index < span.end; index++) {
    const item = items[index]
    const kind = reading.kinds[index]!
    switch (kind._tag) {
      case "Reasoning":
        reasoning.push(item)
        break
      case "Message":
        // Changed text is written over the run's last message, which keeps its id (its reasoning's following item).
        if (!textChanged) emit(item)
        else if (index === lastText && message.content !== "") emit(withText(item as NativeItem, message.content))
        else emit(undefined)
        break
      case "Call": {
        const known = original.toolCalls[call]!
        const kept = positions.at.get(call)
        call++
        if (kept === undefined) emit(undefined)
        else if (kept.name === known.name && kept.arguments === known.arguments) emit(item)
        else emit({ ...(item as NativeItem), ...freshCall(kept, kind.custom) })
        break
      }
      case "Opaque":
      case "Output":
        emit(item)
        break
    }
  }
  for (const added of positions.added) out.push(freshCall(added, reading.custom.get(added.id) === true))
  // Reasoning that ends the input precedes no item of it: the newest items, kept last as they came.
  if (span.end === items.length) out.push(...reasoning)
  return out
}

/** A user, system or tool output item changed in the view: the original with the new text, or the new call id, over it. */
const patchedItem = (item: NativeItem, original: Message, message: Message): NativeItem => {
  const result: { [key: string]: unknown } = { ...item }
  if (message._tag === "ToolResult" && original._tag === "ToolResult") {
    if (message.content !== original.content) result["output"] = message.content
    if (message.toolCallId !== original.toolCallId) result["call_id"] = message.toolCallId
  } else if (message.content !== original.content) {
    result["content"] = message.content
  }
  return result
}

/**
 * The document of a view: every message of the view that is a message of the
 * transcript, unchanged, as its original items; a changed one as its items
 * with the change written over them; a compacted block as a user message of
 * `input_text`; the request body's other fields kept.
 */
const encodeView = (located: Located, reading: Reading, view: TranscriptData.Transcript): unknown => {
  const byId = new Map(reading.transcript.map((message, index) => [message.id, index]))
  const items: Array<unknown> = []
  for (const message of view) {
    if (message._tag === "Compacted") {
      items.push(freshText("user", message.content))
      continue
    }
    const index = byId.get(message.id)
    const original = index === undefined ? undefined : reading.transcript[index]
    if (index === undefined || original === undefined || original._tag !== message._tag) {
      items.push(...fresh(message, reading))
      continue
    }
    const span = reading.spans[index]!
    if (Unchanged.unchanged(original, message)) {
      for (let k = span.start; k < span.end; k++) items.push(located.items[k])
    } else if (original._tag === "Assistant" && message._tag === "Assistant") {
      items.push(...patchedRun(located.items, reading, span, original, message))
    } else {
      items.push(patchedItem(located.items[span.start] as NativeItem, original, message))
    }
  }
  if (located.body === undefined) return items
  // A string input comes back as it came while its one message is unchanged.
  if (located.text !== undefined && items.length === 1 && items[0] === located.items[0]) return located.body
  return { ...located.body, input: items }
}

/**
 * The neutral transcript of a Responses document, made with `kit`, and the
 * `encode` of its views, as steps that pause every few items; or the failure
 * naming the item at fault (an output answering a call no earlier item makes
 * among them).
 *
 * @since 0.1.0
 * @category decoding
 */
export function* decodeSteps(
  document: unknown,
  kit: TranscriptData.Kit
): Steps.Steps<Result.Result<AdapterData.Decoded, AdapterData.Failure>> {
  const located = locate(document)
  if (located === undefined) {
    return Result.err(
      fail(
        "expected an array of Responses input items, or a request body with an input (a string or an array of items)"
      )
    )
  }
  const reading = yield* read(located, kit)
  if (reading._tag === "Err") return reading
  return Result.ok({
    format,
    transcript: reading.value.transcript,
    encode: (view) => encodeView(located, reading.value, view)
  })
}

// =============================================================================
// Detection
// =============================================================================

/** Whether an item has what only Responses items have: a type the API names, or content parts of its own. */
const hasMarks = (item: unknown): boolean => {
  if (!Native.isRecord(item)) return false
  const type = Native.own(item, "type")
  if (typeof type === "string" && knownTypes.has(type)) return true
  const content = Native.own(item, "content")
  return Array.isArray(content) &&
    content.some((part) => Native.isRecord(part) && typeof part["type"] === "string" && partTypes.has(part["type"]))
}

const looksLikeItem = (item: unknown): boolean => {
  if (!Native.isRecord(item)) return false
  const type = Native.own(item, "type")
  if (type !== undefined && type !== "message") return typeof type === "string"
  const role = Native.own(item, "role")
  if (typeof role !== "string" || !messageRoles.has(role)) return false
  const content = Native.own(item, "content")
  return typeof content === "string" ||
    (Array.isArray(content) &&
      content.every((part) => Native.isRecord(part) && typeof part["type"] === "string" && partTypes.has(part["type"])))
}

/**
 * Whether a parsed document looks like a Responses input (see the faces' `OpenAiResponses.detect`).
 *
 * @since 0.1.0
 * @category detection
 */
export const detect = (document: unknown): boolean => {
  const located = locate(document)
  if (located === undefined) return false
  if (located.text !== undefined) return true
  if (located.items.length === 0 || !located.items.every(looksLikeItem)) return false
  // A body names its input; a bare array needs an item only Responses has (a plain text chat is the chat format's).
  return located.body !== undefined || located.items.some(hasMarks)
}

/**
 * The Responses codec.
 *
 * @since 0.1.0
 * @category codecs
 */
export const codec: AdapterData.Codec = { format, detect, decodeSteps }
