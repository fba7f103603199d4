/**
 * The content blocks of the Anthropic Messages adapter: how a block is read
 * (its schema, its text, a tool call's input, a tool result's content) and how
 * the blocks of a changed neutral message are written back at their positions
 * in the original content. `AnthropicMessages` reads and writes whole messages
 * and documents with them.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Json from "../../Json.js"
import type * as Transcript from "../../Transcript.js"
import * as Adapter from "../Adapter.js"
import * as CallPositions from "./CallPositions.js"
import * as NativeSchema from "./NativeSchema.js"

/**
 * A native message or content block, as parsed.
 *
 * @since 0.1.0
 * @category models
 */
export type Block = NativeSchema.Native

const format: Adapter.Format = "anthropic"

const isRecord = NativeSchema.isRecord

/**
 * The adapter's error, naming the message at fault when there is one.
 *
 * @since 0.1.0
 * @category errors
 */
export const fail = (reason: string, index?: number): Adapter.AdapterError =>
  new Adapter.AdapterError({ format, reason, ...(index === undefined ? {} : { index }) })

/**
 * A decoding whose failure names what is wrong (`where`, then the schema's problem) and which message.
 *
 * @since 0.1.0
 * @category errors
 */
export const at = <A>(
  decoded: Either.Either<A, string>,
  where: string,
  index?: number
): Either.Either<A, Adapter.AdapterError> => Either.mapLeft(decoded, (problem) => fail(`${where} ${problem}`, index))

/**
 * Where a neutral message came from: the native message (`-1` for the system prompt) and the content blocks it stands for.
 *
 * @since 0.1.0
 * @category models
 */
export interface Origin {
  readonly native: number
  readonly blocks: ReadonlyArray<number>
}

// =============================================================================
// Schemas
// =============================================================================

const TextBlock = Schema.Struct({ type: Schema.Literal("text"), text: NativeSchema.Text })

/**
 * A block of the `system` field: a text block.
 *
 * @since 0.1.0
 * @category schemas
 */
export const decodeSystemBlock = NativeSchema.decoder(NativeSchema.saying(TextBlock, () => "is not a text block"))

/** A content block: any object with a type, a text block with its text. */
const decodeBlock = NativeSchema.decoder(
  NativeSchema.saying(Schema.Struct({ type: NativeSchema.Text }), () => "is not an object with a type")
)

const decodeBlockText = NativeSchema.decoder(NativeSchema.saying(TextBlock, () => "has no text"))

/**
 * A `tool_use` block: its id, its tool's name and its input.
 *
 * @since 0.1.0
 * @category schemas
 */
export const decodeToolUse = NativeSchema.decoder(
  NativeSchema.saying(
    Schema.Struct({ id: NativeSchema.Text, name: NativeSchema.Text, input: Schema.optional(Schema.Unknown) }),
    () => "needs a string id, a string name and a JSON input"
  )
)

/**
 * The call a `tool_result` block answers.
 *
 * @since 0.1.0
 * @category schemas
 */
export const decodeToolUseId = NativeSchema.decoder(
  Schema.Struct({ tool_use_id: NativeSchema.required(NativeSchema.Text, () => "has no string tool_use_id") })
)

const decodeResultContent = NativeSchema.decoder(
  NativeSchema.saying(
    Schema.UndefinedOr(Schema.NullOr(Schema.Union(NativeSchema.Text, Schema.Array(Schema.Unknown)))),
    () => "is neither text nor blocks"
  )
)

// =============================================================================
// Reading
// =============================================================================

/** The text of a block that is not a tool call or result: its text, or a bracketed placeholder for media and server-side blocks. */
const blockText = (block: Block): string | undefined => {
  switch (block["type"]) {
    case "text":
      return typeof block["text"] === "string" ? block["text"] : undefined
    case "document": {
      const title = block["title"]
      return typeof title === "string" ? `[document: ${title}]` : "[document]"
    }
    default:
      return `[${String(block["type"])}]`
  }
}

/**
 * The text of blocks that are not tool calls or results, one line each: a text block's text, or a bracketed
 * placeholder for media and server-side blocks.
 *
 * @since 0.1.0
 * @category reading
 */
export const blocksText = (blocks: ReadonlyArray<Block>): string =>
  blocks.flatMap((block) => {
    const text = blockText(block)
    return text === undefined ? [] : [text]
  }).join("\n")

/**
 * JSON text of a tool input, numbers as written; an input JSON cannot write (a cycle, a bigint) is refused, not thrown.
 *
 * @since 0.1.0
 * @category reading
 */
export const inputText = (input: unknown): string | undefined => Json.stringifyOrUndefined(input ?? {})

/** The tool input of arguments written by someone else: the JSON object they hold, or the text under `arguments`. */
const inputOf = (args: string): unknown => {
  const parsed = Json.parse(args)
  return Either.isRight(parsed) && isRecord(parsed.right) ? parsed.right : { arguments: args }
}

/**
 * The blocks of a content array, each an object with a type (a text block with its text).
 *
 * @since 0.1.0
 * @category reading
 */
export const checkedBlocks = (
  content: ReadonlyArray<unknown>,
  index: number
): Either.Either<ReadonlyArray<Block>, Adapter.AdapterError> =>
  Either.gen(function*() {
    for (const [k, raw] of content.entries()) {
      const block = yield* at(decodeBlock(raw), `content block ${k} of message ${index}`, index)
      if (block.type === "text") yield* at(decodeBlockText(raw), `text block ${k} of message ${index}`, index)
    }
    return content as ReadonlyArray<Block>
  })

/**
 * The text of a `tool_result` block's content: its text, the text of its blocks, or nothing.
 *
 * @since 0.1.0
 * @category reading
 */
export const toolResultText = (
  content: unknown,
  k: number,
  index: number
): Either.Either<string, Adapter.AdapterError> =>
  Either.flatMap(
    at(decodeResultContent(content), `the content of tool_result block ${k} of message ${index}`, index),
    (decoded) =>
      typeof decoded === "string"
        ? Either.right(decoded)
        : decoded === undefined || decoded === null
        ? Either.right("")
        : Either.map(checkedBlocks(decoded, index), blocksText)
  )

// =============================================================================
// Writing
// =============================================================================

/**
 * A text block.
 *
 * @since 0.1.0
 * @category writing
 */
export const textBlock = (text: string): Block => ({ type: "text", text })

/**
 * The `tool_use` block of a call.
 *
 * @since 0.1.0
 * @category writing
 */
export const toolUseBlock = (call: Transcript.ToolCall): Block => ({
  type: "tool_use",
  id: call.id,
  name: call.name,
  input: inputOf(call.arguments)
})

/**
 * A message's content as blocks: text as one text block.
 *
 * @since 0.1.0
 * @category writing
 */
export const asBlocks = (content: unknown): ReadonlyArray<unknown> =>
  typeof content === "string" ? [textBlock(content)] : Array.isArray(content) ? content : []

/**
 * Whether a block is a `tool_result` block.
 *
 * @since 0.1.0
 * @category writing
 */
export const isToolResult = (block: unknown): boolean => isRecord(block) && block["type"] === "tool_result"

/**
 * The blocks a changed neutral message stands for, each at its position in the original content.
 *
 * @since 0.1.0
 * @category writing
 */
export const changedBlocks = (
  blocks: ReadonlyArray<Block>,
  origin: Origin,
  original: Transcript.Message,
  message: Transcript.Message
): ReadonlyArray<readonly [number, Block]> => {
  const at = (k: number): readonly [number, Block] => [k, blocks[k]!]
  switch (message._tag) {
    case "ToolResult": {
      const k = origin.blocks[0]!
      const block = blocks[k]!
      return [[k, {
        ...block,
        tool_use_id: message.toolCallId,
        ...(message.content === original.content ? {} : { content: message.content })
      }]]
    }
    case "Assistant": {
      if (original._tag !== "Assistant") return []
      const kept: Array<readonly [number, Block]> = []
      const textChanged = message.content !== original.content
      const firstText = origin.blocks.find((k) => blocks[k]!["type"] === "text")
      const firstCall = origin.blocks.find((k) => blocks[k]!["type"] === "tool_use")
      // Calls by position, not by id: one message can use an id twice.
      const calls = CallPositions.keptByPosition(original.toolCalls, message.toolCalls)
      let callBlock = 0
      for (const k of origin.blocks) {
        const block = blocks[k]!
        if (block["type"] === "tool_use") {
          const position = callBlock++
          const call = calls.at.get(position)
          const known = original.toolCalls[position]
          if (call === undefined) continue
          const unchanged = known !== undefined && known.name === call.name && known.arguments === call.arguments
          kept.push(unchanged ? at(k) : [k, { ...block, name: call.name, input: inputOf(call.arguments) }])
        } else if (block["type"] === "text" && textChanged) {
          if (k === firstText && message.content !== "") kept.push([k, { ...block, text: message.content }])
        } else {
          // Thinking blocks and every other block stay with the turn, in their order.
          kept.push(at(k))
        }
      }
      if (textChanged && firstText === undefined && message.content !== "") {
        kept.push([firstCall === undefined ? blocks.length : firstCall - 0.5, textBlock(message.content)])
      }
      calls.added.forEach((call, n) => kept.push([blocks.length + 1 + n, toolUseBlock(call)]))
      return kept
    }
    default: {
      const first = origin.blocks[0]
      return first === undefined ? [[blocks.length, textBlock(message.content)]] : [[first, textBlock(message.content)]]
    }
  }
}
