/**
 * The Anthropic Messages codec, in the shared core: a request body
 * `{ system?, messages, … }` or a bare array of messages, each `user` or
 * `assistant` with text or content blocks, to neutral messages made with the
 * face's kit, and a view back. One native message may hold several neutral
 * ones (`m<i>`, `m<i>.1`, …; the system prompt's blocks `s0`, `s1`, …). Each
 * face's `AnthropicMessages` is this codec with its kit and its error. No
 * Effect import.
 *
 * @since 0.1.0
 */
import * as Result from "../Result.js"
import * as Steps from "../Steps.js"
import type * as TranscriptData from "../transcript/TranscriptData.js"
import * as AdapterData from "./AdapterData.js"
import * as Blocks from "./AnthropicBlocks.js"
import * as Native from "./Native.js"
import * as Unchanged from "./Unchanged.js"

/**
 * A Messages API message as it was parsed, every field kept as it came.
 *
 * @since 0.1.0
 * @category models
 */
export type NativeMessage = { readonly [key: string]: unknown }

const format: AdapterData.Format = "anthropic"

type Record_ = Native.Native

type Message = TranscriptData.Message

const isRecord = Native.isRecord

const describe = Native.describe

const at = Blocks.at

const fail = Blocks.fail

const textBlock = Blocks.textBlock

/** The text a user writes in place of the turns a document no longer starts with, so that it starts with a user message. */
const continuationText = "(The conversation continues from earlier turns.)"

/** The messages of a document, and the request body around them when there is one. */
interface Located {
  readonly messages: ReadonlyArray<unknown>
  readonly body: Record_ | undefined
}

const locate = (document: unknown): Located | undefined =>
  Array.isArray(document)
    ? { messages: document, body: undefined }
    : Native.hasMessages(document)
    ? { messages: document["messages"], body: document }
    : undefined

type Origin = Blocks.Origin

// =============================================================================
// Decoding (the blocks' checks and readers are in AnthropicBlocks)
// =============================================================================

const readSystemField = Native.check(
  (value): value is string | undefined | ReadonlyArray<unknown> =>
    value === undefined || Native.isText(value) || Array.isArray(value),
  () => "is neither text nor an array of text blocks"
)

const readMessageObject = Native.check(isRecord, () => "is not an object")

const readRole = Native.check(
  (role): role is "user" | "assistant" => role === "user" || role === "assistant",
  (role) =>
    `has the role ${
      describe(role)
    }: Messages API messages are "user" or "assistant" (the system prompt is the top-level system field)`
)

const readContent = Native.check(
  (value): value is string | ReadonlyArray<unknown> => Native.isText(value) || Array.isArray(value),
  () => "is neither text nor an array of content blocks"
)

interface Decoding {
  readonly kit: TranscriptData.Kit
  readonly transcript: Array<Message>
  readonly origins: Array<Origin>
  readonly callNames: Map<string, string>
}

const decodeMessage = (raw: unknown, index: number, state: Decoding): Result.Result<void, AdapterData.Failure> =>
  Result.gen(function*() {
    const { kit } = state
    const message = yield* Result.take(at(readMessageObject(raw), `message ${index}`, index))
    const role = yield* Result.take(at(readRole(message["role"]), `message ${index}`, index))
    let count = 0
    const push = (neutral: (id: string) => Message, blocks: ReadonlyArray<number>) => {
      state.transcript.push(neutral(count === 0 ? `m${index}` : `m${index}.${count}`))
      state.origins.push({ native: index, blocks })
      count++
    }
    const content = yield* Result.take(at(readContent(message["content"]), `the content of message ${index}`, index))
    if (typeof content === "string") {
      push(
        (id) =>
          role === "user"
            ? kit.userMessage({ id, content })
            : kit.assistantMessage({ id, content, toolCalls: [] }),
        []
      )
      return
    }
    const blocks = yield* Result.take(Blocks.checkedBlocks(content, index))
    if (role === "assistant") {
      const texts: Array<Record_> = []
      const toolCalls: Array<TranscriptData.ToolCall> = []
      for (const [k, block] of blocks.entries()) {
        switch (block["type"]) {
          case "tool_use": {
            const where = `tool_use block ${k} of message ${index}`
            const { id, input, name } = yield* Result.take(at(Blocks.readToolUse(block), where, index))
            const args = Blocks.inputText(input)
            if (args === undefined) {
              return yield* Result.take(
                Result.err(fail(`${where} needs a string id, a string name and a JSON input`, index))
              )
            }
            state.callNames.set(id, name)
            toolCalls.push(kit.toolCall({ id, name, arguments: args }))
            break
          }
          case "tool_result":
            return yield* Result.fail(
              fail(
                `message ${index} is an assistant message holding a tool_result block (${k}): results belong in user messages`,
                index
              )
            )
          case "thinking":
          case "redacted_thinking":
            // The model's reasoning is not part of what the turn says; it stays in the native message.
            break
          default:
            texts.push(block)
        }
      }
      push(
        (id) => kit.assistantMessage({ id, content: Blocks.blocksText(texts), toolCalls }),
        blocks.map((_, k) => k)
      )
      return
    }
    const others: Array<number> = []
    for (const [k, block] of blocks.entries()) {
      if (block["type"] === "tool_use") {
        return yield* Result.fail(
          fail(
            `message ${index} is a user message holding a tool_use block (${k}): calls belong in assistant messages`,
            index
          )
        )
      }
      if (block["type"] !== "tool_result") {
        others.push(k)
        continue
      }
      const toolCallId = yield* Result.take(
        at(Blocks.readToolUseId(block), `tool_result block ${k} of message ${index}`, index)
      )
      // A result whose call no earlier message makes is refused, as the API refuses it.
      const name = state.callNames.get(toolCallId)
      if (name === undefined) {
        return yield* Result.fail(
          fail(
            `tool_result block ${k} of message ${index} answers ${toolCallId}, which no earlier tool_use block calls`,
            index
          )
        )
      }
      const text = yield* Result.take(Blocks.toolResultText(block["content"], k, index))
      push((id) => kit.toolResult({ id, toolCallId, name, content: text }), [k])
    }
    if (others.length > 0 || count === 0) {
      const text = Blocks.blocksText(others.map((k) => blocks[k]!))
      push((id) => kit.userMessage({ id, content: text }), others)
    }
  })

const decodeSystem = (system: unknown, state: Decoding): Result.Result<void, AdapterData.Failure> =>
  Result.gen(function*() {
    const decoded = yield* Result.take(at(readSystemField(system), "the system field"))
    if (decoded === undefined) return
    if (typeof decoded === "string") {
      state.transcript.push(state.kit.systemMessage({ id: "s0", content: decoded }))
      state.origins.push({ native: -1, blocks: [] })
      return
    }
    for (const [k, raw] of decoded.entries()) {
      const block = yield* Result.take(at(Blocks.readSystemBlock(raw), `block ${k} of the system field`))
      state.transcript.push(state.kit.systemMessage({ id: `s${k}`, content: block.text }))
      state.origins.push({ native: -1, blocks: [k] })
    }
  })

/** A message the document did not hold, written in the format. */
const fresh = (
  message:
    | TranscriptData.UserMessage
    | TranscriptData.AssistantMessage
    | TranscriptData.ToolResult
    | TranscriptData.SystemMessage
): NativeMessage => {
  switch (message._tag) {
    case "System":
    case "User":
      return { role: "user", content: message.content }
    case "Assistant":
      return message.toolCalls.length === 0
        ? { role: "assistant", content: message.content }
        : {
          role: "assistant",
          content: [
            ...(message.content === "" ? [] : [textBlock(message.content)]),
            ...message.toolCalls.map(Blocks.toolUseBlock)
          ]
        }
    case "ToolResult":
      return {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: message.toolCallId, content: message.content }]
      }
  }
}

/** One message of the output, and the native message it is exactly, if it is one. */
interface Entry {
  readonly role: "user" | "assistant"
  readonly message: NativeMessage
  readonly exact: number | undefined
}

/** Two messages of one role as one: their blocks in order, a user message's tool results first (the API wants them first). */
const merge = (first: NativeMessage, second: NativeMessage, role: "user" | "assistant"): NativeMessage => {
  const blocks = [...Blocks.asBlocks(first["content"]), ...Blocks.asBlocks(second["content"])]
  const content = role === "user"
    ? [...blocks.filter(Blocks.isToolResult), ...blocks.filter((block) => !Blocks.isToolResult(block))]
    : blocks
  return { ...first, ...second, content }
}

/**
 * The document of a view (see `decode`): the view's system messages as the
 * `system` field; the neutral messages of one native message, consecutive in
 * the view, as that message (exactly, when they all are there unchanged);
 * compacted blocks as user text; then consecutive messages of one role merged
 * (except native ones that were already adjacent), and a user message first.
 */
const encodeView = (
  located: Located,
  decoding: Decoding,
  view: TranscriptData.Transcript
): unknown => {
  const { origins, transcript } = decoding
  const natives = located.messages as ReadonlyArray<NativeMessage>
  const byId = new Map(transcript.map((message, index) => [message.id, index]))
  const membersOf = new Map<number, Array<number>>()
  origins.forEach((origin, index) => {
    const members = membersOf.get(origin.native) ?? []
    members.push(index)
    membersOf.set(origin.native, members)
  })
  const decodedIndex = (message: Message): number | undefined => {
    const index = byId.get(message.id)
    return index !== undefined && transcript[index]!._tag === message._tag ? index : undefined
  }

  const rebuild = (
    native: number,
    group: ReadonlyArray<{ readonly message: Message; readonly index: number }>
  ): Entry => {
    const members = membersOf.get(native) ?? []
    const original = natives[native]!
    const role = original["role"] as "user" | "assistant"
    const whole = group.length === members.length &&
      group.every(({ index, message }, k) => index === members[k] && Unchanged.unchanged(transcript[index]!, message))
    if (whole) return { role, message: original, exact: native }
    const content = original["content"]
    if (!Array.isArray(content)) {
      // Text content holds one neutral message; calls added to it need blocks.
      const message = group[0]!.message
      const written = message._tag === "Assistant" && message.toolCalls.length > 0
        ? fresh(message)["content"]
        : message.content
      return { role, message: { ...original, content: written }, exact: undefined }
    }
    const blocks = content as ReadonlyArray<Record_>
    const chosen = group.flatMap(({ index, message }) => {
      const origin = origins[index]!
      return Unchanged.unchanged(transcript[index]!, message)
        ? origin.blocks.map((k) => [k, blocks[k]!] as const)
        : Blocks.changedBlocks(blocks, origin, transcript[index]!, message)
    })
    chosen.sort((a, b) => a[0] - b[0])
    return { role, message: { ...original, content: chosen.map(([, block]) => block) }, exact: undefined }
  }

  const entries: Array<Entry> = []
  const systems: Array<TranscriptData.SystemMessage> = []
  let group: Array<{ readonly message: Message; readonly index: number }> = []
  let groupNative = -1
  const flush = () => {
    if (group.length > 0) entries.push(rebuild(groupNative, group))
    group = []
    groupNative = -1
  }
  for (const message of view) {
    if (message._tag === "System" && located.body !== undefined) {
      systems.push(message)
      continue
    }
    if (message._tag === "Compacted") {
      flush()
      entries.push({ role: "user", message: { role: "user", content: [textBlock(message.content)] }, exact: undefined })
      continue
    }
    const index = decodedIndex(message)
    const native = index === undefined ? undefined : origins[index]!.native
    if (index === undefined || native === undefined || native < 0) {
      flush()
      entries.push({
        role: message._tag === "Assistant" ? "assistant" : "user",
        message: fresh(message),
        exact: undefined
      })
      continue
    }
    if (native !== groupNative) flush()
    groupNative = native
    group.push({ message, index })
  }
  flush()

  const messages: Array<Entry> = []
  for (const entry of entries) {
    const last = messages.at(-1)
    const adjacentAsBefore = last?.exact !== undefined && entry.exact === last.exact + 1
    if (last !== undefined && last.role === entry.role && !adjacentAsBefore) {
      messages[messages.length - 1] = {
        role: entry.role,
        message: merge(last.message, entry.message, entry.role),
        exact: undefined
      }
    } else {
      messages.push(entry)
    }
  }
  const head = messages[0]
  if (head !== undefined && head.role === "assistant" && head.exact !== 0) {
    messages.unshift({
      role: "user",
      message: { role: "user", content: [textBlock(continuationText)] },
      exact: undefined
    })
  }
  const output = messages.map((entry) => entry.message)
  if (located.body === undefined) return output
  const body: { [key: string]: unknown } = { ...located.body, messages: output }
  const system = encodeSystem(located.body["system"], transcript, byId, origins, systems)
  if (system === undefined) delete body["system"]
  else body["system"] = system
  return body
}

/** The `system` field of a view's system messages: the original when they are its messages unchanged. */
const encodeSystem = (
  original: unknown,
  transcript: ReadonlyArray<Message>,
  byId: ReadonlyMap<string, number>,
  origins: ReadonlyArray<Origin>,
  systems: ReadonlyArray<TranscriptData.SystemMessage>
): unknown => {
  const decoded = transcript.filter((message) => message._tag === "System")
  if (systems.length === decoded.length && systems.every((message, k) => Unchanged.unchanged(decoded[k]!, message))) {
    return original
  }
  if (systems.length === 0) return undefined
  if (!Array.isArray(original)) return systems.map((message) => message.content).join("\n\n")
  return systems.map((message) => {
    const index = byId.get(message.id)
    const k = index === undefined || transcript[index]!._tag !== "System" ? undefined : origins[index]!.blocks[0]
    const block: unknown = k === undefined ? undefined : original[k]
    if (!isRecord(block)) return textBlock(message.content)
    return block["text"] === message.content ? block : { ...block, text: message.content }
  })
}

/**
 * The neutral transcript of a Messages API document, made with `kit`, and the
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
  return yield* decodeStepsWith(document, kit, undefined)
}

/**
 * The decodings a {@link continuing} codec keeps: by an array's first native
 * message, the system field and the native values it last decoded, and what
 * their decoding made.
 */
type Decodings = WeakMap<object, {
  readonly system: unknown
  readonly natives: ReadonlyArray<unknown>
  readonly decoding: Decoding
}>

function* decodeStepsWith(
  document: unknown,
  kit: TranscriptData.Kit,
  decodings: Decodings | undefined
): Steps.Steps<Result.Result<AdapterData.Decoded, AdapterData.Failure>> {
  const located = locate(document)
  if (located === undefined) {
    return Result.err(fail("expected a request body with a messages array, or an array of messages"))
  }
  const natives = located.messages
  const systemField = located.body?.["system"]
  // Decoding a message depends on the system field and the messages before it only: a body with the same system
  // field whose messages repeat the very values decoded last has their decoding, and only the rest is decoded.
  const first = natives[0]
  const memo = decodings !== undefined && typeof first === "object" && first !== null
    ? decodings.get(first)
    : undefined
  const kept = memo !== undefined && memo.decoding.kit === kit && memo.system === systemField &&
      AdapterData.repeats(natives, memo.natives)
    ? memo.natives.length
    : 0
  const decoding: Decoding = kept === 0
    ? { kit, transcript: [], origins: [], callNames: new Map() }
    : {
      kit,
      transcript: memo!.decoding.transcript.slice(),
      origins: memo!.decoding.origins.slice(),
      callNames: new Map(memo!.decoding.callNames)
    }
  if (kept === 0) {
    const system = decodeSystem(systemField, decoding)
    if (system._tag === "Err") return system
  }
  for (let index = kept; index < natives.length; index++) {
    const decoded = decodeMessage(natives[index], index, decoding)
    if (decoded._tag === "Err") return decoded
    if (index % Steps.itemsPerStep === Steps.itemsPerStep - 1) yield
  }
  if (decodings !== undefined && typeof first === "object" && first !== null) {
    decodings.set(first, {
      system: systemField,
      natives,
      decoding: { ...decoding, transcript: decoding.transcript.slice(), origins: decoding.origins.slice() }
    })
  }
  return Result.ok({
    format,
    transcript: decoding.transcript,
    encode: (view) => encodeView(located, decoding, view)
  })
}

/** Block types only the Messages API has. */
const anthropicBlocks: ReadonlySet<string> = new Set([
  "tool_use",
  "tool_result",
  "thinking",
  "redacted_thinking",
  "server_tool_use",
  "web_search_tool_result",
  "mcp_tool_use",
  "mcp_tool_result",
  "search_result",
  "container_upload",
  "compaction"
])

/** Part types of other formats: chat completions (`image_url`, …), AI SDK and @effect/ai (`tool-call`, `reasoning`, `file`, …). */
const foreignParts: ReadonlySet<string> = new Set([
  "image_url",
  "input_audio",
  "refusal",
  "file",
  "reasoning",
  "tool-call",
  "tool-result",
  "tool-approval-request",
  "tool-approval-response"
])

/**
 * Whether a parsed document looks like a Messages API document (see the faces' `AnthropicMessages.detect`).
 *
 * @since 0.1.0
 * @category detection
 */
export const detect = (document: unknown): boolean => detectWith(document, undefined)

/**
 * What a continuing codec's `detect` found of an array: by its first message,
 * the values it looked at (all of them of the format) and whether they held
 * the format's evidence.
 */
type Detections = WeakMap<object, { readonly natives: ReadonlyArray<unknown>; readonly evidence: boolean }>

const detectWith = (document: unknown, detections: Detections | undefined): boolean => {
  const located = locate(document)
  if (located === undefined) return false
  const system = located.body?.["system"]
  const natives = located.messages
  const first = natives[0]
  const seen = detections !== undefined && typeof first === "object" && first !== null
    ? detections.get(first)
    : undefined
  // The very values found to be of the format before are so still: only the rest is looked at.
  const from = seen !== undefined && AdapterData.repeats(natives, seen.natives) ? seen.natives.length : 0
  let evidence = typeof system === "string" || Array.isArray(system) || (from > 0 && seen!.evidence)
  for (let index = from; index < natives.length; index++) {
    const message = natives[index]
    if (!isRecord(message) || (message["role"] !== "user" && message["role"] !== "assistant")) return false
    if ("tool_calls" in message || "tool_call_id" in message) return false
    const content = message["content"]
    if (typeof content === "string") continue
    if (!Array.isArray(content)) return false
    for (const block of content) {
      if (!isRecord(block) || typeof block["type"] !== "string" || foreignParts.has(block["type"])) return false
      if (anthropicBlocks.has(block["type"])) evidence = true
      if ((block["type"] === "image" || block["type"] === "document") && isRecord(block["source"])) evidence = true
    }
  }
  if (detections !== undefined && typeof first === "object" && first !== null) {
    // The messages' own evidence (the system field's is the body's, looked at every time).
    const own = (from > 0 && seen!.evidence) || natives.slice(from).some(hasEvidence)
    detections.set(first, { natives, evidence: own })
  }
  return evidence
}

/** Whether a message (of the format) holds a block only the Messages API has. */
const hasEvidence = (message: unknown): boolean => {
  const content = isRecord(message) ? message["content"] : undefined
  return Array.isArray(content) && content.some((block) =>
    isRecord(block) && typeof block["type"] === "string" &&
    (anthropicBlocks.has(block["type"]) ||
      ((block["type"] === "image" || block["type"] === "document") && isRecord(block["source"])))
  )
}

/**
 * The Anthropic Messages codec.
 *
 * @since 0.1.0
 * @category codecs
 */
export const codec: AdapterData.Codec = { format, detect, decodeSteps }

/**
 * An Anthropic Messages codec that keeps its last decodings: a body with the
 * same system field whose messages repeat the very values of an array it
 * decoded (by the same first message), and add others after them, decodes
 * only the added ones. For a caller that decodes a growing history again and
 * again (the proxy); what it keeps lives as long as those message values.
 *
 * @since 0.1.0
 * @category codecs
 */
export const continuing = (): AdapterData.Codec =>
  AdapterData.continuingCodec<Detections, Decodings>(format, detectWith, decodeStepsWith)
