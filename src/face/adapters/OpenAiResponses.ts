/**
 * The adapter of an OpenAI Responses request's `input`: a string, an array of
 * items, or a request body holding one, to the neutral transcript and back.
 * A `user`, `system` or `developer` message item is a neutral message, a
 * `function_call_output` or `custom_tool_call_output` a tool result, and each
 * run of items between them (assistant messages, `function_call` and
 * `custom_tool_call` items, `reasoning`, provider `compaction` and items of
 * types it does not know) one assistant message whose calls are the run's.
 * The message of the items from `i` on is `m<i>`. Reasoning, compaction and
 * unknown items are opaque: written back byte for byte with their message
 * (a reasoning item's `encrypted_content` is never read as text), dropped
 * with it, a reasoning item kept with the item it precedes. A view is written
 * back with every unchanged message's items exactly as they came in.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import type * as Effect from "effect/Effect"
import * as Codec from "../../core/adapters/OpenAiResponses.js"
import * as Steps from "../../core/Steps.js"
import type * as Transcript from "../models/Transcript.js"
import type * as Adapter from "./Adapter.js"
import * as Codecs from "./internal/Codecs.js"

/**
 * A Responses input item as it was parsed, every field kept as it came.
 *
 * @since 0.1.0
 * @category models
 */
export type NativeItem = Codec.NativeItem

/**
 * The neutral transcript of a Responses document (an `input` array of items,
 * or a request body with an `input`), with the `encode` of its views. A
 * document that is not one is an `AdapterError` naming the item at fault; an
 * output answering a call no earlier item makes is refused, the effect failing
 * with it. Never throws; the same on Effect 3 and Effect 4 (`yield*` it in
 * `Effect.gen`).
 *
 * @example
 * ```ts
 * import { OpenAiResponses } from "context-compressor/adapters"
 * import { Effect } from "effect"
 *
 * const input = [
 *   { role: "developer", content: "You are a coding agent." },
 *   { role: "user", content: "list the files" },
 *   { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "gAAAA…" },
 *   { type: "function_call", call_id: "call_1", name: "bash", arguments: "{\"cmd\":\"ls\"}" },
 *   { type: "function_call_output", call_id: "call_1", output: "README.md" }
 * ]
 * const decoded = Effect.runSync(OpenAiResponses.decode(input))
 * // the reasoning item and its call are one assistant message
 * assert.deepStrictEqual(decoded.transcript.map((message) => message.id), ["m0", "m1", "m2", "m4"])
 * const encoded = decoded.encode(decoded.transcript) as ReadonlyArray<unknown>
 * assert.deepStrictEqual(encoded, input)
 * assert.strictEqual(encoded[2], input[2])
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
 * @since 0.1.0
 * @category decoding
 */
export const decodeResult = (document: unknown): Compat.Result<Adapter.Decoded, Adapter.AdapterError> =>
  Steps.runSync(decodeSteps(document))

/**
 * {@link decode} as steps that pause every few items, for a caller that lets
 * the event loop run while a long document is decoded (`Cooperative.run`);
 * `decodeResult` runs them to the end.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeSteps = (
  document: unknown
): Steps.Steps<Compat.Result<Adapter.Decoded, Adapter.AdapterError>> => Codecs.decodeSteps(Codec.codec, document)

/**
 * Writes a view of a decoded document back as a Responses document of the
 * same shape (array or request body); a compacted block is a `user` message
 * of `input_text`.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encode = (decoded: Adapter.Decoded, view: Transcript.Transcript): unknown => decoded.encode(view)

/**
 * Whether a parsed document looks like a Responses input: a request body with
 * an `input` (and no `messages`), or an array of items, each a message of a
 * Responses role or a typed item, one of them with a type the API names
 * (`function_call`, `reasoning`, …) or Responses content parts (`input_text`,
 * `output_text`, …). A plain text chat is the chat format's.
 *
 * @since 0.1.0
 * @category detection
 */
export const detect: (document: unknown) => boolean = Codec.detect

/**
 * The OpenAI Responses adapter.
 *
 * @since 0.1.0
 * @category adapters
 */
export const adapter: Adapter.Adapter = { format: Codec.codec.format, detect, decode, decodeResult, decodeSteps }
