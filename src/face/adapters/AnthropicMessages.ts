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
import * as Compat from "#compat"
import type * as Effect from "effect/Effect"
import * as Codec from "../../core/adapters/AnthropicMessages.js"
import * as Steps from "../../core/Steps.js"
import type * as Transcript from "../models/Transcript.js"
import type * as Adapter from "./Adapter.js"
import * as Codecs from "./internal/Codecs.js"

/**
 * A Messages API message as it was parsed, every field kept as it came.
 *
 * @since 0.1.0
 * @category models
 */
export type NativeMessage = Codec.NativeMessage

/**
 * The neutral transcript of a Messages API document (a request body with
 * `messages` and an optional `system`, or a bare array of messages), with the
 * `encode` of its views. A document that is not one is an `AdapterError`
 * naming the message at fault: a role other than `user`/`assistant`, content
 * that is neither text nor blocks, a `tool_use` in a user message or a
 * `tool_result` in an assistant message, or a `tool_result` answering a call
 * no earlier message makes; the effect fails with it. Never throws; the same
 * on Effect 3 and Effect 4 (`yield*` it in `Effect.gen`).
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
 * import { Effect } from "effect"
 *
 * const request = {
 *   model: "claude-sonnet-4-5",
 *   system: "You are a coding agent.",
 *   messages: [{ role: "user", content: "list the files" }]
 * }
 * const decoded = Effect.runSync(AnthropicMessages.decode(request))
 * assert.deepStrictEqual(decoded.transcript.map((message) => message._tag), ["System", "User"])
 * ```
 *
 * @since 0.1.0
 * @category decoding
 */
export const decode = (document: unknown): Effect.Effect<Adapter.Decoded, Adapter.AdapterError> =>
  Compat.fromResult(decodeResult(document))

/**
 * {@link decode}'s answer as a pure value: the decoded document, or the
 * `AdapterError` (an `Either` on Effect 3, a `Result` on Effect 4). Never
 * throws.
 *
 * @example
 * ```ts
 * import { AnthropicMessages } from "context-compressor/adapters"
 * import { Either } from "effect"
 *
 * // A message that is not one names itself and the problem.
 * const refused = AnthropicMessages.decodeResult({ messages: [{ role: "system", content: "x" }] })
 * assert.ok(Either.isLeft(refused) && refused.left.index === 0)
 * ```
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeResult = (document: unknown): Compat.Result<Adapter.Decoded, Adapter.AdapterError> =>
  Steps.runSync(decodeSteps(document))

/**
 * {@link decode} as steps that pause every few messages, for a caller that
 * lets the event loop run while a long document is decoded
 * (`Cooperative.run`); `decodeResult` runs them to the end.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeSteps = (
  document: unknown
): Steps.Steps<Compat.Result<Adapter.Decoded, Adapter.AdapterError>> => Codecs.decodeSteps(Codec.codec, document)

/**
 * Writes a view of a decoded document back as a Messages API document of the
 * same shape (request body or array).
 *
 * @since 0.1.0
 * @category encoding
 */
export const encode = (decoded: Adapter.Decoded, view: Transcript.Transcript): unknown => decoded.encode(view)

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
export const detect: (document: unknown) => boolean = Codec.detect

/**
 * The Anthropic Messages API adapter.
 *
 * @since 0.1.0
 * @category adapters
 */
export const adapter: Adapter.Adapter = {
  format: Codec.codec.format,
  detect,
  decode,
  decodeResult,
  decodeSteps,
  continuing: () => Codecs.adapterOf(Codec.continuing())
}
