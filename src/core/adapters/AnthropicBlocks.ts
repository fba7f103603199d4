/**
 * The content blocks of the Anthropic Messages codec, in the shared core: how
 * a block is read (its text, a tool call's input, a tool result's content)
 * and how the blocks of a changed neutral message are written back at their
 * positions in the original content. `AnthropicMessages` reads and writes
 * whole messages and documents with them. No Effect import.
 *
 * @since 0.1.0
 */
import * as JsonReader from "../json/JsonReader.js"
import * as JsonWrite from "../json/JsonWrite.js"
import * as Result from "../Result.js"
import type * as TranscriptData from "../transcript/TranscriptData.js"
import * as AdapterData from "./AdapterData.js"
import * as CallPositions from "./CallPositions.js"
import * as Native from "./Native.js"

/**
 * A native message or content block, as parsed.
 *
 * @since 0.1.0
 * @category models
 */
export type Block = Native.Native

const format: AdapterData.Format = "anthropic"

const isRecord = Native.isRecord

/**
 * The codec's failure, naming the message at fault when there is one.
 *
 * @since 0.1.0
 * @category errors
 */
export const fail = (reason: string, index?: number): AdapterData.Failure => AdapterData.failure(format, reason, index)

/**
 * A reading whose failure names what is wrong (`where`, then the problem) and which message.
 *
 * @since 0.1.0
 * @category errors
 */
export const at = <A>(
  read: Result.Result<A, string>,
  where: string,
  index?: number
): Result.Result<A, AdapterData.Failure> => Result.mapError(read, (problem) => fail(`${where} ${problem}`, index))

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
// Checks
// =============================================================================

/** Whether a value is a text block: an object with the type `text` and a string text of its own. */
const isTextBlock = (value: unknown): value is Block & { readonly text: string } =>
  isRecord(value) && Native.has(value, "type") && value["type"] === "text" && Native.has(value, "text") &&
  Native.isText(value["text"])

/**
 * A block of the `system` field: a text block.
 *
 * @since 0.1.0
 * @category checks
 */
export const readSystemBlock = Native.check(isTextBlock, () => "is not a text block")

/** A content block: any object with a type, a text block with its text. */
const readBlock = Native.check(
  (value): value is Block & { readonly type: string } =>
    isRecord(value) && Native.has(value, "type") && Native.isText(value["type"]),
  () => "is not an object with a type"
)

const readBlockText = Native.check(isTextBlock, () => "has no text")

/**
 * A `tool_use` block: its id, its tool's name and its input (`undefined` when it has none of its own).
 *
 * @since 0.1.0
 * @category checks
 */
export const readToolUse = (
  block: unknown
): Result.Result<{ readonly id: string; readonly name: string; readonly input: unknown }, string> =>
  isRecord(block) && Native.has(block, "id") && Native.isText(block["id"]) && Native.has(block, "name") &&
    Native.isText(block["name"])
    ? Result.ok({ id: block["id"], name: block["name"], input: Native.own(block, "input") })
    : Result.err("needs a string id, a string name and a JSON input")

/**
 * The call a `tool_result` block answers.
 *
 * @since 0.1.0
 * @category checks
 */
export const readToolUseId = (block: Block): Result.Result<string, string> =>
  Native.required(block, "tool_use_id", Native.isText, "has no string tool_use_id")

const readResultContent = Native.check(
  (value): value is string | null | undefined | ReadonlyArray<unknown> =>
    value === undefined || value === null || Native.isText(value) || Array.isArray(value),
  () => "is neither text nor blocks"
)

// =============================================================================
// Reading
// =============================================================================

/** The text of a block that is not a tool call or result: its text, or a bracketed placeholder for media and server-side blocks. */
const blockText = (block: Block): string | undefined => {
  switch (block["type"]) {
    case "text":
      return typeof block["text"] === "string" ? block["text"] : undefined
    case "compaction": {
      // A provider's summary of the turns before it: the model reads it, so it counts as its text.
      const content = block["content"]
      return typeof content === "string" && content !== "" ? content : "[compaction]"
    }
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
export const inputText = (input: unknown): string | undefined => JsonWrite.stringifyOrUndefined(input ?? {})

/** The tool input of arguments written by someone else: the JSON object they hold, or the text under `arguments`. */
const inputOf = (args: string): unknown => {
  const parsed = JsonReader.read(args)
  return parsed._tag === "Ok" && isRecord(parsed.value) ? parsed.value : { arguments: args }
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
): Result.Result<ReadonlyArray<Block>, AdapterData.Failure> =>
  Result.gen(function*() {
    for (const [k, raw] of content.entries()) {
      const block = yield* Result.take(at(readBlock(raw), `content block ${k} of message ${index}`, index))
      if (block.type === "text") {
        yield* Result.take(at(readBlockText(raw), `text block ${k} of message ${index}`, index))
      }
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
): Result.Result<string, AdapterData.Failure> => {
  const read = at(readResultContent(content), `the content of tool_result block ${k} of message ${index}`, index)
  if (read._tag === "Err") return read
  const value = read.value
  return typeof value === "string"
    ? Result.ok(value)
    : value === undefined || value === null
    ? Result.ok("")
    : Result.map(checkedBlocks(value, index), blocksText)
}

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
export const toolUseBlock = (call: TranscriptData.ToolCall): Block => ({
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
  original: TranscriptData.Message,
  message: TranscriptData.Message
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
