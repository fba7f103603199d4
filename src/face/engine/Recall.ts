/**
 * Recall (SPEC R2.18): compacted content given back by handle. A compacted
 * block lists the messages it stands for by session-scoped handles
 * (`ctx_…`); `recall` reads one back, whole or a page at a time, from the
 * transcript archive the engine already writes, within the session that
 * asks only. The `context_recall` tool definitions for OpenAI and Anthropic
 * are here; the AI SDK's is `recallTool` of `context-compressor/ai-sdk`, the
 * @effect/ai toolkit `RecallToolkit` of `context-compressor/effect-ai`, and
 * the proxy serves the tool itself with `--recall`. See `docs/recall.md`.
 *
 * @example
 * ```ts
 * import { Recall } from "context-compressor"
 * import { Effect } from "effect"
 *
 * // A handle names a message's text within its session only.
 * const handle = Recall.handleOf("session-1", "exit 1: 3 tests failed in tests/test_parser.py")
 * assert.match(handle, Recall.handlePattern)
 *
 * // Another session asking for it is refused before anything is read.
 * const refused = Effect.runSync(Effect.flip(Recall.recall({ sessionId: "session-2", handle })))
 * assert.strictEqual(refused.reason, "other-session")
 *
 * // The tool to offer the model, in OpenAI's shape.
 * assert.strictEqual(Recall.openAiTool.function.name, "context_recall")
 * ```
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Handles from "../../core/block/Handles.js"
import { TranscriptArchive } from "../services/TranscriptArchive.js"
import * as Session from "./Session.js"

/**
 * The tool's name, as the model calls it.
 *
 * @since 0.1.0
 * @category constants
 */
export const toolName = "context_recall"

/**
 * A well-formed handle: `ctx_` and 10 or more letters or digits.
 *
 * @since 0.1.0
 * @category constants
 */
export const handlePattern: RegExp = Handles.pattern

/**
 * The handle of a text in a session, as the block lists it: stable for the
 * two, another for any other session.
 *
 * @since 0.1.0
 * @category constructors
 */
export const handleOf: (sessionId: string, text: string) => string = Handles.handleOf

/**
 * The longest page given when the caller asks for none or for more: 16,000
 * characters (about 4,000 tokens).
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultPageChars = 16_000

/**
 * The page size that fits a share of a context window: 5 % of it at 3
 * characters a token, within [2,000, 48,000] characters.
 *
 * @since 0.1.0
 * @category constants
 */
export const pageCharsFor = (contextWindow: number): number =>
  Math.min(Math.max(Math.floor(contextWindow * 0.05) * 3, 2_000), 48_000)

/**
 * Why a handle gave nothing back: `invalid-handle` (not `ctx_` and 10 or more
 * letters or digits), `other-session` (a handle of another session: its
 * content is never read), `not-found` (no archived message of the session has
 * it), `no-archive` (the engine has no archive that can be read),
 * `unreadable` (the archive failed), `invalid-range` (an offset or length
 * that is not a whole number of characters, or an offset past the end).
 *
 * @since 0.1.0
 * @category errors
 */
export class RecallError extends Schema.TaggedError<RecallError>()("RecallError", {
  reason: Compat.Literals([
    "invalid-handle",
    "other-session",
    "not-found",
    "no-archive",
    "unreadable",
    "invalid-range"
  ]),
  sessionId: Schema.String,
  handle: Schema.String,
  message: Schema.String
}) {}

/**
 * One page of a recalled message: characters `offset` to `offset + text.length`
 * of its `total`, and where the next page starts when there is one.
 *
 * @since 0.1.0
 * @category models
 */
export class Page extends Schema.Class<Page>("RecallPage")({
  handle: Schema.String,
  /** The id of the message in the session's transcript. */
  messageId: Schema.String,
  offset: Schema.Int,
  total: Schema.Int,
  text: Schema.String,
  nextOffset: Compat.optionalKey(Schema.Int)
}) {}

/**
 * What to recall: the session asking, the handle, and optionally the page.
 *
 * @since 0.1.0
 * @category models
 */
export interface Input {
  readonly sessionId: string
  readonly handle: string
  /** The first character to give (default 0). */
  readonly offset?: number | undefined
  /** How many characters to give at most (default and cap: the page size). */
  readonly length?: number | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The largest page (default {@link defaultPageChars}). */
  readonly pageChars?: number | undefined
}

const bounded = (value: string): string => value.length > 80 ? `${value.slice(0, 80)}…` : value

/**
 * Reads a compacted message back by its handle, from the `TranscriptArchive`,
 * within `input.sessionId` only (with the branches of its derived id,
 * `Session.branchOf`: the sessions of histories that opened alike); a page of
 * it when it is long. Reads and
 * changes nothing else: the transcript and the compaction state stay as they are.
 *
 * @since 0.1.0
 * @category recall
 */
export const recall = (input: Input, options: Options = {}): Effect.Effect<Page, RecallError> =>
  Effect.gen(function*() {
    const { handle, sessionId } = input
    const fail = (reason: RecallError["reason"], message: string) =>
      new RecallError({ reason, sessionId, handle: bounded(handle), message })
    if (typeof handle !== "string" || !Handles.pattern.test(handle)) {
      return yield* fail(
        "invalid-handle",
        `${JSON.stringify(bounded(String(handle)))} is not a recall handle (ctx_ and 10 or more letters or digits)`
      )
    }
    // A handle of a branch of the session's derived id (another history that opened alike) is read there.
    const holder = Handles.belongsTo(handle, sessionId)
      ? sessionId
      : Session.branchesOf(Session.familyOf(sessionId)).find((branch) => Handles.belongsTo(handle, branch))
    if (holder === undefined) {
      return yield* fail("other-session", `${handle} is not a handle of this session`)
    }
    const pageChars = Math.max(Math.floor(options.pageChars ?? defaultPageChars), 1)
    const offset = input.offset ?? 0
    const length = input.length ?? pageChars
    if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(length) || length < 1) {
      return yield* fail("invalid-range", "offset must be a whole number from 0 and length a whole number from 1")
    }
    const archive = yield* Effect.serviceOption(TranscriptArchive)
    if (Option.isNone(archive) || archive.value.lookup === undefined) {
      return yield* fail("no-archive", "this compactor keeps no archive it can read compacted content back from")
    }
    const found = yield* archive.value.lookup(holder, handle).pipe(
      Effect.mapError((error) => fail("unreadable", `the archive could not be read (${error.path}: ${error.reason})`))
    )
    if (Option.isNone(found)) {
      return yield* fail("not-found", `no compacted message of this session has the handle ${handle}`)
    }
    const text = Handles.textOf(found.value) ?? ""
    if (offset > text.length || (offset === text.length && text.length > 0)) {
      return yield* fail("invalid-range", `offset ${offset} is past the end (the text has ${text.length} characters)`)
    }
    let end = Math.min(offset + Math.min(length, pageChars), text.length)
    // A page never ends between the two halves of a surrogate pair.
    if (end < text.length && end > offset + 1 && /[\uD800-\uDBFF]/.test(text[end - 1]!)) end--
    return new Page({
      handle,
      messageId: found.value.id,
      offset,
      total: text.length,
      text: text.slice(offset, end),
      ...(end < text.length ? { nextOffset: end } : {})
    })
  })

/**
 * The tool's description, as the model reads it.
 *
 * @since 0.1.0
 * @category tools
 */
export const description =
  "Read back, whole, a message that context compaction replaced: give a handle (ctx_…) listed in the compacted block. " +
  "Long content comes in pages: the answer says the total length and the offset of the next page."

/**
 * The tool's parameters as JSON Schema.
 *
 * @since 0.1.0
 * @category tools
 */
export const parameters = {
  type: "object",
  properties: {
    handle: { type: "string", description: "A handle listed in the compacted block, ctx_ and letters or digits." },
    offset: { type: "integer", minimum: 0, description: "The first character to read (default 0)." },
    length: { type: "integer", minimum: 1, description: "How many characters to read at most (default: one page)." }
  },
  required: ["handle"],
  additionalProperties: false
} as const

/**
 * The tool for OpenAI chat completions' `tools`.
 *
 * @since 0.1.0
 * @category tools
 */
export const openAiTool = { type: "function", function: { name: toolName, description, parameters } } as const

/**
 * The tool for Anthropic Messages' `tools`.
 *
 * @since 0.1.0
 * @category tools
 */
export const anthropicTool = { name: toolName, description, input_schema: parameters } as const

/**
 * The arguments of a call, checked: a handle, and an offset and length that are whole numbers when given.
 *
 * @since 0.1.0
 * @category tools
 */
export const Arguments = Schema.Struct({
  handle: Schema.String,
  offset: Schema.optional(Schema.Int.pipe(Compat.nonNegative())),
  length: Schema.optional(Schema.Int.pipe(Compat.positive()))
})

const decodeArguments = Schema.decodeUnknownOption(Arguments)

/**
 * Answers one call of the tool, given its arguments as JSON text or a value,
 * as the text a tool result carries: the page with a header line saying which
 * characters of how many it holds and where the next page starts, or the
 * reason nothing came back. Never fails: a bad call is answered with why.
 *
 * @since 0.1.0
 * @category tools
 */
export const answer = (sessionId: string, args: unknown, options: Options = {}): Effect.Effect<string> => {
  let value = args
  if (typeof args === "string") {
    try {
      value = JSON.parse(args === "" ? "{}" : args)
    } catch {
      return Effect.succeed(`${toolName} failed: its arguments are not JSON`)
    }
  }
  const decoded = decodeArguments(value)
  if (Option.isNone(decoded)) {
    return Effect.succeed(
      `${toolName} failed: the arguments need a string handle, and whole numbers for offset and length`
    )
  }
  return recall({ sessionId, ...decoded.value }, options).pipe(
    Effect.map(render),
    Compat.catch((error) => Effect.succeed(`${toolName} failed (${error.reason}): ${error.message}`))
  )
}

/**
 * A page as the text of a tool result.
 *
 * @since 0.1.0
 * @category tools
 */
export const render = (page: Page): string => {
  const end = page.offset + page.text.length
  const next = page.nextOffset === undefined ? "the end" : `more from offset ${page.nextOffset}`
  return `[${page.handle}, message ${page.messageId}: characters ${page.offset} to ${end} of ${page.total}; ${next}]\n${page.text}`
}
