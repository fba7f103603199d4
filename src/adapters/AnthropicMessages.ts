/**
 * The adapter of Anthropic Messages API documents: a request body
 * `{ system?, messages, … }` or a bare array of messages, each `user` or
 * `assistant` with text or content blocks (`text`, `tool_use`, `tool_result`,
 * `thinking`, `redacted_thinking`, `image`, `document`, …), to the neutral
 * transcript and back.
 *
 * One native message may hold several neutral ones: a user message's
 * `tool_result` blocks are tool results, its other blocks one user message
 * after them. The neutral messages of native message `i` are `m<i>`,
 * `m<i>.1`, `m<i>.2`, …, and the system prompt's blocks `s0`, `s1`, …, so the
 * ids stay stable as an append-only transcript grows. An assistant message
 * is one neutral message: its thinking blocks never leave its tool calls.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Cooperative from "../internal/Cooperative.js"
import * as Transcript from "../Transcript.js"
import * as Adapter from "./Adapter.js"
import * as Blocks from "./internal/AnthropicBlocks.js"
import * as NativeSchema from "./internal/NativeSchema.js"
import * as Unchanged from "./internal/Unchanged.js"

/**
 * A Messages API message as it was parsed, every field kept as it came.
 *
 * @since 0.1.0
 * @category models
 */
export type NativeMessage = { readonly [key: string]: unknown }

const format: Adapter.Format = "anthropic"

type Record_ = NativeSchema.Native

const isRecord = NativeSchema.isRecord

const describe = NativeSchema.describe

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

const decodeDocument = NativeSchema.decoder(
  Schema.Union(NativeSchema.UnknownArray, Schema.Struct({ messages: NativeSchema.UnknownArray }))
)

const locate = (document: unknown): Located | undefined =>
  Either.isLeft(decodeDocument(document))
    ? undefined
    : Array.isArray(document)
    ? { messages: document, body: undefined }
    : { messages: (document as Record_)["messages"] as ReadonlyArray<unknown>, body: document as Record_ }

type Origin = Blocks.Origin

// =============================================================================
// Decoding (the blocks' schemas and readers are in internal/AnthropicBlocks)
// =============================================================================

const decodeSystemField = NativeSchema.decoder(
  NativeSchema.saying(
    Schema.UndefinedOr(Schema.Union(NativeSchema.Text, Schema.Array(Schema.Unknown))),
    () => "is neither text nor an array of text blocks"
  )
)

const decodeMessageObject = NativeSchema.decoder(
  NativeSchema.saying(NativeSchema.NativeObject, () => "is not an object")
)

const decodeRole = NativeSchema.decoder(
  NativeSchema.saying(
    Schema.Literal("user", "assistant"),
    (role) =>
      `has the role ${
        describe(role)
      }: Messages API messages are "user" or "assistant" (the system prompt is the top-level system field)`
  )
)

const decodeContent = NativeSchema.decoder(
  NativeSchema.saying(
    Schema.Union(NativeSchema.Text, Schema.Array(Schema.Unknown)),
    () => "is neither text nor an array of content blocks"
  )
)

interface Decoding {
  readonly transcript: Array<Transcript.Message>
  readonly origins: Array<Origin>
  readonly callNames: Map<string, string>
}

const decodeMessage = (raw: unknown, index: number, state: Decoding): Either.Either<void, Adapter.AdapterError> =>
  Either.gen(function*() {
    const message = yield* at(decodeMessageObject(raw), `message ${index}`, index)
    const role = yield* at(decodeRole(message["role"]), `message ${index}`, index)
    let count = 0
    const push = (neutral: (id: string) => Transcript.Message, blocks: ReadonlyArray<number>) => {
      state.transcript.push(neutral(count === 0 ? `m${index}` : `m${index}.${count}`))
      state.origins.push({ native: index, blocks })
      count++
    }
    const content = yield* at(decodeContent(message["content"]), `the content of message ${index}`, index)
    if (typeof content === "string") {
      push(
        (id) =>
          role === "user"
            ? new Transcript.UserMessage({ id, content })
            : new Transcript.AssistantMessage({ id, content, toolCalls: [] }),
        []
      )
      return
    }
    const blocks = yield* Blocks.checkedBlocks(content, index)
    if (role === "assistant") {
      const texts: Array<Record_> = []
      const toolCalls: Array<Transcript.ToolCall> = []
      for (const [k, block] of blocks.entries()) {
        switch (block["type"]) {
          case "tool_use": {
            const where = `tool_use block ${k} of message ${index}`
            const { id, input, name } = yield* at(Blocks.decodeToolUse(block), where, index)
            const args = Blocks.inputText(input)
            if (args === undefined) {
              return yield* Either.left(fail(`${where} needs a string id, a string name and a JSON input`, index))
            }
            state.callNames.set(id, name)
            toolCalls.push(new Transcript.ToolCall({ id, name, arguments: args }))
            break
          }
          case "tool_result":
            return yield* Either.left(
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
        (id) => new Transcript.AssistantMessage({ id, content: Blocks.blocksText(texts), toolCalls }),
        blocks.map((_, k) => k)
      )
      return
    }
    const others: Array<number> = []
    for (const [k, block] of blocks.entries()) {
      if (block["type"] === "tool_use") {
        return yield* Either.left(
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
      const toolCallId =
        (yield* at(Blocks.decodeToolUseId(block), `tool_result block ${k} of message ${index}`, index)).tool_use_id
      // A result whose call no earlier message makes is refused, as the API refuses it.
      const name = state.callNames.get(toolCallId)
      if (name === undefined) {
        return yield* Either.left(
          fail(
            `tool_result block ${k} of message ${index} answers ${toolCallId}, which no earlier tool_use block calls`,
            index
          )
        )
      }
      const text = yield* Blocks.toolResultText(block["content"], k, index)
      push((id) => new Transcript.ToolResult({ id, toolCallId, name, content: text }), [k])
    }
    if (others.length > 0 || count === 0) {
      const text = Blocks.blocksText(others.map((k) => blocks[k]!))
      push((id) => new Transcript.UserMessage({ id, content: text }), others)
    }
  })

const decodeSystem = (system: unknown, state: Decoding): Either.Either<void, Adapter.AdapterError> =>
  Either.gen(function*() {
    const decoded = yield* at(decodeSystemField(system), "the system field")
    if (decoded === undefined) return
    if (typeof decoded === "string") {
      state.transcript.push(new Transcript.SystemMessage({ id: "s0", content: decoded }))
      state.origins.push({ native: -1, blocks: [] })
      return
    }
    for (const [k, raw] of decoded.entries()) {
      const block = yield* at(Blocks.decodeSystemBlock(raw), `block ${k} of the system field`)
      state.transcript.push(new Transcript.SystemMessage({ id: `s${k}`, content: block.text }))
      state.origins.push({ native: -1, blocks: [k] })
    }
  })

/** A message the document did not hold, written in the format. */
const fresh = (
  message: Transcript.UserMessage | Transcript.AssistantMessage | Transcript.ToolResult | Transcript.SystemMessage
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
  view: Transcript.Transcript
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
  const decodedIndex = (message: Transcript.Message): number | undefined => {
    const index = byId.get(message.id)
    return index !== undefined && transcript[index]!._tag === message._tag ? index : undefined
  }

  const rebuild = (
    native: number,
    group: ReadonlyArray<{ readonly message: Transcript.Message; readonly index: number }>
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
  const systems: Array<Transcript.SystemMessage> = []
  let group: Array<{ readonly message: Transcript.Message; readonly index: number }> = []
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
  transcript: ReadonlyArray<Transcript.Message>,
  byId: ReadonlyMap<string, number>,
  origins: ReadonlyArray<Origin>,
  systems: ReadonlyArray<Transcript.SystemMessage>
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
 * The neutral transcript of a Messages API document (a request body with
 * `messages` and an optional `system`, or a bare array of messages), with the
 * `encode` of its views. A document that is not one is an `AdapterError`
 * naming the message at fault: a role other than `user`/`assistant`, content
 * that is neither text nor blocks, a `tool_use` in a user message or a
 * `tool_result` in an assistant message, or a `tool_result` answering a call
 * no earlier message makes. Never throws.
 *
 * `encode` writes a view back in the document's shape: every unchanged
 * message as it came in; an assistant message narrowed to some of its calls
 * as the original without the other `tool_use` blocks (its thinking blocks
 * kept, in order); a user message part of whose results left the view as the
 * original without them; a compacted block as a user message with one text
 * block, merged (leading) into a neighbouring user message, so that turns
 * alternate; a user message first. System messages of a view of a bare array
 * (which has no `system` field) become user messages.
 *
 * @example
 * ```ts
 * import { AnthropicMessages } from "context-compressor/adapters"
 * import { Either } from "effect"
 *
 * const request = {
 *   model: "claude-sonnet-4-5",
 *   system: "You are a coding agent.",
 *   messages: [{ role: "user", content: "list the files" }]
 * }
 * const decoded = Either.getOrThrow(AnthropicMessages.decode(request))
 * assert.deepStrictEqual(decoded.transcript.map((message) => message._tag), ["System", "User"])
 * // A message that is not one names itself and the problem.
 * const refused = AnthropicMessages.decode({ messages: [{ role: "system", content: "x" }] })
 * assert.ok(Either.isLeft(refused) && refused.left.index === 0)
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
    return Either.left(fail("expected a request body with a messages array, or an array of messages"))
  }
  const decoding: Decoding = { transcript: [], origins: [], callNames: new Map() }
  const system = decodeSystem(located.body?.["system"], decoding)
  if (Either.isLeft(system)) return Either.left(system.left)
  for (let index = 0; index < located.messages.length; index++) {
    const decoded = decodeMessage(located.messages[index], index, decoding)
    if (Either.isLeft(decoded)) return Either.left(decoded.left)
    if (index % Cooperative.itemsPerStep === Cooperative.itemsPerStep - 1) yield
  }
  return Either.right({
    format,
    transcript: decoding.transcript,
    encode: (view) => encodeView(located, decoding, view)
  })
}

/**
 * Writes a view of a decoded document back as a Messages API document of the
 * same shape (request body or array).
 *
 * @since 0.1.0
 * @category encoding
 */
export const encode = (decoded: Adapter.Decoded, view: Transcript.Transcript): unknown => decoded.encode(view)

/** Block types only the Messages API has. */
const anthropicBlocks = new Set([
  "tool_use",
  "tool_result",
  "thinking",
  "redacted_thinking",
  "server_tool_use",
  "web_search_tool_result",
  "mcp_tool_use",
  "mcp_tool_result",
  "search_result",
  "container_upload"
])

/** Part types of other formats: chat completions (`image_url`, …), AI SDK and @effect/ai (`tool-call`, `reasoning`, `file`, …). */
const foreignParts = new Set([
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
 * Whether a parsed document looks like a Messages API document: every message
 * is `user` or `assistant` without chat completions fields, with text or
 * content blocks none of which is another format's part; and something only
 * this format has: a top-level `system`, or a `tool_use`, `tool_result` or
 * `thinking` block, or an image or document block with a `source`. A plain
 * chat of text alone is left to the chat completions adapter.
 *
 * @since 0.1.0
 * @category detection
 */
export const detect = (document: unknown): boolean => {
  const located = locate(document)
  if (located === undefined) return false
  const system = located.body?.["system"]
  let evidence = typeof system === "string" || Array.isArray(system)
  for (const message of located.messages) {
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
  return evidence
}

/**
 * The Anthropic Messages API adapter.
 *
 * @since 0.1.0
 * @category adapters
 */
export const adapter: Adapter.Adapter = { format, detect, decode, decodeSteps }
